// The one {type: handler} map for messages from our own pages (error page, popup, options).
// A handler takes (params, sender) and returns a value or a promise; `route` wraps it as
// {ok: true, result} or {ok: false, error: {code, message}}, the same shape as the host's replies.

import { ext } from '../lib/browser.js';
import { archiveLink, archiveTab, listVersions } from './archive.js';
import { lookupResult, retry } from './navigation.js';
import { portState, request } from './native.js';

/** Relay a request to the host unchanged. */
const relay = (type, timeoutMs) => (params) => request(type, params, { timeoutMs });

export const HANDLERS = {
  nav_error_result: lookupResult,
  retry,
  suggestion_taken: relay('suggestion_taken'),
  archive_tab: (params) => archiveTab(params.tabId),
  archive_link: (params) => archiveLink(params.url),
  versions: (params) => listVersions(params.url),
  similar: relay('similar'),
  open: relay('open', 15000),
  check: relay('check', 15000),
  host_status: hostStatus,
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
    return { installed: true, ...pong, round_trip_ms: Math.round(performance.now() - started) };
  } catch (err) {
    return { installed: err.code !== 'host_missing', error: { code: err.code, message: err.message }, port: portState() };
  }
}

/** The viewer's address, with the token it needs (`get_token`), optionally at `path`. */
async function viewer(params) {
  const answer = await request('get_token', {});
  const base = (answer.url ?? answer.base ?? 'http://127.0.0.1:47477').replace(/\/$/, '');
  const path = params.path ?? '/viewer/';
  const sep = path.includes('?') ? '&' : '?';
  return { url: `${base}${path}${sep}token=${encodeURIComponent(answer.token)}`, base };
}

function failure(code, message) {
  return { ok: false, error: { code, message } };
}
