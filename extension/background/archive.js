// "Archive this page": capture the page and its resources as the user sees them and send them to
// the host in parts (capture/capture.js; a link without a tab: `archive_page`, the host fetches),
// and describe the new version (number, time, similarity to the previous one, similar pages).
//
//   const summary = await archiveTab(tabId);   // {version: 2, count: 2, similarity: 0.93, ...}

import { captureTab, resumeCapture } from '../capture/capture.js';
import { interruptedCaptures } from '../capture/progress.js';
import { action, ext, sessionStore } from '../lib/browser.js';
import { isWebURL } from '../lib/addresses.js';
import { MESSAGES } from '../lib/messages.js';
import { badgeText } from '../lib/rules.js';
import { distinctPages } from '../lib/suggestions.js';
import { settings } from './config.js';
import { withFeedback } from './feedback.js';
import { HostError, request } from './native.js';

const ARCHIVE_TIMEOUT_MS = 30000;

/**
 * Archive what tab `tabId` shows, with every resource its rendering uses (capture/capture.js);
 * returns the summary the popup displays. `told`: 'page' when the badge tells how it ended
 * (archiveTabTold), kept with the capture's progress for a restarted worker.
 */
export async function archiveTab(tabId, { told = null } = {}) {
  const tab = await ext.tabs.get(tabId);
  if (!isWebURL(tab.url)) throw new HostError('not_archivable', MESSAGES.not_archivable);
  const { capture } = await settings();
  return captureTab(tabId, tab.url, capture, (result) => summarizeNew(result, tab.url, tabId), { told });
}

/**
 * "Archive this page" from the shortcut or the context menu: archiveTab, its end on the tab's
 * badge (feedback.js). A capture a restarted worker resumes tells its end the same way.
 */
export function archiveTabTold(tabId) {
  return withFeedback(tabId, 'page', () => archiveTab(tabId, { told: 'page' }));
}

const ACCESS_WAIT_MS = 600000;
const ACCESS_PREFIX = 'accessPending:'; // + tabId → {at}: one note per tab that waits for access
const afterAccess = new Map(); // tabId → the capture started once site access was granted

/**
 * The popup asks the user for site access for tab `tabId`: the grant (permissions.onAdded)
 * archives it, also when Firefox's prompt closed the popup. `waiting` false: declined, the tab
 * waits no more. Each tab has its own note, so two tabs waiting are both archived.
 */
export async function archiveOnAccess(tabId, waiting = true) {
  if (tabId == null) return null;
  const key = `${ACCESS_PREFIX}${tabId}`;
  return waiting ? sessionStore.set({ [key]: { at: Date.now() } }) : sessionStore.remove(key);
}

/**
 * Site access was granted: archive tab `tabId` (the popup's own call), or, with `tabId` null
 * (permissions.onAdded), every tab whose popup asked in the past ten minutes; each once, whoever
 * asks first: a tab's note is removed before its capture starts, and whoever comes while it
 * runs joins it. Resolves with the tab's summary, or (null) with every tab's outcome.
 */
export async function archiveAfterAccess(tabId = null) {
  if (tabId != null) return archiveOnce(tabId);
  const notes = await sessionStore.get(null);
  const waiting = Object.entries(notes ?? {})
    .filter(([key, note]) => key.startsWith(ACCESS_PREFIX) && Date.now() - (note?.at ?? 0) < ACCESS_WAIT_MS)
    .map(([key]) => Number(key.slice(ACCESS_PREFIX.length)));
  return Promise.allSettled(waiting.map(archiveOnce));
}

function archiveOnce(tabId) {
  if (!afterAccess.has(tabId)) {
    const started = sessionStore.remove(`${ACCESS_PREFIX}${tabId}`).then(() => archiveTab(tabId));
    afterAccess.set(tabId, started.finally(() => afterAccess.delete(tabId)));
  }
  return afterAccess.get(tabId);
}

/**
 * Finish the captures a stopped background left halfway (run at every start of the background),
 * or end them cleanly; a finished one is summarized as if the popup had waited for it.
 */
export async function resumeArchives() {
  const interrupted = await interruptedCaptures();
  if (!interrupted.length) return;
  const { capture } = await settings();
  await Promise.allSettled(interrupted.map(({ tabId, state }) => {
    const resume = () => resumeCapture(tabId, state, capture, (result) => summarizeNew(result, state.url, tabId));
    return state.told ? withFeedback(tabId, state.told, resume) : resume();
  }));
}

/** Archive a link target without opening it (the host fetches it). */
export function archiveLink(url) {
  if (!isWebURL(url)) throw new HostError('not_archivable', MESSAGES.link_not_archivable);
  return register({ url, captured_at: new Date().toISOString() }, null);
}

/** Every version of `url`, newest first (the host's `versions`). */
export async function listVersions(url) {
  try {
    const answer = await request('versions', { url });
    return Array.isArray(answer) ? answer : (answer?.versions ?? []);
  } catch (err) {
    if (err.code === 'not_found') return []; // never archived
    throw err;
  }
}

/** Show the number of archived versions of a tab's page on the toolbar button. */
export async function showCount(tabId, count) {
  if (tabId == null || tabId < 0) return;
  await action.setBadgeBackgroundColor({ tabId, color: '#1f6f5c' });
  await action.setBadgeText({ tabId, text: badgeText(count) });
  const title = count ? `PageKeeper: ${count} archived version${count === 1 ? '' : 's'} of this page` : 'PageKeeper';
  await action.setTitle({ tabId, title });
}

async function register(page, tabId) {
  const result = await request('archive_page', page, { timeoutMs: ARCHIVE_TIMEOUT_MS });
  return summarizeNew(result, page.url, tabId);
}

async function summarizeNew(result, url, tabId) {
  const [versions, similar] = await Promise.all([
    listVersions(result.url ?? url).catch(() => []),
    similarPages(result),
  ]);
  if (tabId != null) await showCount(tabId, versions.length);
  const summary = summarize(result, versions, similar);
  // The shortcut and the context menu have no window: the popup shows this result when opened.
  await sessionStore.set({ lastArchive: { ...summary, at: Date.now() } });
  return summary;
}

/** The last archive result for `url` in the past ten minutes, or null. */
export async function lastArchiveOf(url) {
  const { lastArchive } = await sessionStore.get('lastArchive');
  const fresh = lastArchive && Date.now() - lastArchive.at < 600000;
  return fresh && lastArchive.url === url ? lastArchive : null;
}

/** The similar pages of a new version, with their URLs and titles (`similar`). */
async function similarPages(result) {
  if (!result.similar?.length) return [];
  const answer = await request('similar', { id: result.id }).catch(() => null);
  return answer?.similar ?? [];
}

/**
 * What the popup shows: version N of the URL, its time, the similarity to the previous version
 * (structure from the registration, content from the similar list when the previous is in it).
 */
function summarize(result, versions, similar) {
  const index = versions.findIndex((v) => v.id === result.id);
  const previous = index >= 0 ? (versions[index + 1] ?? null) : (versions[0] ?? null);
  const entry = index >= 0 ? versions[index] : {};
  const prevSimilar = similar.find((p) => p.id === previous?.id);
  return {
    ...result,
    version: index >= 0 ? versions.length - index : versions.length,
    count: versions.length,
    similarity: result.previous_similarity ?? entry.similarity_to_previous ?? prevSimilar?.similarity ?? null,
    content_similarity: prevSimilar?.content_similarity ?? null,
    previous,
    similar: distinctPages(similar.filter((p) => p.id !== previous?.id && p.key !== result.key)),
  };
}

/**
 * Delete the page's archived versions (all of them), undoable for 10 minutes: the host
 * keeps the deletion in its trash (host/PROTOCOL.md, archive_delete). The popup's last
 * result and the tab's badge count go with it.
 *   deletePage('https://a.example/', 7) → {deleted: {documents: 1, versions: 2}, undo: '3', expires_at}
 */
export async function deletePage(url, tabId) {
  const result = await request('archive_delete', { ref: url, undo: true });
  await sessionStore.remove('lastArchive');
  if (tabId != null) await showCount(tabId, 0);
  return result;
}

/** Undo a deletion; the tab's badge shows the versions back. */
export async function undoDelete(undo, url, tabId) {
  const result = await request('archive_undo', { undo });
  if (tabId != null && url) await showCount(tabId, (await listVersions(url)).length);
  return result;
}
