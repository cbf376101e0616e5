// Per-tab state that must outlive the background: the pages a tab committed (the referrer of a
// later failure), the failed URL our error page shows in it (so Back is told from a new
// failure), and the number of its latest failure or retry. A Chromium service worker is stopped
// after 30 s idle and a Firefox event page is suspended, so this lives in storage.session (as
// uBlock Origin Lite keeps its per-tab state), not in module variables.
//
//   await changeTab(7, (tab) => ({ ...tab, showing: 'http://gooogle.com/' }));
//   (await readTab(7)).showing === 'http://gooogle.com/'
//
// The events of one tab arrive in order, and each read or change of that tab waits for the ones
// before it: a failure reported right after a commit sees the commit.

import { sessionStore } from '../lib/browser.js';

const queues = new Map(); // tabId → the promise of its latest read or change

/** The tab's record, {current, previous, showing, attempt}; {} for a tab never seen. */
export function readTab(tabId) {
  return inTurn(tabId, (tab) => tab);
}

/**
 * Apply `change(record) → record` to the tab's record and store the result; returns it.
 * Returning the record unchanged (the same object) writes nothing.
 */
export function changeTab(tabId, change) {
  return inTurn(tabId, async (tab, key) => {
    const next = change(tab);
    if (next !== tab) await sessionStore.set({ [key]: next });
    return next;
  });
}

/** Forget a closed tab. */
export function dropTab(tabId) {
  return inTurn(tabId, (_tab, key) => sessionStore.remove(key));
}

function inTurn(tabId, step) {
  const key = `tab:${tabId}`;
  const run = (queues.get(tabId) ?? Promise.resolve()).then(async () => {
    const tab = (await sessionStore.get(key))[key] ?? {};
    return step(tab, key);
  });
  const settled = run.catch(() => {});
  queues.set(tabId, settled);
  settled.then(() => queues.get(tabId) === settled && queues.delete(tabId));
  return run;
}
