// PageKeeper's background: the service worker in Chromium, an event page in Firefox.
// Every listener is registered here, synchronously, at the top level: a service worker that wakes
// up for an event only gets it if the listener exists in its first turn (MV3 lifecycle docs).

import { clearSessionFallback, ext, menus } from '../lib/browser.js';
import { archiveAfterAccess, archiveLink, archiveTabTold, resumeArchives } from './archive.js';
import { onAlarm, onNotificationClicked, scheduleAlerts } from './alerts.js';
import { onBookmarkCreated } from './bookmarks.js';
import { restoreBadges, withFeedback } from './feedback.js';
import { forgetSettings } from './config.js';
import { forgetTab, onBeforeNavigate, onCommitted, onHttpCompleted, onNavigationError } from './navigation.js';
import { route } from './router.js';
import { onPageFetched, onPageLoaded } from './visits.js';

const MAIN_FRAME = { urls: ['http://*/*', 'https://*/*'], types: ['main_frame'] };
const WEB_PAGES = { url: [{ schemes: ['http', 'https'] }] };

// One listener per lifecycle event; each task runs on its own, so one failing spares the others.
const ON_INSTALLED = [createMenus, scheduleAlerts];
const ON_STARTUP = [createMenus, scheduleAlerts, clearSessionFallback];
ext.runtime.onInstalled.addListener(() => ON_INSTALLED.forEach((task) => quietly(task)()));
ext.runtime.onStartup.addListener(() => ON_STARTUP.forEach((task) => quietly(task)()));
ext.alarms?.onAlarm.addListener(quietly(onAlarm));
ext.notifications?.onClicked.addListener(quietly(onNotificationClicked));

ext.runtime.onMessage.addListener((message, sender, sendResponse) => {
  route(message, sender).then(sendResponse);
  return true; // answer asynchronously
});

ext.webNavigation.onBeforeNavigate.addListener(quietly(onBeforeNavigate), WEB_PAGES);
ext.webNavigation.onCommitted.addListener(quietly(onCommitted), WEB_PAGES);
ext.webNavigation.onErrorOccurred.addListener(quietly(onNavigationError), WEB_PAGES);
ext.webNavigation.onCompleted.addListener(quietly(onPageLoaded), WEB_PAGES);
ext.webRequest.onCompleted.addListener(quietly(onHttpCompleted), MAIN_FRAME);
ext.webRequest.onCompleted.addListener(quietly(onPageFetched), MAIN_FRAME);
ext.tabs.onRemoved.addListener(quietly(forgetTab));
ext.storage.onChanged.addListener((_changes, area) => area === 'sync' && forgetSettings());

// bookmarks is an optional permission: its API exists once granted. Granted at install or before
// this start, the listener is added now; granted while the worker runs, on permissions.onAdded.
const onBookmarkAdded = quietly(onBookmarkCreated);
watchBookmarks();
ext.permissions.onAdded.addListener((added) => added?.permissions?.includes('bookmarks') && watchBookmarks());

// Site access granted again (Firefox lets the user withdraw it): archive the page whose popup
// asked for it, also when the prompt closed the popup.
ext.permissions.onAdded.addListener((added) => added?.origins?.length && archiveAfterAccess().catch(() => {}));

function watchBookmarks() {
  const created = ext.bookmarks?.onCreated;
  if (created && !created.hasListener(onBookmarkAdded)) created.addListener(onBookmarkAdded);
}

menus.onClicked.addListener(quietly(onMenuClicked));
ext.commands.onCommand.addListener(quietly(onCommand));

// A capture the previous run of this worker was sending when the browser stopped it, and the
// ✓/! badges it was showing: their time runs on from storage.session.
quietly(resumeArchives)();
quietly(restoreBadges)();

async function createMenus() {
  await menus.removeAll(); // promise-based in both families (MV3)
  menus.create({ id: 'pk-archive-page', title: 'Archive this page', contexts: ['page'] });
  menus.create({ id: 'pk-archive-link', title: 'Archive the linked page', contexts: ['link'] });
}

// The menus and the shortcut have no window of their own: the badge (and a notification) say
// how the archive ended (feedback.js).
async function onMenuClicked(info, tab) {
  if (info.menuItemId === 'pk-archive-link') await withFeedback(tab?.id, 'link', () => archiveLink(info.linkUrl));
  else if (info.menuItemId === 'pk-archive-page' && tab?.id != null) await archiveTabTold(tab.id);
}

async function onCommand(command, tab) {
  if (command !== 'archive-page') return;
  const target = tab ?? (await ext.tabs.query({ active: true, currentWindow: true }))[0];
  if (target?.id != null) await archiveTabTold(target.id);
}

/**
 * Event handlers run detached: log their failures instead of leaving unhandled rejections. The
 * handler starts at once, in the event's own turn, so the reads and changes of a tab's state
 * (tab-state.js) queue up in the order the browser sent the events.
 */
function quietly(handler) {
  const warn = (err) => console.warn(`PageKeeper: ${handler.name}:`, err?.message ?? err);
  return (...args) => {
    try {
      Promise.resolve(handler(...args)).catch(warn);
    } catch (err) {
      warn(err);
    }
  };
}
