// What happens when a page loads fine: the badge with its number of archived versions, the
// optional liveness check (is the archived content still there?), the optional auto-archive
// rules, and the `visited` report (the host only, for the dictionary of the user's own domains).

import { action, sessionStore } from '../lib/browser.js';
import { hostOf, isPrivateHost, isWatched, isWebURL } from '../lib/addresses.js';
import { shouldAutoArchive } from '../lib/rules.js';
import { archiveTab, listVersions, showCount } from './archive.js';
import { settings } from './config.js';
import { request } from './native.js';

/** webNavigation.onCompleted: badge, liveness, auto-archive for the page in the top frame. */
export async function onPageLoaded(details) {
  if (details.frameId !== 0 || details.tabId < 0 || !isWebURL(details.url)) return;
  const prefs = await settings();
  if (!isWatched(details.url, { ...prefs, allowPrivate: true })) return;
  const versions = await listVersions(details.url).catch(() => null);
  if (versions === null) return; // no host: nothing to show
  if (prefs.badge) await showCount(details.tabId, versions.length).catch(() => {});
  if (versions.length && prefs.liveness) await checkLiveness(details.tabId, details.url);
  const last = versions[0] ? Date.parse(versions[0].registered_at) : null;
  if (shouldAutoArchive(prefs.autoArchive, hostOf(details.url), last, Date.now())) {
    await archiveTab(details.tabId).catch(() => {});
  }
}

/** webRequest.onCompleted (main_frame, 2xx): report the host, if the user allows it. */
export async function onPageFetched(details) {
  if (details.frameId !== 0 || details.tabId < 0 || details.statusCode < 200 || details.statusCode > 299) return;
  const prefs = await settings();
  const host = hostOf(details.url);
  if (!prefs.historyUse || !isWatched(details.url, prefs) || isPrivateHost(host)) return;
  // Only the origin travels, never the path or query: the host counts hosts (PROTOCOL.md `visited`).
  await request('visited', { url: new URL(details.url).origin + '/', host }).catch(() => {});
}

async function checkLiveness(tabId, url) {
  const verdict = await request('check', { url }, { timeoutMs: 15000 }).catch(() => null);
  if (!verdict) return;
  await sessionStore.set({ [`liveness:${tabId}`]: { url, state: verdict.state, reason: verdict.reason ?? null } });
  if (verdict.state !== 'gone' && verdict.state !== 'changed') return;
  const gone = verdict.state === 'gone';
  await action.setBadgeBackgroundColor({ tabId, color: gone ? '#b3261e' : '#a15c00' });
  await action.setBadgeText({ tabId, text: '!' });
  await action.setTitle({
    tabId,
    title: gone
      ? 'PageKeeper: the content you archived is no longer on this page. Open the popup for your copy.'
      : 'PageKeeper: this page changed since you archived it.',
  });
}

/** The last liveness verdict for a tab's current page ({url, state, reason}), or null. */
export async function livenessOf(tabId, url) {
  const key = `liveness:${tabId}`;
  const found = (await sessionStore.get(key))[key];
  return found?.url === url ? found : null;
}
