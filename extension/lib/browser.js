// The one wrapper over chrome.* / browser.*. Every other module imports `ext` from here and never
// touches the globals, so the differences between Chromium and Firefox live in this file only.
//
// Both families return promises from their MV3 APIs (Chromium since 88 for most namespaces,
// Firefox always), so the wrapper only picks the namespace and papers over the few gaps.
//
//   import { ext } from '../lib/browser.js';
//   await ext.storage.sync.get({ historyUse: true });

export const ext = globalThis.browser ?? globalThis.chrome;

const SESSION_PREFIX = 'session:';

/** The toolbar button: `action` in MV3 (both families). */
export const action = ext?.action ?? ext?.browserAction;

/** Context menus: Firefox calls them `menus`, Chromium `contextMenus`. */
export const menus = ext?.contextMenus ?? ext?.menus;

/**
 * Per-session storage: `storage.session` (Chromium 102+, Firefox 115+), which outlives a stopped
 * service worker or a suspended event page and is emptied when the browser quits. Where it is
 * missing, the same API over `storage.local` under a `session:` prefix, which the background
 * empties at each browser start (`clearSessionFallback`, on runtime.onStartup): an in-memory map
 * would be lost whenever Firefox suspends the event page.
 */
export const sessionStore = ext?.storage?.session ?? prefixedArea(ext?.storage?.local, SESSION_PREFIX);

/** Empty the storage.local fallback of `sessionStore` (a new browser session); a no-op otherwise. */
export async function clearSessionFallback() {
  if (ext?.storage?.session || !ext?.storage?.local) return;
  const all = await ext.storage.local.get(null);
  await ext.storage.local.remove(Object.keys(all).filter((k) => k.startsWith(SESSION_PREFIX)));
}

/** The full URL of a file inside the extension, e.g. pageURL('error/error.html'). */
export function pageURL(path) {
  return ext.runtime.getURL(path);
}

/** True if `url` is one of our own pages (error page, popup, options). */
export function isOwnPage(url) {
  return typeof url === 'string' && url.startsWith(ext.runtime.getURL(''));
}

/** The match pattern of `url`'s site, as permissions.contains takes it: 'http://127.0.0.1/*'. */
export function sitePattern(url) {
  const { protocol, hostname } = new URL(url);
  return `${protocol}//${hostname}/*`;
}

/**
 * False when the user declined or withdrew the add-on's access to `url`'s site: Firefox lets
 * them (about:addons → Permissions; for MV3 before Firefox 127 it is not granted at install).
 * Chromium grants host_permissions at install. An API that cannot answer counts as access.
 */
export async function hasSiteAccess(url) {
  try {
    return await ext.permissions.contains({ origins: [sitePattern(url)] });
  } catch {
    return true;
  }
}

/**
 * Ask the user for the manifest's host permissions (every site: cross-origin frames and the
 * background's fetches need more than the page's own). permissions.request needs a user gesture,
 * which Firefox forgets after the first `await`: call this first thing in a click handler.
 */
export async function requestSiteAccess() {
  const origins = ext.runtime.getManifest().host_permissions ?? [];
  try {
    return await ext.permissions.request({ origins });
  } catch {
    return false;
  }
}

/**
 * Every frame of a tab the browser knows of: [{frameId, url}] (webNavigation.getAllFrames; it
 * names frames the add-on may not read too), or [] when it cannot say.
 */
export async function framesOf(tabId) {
  try {
    return (await ext.webNavigation.getAllFrames({ tabId })) ?? [];
  } catch {
    return [];
  }
}

/** Send a message to the background and return its reply (`{ok, result|error}`). */
export function callBackground(type, params = {}) {
  return ext.runtime.sendMessage({ type, params });
}

/**
 * Run `func(...args)` in a tab's top frame and return its result.
 * Needs the `scripting` permission and host access (granted by activeTab or host_permissions).
 */
export async function runInTab(tabId, func, args = []) {
  const [first] = await ext.scripting.executeScript({ target: { tabId }, func, args });
  return first?.result;
}

/**
 * Run a file or `func(...args)` in frames of a tab: every frame (`frameIds` unset) or the listed
 * ones. Returns one {frameId, result} per frame that ran it (a frame that failed is left out).
 *   await runInFrames(7, { files: ['capture/page.js'] });
 *   await runInFrames(7, { func: (k) => globalThis.pagekeeperCapture.release(k), args: ['c1'], frameIds: [0] });
 */
export async function runInFrames(tabId, { files, func, args = [], frameIds }) {
  const target = frameIds ? { tabId, frameIds } : { tabId, allFrames: true };
  const injection = files ? { target, files } : { target, func, args };
  const results = await ext.scripting.executeScript(injection);
  return results.filter((r) => r && !r.error);
}

/** A storage area whose keys live in `area` under `prefix` (get with a key, a list, or null: all). */
function prefixedArea(area, prefix) {
  if (!area) return undefined;
  const names = (keys) => (typeof keys === 'string' ? [keys] : Array.isArray(keys) ? keys : Object.keys(keys ?? {}));
  return {
    async get(keys) {
      if (keys == null) {
        const all = await area.get(null);
        return Object.fromEntries(Object.entries(all).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
      }
      const list = names(keys);
      const found = await area.get(list.map((k) => prefix + k));
      return Object.fromEntries(list.filter((k) => prefix + k in found).map((k) => [k, found[prefix + k]]));
    },
    set: (items) => area.set(Object.fromEntries(Object.entries(items).map(([k, v]) => [prefix + k, v]))),
    remove: (keys) => area.remove([].concat(keys).map((k) => prefix + k)),
  };
}
