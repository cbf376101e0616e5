// The background half of "Archive this page": capture every frame of a tab (page.js, in the
// page), gather the resources, and hand the page to the host in bounded parts (host/PROTOCOL.md):
//   capture_begin {url, html, frames, resources, options} → {capture_id, need, limits}
//   capture_part {capture_id, url, index, count, data}      (base64 of ≤ limits.part_bytes)
//   capture_status {capture_id} → {missing}                  (after the host restarted)
//   capture_commit {capture_id} → archive_page's reply + {resources: {stored, missing, ...}}
// The bytes stay in the page until the host asked for them; the background only holds the
// resources the page could not read itself (cross-origin without CORS) and fetched instead.
// What a restarted background needs to finish the transfer (capture id, the page's key, which
// frame holds which resource) is in storage.session with the progress: resumeCapture carries on
// from what the host still lacks, or fails cleanly (capture_abort) so that a new archive works.
//
//   const result = await captureTab(7, 'https://a.example/', { keepScripts: false, resourceMB: 50, pageMB: 300 });
//   const again = await resumeCapture(7, storedState, settings);   // after the service worker restarted

import { framesOf, hasSiteAccess, runInFrames } from '../lib/browser.js';
import { FRAME_REASONS, siteAccessText } from '../lib/messages.js';
import { HostError, request } from '../background/native.js';
import { progress } from './progress.js';
import { sendParts } from './transfer.js';

const MB = 2 ** 20;
const BEGIN_TIMEOUT_MS = 60000;
const COMMIT_TIMEOUT_MS = 180000;
const BACKGROUND_FETCH_TIMEOUT_MS = 20000;
const BACKGROUND_FETCH_LANES = 6;
// registered_at has whole seconds; the capture's start is in ms.
const CLOCK_SLACK_MS = 1000;

/**
 * Capture tab `tabId` (showing `url`) and register it; resolves with `finish(capture_commit's
 * reply)`. `kept`: fields stored with the progress for a restarted background (e.g. who tells
 * the user how it ended). The progress says "done" only after `finish` has run, so whoever watches the progress
 * (the popup) finds what `finish` stored.
 */
export async function captureTab(tabId, url, settings, finish = async (result) => result, kept = {}) {
  const key = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const report = progress(tabId, url);
  await report.update({ ...kept, phase: 'collecting', key });
  let captureId = null;
  try {
    const page = await collect(tabId, key, settings, url);
    const begun = await request('capture_begin', beginParams(url, page, settings), { timeoutMs: BEGIN_TIMEOUT_MS })
      .catch((err) => (err?.code === 'unknown_type' ? null : Promise.reject(err)));
    if (!begun) return await htmlOnly(url, page, report, withLost(finish, page.lost)); // a helper app older than capture_begin
    captureId = begun.capture_id;
    const need = begun.need ?? [];
    // frames_lost outlives a stopped worker: the resumed capture's result names them too
    await report.update({ capture_id: captureId, limits: begun.limits ?? {}, held: heldList(page, need), frames_lost: page.lost });
    await sendParts({ tabId, key, captureId, need, limits: begun.limits ?? {}, page, report });
    return await commit(captureId, report, withLost(finish, page.lost));
  } catch (err) {
    return failed(captureId, report, err);
  } finally {
    release(tabId, key);
  }
}

/**
 * Carry on with a capture an earlier run of the background left halfway (`state`: its stored
 * progress): send what the host still lacks (capture_status) from the frames that hold it, then
 * commit. Stopped while collecting, or anything failing, it ends cleanly: the host drops its
 * parts (capture_abort), the progress says failed, and a new archive of the page works.
 * Resolves with `finish(the registered version)`, as captureTab does.
 */
export async function resumeCapture(tabId, state, settings, finish = async (result) => result) {
  const report = progress(tabId, state.url, state);
  const captureId = state.capture_id ?? null;
  try {
    if (!captureId) throw new HostError('capture_interrupted', 'The extension restarted while reading the page: archive it again.');
    await report.update({ restarts: (state.restarts ?? 0) + 1 });
    if (state.phase !== 'saving') {
      const page = await heldPage(state.held ?? [], settings.resourceMB * MB);
      await sendParts({ tabId, key: state.key, captureId, need: null, limits: state.limits ?? {}, page, report });
    }
    const told = withLost(finish, state.frames_lost ?? []);
    return await commit(captureId, report, told).catch((err) => savedMeanwhile(err, state, report, told));
  } catch (err) {
    return failed(captureId, report, err);
  } finally {
    release(tabId, state.key);
  }
}

async function commit(captureId, report, finish) {
  await report.update({ phase: 'saving' });
  const result = await request('capture_commit', { capture_id: captureId }, { timeoutMs: COMMIT_TIMEOUT_MS });
  return done(report, result, finish, result?.resources ?? null);
}

/** The version is stored: run `finish`, then say "done" (a failing `finish` never fails the capture). */
async function done(report, result, finish, resources) {
  const finished = await finish(result).catch(() => result);
  await report.update({ phase: 'done', resources });
  return finished;
}

/**
 * Stopped while the host was committing, the host finished without us: the capture is gone from
 * its pending ones (not_found), and the page has a version registered since the capture began.
 * That version is the result; anything else stays an error.
 */
async function savedMeanwhile(err, state, report, finish) {
  if (err?.code !== 'not_found' || state.phase !== 'saving') throw err;
  const answer = await request('versions', { url: state.url });
  const newest = (Array.isArray(answer) ? answer : (answer?.versions ?? []))[0];
  if (!newest || !(Date.parse(newest.registered_at) >= state.started_at - CLOCK_SLACK_MS)) throw err;
  return done(report, newest, finish, null);
}

async function failed(captureId, report, err) {
  if (captureId) request('capture_abort', { capture_id: captureId }).catch(() => {});
  await report.update({ phase: 'failed', error: err?.message ?? String(err) });
  throw err;
}

function release(tabId, key) {
  if (!key) return;
  runInFrames(tabId, { func: (k) => globalThis.pagekeeperCapture?.release(k), args: [key] }).catch(() => {});
}

/**
 * Who holds each resource the host asked for, as stored with the progress:
 * [[url, size, sha256, frameId]], frameId -1 for the background's own fetches.
 */
function heldList(page, need) {
  return need.filter((url) => page.holders.has(url)).map((url) => {
    const { size, sha256 } = page.resources.get(url);
    const holder = page.holders.get(url);
    return [url, size, sha256, holder.blob ? -1 : holder.frameId];
  });
}

/**
 * The page as sendParts needs it, from heldList's record. What the background had fetched itself
 * went with the stopped worker: fetched again, and kept only if the bytes are the same.
 */
async function heldPage(held, resourceBytes) {
  const page = { resources: new Map(), holders: new Map() };
  for (const [url, size, sha256, frameId] of held) {
    page.resources.set(url, { url, size, sha256 });
    if (frameId >= 0) page.holders.set(url, { frameId });
  }
  const again = held.filter(([, , , frameId]) => frameId < 0).map(([url]) => url);
  const fetched = await lanes(again, BACKGROUND_FETCH_LANES, (u) => fetchHere(u, resourceBytes));
  for (const { entry, blob } of fetched) {
    if (blob && entry.sha256 === page.resources.get(entry.url).sha256) page.holders.set(entry.url, { blob });
  }
  return page;
}

/**
 * Run page.js in every frame and merge what they found:
 * {top, frames: [{url, html}], resources: Map(url → entry), holders: Map(url → {frameId}|{blob})}.
 */
export async function collect(tabId, key, settings, url) {
  const options = { key, keepScripts: Boolean(settings.keepScripts), resourceBytes: settings.resourceMB * MB };
  const runs = await runInFrames(tabId, { files: ['capture/sha256.js', 'capture/page.js'] })
    .then(() => runInFrames(tabId, { func: (o) => globalThis.pagekeeperCapture?.run(o), args: [options] }))
    .catch(async (err) => Promise.reject(await unreadable(url, err)));
  const top = runs.find((r) => r.frameId === 0)?.result;
  if (!top?.html) throw await unreadable(url, null);
  const page = { top, frames: [], resources: new Map(), holders: new Map(), lost: await lostFrames(tabId, runs) };
  // listed with the missing resources, so the stored version says what it lacks and why
  for (const { url: frameUrl, reason } of page.lost) {
    page.resources.set(frameUrl, { url: frameUrl, type: 'text/html', size: 0, error: `frame not read: ${FRAME_REASONS[reason]}` });
  }
  const cors = new Set();
  for (const { frameId, result } of runs) {
    if (!result) continue;
    if (frameId !== 0 && !page.frames.some((f) => f.url === result.url)) page.frames.push({ url: result.url, html: result.html });
    for (const entry of result.resources) adopt(page, entry, { frameId });
    result.cors.forEach((u) => cors.add(u));
  }
  const fetched = await lanes([...cors].filter((u) => !page.holders.has(u)), BACKGROUND_FETCH_LANES, (u) => fetchHere(u, options.resourceBytes));
  for (const { entry, blob } of fetched) adopt(page, entry, blob ? { blob } : null);
  capPage(page, settings.pageMB * MB);
  return page;
}

/** `finish` with the frames the capture could not read in its result (`frames_lost`). */
function withLost(finish, lost) {
  return (result) => finish(lost.length ? { ...result, frames_lost: lost } : result);
}

/**
 * The frames of the tab that ran no capture: a cross-origin frame the add-on may not read
 * (Firefox with activeTab only, or site access declined for the frame's site), or one the
 * browser kept it out of. Each is named with its reason: [{url, reason}].
 */
async function lostFrames(tabId, runs) {
  const read = new Set(runs.filter((r) => r.result).map((r) => r.frameId));
  const missed = (await framesOf(tabId)).filter((f) => !read.has(f.frameId) && /^https?:/i.test(f.url ?? ''));
  const lost = [];
  for (const { url } of missed) {
    if (lost.some((f) => f.url === url)) continue;
    lost.push({ url, reason: (await hasSiteAccess(url)) ? 'unreadable' : 'site_access' });
  }
  return lost;
}

/**
 * Why the page could not be read: the user declined or withdrew the add-on's access to its site
 * (Firefox), else the browser's own error `err`, or it keeps extensions off the page (its own
 * pages, the add-on store).
 */
async function unreadable(url, err) {
  if (url && !(await hasSiteAccess(url))) {
    return new HostError('site_access', siteAccessText(new URL(url).hostname));
  }
  return err ?? new HostError('capture_failed', 'The page could not be read (the browser blocks extensions on this page).');
}

/** Keep the first entry for a URL, unless a later frame holds the bytes the first lacked. */
function adopt(page, entry, holder) {
  const known = page.resources.get(entry.url);
  if (known?.sha256 || (known && !entry.sha256)) return;
  page.resources.set(entry.url, entry);
  if (entry.sha256 && holder) page.holders.set(entry.url, holder);
}

/** Past the per-page cap, resources are listed as missing (in the order found) and not sent. */
function capPage(page, pageBytes) {
  let total = 0;
  for (const entry of page.resources.values()) {
    if (!entry.sha256) continue;
    total += entry.size;
    if (total <= pageBytes) continue;
    delete entry.sha256;
    entry.error = 'over the per-page cap';
    page.holders.delete(entry.url);
  }
}

/** A helper app that predates resource capture gets the page's HTML alone (`archive_page`). */
async function htmlOnly(url, page, report, finish) {
  const { top } = page;
  const params = { url, final_url: top.url, title: top.title, html: top.html, content_type: top.content_type, charset: top.charset, last_modified: top.last_modified };
  const result = await request('archive_page', params, { timeoutMs: COMMIT_TIMEOUT_MS });
  return done(report, result, finish, null);
}

function beginParams(url, page, settings) {
  const { top } = page;
  return {
    url,
    final_url: top.url,
    title: top.title,
    html: top.html,
    content_type: top.content_type,
    charset: top.charset,
    last_modified: top.last_modified,
    frames: page.frames,
    resources: [...page.resources.values()],
    options: { keep_scripts: Boolean(settings.keepScripts), resource_bytes: settings.resourceMB * MB, page_bytes: settings.pageMB * MB },
  };
}

/**
 * The background's own fetch, for what the page may not read (cross-origin, no CORS): the
 * extension's host permission lets it, with the user's cookies (credentials: 'include').
 */
async function fetchHere(url, resourceBytes) {
  const signal = AbortSignal.timeout(BACKGROUND_FETCH_TIMEOUT_MS);
  try {
    const response = await fetch(url, { credentials: 'include', cache: 'force-cache', signal });
    const type = response.headers.get('content-type') ?? '';
    if (!response.ok) return { entry: { url, type, size: 0, status: response.status, error: `HTTP ${response.status}` } };
    const blob = await response.blob();
    if (blob.size > resourceBytes) return { entry: { url, type, size: blob.size, status: response.status, error: 'over the per-resource cap' } };
    const sum = new Uint8Array(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer()));
    const sha256 = [...sum].map((b) => b.toString(16).padStart(2, '0')).join('');
    return { entry: { url, type, size: blob.size, status: response.status, sha256 }, blob };
  } catch (err) {
    return { entry: { url, type: '', size: 0, error: err?.name === 'TimeoutError' ? 'timeout' : String(err?.message ?? err) } };
  }
}

/** `work` over `items`, at most `limit` at a time; results in order. */
export async function lanes(items, limit, work) {
  const results = new Array(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  });
  await Promise.all(runners);
  return results;
}
