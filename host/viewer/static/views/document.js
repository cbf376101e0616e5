// A document: liveness card with "check now", the versions timeline, the
// selected version in a sandboxed frame (rewritten or original), similar pages,
// and a compare form leading to the diff view.

import { deleteWithUndo } from '../trash.js';
import { tagLink } from './search.js';
import { bar, bytes, count, downloadBase64, fill, focusMark, h, notice, pct, placeEl, placeText, restoreFocus, retype, safeUrl, sameMinute, shortWhen, stateBadge, timeEl, toast, typedText, versionName } from '../dom.js';

const MODES = ['rewritten', 'original'];

// What decided a verdict (the engine's `decided_by`), named where its figure is shown: the state
// stands beside the figure that decided it, never beside one that did not.
const DECIDED_BY = {
  keywords: ['Keywords found (P)', 'P'],
  phrases: ["Stored text's phrases found", 'S'],
  shown: ['Live text the stored page showed', 'shown'],
  address: ['Stored page shown at the new address', 'address'],
};

/** The figure that decided a check, with its name (and a short one for a table); null when none
 * did (a status): a check stored before `decided_by` existed was decided by P. */
export function decidingFigure(l) {
  const [by, value] = l?.decided_by ? [l.decided_by, l.figure] : ['keywords', l?.match];
  if (!(by in DECIDED_BY) || typeof value !== 'number') return null;
  const [label, short] = DECIDED_BY[by];
  return { label, short, value };
}

const figureText = (figure) => (figure ? ` (${figure.label}: ${pct(figure.value)})` : '');

// An unreachable server (refused, timeout, DNS, 5xx), a live page over the size cap, or a stored copy
// with no main text judged no keyword: no P, no keyword list.
function livenessCard(doc, onCheck) {
  const l = doc.liveness;
  const judged = l && !['unreachable', 'too_large', 'unknown'].includes(l.state);
  const figure = judged ? decidingFigure(l) : null;
  const btn = h('button', { type: 'button', class: 'btn btn-primary', id: 'check-now' }, 'Check now');
  btn.addEventListener('click', () => onCheck(btn));
  return h('section', { class: 'card liveness-card', 'aria-labelledby': 'live-h' },
    h('h2', { id: 'live-h' }, 'Is it still there?'),
    h('div', { class: 'live-row' },
      h('span', { class: 'live-state', id: 'live-state' }, stateBadge(l?.state)),
      figure ? h('span', { class: 'live-figure', id: 'live-figure' }, h('span', { class: 'muted small' }, `${figure.label} `), bar(figure.value, figure.label)) : null,
      btn),
    h('p', { class: 'muted' },
      l ? ['Last checked ', timeEl(l.checked_at), l.reason ? ` · ${l.reason}` : ''] : "Never checked: “Check now” fetches the live page and looks for this page's keywords."),
    judged && l.missing?.length ? h('p', { class: 'muted keywords' }, 'Missing: ', l.missing.slice(0, 12).join(', ')) : null);
}

function tagsCard(doc, ctx, reload) {
  const input = h('input', { id: 'tag-input', name: 'tag', autocomplete: 'off', placeholder: 'add a tag', 'aria-describedby': 'tag-hint' });
  const form = h('form', { class: 'tag-form' },
    h('label', { for: 'tag-input', class: 'visually-hidden' }, 'Add a tag'), input,
    h('button', { type: 'submit', class: 'btn btn-small' }, 'Add'));
  const change = async (params) => {
    try {
      await ctx.api.call('archive_tag', { ref: doc.versions[0].id, ...params });
      const field = document.getElementById('tag-input');  // the rebuilt one, if a paint came
      if (field && params.add?.includes(field.value)) field.value = '';  // saved: empty for the next
      await reload();
      document.getElementById('tag-input')?.focus();
    } catch (err) {
      toast(`Tag not saved: ${err.message}`);
    }
  };
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (input.value.trim()) change({ add: [input.value] });
  });
  const alertBox = h('input', { type: 'checkbox', id: 'doc-alerts', checked: doc.alerts ? true : null });
  alertBox.addEventListener('change', async () => {
    try {
      const res = await ctx.api.call('alerts_set', { ref: doc.versions[0].id, on: alertBox.checked });
      toast(res.alerts ? 'You will be told when this page changes or goes away.' : 'No alerts for this page.', 'ok');
    } catch (err) {
      alertBox.checked = !alertBox.checked;
      toast(`Not saved: ${err.message}`);
    }
  });
  return h('section', { class: 'card', 'aria-labelledby': 'tags-h' },
    h('h2', { id: 'tags-h' }, 'Tags'),
    h('p', { class: 'field-check' }, alertBox, h('label', { for: 'doc-alerts' }, ' Alert me when this page changes or goes away')),
    h('ul', { class: 'tag-list', id: 'tag-list', 'aria-label': 'Tags of this page' }, (doc.tags || []).map((t) => h('li', {},
      tagLink(t),
      h('button', { type: 'button', class: 'tag-remove', 'aria-label': `Remove the tag ${t}`, onclick: () => change({ remove: [t] }) }, '×')))),
    (doc.tags || []).length ? null : h('p', { class: 'muted', id: 'tag-hint' }, 'No tags yet. Tags belong to the page, all its versions.'),
    form);
}

/** The versions whose note editor is open inside `root` (a rebuild opens them again: noteBox). */
function openNotes(root) {
  return new Set([...root.querySelectorAll('textarea[data-note-draft]')].map((el) => el.dataset.noteDraft));
}

/** A version's note, and its editor; `open`: built with the editor open (as it was before a
 * rebuild; the draft typed in it is put back by id: dom.js retype). */
function noteBox(v, ctx, reload, open = false, name = versionName) {
  const box = h('div', { class: 'version-note' });
  const view = () => fill(box,
    v.note ? h('p', { class: 'note-text', dataset: { note: v.id } }, v.note) : null,
    h('button', { type: 'button', class: 'btn btn-small btn-quiet', dataset: { noteEdit: v.id }, onclick: edit }, v.note ? 'Edit note' : 'Add a note'));
  const edit = () => {
    const area = h('textarea', { id: `note-${v.id}`, rows: 3, 'aria-label': `Note on the version of ${name(v)}`, dataset: { noteDraft: v.id } }, v.note || '');
    const save = async (ev) => {
      ev.preventDefault();
      try {
        await ctx.api.call('archive_note', { ref: v.id, text: area.value });
        v.note = area.value;
        view(); // saved: the editor closes, so the rebuild does not open it again
        await reload();
      } catch (err) {
        toast(`Note not saved: ${err.message}`);
      }
    };
    fill(box, h('form', { class: 'note-form', onsubmit: save }, area,
      h('div', {}, h('button', { type: 'submit', class: 'btn btn-small btn-primary' }, 'Save note'),
        h('button', { type: 'button', class: 'btn btn-small btn-quiet', onclick: view }, 'Cancel'))));
    area.focus(); // opened by a rebuild, the box is not in the page yet: no focus taken
  };
  if (open) edit();
  else view();
  return box;
}

/** Version ``id`` of the timeline (the one a revisit repeats). */
function versionOf(versions, id) {
  return versions.find((x) => x.id === id);
}

/** Names the versions of one timeline in words: to the second where two share a minute, with
 * the place where two share a second (dom.js versionName). */
export function namer(versions) {
  const seconds = sameMinute(versions.map((x) => x.registered_at));
  return (v) => (v ? versionName(v, seconds(v.registered_at)) : '–');
}

function versionRow(v, i, versions, sel, onSelect, onDelete, ctx, reload, notes) {
  const prev = versions[i + 1];
  const selected = v.id === sel.id;
  const name = namer(versions);
  return h('li', { class: `version${selected ? ' is-selected' : ''}`, dataset: { id: v.id } },
    h('span', { class: 'version-dot', 'aria-hidden': 'true' }),
    h('div', { class: 'version-body' },
      h('div', { class: 'version-when' }, timeEl(v.registered_at, sameMinute(versions.map((x) => x.registered_at))(v.registered_at)), placeEl(v),
        i === 0 ? h('span', { class: 'tag' }, 'latest') : null,
        v.revisit_of ? h('span', { class: 'tag tag-revisit', dataset: { revisitOf: v.revisit_of } }, 'seen again, unchanged') : null,
        selected ? h('span', { class: 'tag tag-sel' }, 'shown') : null),
      h('div', { class: 'version-meta' },
        h('span', {}, bytes(v.size)),
        v.revisit_of ? h('span', { class: 'muted' }, `same page and resources as the version of ${name(versionOf(versions, v.revisit_of))}, stored once`)
          : prev ? bar(v.similarity_prev, `Similarity to the version of ${name(prev)}`) : h('span', { class: 'muted' }, 'first version')),
      h('div', { class: 'version-actions' },
        MODES.map((mode) => h('button', {
          type: 'button', class: 'btn btn-small', 'aria-pressed': selected && sel.mode === mode ? 'true' : 'false',
          onclick: () => onSelect(v.id, mode), dataset: { mode, version: v.id },
        }, mode === 'rewritten' ? 'Rewritten' : 'Original')),
        prev ? h('a', { class: 'btn btn-small btn-quiet', href: `#/diff/${encodeURIComponent(prev.id)}/${encodeURIComponent(v.id)}` }, 'Diff with previous') : null,
        deleteButton(v, versions, onDelete, name)),
      noteBox(v, ctx, reload, notes.has(v.id), name)));
}

/** A version's Delete button; it says so when the version's unchanged re-captures go with it. */
function deleteButton(v, versions, onDelete, name) {
  const again = revisitsOf(versions, v.id).length;
  const also = again ? ` and its ${count(again)} unchanged re-capture${again === 1 ? '' : 's'}` : '';
  return h('button', {
    type: 'button', class: 'btn btn-small btn-quiet btn-danger', dataset: { delete: v.id },
    'aria-label': `Delete the version of ${name(v)}${also}`, onclick: (ev) => onDelete(v.id, ev.currentTarget),
  }, again ? `Delete (+${count(again)} seen again)` : 'Delete');
}

/** The captures that repeat version ``id`` ("seen again"): deleting it deletes them too. */
function revisitsOf(versions, id) {
  return versions.filter((v) => v.revisit_of === id);
}

// Other pages only: the daemon leaves this document's own versions out (they are under Versions).
function similarList(items) {
  if (!items?.length) return h('p', { class: 'muted' }, 'No similar pages on this site yet.');
  return h('ol', { class: 'similar', 'aria-label': 'Similar pages' }, items.map((s) =>
    h('li', {},
      h('a', { href: `#/doc/${encodeURIComponent(s.id)}`, class: 'similar-link' },
        h('span', { class: 'result-title' }, s.title || safeUrl(s.url)),
        h('span', { class: 'result-url' }, safeUrl(s.url))),
      h('div', { class: 'similar-bars' },
        h('span', { class: 'bar-label' }, 'structure'), bar(s.similarity, `Structure similarity to ${safeUrl(s.url)}`),
        h('span', { class: 'bar-label' }, 'content'), bar(s.content_similarity, `Content similarity to ${safeUrl(s.url)}`)))));
}

function compareForm(doc, ctx, sel) {
  const seconds = sameMinute(doc.versions.map((v) => v.registered_at));
  const options = doc.versions.map((v) => h('option', { value: v.id }, [shortWhen(v.registered_at, seconds(v.registered_at)), placeText(v)].filter(Boolean).join(' · ')));
  const a = h('select', { id: 'cmp-a', name: 'a' }, options.map((o) => o.cloneNode(true)));
  const b = h('select', { id: 'cmp-b', name: 'b' }, options);
  a.value = doc.versions[Math.min(1, doc.versions.length - 1)].id;
  b.value = sel.id === a.value ? doc.versions[0].id : sel.id;
  const form = h('form', { class: 'compare' },
    h('div', { class: 'field' }, h('label', { for: 'cmp-a' }, 'Compare'), a),
    h('div', { class: 'field' }, h('label', { for: 'cmp-b' }, 'with'), b),
    h('button', { class: 'btn', type: 'submit' }, 'Show diff'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    ctx.go(`#/diff/${encodeURIComponent(a.value)}/${encodeURIComponent(b.value)}`);
  });
  return form;
}

function frameBox(version, mode, ctx, name) {
  const src = mode === 'original' ? version.original_view_url : version.view_url;
  const exportBtn = h('button', { type: 'button', class: 'btn btn-small btn-quiet' }, 'Export WARC');
  exportBtn.addEventListener('click', () => exportVersion(ctx, version.id, exportBtn));
  return h('section', { class: 'card frame-card', id: 'frame-card', 'aria-labelledby': 'frame-h' },
    h('div', { class: 'frame-bar' },
      h('h2', { id: 'frame-h', tabindex: '-1' }, mode === 'original' ? 'Original copy' : 'Rewritten copy',
        h('span', { class: 'muted' }, ' · ', name(version))),
      h('div', { class: 'frame-actions' },
        h('a', { class: 'btn btn-small btn-quiet', href: src, target: '_blank', rel: 'noopener noreferrer' }, 'Open in new tab'),
        exportBtn)),
    // The daemon also sends a CSP sandbox for /v/…; this attribute is the second lock.
    h('iframe', { class: 'frame', id: 'version-frame', src, title: `${mode} copy of ${safeUrl(version.url)} from ${name(version)}`, sandbox: 'allow-popups allow-popups-to-escape-sandbox', referrerpolicy: 'no-referrer', loading: 'lazy' }));
}

async function exportVersion(ctx, id, btn) {
  btn.disabled = true;
  try {
    const res = await ctx.api.call('export_warc', { ids: [id] });
    downloadBase64(res.content_b64, res.filename);
    toast(`Exported ${count(res.records)} WARC records (${bytes(res.bytes)})`, 'ok');
  } catch (err) {
    toast(`Export failed: ${err.message}`);
  } finally {
    btn.disabled = false;
  }
}

/** Go to `hash`, rendering it again when it is already the address. */
function show(hash) {
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = hash;
}

// What the version's copy uses: each captured resource with its size, the missing ones
// with the reason (version_resources, paged so a reply stays under the 1 MB cap).
const RESOURCE_PAGE = 200;

// Why a resource is missing, in words (the manifest's statuses: engine/archive/resources.py).
const MISSING = {
  not_received: 'not captured with the page',
  too_large: 'over the size cap for one file',
  over_page_cap: 'over the size cap for the whole page',
  truncated: 'cut off while it was sent',
  digest_mismatch: 'its bytes did not match what the capture announced',
  timeout: 'took too long to load',
  failed: 'could not be read',
};

/** 'http_404' → 'the site answered HTTP 404'; an unknown status is shown as it is. */
export function missingReason(status) {
  const http = /^http_(\d{3})$/.exec(status ?? '');
  return http ? `the site answered HTTP ${http[1]}` : (MISSING[status] ?? String(status));
}

function resourceItem(r) {
  const label = h('span', { class: 'res-url', title: r.url }, r.url);
  return h('li', { class: r.status === 'stored' ? 'res-stored' : 'res-missing', 'data-status': r.status },
    label, ' ', h('span', { class: 'muted' },
      r.status === 'stored' ? `${r.type || 'resource'} · ${bytes(r.size)}` : `missing: ${missingReason(r.status)}`));
}

function resourcesCard(version, ctx) {
  const body = h('div', { role: 'status' }, h('p', { class: 'muted' }, 'Loading resources…'));
  // Focusable, so the scrolled list can be read from the keyboard (WCAG 2.1.1).
  const list = h('ul', { class: 'res-list', 'aria-label': 'Captured resources', tabindex: '0' });
  let offset = 0;
  const more = h('button', { type: 'button', class: 'btn btn-small btn-quiet', hidden: true }, 'Show more');
  const page = async () => {
    try {
      const res = await ctx.api.call('version_resources', { id: version.id, offset, limit: RESOURCE_PAGE });
      if (offset === 0) {
        fill(body, h('p', {}, res.total
          ? `${count(res.stored)} stored (${bytes(res.bytes_total)}), ${count(res.missing)} missing`
          : 'No resources were captured with this version.'));
      }
      res.resources.forEach((r) => list.append(resourceItem(r)));
      offset += res.resources.length;
      more.hidden = offset >= res.total;
    } catch (err) {
      fill(body, notice('Could not list the resources', err.message, 'error', 'h3'));
    }
  };
  more.addEventListener('click', page);
  page();
  return h('section', { class: 'card', 'aria-labelledby': 'resources-h', id: 'resources-card' },
    h('h2', { id: 'resources-h' }, 'Captured resources'), body, list, more);
}

/** On a narrow window the copy comes under every card: a control at the top takes the reader
 * (and the keyboard's focus) to it. Shown under 900 px only, where the cards stack. */
function jumpToCopy() {
  const go = () => {
    const card = document.getElementById('frame-card');
    if (!card) return;
    card.scrollIntoView({ block: 'start' });
    document.getElementById('frame-h')?.focus({ preventScroll: true });
  };
  return h('p', { class: 'jump-copy' },
    h('button', { type: 'button', class: 'btn btn-small', id: 'jump-copy', onclick: go }, 'Go to the copy ↓'));
}

function header(doc, onDelete) {
  return h('div', { class: 'doc-head' },
    h('div', { class: 'doc-head-bar' },
      h('a', { class: 'back', href: '#/search' }, '← Search'),
      h('button', { type: 'button', class: 'btn btn-small btn-danger', id: 'delete-doc', onclick: (ev) => onDelete(ev.currentTarget) },
        doc.versions.length === 1 ? 'Delete this page' : `Delete this page (${count(doc.versions.length)} versions)`)),
    h('h1', { id: 'doc-h' }, doc.title || safeUrl(doc.url)),
    jumpToCopy(),
    h('p', { class: 'doc-url' }, h('a', { href: safeUrl(doc.url), target: '_blank', rel: 'noopener noreferrer' }, safeUrl(doc.url))),
    h('p', { class: 'muted' }, `${count(doc.versions.length)} ${doc.versions.length === 1 ? 'version' : 'versions'} · key `, h('code', {}, doc.key || '')));
}

export function render(main, ctx, route) {
  const id = route.args[0];
  let doc = null;
  const state = { id: route.query.get('v') || id, mode: MODES.includes(route.query.get('mode')) ? route.query.get('mode') : 'rewritten' };
  fill(main, h('p', { class: 'loading', role: 'status' }, 'Loading document…'));

  const select = (vid, mode) => {
    state.id = vid;
    state.mode = mode;
    history.replaceState(null, '', `#/doc/${encodeURIComponent(id)}?v=${encodeURIComponent(vid)}&mode=${mode}`);
    load();
  };

  let busy = false;
  const check = async (btn) => {
    busy = true;
    focused = focusMark(main);
    btn.disabled = true;
    btn.textContent = 'Checking…';
    try {
      const verdict = await ctx.api.call('check', { id: doc.versions[0].id });
      const unjudged = { unreachable: 'Live page unreachable', too_large: 'Live page too large to check', unknown: 'Nothing to compare' }[verdict.state];
      toast(unjudged
        ? `${unjudged}: ${verdict.reason}`
        : `Live page: ${verdict.state ?? 'checked'}${figureText(decidingFigure(verdict))}`, 'ok');
      await load();
    } catch (err) {
      toast(`Check failed: ${err.message}`);
      btn.disabled = false;
      btn.textContent = 'Check now';
    } finally {
      busy = false;
    }
  };

  // After a deletion the document is shown without it (or, when nothing is left, the
  // search); Undo brings the reader back to what was deleted.
  const removeVersion = (vid, btn) => {
    btn.disabled = true;
    const gone = new Set([vid, ...revisitsOf(doc.versions, vid).map((v) => v.id)]);
    const rest = doc.versions.filter((v) => !gone.has(v.id));
    deleteWithUndo(ctx, { ref: vid }, {
      afterDelete: () => show(rest.length ? `#/doc/${encodeURIComponent(gone.has(id) ? rest[0].id : id)}` : '#/search'),
      afterUndo: () => show(`#/doc/${encodeURIComponent(vid)}`),
    }).then((res) => { if (!res) btn.disabled = false; });
  };
  const removeDocument = (btn) => {
    btn.disabled = true;
    deleteWithUndo(ctx, { ref: doc.versions[0].id, document: true }, {
      afterDelete: () => show('#/search'),
      afterUndo: () => show(`#/doc/${encodeURIComponent(id)}`),
    }).then((res) => { if (!res) btn.disabled = false; });
  };

  // The view is rebuilt after every action, and when a version's data arrives: the focus stays
  // on the control the user used, and what they typed meanwhile (a tag, a note's draft in its
  // open editor) stays typed.
  let focused = null;
  const paint = () => {
    const version = doc.versions.find((v) => v.id === state.id) || doc.versions[0];
    state.id = version.id;
    const mark = focusMark(main) ?? focused;
    const typed = typedText(main);
    const notes = openNotes(main);
    focused = null;
    fill(main,
      header(doc, removeDocument),
      h('div', { class: 'doc-grid' },
        h('div', { class: 'doc-side' },
          livenessCard(doc, check),
          tagsCard(doc, ctx, load),
          h('section', { class: 'card', 'aria-labelledby': 'versions-h' },
            h('h2', { id: 'versions-h' }, 'Versions'),
            h('ol', { class: 'timeline', 'aria-label': 'Versions, newest first' },
              doc.versions.map((v, i) => versionRow(v, i, doc.versions, state, select, removeVersion, ctx, load, notes))),
            doc.versions.length > 1 ? compareForm(doc, ctx, state) : null),
          h('section', { class: 'card', 'aria-labelledby': 'similar-h' },
            h('h2', { id: 'similar-h' }, 'Similar pages'), similarList(doc.similar)),
          resourcesCard(version, ctx)),
        frameBox(version, state.mode, ctx, namer(doc.versions))));
    retype(main, typed);
    restoreFocus(main, mark);
  };

  const load = async () => {
    try {
      doc = await ctx.api.call('document', { id, version: state.id });
      paint();
    } catch (err) {
      fill(main, h('a', { class: 'back', href: '#/search' }, '← Search'),
        err.code === 'not_found'
          ? notice('No such document', `Nothing in the archive has the ID “${id}”. It may have been deleted, or the link is mistyped.`, 'error', 'h1')
          : notice('Could not load the document', err.message, 'error', 'h1'));
    }
  };

  const off = ctx.api.onEvent((ev) => {
    if (!doc) return;
    if (ev?.event !== 'registered' && ev?.event !== 'checked') return;
    const d = ev.data || {};
    const about = d.key || d.url || d.id;
    const same = !about || d.key === doc.key || d.url === doc.url || doc.versions.some((v) => v.id === d.id);
    if (same && !busy) load();
  });
  load();
  return off;
}
