// The user's settings: defaults, loading and saving. Stored with storage.sync so they follow the
// user's browser profile; everything here is small (sync quota: 8 KB per item).
//
//   const s = await loadSettings();   // DEFAULTS merged with what the user changed
//   await saveSettings({ allowPrivate: true });

import { ext } from './browser.js';

export const DEFAULTS = Object.freeze({
  errorPages: true, // step in on failed navigations
  allowPrivate: false, // also localhost, 10.x, 192.168.x, intranet names
  historyUse: true, // report visited hosts (counts only) so your own domains join the dictionary
  excluded: [], // sites PageKeeper leaves alone entirely, e.g. ["bank.example"]
  profile: 'archive', // URL normalization profile that keys the archive (the host keeps the one in force): safe | archive | aggressive
  badge: true, // show the number of archived versions on the toolbar button
  liveness: false, // check whether an archived page still holds its content when you visit it
  autoArchive: { mode: 'off', days: 7, sites: [] }, // mode: off | every | older
  archiveBookmarks: false, // archive each page when I bookmark it (asks for the bookmarks permission)
  // What "Archive this page" keeps besides the HTML: scripts (off: a static copy needs none), and
  // the caps in MB on one resource and on the whole page (what a cap leaves out is listed as missing).
  capture: { keepScripts: false, resourceMB: 50, pageMB: 300 },
});

/** DEFAULTS overlaid with the stored values. */
export async function loadSettings() {
  const stored = await ext.storage.sync.get(null);
  return { ...DEFAULTS, ...pick(stored) };
}

/** Store some settings (unknown keys are dropped). */
export async function saveSettings(changes) {
  await ext.storage.sync.set(pick(changes));
}

function pick(values) {
  return Object.fromEntries(Object.entries(values ?? {}).filter(([k]) => k in DEFAULTS));
}
