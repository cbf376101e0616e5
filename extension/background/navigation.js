// Failed top-level navigations → PageKeeper's error page: watch for the error message, take
// the URL that caused it to the rewrite station (the host, `nav_error`), and present the
// rewritten URLs to the user.
//
// Network failures (DNS, refused, reset, timed out, unreachable) always get our page: the browser's
// own page offers nothing. HTTP 404/410 get it only when the host has something to offer (an archived
// copy, a similar page, a confident repair); otherwise the server's own 404 page stays.

import { ext, isOwnPage, pageURL } from '../lib/browser.js';
import { classifyError, GONE_STATUSES } from '../lib/net-errors.js';
import { isWatched, isWebURL } from '../lib/addresses.js';
import { RecentKeys } from '../lib/rules.js';
import { settings } from './config.js';
import { request } from './native.js';
import { changeTab, dropTab, readTab } from './tab-state.js';

const LOOKUP_TIMEOUT_MS = 4000;
const LOOKUP_KEEP_MS = 120000;
const OFFER_SCORE_ON_404 = 0.8;
const OFFER_SIMILAR_ON_404 = 0.5;

const recent = new RecentKeys(4000); // Chromium may report one failure up to three times
const bypass = new RecentKeys(60000); // "show the server's page" on a 404: leave it alone for a minute
const BACK_BYPASS_MS = 5000; // Back from our page: the failed entry reloads within moments
const lookups = new Map(); // key → {params, promise}
const retrying = new Set(); // "tabId url" being retried from our page
// Per tab, in storage.session (tab-state.js): {current, previous} its pages, the referrer of a
// failure; `showing` the failed URL our error page shows in it; `attempt` the number of its
// latest failure shown or retry started.

/** webNavigation.onCommitted: remember each tab's pages, the referrer of a later failure. */
export async function onCommitted(details) {
  if (details.frameId !== 0 || !isWebURL(details.url)) return;
  await changeTab(details.tabId, (tab) => {
    if (tab.current === details.url) return tab.showing == null ? tab : { ...tab, showing: null };
    return { ...tab, showing: null, current: details.url, previous: tab.current ?? null };
  });
}

/** tabs.onRemoved: forget the tab. */
export function forgetTab(tabId) {
  return dropTab(tabId);
}

/** A new failure shown, or a retry started, in a tab: older re-checks of that tab stop. */
async function nextAttempt(tabId) {
  const tab = await changeTab(tabId, (t) => ({ ...t, attempt: (t.attempt ?? 0) + 1 }));
  return tab.attempt;
}

/**
 * webNavigation.onBeforeNavigate: leaving our error page for the very URL that failed, other than
 * by "Try again", is the Back button (the failed entry sits right behind our page in the tab's
 * history). Step aside for it this time, or Back would bring the user to our page forever.
 */
export async function onBeforeNavigate(details) {
  if (details.frameId !== 0 || !isWebURL(details.url)) return;
  const key = `${details.tabId} ${details.url}`;
  await changeTab(details.tabId, (tab) => {
    if (tab.showing !== details.url || retrying.delete(key)) return tab;
    bypass.claim(key, Date.now(), BACK_BYPASS_MS);
    return { ...tab, showing: null };
  });
}

/** webNavigation.onErrorOccurred: a network failure of a main frame. */
export async function onNavigationError(details) {
  if (!isVisibleTopFrame(details)) return;
  const info = classifyError(details.error);
  if (!info || !isWebURL(details.url) || isOwnPage(details.url)) return;
  const tab = await readTab(details.tabId); // after the tab's earlier events: a commit, a Back
  const key = `${details.tabId} ${details.url}`;
  if (bypass.has(key, Date.now()) || !recent.claim(key, Date.now())) return;
  const prefs = await settings();
  if (!prefs.errorPages || !isWatched(details.url, prefs)) return;
  // Start the page load before the host lookup: both compete for the CPU, and the page has 150 ms.
  const lookup = crypto.randomUUID();
  const pageUrl = errorPageURL(lookup, details.url, info, details.timeStamp);
  const attempt = await nextAttempt(details.tabId);
  const shown = showErrorPage(details.tabId, pageUrl, details.url);
  startLookup(referrerOf(tab, details.url), details.url, info, details.timeStamp, lookup);
  await shown;
  await keepShown(details.tabId, pageUrl, details.url, key, attempt);
}

// Chromium may commit its own error page after our tabs.update has started (the update then loses
// the race and the tab stays on chrome-error://): look again shortly and show ours once more.
const RECHECK_MS = [200, 600, 1500]; // the last for a busy machine (seen on a cold CI run)

// A "Try again" also loads the failed URL: a newer attempt ends the re-checks, or they would
// put the old page back over the retry (seen on a slow CI machine).
async function keepShown(tabId, pageUrl, failedUrl, key, attempt) {
  for (const delay of RECHECK_MS) {
    await new Promise((resolve) => setTimeout(resolve, delay));
    if ((await readTab(tabId)).attempt !== attempt) return;
    const tab = await ext.tabs.get(tabId).catch(() => null);
    if (!tab || (tab.pendingUrl || tab.url) !== failedUrl || bypass.has(key, Date.now())) return;
    await showErrorPage(tabId, pageUrl, failedUrl);
  }
}

/** webRequest.onCompleted (main_frame): a 404 or 410. */
export async function onHttpCompleted(details) {
  if (!isVisibleTopFrame(details) || details.method !== 'GET') return;
  if (!GONE_STATUSES.has(details.statusCode)) return;
  const key = `${details.tabId} ${details.url}`;
  if (bypass.has(key, Date.now()) || !recent.claim(key, Date.now())) return;
  const prefs = await settings();
  if (!prefs.errorPages || !isWatched(details.url, prefs)) return;
  const info = classifyError(`HTTP ${details.statusCode}`);
  const referrer = referrerOf(await readTab(details.tabId), details.url);
  const lookup = startLookup(referrer, details.url, info, details.timeStamp);
  const result = await lookups.get(lookup).promise.catch(() => null);
  if (!worthOffering(result) || !(await stillOn(details.tabId, details.url))) return;
  await showErrorPage(details.tabId, errorPageURL(lookup, details.url, info, details.timeStamp), details.url);
}

async function showErrorPage(tabId, pageUrl, failedUrl) {
  await changeTab(tabId, (tab) => ({ ...tab, showing: failedUrl }));
  return ext.tabs.update(tabId, { url: pageUrl });
}

/**
 * The error page asks for the host's answer: the lookup started at the failure, or a new one
 * (after a reload of the page or a restart of the service worker).
 * → {host: true, result} or {host: false, error: {code, message}}
 */
export async function lookupResult(params, sender) {
  let entry = lookups.get(params.key);
  // A lookup that failed (the helper still starting, or stopped) is asked again: a reload of our
  // page must not show the same failure for as long as the answer would have been kept.
  if (!entry || entry.failed) {
    const info = classifyError(params.error) ?? { kind: 'unknown', error: params.error };
    const tabId = sender?.tab?.id ?? -1;
    const referrer = tabId >= 0 ? referrerOf(await readTab(tabId), params.url) : null;
    entry = lookups.get(startLookup(referrer, params.url, info, params.time, params.key || undefined));
  }
  try {
    return { host: true, request: entry.params, result: await entry.promise };
  } catch (err) {
    return { host: false, request: entry.params, error: { code: err.code ?? 'host_error', message: err.message } };
  }
}

/** "Try again" from the error page: forget the failure so a new one shows the page again. */
export async function retry(params, sender) {
  const tabId = sender.tab?.id ?? params.tabId;
  const key = `${tabId} ${params.url}`;
  await nextAttempt(tabId);
  recent.release(key);
  retrying.add(key);
  if (classifyError(params.error)?.kind?.startsWith('http_')) bypass.claim(key, Date.now());
  return ext.tabs.update(tabId, { url: params.url }).then(() => ({ url: params.url }));
}

/**
 * The top frame of a real tab, not a prerendered page the user never asked to see: Chromium
 * reports `documentLifecycle: 'prerender'` for those (the field is absent in Firefox).
 */
function isVisibleTopFrame(details) {
  return details.frameId === 0 && details.tabId >= 0 && details.documentLifecycle !== 'prerender';
}

function startLookup(referrer, url, info, time, key = crypto.randomUUID()) {
  const params = {
    url,
    error: info.error,
    kind: info.kind,
    referrer,
    time: new Date(time || Date.now()).toISOString(),
    languages: [...(navigator.languages ?? [])],
  };
  const promise = request('nav_error', params, { timeoutMs: LOOKUP_TIMEOUT_MS });
  const entry = { params, promise, failed: false };
  promise.catch(() => { entry.failed = true; }); // read by the error page; unread, no error
  lookups.set(key, entry);
  setTimeout(() => lookups.delete(key), LOOKUP_KEEP_MS);
  return key;
}

/** The page the tab came from: its current page, or the one before when the failed URL is it. */
function referrerOf(tab, url) {
  if (!tab?.current) return null;
  return (tab.current === url ? tab.previous : tab.current) ?? null;
}

function errorPageURL(key, url, info, time) {
  const query = new URLSearchParams({ url, error: info.error, key, t: String(Math.round(time || Date.now())) });
  return `${pageURL('error/error.html')}?${query}`;
}

/**
 * A 404/410 is replaced only when the host has something real: an archived copy of this URL, a
 * similar archived page (structure or path at least half alike), or a confident repair.
 */
function worthOffering(result) {
  if (!result) return false;
  const confident = (result.suggestions ?? []).some((s) => s.score >= OFFER_SCORE_ON_404);
  const alike = (result.similar ?? []).some((p) => (p.similarity ?? p.path_similarity ?? 0) >= OFFER_SIMILAR_ON_404);
  return (result.archived ?? []).length > 0 || alike || confident;
}

async function stillOn(tabId, url) {
  const tab = await ext.tabs.get(tabId).catch(() => null);
  return Boolean(tab) && (tab.url === url || tab.pendingUrl === url);
}
