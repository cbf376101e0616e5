// Live updates. The daemon answers requests but does not push, so the viewer
// asks for a cheap change stamp (viewer_changes) every few seconds over the same
// websocket and turns differences into the events the views listen to:
// "registered" (a new version), "checked" (a liveness result), "sweep" (progress).
// Pushed events from the daemon, if it ever sends them, reach the same listeners.

const IDLE_MS = 3000;
const BUSY_MS = 1000;

export function startLive(api) {
  let last = null;
  let timer = null;

  const emit = (event, data = {}) => {
    for (const fn of api.listeners) fn({ event, data });
  };

  const diff = (now) => {
    if (!last) return;
    if (now.versions !== last.versions || now.last_id !== last.last_id) emit("registered", { id: now.last_id, key: now.last_key });
    if (now.checks !== last.checks || now.last_check !== last.last_check) emit("checked", { key: now.last_check_key });
    if (now.sweep.running || last.sweep.running) emit("sweep", now.sweep);
  };

  const tick = async () => {
    let busy = false;
    if (last === null || (document.visibilityState === "visible" && api.state === "online")) {
      try {
        const now = await api.call("viewer_changes", {});
        diff(now);
        last = now;
        busy = now.sweep.running;
      } catch {
        // offline or refused: the connection badge already says so
      }
    }
    timer = setTimeout(tick, busy ? BUSY_MS : IDLE_MS);
  };

  // The first stamp is asked for before any view asks for data (same socket, handled in
  // order on the store thread), so nothing registered after a view loaded goes unseen.
  tick();
  return () => clearTimeout(timer);
}
