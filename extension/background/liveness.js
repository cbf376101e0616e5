// Is the archived content still on the page the tab shows? The tab already holds the page as the
// user sees it (logged in, built by scripts), so the host judges that page and fetches nothing
// (`check` with `page`, host/PROTOCOL.md). Only for URLs with archived versions, with
// the liveness option on; once the page has settled (SETTLE_MS after its last load, so a
// reload storm sends one page); at most once per RECHECK_MS for the same URL and newest version.
// The page travels only over native messaging to the local host, which keeps the verdict, never
// the page; scripts, styles and form fields (whose values may be the user's) are left out.
//
//   scheduleCheck(7, 'https://example.org/a', '0190ab…');  // → after SETTLE_MS, the verdict in
//   await livenessOf(7, 'https://example.org/a');          // {url, state, reason, version, at}

import { action, runInTab, sessionStore } from '../lib/browser.js';
import { request } from './native.js';

export const SETTLE_MS = 1500;
export const RECHECK_MS = 5 * 60 * 1000;
/** The most characters sent: well under native messaging's 64 MiB to the host (and its 4 MiB). */
export const TAB_PAGE_CHARS = 2_000_000;
/** Left out of the page sent: never judged (engine/html/blocks.py USELESS_TAGS) or private. The
 * canonical link stays: the address the page names for itself (RFC 6596) tells another page apart. */
export const LEFT_OUT = 'script, style, template, link:not([rel~="canonical"]), svg, canvas, iframe, object, embed, '
  + 'input, textarea, select, option';

const timers = new Map(); // tabId → the pending check's timer

/** Check the tab's page once it has settled; a newer load of the tab replaces a pending check. */
export function scheduleCheck(tabId, url, version) {
  clearTimeout(timers.get(tabId));
  return new Promise((resolve) => {
    timers.set(tabId, setTimeout(() => {
      timers.delete(tabId);
      checkTab(tabId, url, version).catch(() => null).then(resolve);
    }, SETTLE_MS));
  });
}

/** Judge the tab's page now (unless checked lately); store and show the verdict. */
export async function checkTab(tabId, url, version) {
  const last = await livenessOf(tabId, url);
  if (last?.version === version && Date.now() - last.at < RECHECK_MS) return last;
  const page = await readTab(tabId, url);
  if (!page) return null; // the tab moved on, or cannot be read
  const verdict = page.html === undefined
    ? { state: 'too_large', reason: `the page is larger than ${TAB_PAGE_CHARS.toLocaleString('en')} characters, so it was not checked` }
    : await request('check', { url, page: page.html }, { timeoutMs: 15000 });
  const kept = { url, version, at: Date.now(), state: verdict.state, reason: verdict.reason ?? null, source: 'tab' };
  await sessionStore.set({ [`liveness:${tabId}`]: kept });
  await showBadge(tabId, verdict.state);
  return kept;
}

/** The tab's page as {html}, {chars} when over the cap, or null when it is not `url` any more. */
async function readTab(tabId, url) {
  return (await runInTab(tabId, renderedPage, [url, TAB_PAGE_CHARS, LEFT_OUT])) ?? null;
}

/** Runs in the page: its rendered HTML without the left-out elements (the live DOM is untouched). */
export function renderedPage(url, limit, leftOut) {
  if (location.href !== url) return null;
  const copy = document.documentElement.cloneNode(true);
  for (const node of copy.querySelectorAll(leftOut)) node.remove();
  const html = `<!doctype html>${copy.outerHTML}`;
  return html.length > limit ? { chars: html.length } : { html };
}

async function showBadge(tabId, state) {
  if (state !== 'gone' && state !== 'changed') return;
  const gone = state === 'gone';
  await action.setBadgeBackgroundColor({ tabId, color: gone ? '#b3261e' : '#a15c00' });
  await action.setBadgeText({ tabId, text: '!' });
  await action.setTitle({
    tabId,
    title: gone
      ? 'PageKeeper: the content you archived is no longer on this page. Open the popup for your copy.'
      : 'PageKeeper: this page changed since you archived it.',
  });
}

/**
 * What the popup shows: the tab's own verdict, else the host's last stored check of the URL (a
 * sweep or `pagekeeper check`, which may say the server was unreachable), else null.
 */
export async function verdictFor(tabId, url) {
  return (await livenessOf(tabId, url)) ?? (await request('last_check', { url }).catch(() => null));
}

/** The last verdict for a tab's current page ({url, state, reason, …}), or null. */
export async function livenessOf(tabId, url) {
  const key = `liveness:${tabId}`;
  const found = (await sessionStore.get(key))[key];
  return found?.url === url ? found : null;
}
