// Liveness over the whole archive: counts per state, a running sweep's
// progress bar (live events, with polling as the fallback), the latest checks.
// Live "checked" events can come every ~100 ms in a sweep (live.js), and the report
// walks every document on the daemon's store thread (~140 ms at 50k documents), so
// events reload it at most every REPORT_GAP_MS, one request at a time; the progress
// bar itself follows each "sweep" event at once.

import { count, fill, h, notice, pct, safeUrl, stateBadge, timeEl, toast } from '../dom.js';
import { decidingFigure } from './document.js';

const STATES = ['present', 'changed', 'gone', 'unreachable', 'too_large', 'unknown', 'unchecked'];
// States in which no content was judged: no P to show.
const UNJUDGED = ['unreachable', 'too_large', 'unknown'];
const LABELS = { unchecked: 'never checked', too_large: 'too large to check', unknown: 'nothing to compare' };
const REPORT_GAP_MS = 500;

function counts(c) {
  const total = STATES.reduce((n, s) => n + (c[s] || 0), 0) || 1;
  return h('div', { class: 'stat-grid', id: 'live-counts' }, STATES.map((s) =>
    h('div', { class: `stat state-card-${s}` },
      h('span', { class: 'stat-value', dataset: { state: s } }, count(c[s] || 0)),
      h('span', { class: 'stat-label' }, LABELS[s] ?? s),
      h('span', { class: 'stat-share' }, pct((c[s] || 0) / total)))));
}

function progress(sweep) {
  if (!sweep || (!sweep.running && !sweep.total)) return h('p', { class: 'muted' }, 'No sweep has run since the daemon started.');
  const done = sweep.done || 0;
  const total = sweep.total || 0;
  const label = sweep.running ? `Checking ${count(done)} of ${count(total)}…` : `Last sweep: ${count(done)} of ${count(total)} checked`;
  return h('div', { class: 'sweep' },
    h('label', { for: 'sweep-progress' }, label),
    h('progress', { id: 'sweep-progress', max: total || 1, value: done }, pct(total ? done / total : 0)),
    sweep.finished_at ? h('p', { class: 'muted' }, 'Finished ', timeEl(sweep.finished_at)) : null);
}

/** The reason without the URL it repeats ("cannot fetch : ConnectError: …"). */
function shortReason(r) {
  return r.reason.split(r.url).join('').replace(/\s+:/g, ':').replace(/\s+/g, ' ').trim();
}

/** The figure that decided a check, named on hover and for screen readers; '–' when none did. */
function figureCell(figure) {
  if (!figure) return h('td', { class: 'num' }, '–');
  return h('td', { class: 'num' }, h('abbr', { title: figure.label }, figure.short), ` ${pct(figure.value)}`);
}

function recentTable(rows) {
  if (!rows?.length) return notice('Nothing checked yet', 'Start a sweep, or use “Check now” on a document.');
  return h('table', { class: 'grid grid-checks' },
    h('caption', { class: 'sr-only' }, 'Latest liveness checks'),
    h('colgroup', {}, h('col'), h('col', { class: 'col-state' }), h('col', { class: 'col-p' }), h('col', { class: 'col-when' })),
    h('thead', {}, h('tr', {}, ['Page', 'State', 'Deciding figure', 'Checked'].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, rows.map((r) => h('tr', {},
      h('td', {}, h('a', { href: `#/doc/${encodeURIComponent(r.id)}` }, r.title || safeUrl(r.url)),
        h('div', { class: 'result-url' }, safeUrl(r.url))),
      h('td', {}, stateBadge(r.state), r.reason ? h('div', { class: 'muted reason', title: r.reason }, shortReason(r)) : null),
      figureCell(UNJUDGED.includes(r.state) ? null : decidingFigure(r)),
      h('td', { class: 'nowrap' }, timeEl(r.checked_at))))));
}

export function render(main, ctx) {
  const countsBox = h('div');
  // Focusable by script only: the disabled button cannot keep the focus while a sweep runs
  // (WCAG 2.4.3 focus order), so the progress takes it and gives it back at the end.
  const sweepBox = h('div', { role: 'status', 'aria-live': 'polite', id: 'sweep-status', tabindex: '-1' });
  const recentBox = h('div');
  const startBtn = h('button', { type: 'button', class: 'btn btn-primary', id: 'start-sweep' }, 'Check every document');
  let timer = null;
  let alive = true;
  let loading = false; // a report request in flight
  let again = false; // asked for while one was in flight
  let lastLoad = 0;
  let soonTimer = null;
  let holding = false; // the progress holds the focus the button had

  // The button again when the sweep is over, if the focus is still where the click put it.
  const giveBack = () => {
    if (!holding) return;
    holding = false;
    if (document.activeElement === sweepBox || document.activeElement === document.body) startBtn.focus();
  };

  const paint = (rep) => {
    fill(countsBox, counts(rep.counts || {}));
    fill(sweepBox, progress(rep.sweep));
    fill(recentBox, recentTable(rep.recent));
    startBtn.disabled = Boolean(rep.sweep?.running);
    if (!startBtn.disabled) giveBack();
    clearTimeout(timer);
    if (rep.sweep?.running && alive) timer = setTimeout(load, 1000);
  };

  const load = async () => {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    lastLoad = Date.now();
    try {
      paint(await ctx.api.call('liveness_report', { limit: 50 }));
    } catch (err) {
      fill(countsBox, notice('Could not load the report', err.message, 'error'));
    } finally {
      loading = false;
    }
    if (again && alive) {
      again = false;
      soon();
    }
  };

  // A reload for a live event: at most one per REPORT_GAP_MS.
  const soon = () => {
    if (soonTimer) return;
    soonTimer = setTimeout(() => {
      soonTimer = null;
      if (alive) load();
    }, Math.max(0, lastLoad + REPORT_GAP_MS - Date.now()));
  };

  startBtn.addEventListener('click', async () => {
    if (document.activeElement === startBtn) {
      holding = true;
      sweepBox.focus();
    }
    startBtn.disabled = true;
    try {
      await ctx.api.call('liveness_sweep', {});
      load();
    } catch (err) {
      toast(`Sweep not started: ${err.message}`);
      startBtn.disabled = false;
      giveBack();
    }
  });

  fill(main,
    h('section', { class: 'panel', 'aria-labelledby': 'live-report-h' },
      h('div', { class: 'panel-head' }, h('h1', { id: 'live-report-h' }, 'Liveness report'), startBtn),
      h('p', { class: 'muted' }, "Whether each document's live URL still holds the stored content (keywords of its main text, match degree P)."),
      countsBox, sweepBox),
    h('section', { class: 'panel', 'aria-labelledby': 'recent-h' }, h('h2', { id: 'recent-h' }, 'Latest checks'), recentBox));

  const off = ctx.api.onEvent((ev) => {
    if (ev?.event === 'sweep' && ev.data) fill(sweepBox, progress(ev.data));
    if (ev?.event === 'checked' || (ev?.event === 'sweep' && !ev.data?.running)) soon();
  });
  load();
  return () => { alive = false; clearTimeout(timer); clearTimeout(soonTimer); off(); };
}
