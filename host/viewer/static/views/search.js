// Search: URL pattern (* ?), case, sort (best match with a full text), full text, filters; results as you type,
// paged on the server (search_page), stale answers dropped by sequence number.

import { bytes, command, count, downloadBase64, fill, h, notice, safeUrl, stateBadge, timeEl, toast } from '../dom.js';
import { throttled } from '../live.js';
import { alertsCard } from './alerts.js';

const PAGE_SIZE = 50;
const LIVE_REFRESH_MS = 750; // live "registered" events re-run the search at most this often
const FIELDS = ['pattern', 'text', 'site', 'since', 'until', 'state', 'tag', 'sort', 'case'];

function readForm(form) {
  const data = new FormData(form);
  const get = (k) => String(data.get(k) || '').trim();
  return {
    pattern: get('pattern'), text: get('text'), site: get('site'), since: get('since'),
    until: get('until'), state: get('state'), tag: get('tag'), sort: get('sort') || 'time',
    case: data.get('case') ? '1' : '',
  };
}

/** "2026-03-01" -> the instant that local day starts (or, with `end`, its last ms) as ISO:
 * the list shows local times, so the date filter means local days, not UTC ones. */
export function localDay(date, end = false) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date || '');
  if (!m) return date || null; // not a date: the daemon says so
  const start = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + (end ? 1 : 0));
  return new Date(start.getTime() - (end ? 1 : 0)).toISOString();
}

/** Form values -> search_page params. */
export function toParams(values, page) {
  return {
    pattern: values.pattern || '*',
    case_sensitive: values.case === '1',
    sort: values.sort || 'time',
    text: values.text || null,
    site: values.site || null,
    since: localDay(values.since),
    until: localDay(values.until, true),
    state: values.state || null,
    tag: values.tag || null,
    offset: page * PAGE_SIZE,
    limit: PAGE_SIZE,
  };
}

function field(label, input, hint) {
  const id = input.id;
  return h('div', { class: 'field' }, h('label', { for: id }, label), input,
    hint ? h('small', { class: 'hint', id: `${id}-hint` }, hint) : null);
}

/** With a full text, results come best match first unless the user picked another order. */
export function defaultSort(values) {
  return values.text ? 'relevance' : 'time';
}

function buildForm(values) {
  const input = (name, attrs = {}) => h('input', { id: `q-${name}`, name, value: values[name] || '', autocomplete: 'off', ...attrs });
  const select = (name, options) => {
    const el = h('select', { id: `q-${name}`, name },
      options.map(([v, t]) => h('option', { value: v }, t)));
    el.value = values[name] || (name === 'sort' ? defaultSort(values) : options[0][0]);
    return el;
  };
  return h('form', { class: 'search-form', role: 'search', 'aria-label': 'Search the archive' },
    h('div', { class: 'search-main' },
      field('URL pattern', input('pattern', { type: 'search', placeholder: '*example.com/blog/*', spellcheck: 'false', 'aria-describedby': 'q-pattern-hint' }), '* any run of characters, ? one character'),
      field('Full text', input('text', { type: 'search', placeholder: 'words in the stored text' }))),
    h('details', { class: 'filters', open: values.site || values.since || values.until || values.state || values.tag ? true : null },
      h('summary', {}, 'Filters and sort'),
      h('div', { class: 'filter-row' },
        field('Site', input('site', { placeholder: 'example.com', spellcheck: 'false' })),
        field('From', input('since', { type: 'date' })),
        field('To', input('until', { type: 'date' })),
        field('Tag', input('tag', { placeholder: 'reading', spellcheck: 'false', list: 'q-tags' })),
        h('datalist', { id: 'q-tags' }),
        field('Liveness', select('state', [['', 'any'], ['present', 'present'], ['changed', 'changed'], ['gone', 'gone'], ['unreachable', 'unreachable'], ['too_large', 'too large to check'], ['unknown', 'nothing to compare'], ['unchecked', 'never checked']])),
        field('Sort by', select('sort', [['relevance', 'best match'], ['time', 'newest first'], ['url', 'URL']]), 'best match: the full text’s BM25 order'),
        h('div', { class: 'field field-check' },
          h('input', { id: 'q-case', name: 'case', type: 'checkbox', checked: values.case === '1' }),
          h('label', { for: 'q-case' }, 'Case-sensitive')))));
}

function resultRow(r) {
  const title = r.title || safeUrl(r.url);
  return h('li', { class: 'result' },
    h('a', { class: 'result-link', href: `#/doc/${encodeURIComponent(r.id)}` },
      h('span', { class: 'result-title' }, title),
      h('span', { class: 'result-url' }, safeUrl(r.url))),
    h('span', { class: 'result-meta' },
      stateBadge(r.state),
      h('span', { title: 'versions' }, `${count(r.versions ?? 1)} ${r.versions === 1 ? 'version' : 'versions'}`),
      r.size != null ? h('span', {}, bytes(r.size)) : null,
      timeEl(r.registered_at)),
    r.tags?.length ? h('span', { class: 'result-tags' }, r.tags.map(tagLink)) : null,
    r.snippet_text ? snippetEl(r.snippet_text, r.snippet_marks || []) : null);
}

/** The matched words of a snippet in <mark>, built as text nodes (never innerHTML). */
export function snippetEl(text, marks) {
  const parts = [];
  let at = 0;
  for (const [start, end] of marks) {
    if (start < at) continue;
    parts.push(text.slice(at, start), h('mark', {}, text.slice(start, end)));
    at = end;
  }
  parts.push(text.slice(at));
  return h('p', { class: 'result-snippet' }, parts);
}

/** A tag as a link to the search for it. */
export function tagLink(tag) {
  return h('a', { class: 'tag tag-link', href: `#/search?tag=${encodeURIComponent(tag)}` }, tag);
}

/** What an empty result says: an empty archive says how to fill it. */
function nothingFound(res, values) {
  if (res.documents === 0) {
    return notice('Your archive is empty',
      `Archive a page with the PageKeeper button in your browser's toolbar (“Archive this page”, or Alt+Shift+K), or run \`${command('archive add URL')}\` in a terminal. It shows up here at once.`);
  }
  return notice('Nothing found', `No stored page matches. Try ${loosening(values)}.`);
}

/**
 * What the user can loosen, of what they set: advice about a field they left empty cannot help.
 *   loosening({pattern: '', text: 'river flood'}) → 'fewer or other words (a page must hold every word)'
 */
export function loosening(values) {
  const ways = [];
  if (values.text) ways.push('fewer or other words (a page must hold every word)');
  if (values.pattern && values.pattern !== '*') ways.push('a shorter URL pattern, with * for any run of characters');
  if (values.site || values.since || values.until || values.state || values.tag) ways.push('fewer filters');
  if (!ways.length) return 'another search';
  return ways.length === 1 ? ways[0] : `${ways.slice(0, -1).join(', ')} or ${ways.at(-1)}`;
}

function pager(res, page, goPage) {
  const first = res.total ? res.offset + 1 : 0;
  const last = res.offset + res.results.length;
  const pages = Math.max(1, Math.ceil(res.total / PAGE_SIZE));
  return h('nav', { class: 'pager', 'aria-label': 'Result pages' },
    h('button', { type: 'button', class: 'btn', disabled: page === 0, onclick: () => goPage(page - 1) }, '← Previous'),
    h('span', { class: 'pager-info' }, `${count(first)}–${count(last)} of ${count(res.total)} · page ${count(page + 1)} of ${count(pages)}`),
    h('button', { type: 'button', class: 'btn', disabled: last >= res.total, onclick: () => goPage(page + 1) }, 'Next →'));
}

function moveFocus(list, ev) {
  const links = [...list.querySelectorAll('.result-link')];
  const i = links.indexOf(document.activeElement);
  if (ev.key === 'ArrowDown' && i < links.length - 1) links[i + 1].focus();
  else if (ev.key === 'ArrowUp' && i > 0) links[i - 1].focus();
  else if (ev.key === 'ArrowUp' && i === 0) document.getElementById('q-pattern').focus();
  else return;
  ev.preventDefault();
}

export function render(main, ctx, route) {
  const values = Object.fromEntries(FIELDS.map((k) => [k, route.query.get(k) || '']));
  let page = Number(route.query.get('page') || 0) || 0;
  const form = buildForm(values);
  const status = h('p', { class: 'search-status', role: 'status', 'aria-live': 'polite' });
  const list = h('ol', { class: 'results', 'aria-label': 'Results' });
  const paging = h('div');
  const exportBtn = h('button', { type: 'button', class: 'btn btn-quiet', disabled: true }, 'Export results as WARC');
  let seq = 0;
  let last = null;

  const remember = (v) => {
    const q = new URLSearchParams();
    for (const k of FIELDS) if (v[k] && !(k === 'sort' && v[k] === defaultSort(v))) q.set(k, v[k]);
    if (page) q.set('page', String(page));
    const s = q.toString();
    history.replaceState(null, '', `#/search${s ? `?${s}` : ''}`);
  };

  // Latest wins, one request in flight: a keystroke sends at once when the socket is
  // idle; keystrokes during a request leave one follow-up with the form as it is then.
  // (No debounce: results must follow a keystroke within 100 ms; a 120 ms debounce alone breaks that.)
  let inFlight = false;
  let again = false;
  let pastEnd = null;

  const once = async () => {
    const v = readForm(form);
    remember(v);
    const mine = ++seq;
    main.setAttribute('aria-busy', 'true');
    try {
      const res = await ctx.api.call('search_page', toParams(v, page));
      if (mine !== seq) return;
      if (!res.results.length && res.total && page > 0) {
        // past the end (an old link, fewer results now): show the last page and say so
        pastEnd = `There is no page ${count(page + 1)}: showing the last one.`;
        page = Math.max(0, Math.ceil(res.total / PAGE_SIZE) - 1);
        again = true;
        return;
      }
      last = { params: toParams(v, page), res };
      show(res, pastEnd, v);
      pastEnd = null;
    } catch (err) {
      if (mine !== seq) return;
      last = null;
      fill(list);
      fill(paging);
      exportBtn.disabled = true;
      fill(status, notice(err.code === 'invalid_input' ? "That pattern can't be searched" : 'Search failed', err.message, 'error'));
    } finally {
      if (mine === seq) main.removeAttribute('aria-busy');
    }
  };

  const run = async () => {
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = true;
    try {
      do {
        again = false;
        await once();
      } while (again);
    } finally {
      inFlight = false;
    }
  };

  const show = (res, note, values) => {
    const took = res.took_ms != null ? ` in ${res.took_ms < 10 ? res.took_ms.toFixed(1) : Math.round(res.took_ms)} ms` : '';
    fill(status, res.total
      ? [`${count(res.total)} ${res.total === 1 ? 'document' : 'documents'}${took}`, note ? ` · ${note}` : '']
      : nothingFound(res, values));
    const links = [...list.querySelectorAll('.result-link')];
    const focused = links.indexOf(document.activeElement);
    // The pager is rebuilt below, and the focus would go with its old button: a new page
    // starts at its first result.
    const paged = paging.contains(document.activeElement);
    fill(list, res.results.map(resultRow));
    if (paged) list.querySelector('.result-link')?.focus();
    else if (focused >= 0) list.querySelectorAll('.result-link')[Math.min(focused, res.results.length - 1)]?.focus();
    fill(paging, res.total > PAGE_SIZE ? pager(res, page, goPage) : null);
    exportBtn.disabled = !res.total;
  };

  const goPage = (p) => {
    page = Math.max(0, p);
    run();
    list.scrollIntoView({ block: 'start' });
  };

  const typed = () => { page = 0; run(); };
  let sortChosen = Boolean(values.sort);
  form.addEventListener('input', (ev) => {
    if (ev.target.name === 'sort') sortChosen = true;
    else if (ev.target.name === 'text' && !sortChosen) form.elements.sort.value = defaultSort(readForm(form));
    typed();
  });
  // "input" already covers typing; "change" also fires when a text field loses focus.
  form.addEventListener('change', (ev) => { if (ev.target.type !== 'search' && ev.target.type !== 'text') typed(); });
  form.addEventListener('submit', (ev) => { ev.preventDefault(); page = 0; run(); });
  form.addEventListener('keydown', (ev) => {
    if (ev.key === 'ArrowDown' && ev.target.type === 'search') {
      const firstLink = list.querySelector('.result-link');
      if (firstLink) { ev.preventDefault(); firstLink.focus(); }
    }
  });
  list.addEventListener('keydown', (ev) => moveFocus(list, ev));
  exportBtn.addEventListener('click', () => exportResults(ctx, last, exportBtn));

  fill(main,
    route.samePage ? null : alertsCard(ctx),
    h('section', { class: 'panel', 'aria-labelledby': 'search-h' },
      h('div', { class: 'panel-head' },
        h('h1', { id: 'search-h' }, 'Search the archive'),
        exportBtn),
      form),
    h('section', { class: 'panel results-panel', 'aria-label': 'Search results' }, status, list, paging));

  const slash = (ev) => {
    if (ev.key === '/' && !/input|textarea|select/i.test(document.activeElement?.tagName || '')) {
      ev.preventDefault();
      document.getElementById('q-pattern').focus();
    }
  };
  document.addEventListener('keydown', slash);
  const refresh = throttled(run, LIVE_REFRESH_MS);
  const off = ctx.api.onEvent((ev) => { if (ev?.event === 'registered') refresh(); }); // same page: no jump to page 1
  ctx.api.call('archive_tags', {})
    .then((res) => fill(form.querySelector('#q-tags'), res.tags.map((t) => h('option', { value: t.tag }, `${t.tag} (${count(t.documents)})`))))
    .catch(() => {}); // suggestions only: the filter works without them
  if (!route.samePage) document.getElementById('q-pattern').focus();
  run();
  return () => { document.removeEventListener('keydown', slash); off(); };
}

async function exportResults(ctx, last, btn) {
  if (!last) return;
  btn.disabled = true;
  try {
    const params = { ...last.params, offset: 0, limit: null };
    const res = await ctx.api.call('export_warc', { search: params });
    downloadBase64(res.content_b64, res.filename);
    toast(`Exported ${count(res.records)} records from ${count(res.versions)} versions (${bytes(res.bytes)})`, 'ok');
  } catch (err) {
    toast(`Export failed: ${err.message}`);
  } finally {
    btn.disabled = false;
  }
}
