// The one wrapper over chrome.* / browser.*. Every other module imports `ext` from here and never
// touches the globals, so the differences between Chromium and Firefox live in this file only.
//
// Both families return promises from their MV3 APIs (Chromium since 88 for most namespaces,
// Firefox always), so the wrapper only picks the namespace and papers over the few gaps.
//
//   import { ext } from '../lib/browser.js';
//   await ext.storage.sync.get({ historyUse: true });

export const ext = globalThis.browser ?? globalThis.chrome;

/** True in Firefox (moz-extension:// origin), false in the Chromium family. */
export const isFirefox = typeof globalThis.browser !== 'undefined' &&
  String(globalThis.browser.runtime?.getURL?.('') ?? '').startsWith('moz-extension:');

/** The toolbar button: `action` in MV3 (both families). */
export const action = ext?.action ?? ext?.browserAction;

/** Context menus: Firefox calls them `menus`, Chromium `contextMenus`. */
export const menus = ext?.contextMenus ?? ext?.menus;

/**
 * Per-session storage. `storage.session` exists in Chromium 102+ and Firefox 115+; when it is
 * missing (older Firefox ESR) fall back to an in-memory map, which is what session storage means
 * for a persistent background page anyway.
 */
export const sessionStore = ext?.storage?.session ?? memoryArea();

/** The full URL of a file inside the extension, e.g. pageURL('error/error.html'). */
export function pageURL(path) {
  return ext.runtime.getURL(path);
}

/** True if `url` is one of our own pages (error page, popup, options). */
export function isOwnPage(url) {
  return typeof url === 'string' && url.startsWith(ext.runtime.getURL(''));
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

function memoryArea() {
  const data = new Map();
  return {
    async get(keys) {
      const list = typeof keys === 'string' ? [keys] : Object.keys(keys ?? {});
      return Object.fromEntries(list.filter((k) => data.has(k)).map((k) => [k, data.get(k)]));
    },
    async set(items) {
      for (const [k, v] of Object.entries(items)) data.set(k, v);
    },
    async remove(keys) {
      for (const k of [].concat(keys)) data.delete(k);
    },
  };
}
