// The one owner of the native-messaging port to the PageKeeper host (`pagekeeper native`).
// Requests carry an id; replies are matched by id; every request has a timeout; the port is
// reopened on the next request after it closes. Protocol: host/PROTOCOL.md
//   → {"id", "type", "params"}   ← {"id", "ok": true, "result"} | {"id", "ok": false, "error": {"code", "message"}}
//
//   const result = await request('ping');          // {version, protocol}
//   await request('nav_error', {url, error}, { timeoutMs: 3000 });

import { ext } from '../lib/browser.js';

/** The native-messaging host name written by `pagekeeper install` (host/native/installer.py). */
export const HOST_NAME = 'com.pagekeeper.host';

const DEFAULT_TIMEOUT_MS = 5000;
// After the browser says the host is not installed, answer "missing" at once for a while instead
// of spawning a process per request; then try again (the user may have run `pagekeeper install`).
const MISSING_RETRY_MS = 3000;

/** A failed request: `code` is the host's error code, or host_missing / host_disconnected / timeout. */
export class HostError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }

  toJSON() {
    return { code: this.code, message: this.message };
  }
}

let port = null;
let nextId = 1;
let missingSince = 0;
let lastFailure = null;
const pending = new Map();
const pages = new Map(); // id → chunks of a paged reply

/** Send one request to the host and resolve with its `result` (or reject with a HostError). */
export function request(type, params = {}, { timeoutMs = DEFAULT_TIMEOUT_MS } = {}) {
  if (missingSince && Date.now() - missingSince < MISSING_RETRY_MS) {
    return Promise.reject(new HostError('host_missing', lastFailure.message));
  }
  const id = `${Date.now().toString(36)}-${nextId++}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => settle(id, new HostError('timeout', `no answer to ${type} in ${timeoutMs} ms`)), timeoutMs);
    pending.set(id, { resolve, reject, timer });
    try {
      openPort().postMessage({ id, type, params });
    } catch (err) {
      settle(id, new HostError('host_disconnected', String(err?.message ?? err)));
    }
  });
}

/** Whether the port is open, and the last failure ({code, message, at}) if any. */
export function portState() {
  return { connected: port !== null, lastFailure };
}

function openPort() {
  if (port) return port;
  const opened = ext.runtime.connectNative(HOST_NAME);
  opened.onMessage.addListener(onReply);
  opened.onDisconnect.addListener((p) => onDisconnect(opened, p));
  port = opened;
  return opened;
}

function onReply(frame) {
  const message = assemble(frame);
  if (!message || typeof message !== 'object' || !pending.has(message.id)) return;
  missingSince = 0;
  if (message.ok) settle(message.id, null, message.result);
  else settle(message.id, new HostError(message.error?.code ?? 'host_error', message.error?.message ?? 'the host failed'));
}

/**
 * Replies over Chromium's 1 MB host→browser limit arrive as pages
 * {"id", "page", "pages", "chunk"} (host/PROTOCOL.md); the chunks joined are the reply's JSON.
 */
function assemble(frame) {
  if (!frame || typeof frame.chunk !== 'string' || typeof frame.pages !== 'number') return frame;
  const chunks = pages.get(frame.id) ?? new Array(frame.pages).fill(null);
  chunks[frame.page] = frame.chunk;
  pages.set(frame.id, chunks);
  if (chunks.some((c) => c === null)) return null;
  pages.delete(frame.id);
  try {
    return JSON.parse(chunks.join(''));
  } catch {
    return { id: frame.id, ok: false, error: { code: 'bad_reply', message: 'a paged reply did not join into JSON' } };
  }
}

function onDisconnect(closed, p) {
  // Chromium puts the reason in runtime.lastError ("Specified native messaging host not found.",
  // "... is forbidden." when allowed_origins lacks our ID), Firefox in p.error ("No such native
  // application ..."). Both mean: run `pagekeeper install`.
  const text = ext.runtime.lastError?.message ?? p?.error?.message ?? 'the host closed the connection';
  if (closed === port) port = null;
  const code = /not found|forbidden|no such native application|not installed/i.test(text) ? 'host_missing' : 'host_disconnected';
  if (code === 'host_missing') missingSince = Date.now();
  lastFailure = { code, message: text, at: Date.now() };
  pages.clear();
  for (const id of [...pending.keys()]) settle(id, new HostError(code, text));
}

function settle(id, error, result) {
  const entry = pending.get(id);
  if (!entry) return;
  pending.delete(id);
  clearTimeout(entry.timer);
  if (error) entry.reject(error);
  else entry.resolve(result);
}
