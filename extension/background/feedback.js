// What the keyboard shortcut and the context menus say: they have no window, so the toolbar
// badge of the tab they came from shows the result for a while (✓ archived, ! failed, its title
// the whole sentence), and a notification tells a failure, and the linked page's result (a link
// archived from the menu is not the page on screen). The words are the popup's
// (lib/messages.js). `notifications` is already held for the alerts (background/alerts.js).
//
//   await withFeedback(5, 'page', () => archiveTab(5));   // badge ✓ "… saved as version 2 …"

import { action, ext, sessionStore } from '../lib/browser.js';
import { failureText, framesLostText } from '../lib/messages.js';

/** How long the badge shows a result before the tab's own badge comes back (ms). */
export const feedbackOptions = { showMs: 8000 };
const PREFIX = 'pk-archive:';
const DONE_COLOR = '#1f6f5c';
const FAILED_COLOR = '#b3261e';

/**
 * Run `work` (an archive of the tab's page, `what` 'page', or of a link, 'link') and tell the user
 * how it ended; resolves with its result, rejects with its error.
 */
export async function withFeedback(tabId, what, work) {
  let result;
  try {
    result = await work();
  } catch (err) {
    await tellFailure(tabId, what, err).catch(() => {});
    throw err;
  }
  await tellDone(tabId, what, result).catch(() => {});
  return result;
}

async function tellDone(tabId, what, summary) {
  const version = summary?.version ? ` as version ${summary.version}` : '';
  const text = what === 'link'
    ? `The linked page ${summary?.url ?? ''} is archived${version}.`
    : `This page is archived${version}.`;
  const lost = framesLostText(summary?.frames_lost);
  await flash(tabId, '✓', DONE_COLOR, `PageKeeper: ${text}${lost ? ` ${lost}.` : ''}`);
  if (what === 'link') await notify('Linked page archived', text);
}

async function tellFailure(tabId, what, err) {
  const title = what === 'link' ? 'The linked page was not archived' : 'This page was not archived';
  const text = failureText(err);
  await flash(tabId, '!', FAILED_COLOR, `PageKeeper: ${title}. ${text}`);
  await notify(title, text);
}

const BADGE_PREFIX = 'feedback:'; // + tabId → {text, before, until}: a ✓/! badge being shown
const timers = new Map(); // tabId → the timer that gives the tab its own badge back

/**
 * Show `text` on the tab's badge for feedbackOptions.showMs, then what it showed before. What
 * is shown, and until when, is in storage.session: the browser may stop the worker before the
 * timer fires, and its next start (restoreBadges) puts the badge back.
 */
async function flash(tabId, text, color, title) {
  if (tabId == null || tabId < 0) return;
  clearTimeout(timers.get(tabId));
  const key = `${BADGE_PREFIX}${tabId}`;
  const before = (await sessionStore.get(key))[key]?.before ?? await badgeOf(tabId);
  await action.setBadgeBackgroundColor({ tabId, color });
  await action.setBadgeText({ tabId, text });
  await action.setTitle({ tabId, title });
  const shown = { text, before, until: Date.now() + feedbackOptions.showMs };
  await sessionStore.set({ [key]: shown });
  later(tabId, shown);
}

/** At the worker's start: the badges its previous run showed get their own back in time. */
export async function restoreBadges() {
  const all = await sessionStore.get(null);
  for (const [key, shown] of Object.entries(all ?? {})) {
    if (key.startsWith(BADGE_PREFIX)) later(Number(key.slice(BADGE_PREFIX.length)), shown);
  }
}

function later(tabId, shown) {
  clearTimeout(timers.get(tabId));
  const wait = Math.max(0, shown.until - Date.now());
  timers.set(tabId, setTimeout(() => restore(tabId, shown).catch(() => {}), wait));
}

async function badgeOf(tabId) {
  const [text, title] = await Promise.all([action.getBadgeText({ tabId }), action.getTitle({ tabId })]);
  return { text, title };
}

/** Put the tab's badge back, unless something else changed it meanwhile (a new page's count). */
async function restore(tabId, { text, before }) {
  timers.delete(tabId);
  await sessionStore.remove(`${BADGE_PREFIX}${tabId}`);
  if ((await action.getBadgeText({ tabId }).catch(() => null)) !== text) return;
  await action.setBadgeBackgroundColor({ tabId, color: DONE_COLOR });
  await action.setBadgeText({ tabId, text: before.text ?? '' });
  await action.setTitle({ tabId, title: before.title ?? 'PageKeeper' });
}

async function notify(title, message) {
  if (!ext.notifications) return;
  await ext.notifications.create(`${PREFIX}${Date.now()}`, {
    type: 'basic',
    iconUrl: ext.runtime.getURL('icons/icon-128.png'),
    title,
    message,
    contextMessage: 'PageKeeper',
  });
}
