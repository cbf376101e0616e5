// The toolbar popup: what PageKeeper knows about the current page, and "Archive this page".
// Opened as a tab (tests, keyboard users) it takes the target tab from `?tab=ID`.

import { callBackground, ext, hasSiteAccess, pageURL, requestSiteAccess } from '../lib/browser.js';
import { displayURL, fill, formatTime, h, percent, show } from '../lib/dom.js';
import { isWebURL } from '../lib/addresses.js';
import { failureText, framesLostText, MESSAGES } from '../lib/messages.js';
import { SOFT_404 } from '../lib/net-errors.js';
import { captureText, readProgress } from '../capture/progress.js';
import { resourcesSummary } from '../lib/capture-summary.js';

const archiveButton = document.getElementById('archive');
const deleteButton = document.getElementById('delete');
const WATCH_MS = 250;
let tab = null;

init();

async function init() {
  tab = await targetTab();
  fill('page-title', tab?.title || displayURL(tab?.url) || 'No page');
  fill('page-url', tab?.url ?? '');
  archiveButton.addEventListener('click', onArchive);
  document.getElementById('allow').addEventListener('click', onAllow);
  document.getElementById('allow-frames').addEventListener('click', onAllow);
  deleteButton.addEventListener('click', onDelete);
  document.getElementById('open-viewer').addEventListener('click', (e) => openViewer(e, ''));
  if (!tab || !isWebURL(tab.url)) {
    archiveButton.disabled = true;
    fill('status', MESSAGES.not_archivable);
    return;
  }
  watchCapture();
  if (!(await hasSiteAccess(tab.url))) showAccess();
  await showVersions();
  const last = await callBackground('last_archive', { url: tab.url });
  // The last capture's result, unless a capture runs now: its own result replaces it when it ends.
  const capturing = archiveButton.disabled;
  if (last.ok && last.result && document.getElementById('result').hidden && !capturing) renderResult(last.result);
}

async function targetTab() {
  const id = Number(new URLSearchParams(location.search).get('tab'));
  if (id) return ext.tabs.get(id);
  const [active] = await ext.tabs.query({ active: true, currentWindow: true });
  return active ?? null;
}

async function showVersions() {
  const reply = await callBackground('versions', { url: tab.url });
  if (!reply.ok) return showError(reply.error);
  const versions = reply.result;
  fill('status', versions.length
    ? `${versions.length} archived version${versions.length === 1 ? '' : 's'} · last saved ${formatTime(versions[0].registered_at)}`
    : 'Not archived yet.');
  document.body.dataset.versions = String(versions.length);
  showCopies(versions[0]);
  show('delete', versions.length > 0);
  deleteButton.textContent = versions.length > 1 ? `Delete all ${versions.length} versions from archive` : 'Delete from archive';
  if (versions.length) await showLiveness(versions[0]);
}

/**
 * A page archived earlier (in another session: no capture result to show) opens its newest
 * copy and its versions in the viewer from here, signed in as the result's links are.
 */
function showCopies(newest) {
  show('copies', Boolean(newest) && document.getElementById('result').hidden);
  if (!newest) return;
  document.getElementById('open-newest').onclick = (e) => openDaemon(e, 'open_copy', { version_url: newest.version_url });
  document.getElementById('versions-link').onclick = (e) => openViewer(e, `#/doc/${encodeURIComponent(newest.id)}`);
}

// A check that judged no content says so, with its reason, and is never shown as gone.
const UNJUDGED = {
  unreachable: 'PageKeeper could not reach this site at its last check',
  too_large: 'This page is too large for PageKeeper to check',
  unknown: 'PageKeeper has no text of this page to compare with',
};

/**
 * Warn when the archived content is no longer on the live page, and say when the last check
 * could not judge it (the background's verdict for the tab, else the host's last check).
 */
async function showLiveness(newest) {
  const reply = await callBackground('liveness', { tabId: tab.id, url: tab.url });
  const verdict = reply.ok ? reply.result : null;
  const state = verdict?.state ?? null;
  document.body.dataset.liveness = state ?? '';
  if (UNJUDGED[state]) {
    const when = verdict.checked_at ? ` (${formatTime(verdict.checked_at)})` : '';
    fill('liveness', `${UNJUDGED[state]}${when}: ${verdict.reason ?? 'no reason given'}.`);
    return show('liveness');
  }
  if (state !== 'gone' && state !== 'changed') return show('liveness', false);
  const text = state === 'gone'
    ? 'The content you archived is no longer on this page. '
    : 'This page changed since you archived it. ';
  fill('liveness', text, h('a', { href: newest.version_url, onclick: (e) => openDaemon(e, 'open_copy', { version_url: newest.version_url }) }, 'Open your newest copy'),
    state === 'gone' ? [' · ', h('a', { id: 'soft-404', href: '#', onclick: showSoft404 }, 'Suggestions')] : null);
  show('liveness');
}

/**
 * A soft 404 (the server answers, the archived content is gone): our error page for this URL in
 * its tab, which sends `nav_error` with error soft_404. Never shown unasked: the badge warns.
 */
async function showSoft404(event) {
  event.preventDefault();
  const query = new URLSearchParams({ url: tab.url, error: SOFT_404, key: '', t: String(Date.now()) });
  await ext.tabs.update(tab.id, { url: `${pageURL('error/error.html')}?${query}` });
  window.close();
}

function onArchive() {
  return archiveWith('archive_tab');
}

/** Archive the tab through the background's `type` (archive_tab, or archive_after_access). */
async function archiveWith(type) {
  archiveButton.disabled = true;
  fill('archive', 'Archiving…');
  show('error', false);
  show('result', false); // the last capture's result is not this one's: never beside its failure
  // No reply at all: the browser stopped the background mid-way; it carries on at its next start,
  // and watchCapture shows how that ends.
  const reply = await callBackground(type, { tabId: tab.id }).catch(() => null);
  if (!reply) return;
  // The answer ends the transfer line now, not at the next progress read (WATCH_MS later); this
  // popup renders the answer itself, so the capture's end is not handled twice.
  watched = false;
  renderCapture(await readProgress(tab.id));
  archiveButton.disabled = false;
  fill('archive', 'Archive again');
  if (!reply.ok) return showError(reply.error);
  renderResult(reply.result);
  await tagArchived(reply.result);
  await showVersions();
}

/** Say that the user withdrew or declined the add-on's access to this site, and offer it back. */
function showAccess() {
  fill('access-site', new URL(tab.url).hostname);
  show('access');
}

/**
 * Ask for access to websites (permissions.request while the click is a user gesture: before any
 * `await`), then archive. The background is told first: Firefox's prompt may close the popup,
 * and the grant then archives the page from the background (permissions.onAdded).
 */
async function onAllow() {
  const waiting = callBackground('archive_on_access', { tabId: tab.id }).catch(() => null);
  const granted = await requestSiteAccess();
  await waiting;
  if (!granted) {
    await callBackground('archive_on_access', { tabId: tab.id, waiting: false }).catch(() => null);
    return showError({ message: MESSAGES.access_declined });
  }
  show('access', false);
  show('frames-lost', false);
  await archiveWith('archive_after_access');
}

/** Delete every archived version of the page; Undo stays offered (10 minutes in the viewer). */
async function onDelete() {
  deleteButton.disabled = true;
  show('error', false);
  const reply = await callBackground('archive_delete', { url: tab.url, tabId: tab.id });
  deleteButton.disabled = false;
  if (!reply.ok) return showError(reply.error);
  const n = reply.result.deleted.versions;
  fill('deleted-text', `Deleted ${n} version${n === 1 ? '' : 's'} from your archive. `);
  const undo = document.getElementById('undo');
  undo.disabled = false;
  undo.onclick = () => onUndo(reply.result.undo, undo);
  show('deleted');
  show('result', false);
  await showVersions();
}

async function onUndo(undoId, button) {
  button.disabled = true;
  const reply = await callBackground('archive_undo', { undo: undoId, url: tab.url, tabId: tab.id });
  if (!reply.ok) return showError(reply.error);
  show('deleted', false);
  await showVersions();
}

/** "reading, Recipes" → the tags the host adds to the page just archived (it cleans them). */
export function typedTags(text) {
  return text.split(',').map((t) => t.trim()).filter(Boolean);
}

async function tagArchived(result) {
  const field = document.getElementById('archive-tags');
  const tags = typedTags(field.value);
  if (!tags.length) return;
  const reply = await callBackground('archive_tag', { ref: result.id, add: tags });
  if (!reply.ok) return showError({ message: `Archived, but the tags were not saved: ${reply.error.message}` });
  field.value = '';
  fill('tags-saved', `Tagged: ${reply.result.tags.join(', ')}`);
  show('tags-saved');
}

/**
 * The tab's capture in progress (storage.session, written by the background): shown while it
 * runs, also when the popup was closed and opened again meanwhile. Read every WATCH_MS while the
 * popup is open (only the background registers event listeners).
 */
async function watchCapture() {
  renderCapture(await readProgress(tab.id));
  setTimeout(watchCapture, WATCH_MS);
}

let watched = false; // a capture was running when last read

function renderCapture(p) {
  const running = Boolean(p) && !['done', 'failed'].includes(p.phase) && Date.now() - (p.updated_at ?? 0) < 600000;
  if (watched && !running) captureEnded(p);
  watched = running;
  show('capture', running);
  document.body.dataset.capture = p?.phase ?? '';
  if (!running) return;
  const bar = document.getElementById('capture-bar');
  bar.max = Math.max(1, p.bytes_total);
  bar.value = p.bytes_sent;
  fill('capture-text', captureText(p));
  archiveButton.disabled = true;
  fill('archive', 'Archiving…');
}

/**
 * A capture this popup watched ended (also one the background finished after a restart). A
 * capture says "done" only after its summary is stored (capture/capture.js): one read finds it.
 */
async function captureEnded(p) {
  archiveButton.disabled = false;
  fill('archive', 'Archive again');
  if (p?.phase === 'failed') return showError({ message: p.error });
  const last = await callBackground('last_archive', { url: tab.url });
  if (last.ok && last.result) renderResult(last.result);
}

function renderResult(r) {
  fill('version-label', `Saved as version ${r.version}`, r.count > 1 ? h('span', { class: 'pill' }, `${r.count} in total`) : null);
  fill('registered-at', formatTime(r.registered_at));
  const first = r.version <= 1;
  fill('similarity-term', first ? 'Earlier versions' : `Similarity to v${r.version - 1}`);
  // a re-capture with the same page and resources is recorded as "seen again" (host/PROTOCOL.md)
  const again = r.revisit_of ? 'unchanged: seen again (the same page and resources, stored once)' : null;
  fill('similarity', first ? 'none yet' : (again ?? similarityText(r)));
  const similar = r.similar ?? [];
  // A copy is a daemon address: it opens signed in (open_copy), as "Open this version" does.
  fill('similar-list', similar.slice(0, 5).map((p) => h('li', {},
    h('a', { href: p.version_url ?? p.url, target: '_blank', title: p.url, onclick: p.version_url ? (e) => openDaemon(e, 'open_copy', { version_url: p.version_url }) : null }, displayURL(p.url)),
    h('span', { class: 'muted' }, percent(p.similarity)))));
  show('similar-block', similar.length > 0);
  const versionLink = document.getElementById('version-link');
  versionLink.href = r.version_url ?? '#';
  versionLink.onclick = (e) => openDaemon(e, 'open_copy', { version_url: r.version_url });
  document.getElementById('viewer-link').onclick = (e) => openViewer(e, `#/doc/${encodeURIComponent(r.id)}`);
  const res = r.resources;
  fill('resources-line', res ? resourcesSummary(res) : '');
  show('resources-line', Boolean(res));
  showLostFrames(r.frames_lost ?? []);
  show('copies', false); // the result's own links open this version and the viewer
  show('result');
  document.body.dataset.archivedVersion = String(r.version);
}

/**
 * The frames the capture could not read, named with their reason; when the add-on may not read
 * their site (Firefox: activeTab only, or access declined), the grant the top page's notice offers.
 */
function showLostFrames(lost) {
  fill('frames-lost-text', framesLostText(lost));
  show('allow-frames', lost.some((f) => f.reason === 'site_access'));
  show('frames-lost', lost.length > 0);
}

function similarityText(r) {
  if (typeof r.similarity !== 'number') return 'not computed yet';
  const text = typeof r.content_similarity === 'number' ? ` · text ${percent(r.content_similarity)}` : '';
  return `${percent(r.similarity)} structure${text}`;
}

function openViewer(event, hash) {
  return openDaemon(event, 'viewer', { hash });
}

/** Open a daemon page (viewer, archived copy) in a new tab, signed in with the token. */
async function openDaemon(event, type, params) {
  event.preventDefault();
  const reply = await callBackground(type, params);
  if (!reply.ok) return showError(reply.error);
  await ext.tabs.create({ url: reply.result.url });
}

function showError(error) {
  if (error?.code === 'host_missing') {
    fill('missing-title', failureText(error));
    show('missing');
    archiveButton.disabled = true;
    fill('status', '');
    return;
  }
  if (error?.code === 'site_access') showAccess();
  fill('error', failureText(error));
  show('error');
}
