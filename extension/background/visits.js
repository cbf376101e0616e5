// What happens when a page loads fine: the badge with its number of archived versions, the
// optional liveness check of the tab's own page (liveness.js), the optional auto-archive
// rules, and the `visited` report (the host only, for the dictionary of the user's own domains).

import { hostOf, isPrivateHost, isWatched, isWebURL } from '../lib/addresses.js';
import { shouldAutoArchive } from '../lib/rules.js';
import { archiveTab, listVersions, showCount } from './archive.js';
import { settings } from './config.js';
import { scheduleCheck } from './liveness.js';
import { request } from './native.js';

/** webNavigation.onCompleted: badge, liveness, auto-archive for the page in the top frame. */
export async function onPageLoaded(details) {
  if (details.frameId !== 0 || details.tabId < 0 || !isWebURL(details.url)) return;
  const prefs = await settings();
  if (!isWatched(details.url, { ...prefs, allowPrivate: true })) return;
  const versions = await listVersions(details.url).catch(() => null);
  if (versions === null) return; // no host: nothing to show
  if (prefs.badge) await showCount(details.tabId, versions.length).catch(() => {});
  if (versions.length && prefs.liveness) scheduleCheck(details.tabId, details.url, versions[0].id);
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
