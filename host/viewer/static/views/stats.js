// The archive as a whole: documents, versions, storage used, dedup savings;
// WARC import.

import { bytes, count, fileToBase64, fill, h, notice, pct, safeUrl, toast, when } from '../dom.js';
import { throttled } from '../live.js';
import { deletedText, undo } from '../trash.js';

function stat(value, label, id, note) {
  return h('div', { class: 'stat' }, h('span', { class: 'stat-value', id }, value), h('span', { class: 'stat-label' }, label),
    note ? h('span', { class: 'stat-share' }, note) : null);
}

/** 0.0025 -> "under 1%" (not a "0%" next to a non-zero saving), 0.43 -> "43%" */
function share(x) {
  return x > 0 && x < 0.005 ? 'under 1%' : pct(x);
}

/**
 * The pages and their resources as captured, then each kept once: the same bytes before and
 * after dedup, as `pagekeeper archive stats` says them. The files on disk (also each version's
 * rewritten copy and extracts) are another measure, compressed, and the note says so: without
 * it, fewer bytes on disk than kept after dedup read as a contradiction.
 *   {original_bytes: 56000, dedup_saved_bytes: 20000, resource_bytes: 8000,
 *    resource_unique_bytes: 5000} -> {captured: 64000, kept: 41000}
 */
function likeForLike(s) {
  const pages = s.original_bytes ?? 0;
  return {
    captured: pages + (s.resource_bytes ?? 0),
    kept: pages - (s.dedup_saved_bytes ?? 0) + (s.resource_unique_bytes ?? 0),
  };
}

// what an empty archive may still hold, by its field (as `pagekeeper archive stats` names them)
const HELD = [['records', 'storage_bytes'], ['full-text index', 'index_bytes'],
  ['captures still receiving resources', 'pending_bytes']];

/** The storage card's note: the bytes as captured, then on disk: the pages' files, with the
 * records, and all the archive takes; an archive with no version says what still takes room. */
function storageNote(s, captured) {
  if (!s.versions) {
    const held = HELD.filter(([, field]) => s[field]).map(([name]) => name);
    if (!held.length) return 'empty archive: no pages archived yet';
    return `empty archive: no pages archived; its ${held.join(' and ')} ${held.length > 1 ? 'take' : 'takes'} ` +
      `${bytes(s.archive_bytes)} on disk`;
  }
  return `${bytes(captured)} of pages and resources captured · ${bytes(s.blob_bytes ?? 0)} on disk, compressed, with copies and extracts` +
    ` · ${bytes(s.storage_bytes)} with the records · ${bytes(s.archive_bytes)} in all, with the full-text index`;
}

function statsGrid(s) {
  const saved = s.dedup_saved_bytes ?? 0;
  const logical = (s.storage_bytes ?? 0) + saved;
  const { captured, kept } = likeForLike(s);
  return h('div', { class: 'stat-grid' },
    stat(count(s.documents), 'documents', 'stat-documents'),
    stat(count(s.versions), 'versions', 'stat-versions'),
    stat(bytes(kept), 'kept after dedup', 'stat-storage', storageNote(s, captured)),
    stat(bytes(saved), 'saved by dedup', 'stat-dedup',
      logical ? `identical copies stored once (${share(saved / (s.original_bytes || logical))} of the pages)` : null),
    stat(bytes(s.resource_dedup_saved_bytes ?? 0), 'resources saved by dedup', 'stat-resource-dedup',
      s.resource_bytes ? `${bytes(s.resource_bytes)} of stylesheets, images and fonts captured, ` +
        `${bytes(s.resource_unique_bytes)} stored (${share((s.resource_dedup_saved_bytes ?? 0) / s.resource_bytes)} saved)` : null));
}

function importForm(ctx, onDone) {
  const file = h('input', { type: 'file', id: 'warc-file', name: 'warc', accept: '.warc,.warc.gz,.wacz,.html,application/warc', required: true });
  const result = h('div', { role: 'status', 'aria-live': 'polite' });
  const btn = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Import');
  const form = h('form', { class: 'import-form' },
    h('div', { class: 'field' }, h('label', { for: 'warc-file' }, 'WARC file (.warc or .warc.gz)'), file),
    btn, result);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const f = file.files[0];
    if (!f) return;
    btn.disabled = true;
    fill(result, h('p', { class: 'muted' }, `Importing ${f.name}…`));
    try {
      const res = await ctx.api.call('import_warc', { filename: f.name, content_b64: await fileToBase64(f) });
      fill(result, notice(`Imported ${count(res.imported)} ${res.imported === 1 ? 'page' : 'pages'}`,
        `${count(res.skipped)} records skipped (not HTML responses).`));
      toast(`Imported ${count(res.imported)} pages from ${f.name}`, 'ok');
      onDone();
    } catch (err) {
      fill(result, notice('Import failed', err.message, 'error'));
    } finally {
      btn.disabled = false;
    }
  });
  return form;
}

function trashList(pending, ctx, reload) {
  if (!pending.length) return h('p', { class: 'muted', id: 'trash-empty' }, 'Nothing deleted in the last 10 minutes.');
  return h('ul', { class: 'trash-list', id: 'trash-list' }, pending.map((p) => {
    const btn = h('button', { type: 'button', class: 'btn btn-small', dataset: { undo: p.undo } }, 'Undo');
    btn.addEventListener('click', () => {
      btn.disabled = true;
      undo(ctx, p.undo, reload);
    });
    return h('li', {},
      h('span', { class: 'result-title' }, p.title || safeUrl(p.url)),
      h('span', { class: 'muted' }, `${deletedText(p.deleted)} · deleted ${when(p.deleted_at)} · undo until ${when(p.expires_at)}`),
      btn);
  }));
}

export function render(main, ctx) {
  const grid = h('div', {}, h('p', { class: 'loading' }, 'Loading…'));
  const trash = h('div', {});
  const load = async () => {
    try {
      fill(grid, statsGrid(await ctx.api.call('archive_stats', {})));
      fill(trash, trashList((await ctx.api.call('archive_trash', {})).pending, ctx, load));
    } catch (err) {
      fill(grid, notice('Could not load the statistics', err.message, 'error'));
    }
  };
  fill(main,
    h('section', { class: 'panel', 'aria-labelledby': 'stats-h' },
      h('h1', { id: 'stats-h' }, 'Your archive'), grid),
    h('section', { class: 'panel', 'aria-labelledby': 'trash-h' },
      h('h2', { id: 'trash-h' }, 'Recently deleted'), trash),
    h('section', { class: 'panel', 'aria-labelledby': 'import-h' },
      h('h2', { id: 'import-h' }, 'Import a WARC'),
      h('p', { class: 'muted' }, 'HTML responses in the file become versions of their URLs, with their capture dates. Export a version or a search result from its page; ReplayWeb.page and pywb open the files.'),
      importForm(ctx, load)));
  const refresh = throttled(load, 1000);
  const off = ctx.api.onEvent((ev) => { if (ev?.event === 'registered') refresh(); });
  load();
  return off;
}
