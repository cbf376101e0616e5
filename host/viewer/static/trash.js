// Deleting from the viewer, with an undo: archive_delete keeps a deletion undoable for
// 10 minutes (host/PROTOCOL.md); the toast offers Undo at once, the Archive tab's
// "Recently deleted" list until the deletion expires.

import { count, h, toast, when } from './dom.js';

const UNDO_TOAST_MS = 20000;

/** "2 versions" / "1 document (3 versions)" */
export function deletedText(deleted) {
  const v = `${count(deleted.versions)} ${deleted.versions === 1 ? 'version' : 'versions'}`;
  if (!deleted.documents) return v;
  return `${count(deleted.documents)} ${deleted.documents === 1 ? 'document' : 'documents'} (${v})`;
}

/** Undo a deletion; `onDone(true)` once restored. */
export async function undo(ctx, undoId, onDone) {
  try {
    const res = await ctx.api.call('archive_undo', { undo: undoId });
    toast(`Restored ${deletedText(res.restored)}`, 'ok');
    onDone?.(true);
  } catch (err) {
    toast(`Undo failed: ${err.message}`);
    onDone?.(false);
  }
}

/** Delete (params as archive_delete takes them) and show a toast with Undo. */
export async function deleteWithUndo(ctx, params, { afterDelete, afterUndo } = {}) {
  let res;
  try {
    res = await ctx.api.call('archive_delete', { ...params, undo: true });
  } catch (err) {
    toast(`Delete failed: ${err.message}`);
    return null;
  }
  const btn = h('button', { type: 'button', class: 'btn btn-small toast-undo', id: 'undo-delete' }, 'Undo');
  const el = toast(h('span', {}, `Deleted ${deletedText(res.deleted)}. `, h('span', { class: 'toast-note' }, `Undo until ${when(res.expires_at)}.`)), 'ok', UNDO_TOAST_MS);
  el.insertBefore(btn, el.lastChild);
  btn.addEventListener('click', () => {
    btn.disabled = true;
    undo(ctx, res.undo, (ok) => { if (ok) { el.remove(); afterUndo?.(res); } });
  });
  afterDelete?.(res);
  return res;
}
