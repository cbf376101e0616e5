// The one {type: handler} map for messages from our own pages (error page, popup, options).
// A handler takes (params, sender) and returns a value or a promise; `route` wraps it as
// {ok: true, result} or {ok: false, error: {code, message}}, the same shape as the host's replies.

import { ext } from '../lib/browser.js';
import { checkAlerts, onNotificationClicked } from './alerts.js';
import { importBrowserBookmarks } from './bookmarks.js';
import { archiveAfterAccess, archiveLink, archiveOnAccess, archiveTab, deletePage, lastArchiveOf, listVersions, undoDelete } from './archive.js';
import { lookupResult, retry } from './navigation.js';
import { HostError, portState, request } from './native.js';
import { verdictFor } from './liveness.js';

/** Relay a request to the host unchanged. */
const relay = (type, timeoutMs) => (params) => request(type, params, { timeoutMs });

export const HANDLERS = {
  nav_error_result: lookupResult,
  retry,
  suggestion_taken: relay('suggestion_taken'),
  archive_tab: (params) => archiveTab(params.tabId),
  archive_on_access: (params) => archiveOnAccess(params.tabId ?? null, params.waiting !== false)
    .then(() => ({ tabId: params.tabId ?? null, waiting: params.waiting !== false })),
  archive_after_access: (params) => archiveAfterAccess(params.tabId),
  archive_link: (params) => archiveLink(params.url),
  versions: (params) => listVersions(params.url),
  last_archive: (params) => lastArchiveOf(params.url),
  archive_delete: (params) => deletePage(params.url, params.tabId),
  archive_undo: (params) => undoDelete(params.undo, params.url, params.tabId),
  archive_tag: relay('archive_tag'),
  import_bookmarks: () => importBrowserBookmarks(),
  check_alerts: () => checkAlerts(),
  open_alert: async (params) => ((await onNotificationClicked(params.id)) ? { opened: true } : { opened: false }),
  similar: relay('similar'),
  open: relay('open', 15000),
  open_copy: openCopy,
  check: relay('check', 15000),
  liveness: (params) => verdictFor(params.tabId, params.url),
  host_status: hostStatus,
  key_profile: relay('key_profile', 120000),
  viewer: viewer,
};

/** Handle one runtime message from an extension page. */
export async function route(message, sender) {
  if (sender?.id !== ext.runtime.id) return failure('forbidden', 'messages are accepted from PageKeeper\'s own pages only');
  const handler = HANDLERS[message?.type];
  if (!handler) return failure('unknown_type', `no handler for "${message?.type}"`);
  try {
    return { ok: true, result: await handler(message.params ?? {}, sender) };
  } catch (err) {
    return failure(err?.code ?? 'extension_error', err?.message ?? String(err));
  }
}

async function hostStatus() {
  try {
    const started = performance.now();
    const pong = await request('ping', {}, { timeoutMs: 3000 });
    const round = Math.round(performance.now() - started);
    const found = await request('search', { pattern: '*', limit: 1 }).catch(() => null);
    return { installed: true, ...pong, round_trip_ms: round, archived_pages: found?.total ?? null };
  } catch (err) {
    return { installed: err.code !== 'host_missing', error: { code: err.code, message: err.message }, port: portState() };
  }
}

/**
 * The archive viewer (at the address `get_token` gives), signed in: it takes `?token=` into its
 * own session storage and drops it from the address bar (host/viewer/static/api.js). `hash`
 * picks a view, e.g. '#/doc/<id>'.
 *   viewer({hash: '#/doc/0190…'}) → {url: 'http://127.0.0.1:47477/viewer/?token=…#/doc/0190…'}
 */
async function viewer(params) {
  const { token, url } = await request('get_token', {});
  const address = url ?? (await request('stats', {}))?.daemon?.url;
  if (!address) throw new HostError('no_daemon', 'The archive viewer needs the PageKeeper daemon, which is not running.');
  const base = address.replace(/\/$/, '');
  return { url: `${base}/viewer/?token=${encodeURIComponent(token)}${params.hash ?? ''}`, base };
}

/**
 * An archived copy (`/v/<id>/<url>`): `/auth` trades the token for the session cookie and
 * redirects there (host/daemon/http_routes.py), so the token does not stay in the address bar.
 */
async function openCopy(params) {
  const target = new URL(params.version_url);
  const { token } = await request('get_token', {});
  const next = encodeURIComponent(target.pathname + target.search);
  return { url: `${target.origin}/auth?token=${encodeURIComponent(token)}&next=${next}` };
}

function failure(code, message) {
  return { ok: false, error: { code, message } };
}
