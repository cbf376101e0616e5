// The one connection to the daemon: JSON requests over /ws with the token
// ({"id","type","params"} -> {"id","ok","result"|"error"}, host/PROTOCOL.md).
// Messages without a pending id are events (live updates) and go to listeners.

import { command } from './dom.js';

const TOKEN_KEY = 'pagekeeper.token';

export class ApiError extends Error {
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
}

/** The token from ?token= (then hidden from the address bar) or this tab's storage. */
export function takeToken(loc = window.location) {
  const params = new URLSearchParams(loc.search);
  const token = params.get('token');
  if (token) {
    sessionStorage.setItem(TOKEN_KEY, token);
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', loc.pathname + (rest ? `?${rest}` : '') + loc.hash);
    return token;
  }
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

export class Api {
  constructor(token, { timeoutMs = 30000 } = {}) {
    this.token = token;
    this.timeoutMs = timeoutMs;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = new Set();
    this.stateListeners = new Set();
    this.ws = null;
    this.opened = null;
    this.retryMs = 500;
  }

  /** ws://host/ws?token=… on the daemon that served this page. */
  url() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    return `${scheme}://${location.host}/ws?token=${encodeURIComponent(this.token)}`;
  }

  connect() {
    if (this.opened) return this.opened;
    this.setState('connecting');
    this.opened = new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url());
      let wasOpen = false;
      this.ws = ws;
      ws.addEventListener('open', () => {
        wasOpen = true;
        this.retryMs = 500;
        this.setState('online');
        resolve(ws);
      });
      ws.addEventListener('message', (ev) => this.receive(ev.data));
      ws.addEventListener('close', (ev) => this.closed(ev, reject, wasOpen));
    });
    return this.opened;
  }

  /** A handshake that failed shows the page only code 1006: is the daemon there and
   * refusing this token? /auth answers 403 to a wrong token (host/PROTOCOL.md). */
  async tokenRefused() {
    try {
      const res = await fetch(`/auth?token=${encodeURIComponent(this.token)}&next=/viewer/`, { redirect: 'manual', cache: 'no-store' });
      return res.status === 403;
    } catch {
      return false; // the daemon is not there at all
    }
  }

  async closed(ev, reject, wasOpen) {
    this.ws = null;
    for (const { fail } of this.pending.values()) fail(new ApiError('unavailable', 'connection to the archive daemon lost'));
    this.pending.clear();
    const refused = ev.code === 1008 || ev.code === 4003 || (!wasOpen && await this.tokenRefused());
    this.opened = null; // only now: calls made meanwhile wait for this attempt's verdict
    this.setState(refused ? 'refused' : 'offline');
    reject(new ApiError(refused ? 'forbidden' : 'unavailable', refused
      ? `the daemon refused the token: open the viewer again with \`${command('open')}\``
      : `the archive daemon is not reachable: \`${command()}\` starts it`));
    if (!refused) {
      setTimeout(() => this.connect().catch(() => {}), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 8000);
    }
  }

  receive(data) {
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    const waiter = msg && msg.id != null ? this.pending.get(msg.id) : undefined;
    if (!waiter) {
      for (const fn of this.listeners) fn(msg);
      return;
    }
    this.pending.delete(msg.id);
    if (msg.ok) waiter.done(msg.result);
    else waiter.fail(new ApiError(msg.error?.code || 'internal', msg.error?.message));
  }

  /** Send one request; resolves with its result or rejects with an ApiError. */
  async call(type, params = {}) {
    const ws = await this.connect();
    const id = `v${this.nextId++}`;
    return new Promise((done, fail) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        fail(new ApiError('timeout', `no answer to ${type} in ${this.timeoutMs / 1000} s`));
      }, this.timeoutMs);
      this.pending.set(id, {
        done: (r) => { clearTimeout(timer); done(r); },
        fail: (e) => { clearTimeout(timer); fail(e); },
      });
      ws.send(JSON.stringify({ id, type, params }));
    });
  }

  onEvent(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  onState(fn) {
    this.stateListeners.add(fn);
    fn(this.state);
  }

  setState(state) {
    this.state = state;
    for (const fn of this.stateListeners) fn(state);
  }
}
