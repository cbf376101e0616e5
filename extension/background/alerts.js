// Alerts as browser notifications: every few minutes (alarms) the background asks the host what
// changed or went away (alerts_list, only documents whose alerts are on; nothing leaves the
// machine) and shows one notification per new alert; clicking it opens that document in the
// viewer. The newest alert time shown is kept in storage.local, so none is shown twice.

import { ext } from '../lib/browser.js';
import { request } from './native.js';

export const ALARM = 'pk-alerts';
export const EVERY_MINUTES = 15;
const PREFIX = 'pk-alert:';

/** Create the repeating alarm (on install and on browser start). */
export async function scheduleAlerts() {
  await ext.alarms?.create(ALARM, { periodInMinutes: EVERY_MINUTES, delayInMinutes: 1 });
}

/** Ask the host for alerts newer than the last one shown; notify each. The IDs created. */
export async function checkAlerts() {
  const { alertsShownUntil = 0 } = await ext.storage.local.get('alertsShownUntil');
  const res = await request('alerts_list', { since: alertsShownUntil });
  const created = [];
  for (const alert of res.alerts ?? []) {
    const id = `${PREFIX}${alert.id}:${alert.ts}`;
    await ext.notifications.create(id, {
      type: 'basic',
      iconUrl: ext.runtime.getURL('icons/icon-128.png'),
      title: alert.kind === 'gone' ? 'A page you keep is gone' : 'A page you keep changed',
      message: `${alert.title || alert.url}${alert.detail ? ` (${alert.detail})` : ''}`,
      contextMessage: 'PageKeeper: click to open your archived copy',
    });
    created.push(id);
  }
  const newest = Math.max(alertsShownUntil, ...(res.alerts ?? []).map((a) => a.ts));
  await ext.storage.local.set({ alertsShownUntil: newest });
  return created;
}

/** alarms.onAlarm */
export async function onAlarm(alarm) {
  if (alarm?.name === ALARM) await checkAlerts();
}

/** The viewer address of a notification's document, or null for one that is not ours. */
export function alertDocument(notificationId) {
  if (!notificationId?.startsWith(PREFIX)) return null;
  return notificationId.slice(PREFIX.length).split(':')[0];
}

/** notifications.onClicked: open the document in the viewer (signed in with the token). */
export async function onNotificationClicked(notificationId) {
  const docId = alertDocument(notificationId);
  if (!docId) return null;
  const { token, url } = await request('get_token', {});
  const base = (url ?? '').replace(/\/$/, '');
  const tab = await ext.tabs.create({ url: `${base}/viewer/?token=${encodeURIComponent(token)}#/doc/${encodeURIComponent(docId)}` });
  await ext.notifications.clear(notificationId);
  return tab;
}
