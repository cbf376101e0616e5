// Live updates, pushed. The protocol answers each request once (host/PROTOCOL.md), so
// the viewer keeps ONE long-poll outstanding over the websocket: viewer_watch
// {since: <seq of the last answer>} is answered by the daemon as soon as the archive
// changed (the store tells it after each durable write; a sweep's progress too), or
// after timeout_ms with the same seq; then the next one is sent. Each answer is a change
// stamp that is turned into the events the views listen to: "registered" (a new
// version), "checked" (a liveness result), "sweep" (progress).
// On a disconnect the watch fails; once the socket is back, the first watch has no
// `since` (answered at once, so what changed meanwhile is seen). A daemon without
// viewer_watch (unknown_type) is polled with viewer_changes every few seconds instead.
// A hidden tab sends no new watch until it is visible again.

const WATCH_MS = 20000; // the daemon answers by then (below api.js's 30 s call timeout)
const BURST_GAP_MS = 100; // after a change, before the next watch: a sweep's checks come in bursts
const POLL_MS = 3000; // fallback polling, daemon without viewer_watch
const ERROR_MS = 3000; // after an unexpected error

export function startLive(api) {
  let last = null; // the last stamp seen
  let first = true; // the first request goes out even before "online" (call() connects)
  let resync = true; // the next request carries no `since` (first one, after a disconnect)
  let polling = false; // the daemon has no viewer_watch
  let stopped = false;
  let timer = null;
  let wake = null; // resolves a pause (online again, visible again, stop)

  const emit = (event, data = {}) => {
    for (const fn of api.listeners) fn({ event, data });
  };

  const diff = (now) => {
    if (!last) return;
    if (now.versions !== last.versions || now.last_id !== last.last_id) emit('registered', { id: now.last_id, key: now.last_key });
    if (now.checks !== last.checks || now.last_check !== last.last_check) emit('checked', { key: now.last_check_key });
    if (now.sweep.running || last.sweep.running) {
      if (JSON.stringify(now.sweep) !== JSON.stringify(last.sweep) || polling) emit('sweep', now.sweep);
    }
  };

  const pause = (ms) => new Promise((resolve) => {
    wake = resolve;
    if (ms != null) timer = setTimeout(resolve, ms);
  });

  const ready = () => stopped || (api.state === 'online' && document.visibilityState === 'visible');

  const onState = () => { if (ready() && wake) wake(); };
  api.stateListeners.add(onState);
  document.addEventListener('visibilitychange', onState);

  const ask = () => {
    if (polling) return api.call('viewer_changes', {});
    return api.call('viewer_watch', resync ? {} : { since: last.seq, timeout_ms: WATCH_MS });
  };

  const run = async () => {
    while (!stopped) {
      if (!first && !ready()) {
        await pause(null);
        continue;
      }
      let gap = polling ? POLL_MS : 0;
      first = false;
      try {
        const now = await ask();
        if (stopped) break;
        diff(now);
        if (!polling && last && now.seq !== last.seq) gap = BURST_GAP_MS;
        if (polling && now.sweep.running) gap = 1000;
        last = now;
        resync = false;
      } catch (err) {
        if (err?.code === 'unknown_type' && !polling) {
          polling = true; // an older daemon: poll as the viewer used to
          gap = 0;
        } else if (api.state !== 'online') {
          resync = true; // the connection went: wait for it (api.js reconnects), then catch up
          gap = 0;
        } else {
          resync = true;
          gap = ERROR_MS;
        }
      }
      if (gap) await pause(gap);
    }
  };

  // The first stamp is asked for before any view asks for data (same socket; the daemon
  // takes the stamp on the store thread in arrival order), so nothing registered after a
  // view loaded goes unseen.
  run();
  return () => {
    stopped = true;
    clearTimeout(timer);
    api.stateListeners.delete(onState);
    document.removeEventListener('visibilitychange', onState);
    if (wake) wake();
  };
}

/**
 * A view's refresh for live events: it runs at once, then at most once per `ms`; a call
 * inside the window runs when the window ends, so the last change is never missed. A crawl
 * or WARC import registers ~10 versions a second, and each search costs the store thread
 * 20-35 ms at 100k documents.
 *   const refresh = throttled(run, 750); api.onEvent(() => refresh());
 */
export function throttled(fn, ms) {
  let until = 0;
  let pending = null;
  const fire = () => { pending = null; until = Date.now() + ms; fn(); };
  return () => {
    if (pending) return;
    const wait = until - Date.now();
    if (wait <= 0) fire();
    else pending = setTimeout(fire, wait);
  };
}
