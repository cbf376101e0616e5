// Progress of a tab's capture, kept in storage.session under `capture:<tabId>` so the popup can
// close, reopen and still see it, and so it outlives a restarted service worker.
//
//   const p = progress(7, 'https://a.example/');
//   await p.update({ phase: 'sending', bytes_total: 150e6 });
//   await p.sent(4 << 20);          // written at most every WRITE_EVERY_MS
//   await readProgress(7);          // {phase, url, bytes_sent, bytes_total, ...}
//   await interruptedCaptures();    // [{tabId, state}] a stopped service worker left halfway

import { sessionStore } from '../lib/browser.js';

const WRITE_EVERY_MS = 200;
const PREFIX = 'capture:';
const RUNNING = new Set(['collecting', 'sending', 'saving']);

/** The storage.session key of a tab's capture progress. */
export function progressKey(tabId) {
  return `${PREFIX}${tabId}`;
}

/** The stored progress of a tab's capture, or null. */
export async function readProgress(tabId) {
  const key = progressKey(tabId);
  return (await sessionStore.get(key))[key] ?? null;
}

/**
 * At the background's start, the captures its previous run left running: the browser stopped it
 * (an idle or crashed service worker) in the middle, so nothing else will finish them.
 */
export async function interruptedCaptures() {
  const all = await sessionStore.get(null);
  return Object.entries(all ?? {})
    .filter(([key, state]) => key.startsWith(PREFIX) && RUNNING.has(state?.phase))
    .map(([key, state]) => ({ tabId: Number(key.slice(PREFIX.length)), state }));
}

/**
 * A writer for one capture; `phase`: collecting | sending | saving | done | failed. `from`: the
 * stored state of a capture an earlier run left, to carry on with.
 */
export function progress(tabId, url, from = null) {
  const key = progressKey(tabId);
  // timings: ms from the start to the end of each phase, e.g. {collecting: 180, sending: 420, saving: 910}
  const state = from ? { ...from } : { url, phase: 'collecting', started_at: Date.now(), bytes_sent: 0, bytes_total: 0, parts_sent: 0, parts_total: 0, timings: {} };
  let written = 0;
  const write = () => {
    written = Date.now();
    return sessionStore.set({ [key]: { ...state, updated_at: written } });
  };
  return {
    state,
    update(fields) {
      if (fields.phase && fields.phase !== state.phase) state.timings = { ...state.timings, [state.phase]: Date.now() - state.started_at };
      Object.assign(state, fields);
      return write();
    },
    sent(bytes) {
      state.bytes_sent += bytes;
      state.parts_sent += 1;
      const last = state.parts_sent === state.parts_total;
      return last || Date.now() - written >= WRITE_EVERY_MS ? write() : Promise.resolve();
    },
  };
}

/**
 * What the popup says about a capture in progress.
 *   captureText({phase: 'sending', bytes_sent: 3 * 2 ** 20, bytes_total: 12 * 2 ** 20, resources_needed: 40})
 *   // 'Sending 40 files to the helper app: 3.0 of 12.0 MB'
 */
export function captureText(p) {
  if (p.phase === 'collecting') return 'Reading the page and the files it uses…';
  if (p.phase === 'saving') return 'Saving the copy…';
  const mb = (n) => (n / 2 ** 20).toFixed(1);
  const files = p.resources_needed ?? 0;
  return `Sending ${files} file${files === 1 ? '' : 's'} to the helper app: ${mb(p.bytes_sent)} of ${mb(p.bytes_total)} MB`;
}
