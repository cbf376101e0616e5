// The settings as the background sees them: loaded once, dropped when storage.sync changes
// (service-worker.js registers the storage.onChanged listener and calls forgetSettings).
//
//   const s = await settings();   // cached; DEFAULTS merged with the user's choices

import { loadSettings } from '../lib/settings.js';

let cached = null;

/** The current settings (a shared promise, so a burst of events reads storage once). */
export function settings() {
  cached ??= loadSettings().catch((err) => {
    cached = null;
    throw err;
  });
  return cached;
}

/** Forget the cached settings; the next call reads storage again. */
export function forgetSettings() {
  cached = null;
}
