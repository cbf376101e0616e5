"""The archive daemon's life: one per home (a lock file), start, serve, stop, status.

``serve()`` takes ``<home>/daemon.lock`` (an OS file lock, released by the OS if
the process dies), warms the App (store + Suggester), listens on 127.0.0.1 and
only then writes ``<home>/daemon.json`` ``{"pid","port","url","home","ready"}``.
While it warms, ``daemon.json`` says ``"ready": false`` with its ``phase`` and a
``progress`` count that grows as it works (:class:`Startup`), so a waiting client
tells a slow first start (the dictionary index built on a slow machine) from a stuck one.
A second ``serve`` finds the lock taken, waits for that state and reports it.

>>> status(Path("/nonexistent"))["running"]
False
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import json
import logging
import os
import signal
import sys
import time
from logging.handlers import RotatingFileHandler
from pathlib import Path

from engine.errors import InvalidInput, PageKeeperError, Unavailable
from host.compiled import described, runs_everywhere
from host.daemon import client, jobs, pause
from host.daemon.app import App, Config
from host.daemon.security import CredentialFilter
from host.daemon.server import make_server
from host.home import Home, atomic_write, resolve_home

log = logging.getLogger("pagekeeper.daemon")


def status(home: Path) -> dict:
    """``{"running","pid","port","url","home"}`` (the ``status --json`` contract)."""
    state = client.running(home, wait=False)
    if state is None:
        return {"running": False, "pid": None, "port": None, "url": None, "home": str(home)}
    return {
        "running": True,
        "pid": state["pid"],
        "port": state["port"],
        "url": state["url"],
        "home": str(home),
    }


def setup_logging(home: Path) -> None:
    """Daemon logs go to ``<home>/logs/daemon.log`` (rotated), never to a terminal."""
    path = Home(Path(home)).daemon_log
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(path, maxBytes=2_000_000, backupCount=2)
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
    )
    handler.addFilter(CredentialFilter())  # no user:pass@ from a URL ever reaches the file
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.getLogger("websockets").setLevel(logging.WARNING)


def write_state(home: Path, app, port: int) -> None:
    """Atomically publish where the daemon listens."""
    state = {
        "pid": os.getpid(),
        "port": port,
        "url": f"http://127.0.0.1:{port}",
        "home": str(home),
        "started": time.time(),
        "ready": True,
    }
    atomic_write(client.state_path(home), json.dumps(state).encode("utf-8"))


class Startup:
    """What a warming daemon publishes in ``daemon.json`` (``ready`` false): its phase and
    a progress count, rewritten at most every ``every`` seconds and on each new phase.

    >>> import tempfile; home = Path(tempfile.mkdtemp())
    >>> s = Startup(home); s.step("building the dictionary index", 2000)
    >>> {k: client.read_state(home)[k] for k in ("ready", "phase", "progress")}
    {'ready': False, 'phase': 'building the dictionary index', 'progress': 2000}
    """

    def __init__(self, home: Path, every: float = 0.2) -> None:
        self.home, self.every = Path(home), every
        self.phase, self.progress, self._written = "", 0, 0.0

    def step(self, phase: str, count: int = 1) -> None:
        """``count`` more units of work done in ``phase``."""
        self.progress += count
        now = time.monotonic()
        if phase != self.phase or now - self._written >= self.every:
            self.phase, self._written = phase, now
            self._publish()

    def _publish(self) -> None:
        state = {
            "pid": os.getpid(),
            "home": str(self.home),
            "ready": False,
            **self.KIND,
            "phase": self.phase,
            "progress": self.progress,
        }
        # Not durable: a crash loses only a progress note (the lock tells whether we live).
        atomic_write(client.state_path(self.home), json.dumps(state).encode("utf-8"), False)

    KIND: dict = {}


class Stopping(Startup):
    """What a stopping daemon publishes in ``daemon.json`` (``"stopping": true``, no longer
    ready): each part of its stop as it ends (a background task, a connection, a step of a
    worker thread, the archive closed), so ``stop`` waits as long as that grows
    (client.wait_stopped) and calls only a stop that no longer moves stuck. Each new phase
    is logged, so the log says where a slow stop spent its time.

    >>> import tempfile; home = Path(tempfile.mkdtemp())
    >>> s = Stopping(home); s.step("closing connections", 2)
    >>> {k: client.read_state(home)[k] for k in ("ready", "stopping", "phase", "progress")}
    {'ready': False, 'stopping': True, 'phase': 'closing connections', 'progress': 2}
    """

    KIND = {"stopping": True}

    def step(self, phase: str, count: int = 1) -> None:
        if phase != self.phase:
            log.info("stopping: %s", phase)
        super().step(phase, count)


def _install_signals(app) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        # Windows has no add_signal_handler: Ctrl+C and `pagekeeper stop` instead.
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, app.shutdown_event.set)


async def _serve(app, port: int, announce, remember: bool = False) -> None:

    app.shutdown_event = asyncio.Event()
    _install_signals(app)
    async with make_server(app, port) as server:
        actual = server.sockets[0].getsockname()[1]
        app.config.port, app.base_url = actual, f"http://127.0.0.1:{actual}"
        if remember:  # this user's port from now on: archived copies' links keep working
            Config.remember_port(app.home, actual)
        write_state(app.home, app, actual)
        # the build named, so the log of a slow daemon tells whether it runs the pure modules
        log.info(
            "serving on %s (pid %d); %s",
            app.base_url,
            os.getpid(),
            "; ".join(f"{area}: {described(build)}" for area, build in runs_everywhere().items()),
        )
        announce(status(app.home))
        tasks = jobs.start(app)
        loop = asyncio.get_running_loop()
        loop.set_default_executor(app.threads)  # asyncio.to_thread's steps, counted
        await app.shutdown_event.wait()
        await stop_serving(app, server, [*tasks, *app.jobs.tasks])


async def stop_serving(app, server, tasks: list[asyncio.Task]) -> None:
    """The stop, in the order nothing waits on work it can cancel: background tasks and
    crawls cancelled, then the connections closed (requests under way cancelled:
    server.session), then the worker threads' steps under way waited for (a step of the
    full-text index in SQLite cannot be cut; steps not begun are dropped). Each part that
    ends is a progress note in ``app.stopping``."""
    note = app.stopping = Stopping(app.home).step
    note("stopping background work", 0)
    for task in tasks:
        task.cancel()
    pending = set(tasks)
    while pending:
        done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        note("stopping background work", len(done))
    note("closing connections", 0)
    server.close()
    await server.wait_closed()
    note("waiting for worker threads", 0)
    app.threads.shutdown(wait=False, cancel_futures=True)
    seen = app.threads.finished
    while app.threads.pending:
        await asyncio.sleep(0.05)
        if app.threads.finished != seen:
            note("waiting for worker threads", app.threads.finished - seen)
            seen = app.threads.finished


def serve(home: Path, port: int | None = None, announce=lambda state: None) -> dict:
    """Run the daemon in this process until stopped; or report the one already running."""

    home = Path(home)
    pause.resume(home)  # a started daemon ends a `stop --until-login` pause
    lock = Home(Path(home)).lock()
    if not acquire(lock):
        wait_out_stop(home)  # a daemon on its way out is not one that runs
        if not acquire(lock):
            return {**status_when_ready(home), "already_running": True}
    client.state_path(home).unlink(missing_ok=True)  # a killed daemon's stale address
    try:
        setup_logging(home)
        startup = Startup(home)
        startup.step("reading its settings")
        app = App(home, Config.load(home, port=port))
        app.warm(startup.step)
        try:
            _serve_somewhere(app, announce, Config.chose_port(home, port))
        finally:
            app.close(app.stopping or Stopping(home).step)
            log.info("stopped")
    finally:
        client.state_path(home).unlink(missing_ok=True)
        lock.release()
    return {**status(home), "stopped": True}


def acquire(lock, tries: int = 10, pause_s: float = 0.02) -> bool:
    """Take the home's lock; a failed try is tried again for a moment, since a client asking
    whether a daemon runs (client.lock_held) holds the lock for an instant to find out."""
    for attempt in range(tries):
        if lock.acquire():
            return True
        if attempt + 1 < tries:
            time.sleep(pause_s)
    return False


def _serve_somewhere(app, announce, chosen: bool) -> None:
    """Serve on the configured port; if the *default* port is taken (say by another user's
    daemon on the same machine), on a free one, remembered in this home's config.json."""
    try:
        asyncio.run(_serve(app, app.config.port, announce))
        return
    except OSError as exc:
        taken = exc.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", errno.EADDRINUSE))
        if chosen or not taken:
            raise Unavailable(f"cannot listen on 127.0.0.1:{app.config.port}: {exc}") from None
        log.warning("default port %d is taken; taking a free one for this home", app.config.port)
    try:
        asyncio.run(_serve(app, 0, announce, remember=True))
    except OSError as exc:
        raise Unavailable(f"cannot listen on 127.0.0.1: {exc}") from None


def wait_out_stop(home: Path) -> None:
    """If the daemon of ``home`` is stopping, wait until it has (as ``stop`` waits: while it
    makes progress), so a start asked for meanwhile starts a daemon after it instead of
    taking the leaving one for a running one and failing when it is gone."""
    state = client.read_state(home) or {}
    pid = state.get("pid")
    if state.get("stopping") and isinstance(pid, int) and client.lock_held(home):
        client.wait_stopped(home, pid)


def status_when_ready(home: Path) -> dict:
    """The other daemon's status once it is listening (it may be starting right now)."""
    client.wait_ready(home, None)
    return status(home)


def start_detached(home: Path, port: int | None = None, notify=None) -> dict:
    """``serve --detach``: start a daemon in the background (or find the running one); it
    ends a ``stop --until-login`` pause. ``notify(state)`` hears of the start-up's progress
    while the daemon warms (client.wait_ready: no fixed deadline while it makes progress)."""
    pause.resume(home)
    state = client.running(home, wait=False)
    if state and state.get("ready"):
        return {**status(home), "already_running": True}
    wait_out_stop(home)
    if client.lock_held(home):  # one is starting: wait for it rather than spawn another
        client.wait_ready(home, None, notify=notify)
        return {**status(home), "already_running": True}
    client.wait_ready(home, client.spawn_daemon(home, port), notify=notify)
    return status(home)


def starting_note(stream, after: float = 1.0):
    """A ``notify`` for :func:`start_detached` that says why the wait is long: each phase
    still going on ``after`` seconds into the wait, once (a quick start prints nothing)."""
    began, told = time.monotonic(), set()

    def note(state: dict) -> None:
        phase = state.get("phase")
        if state.get("ready") or not phase or phase in told:
            return
        if time.monotonic() - began >= after:
            told.add(phase)
            stream.write(f"pagekeeper: the daemon (pid {state.get('pid')}) is starting: {phase}\n")
            stream.flush()

    return note


def stop(home: Path, until_login: bool = False, stall: float | None = None) -> dict:
    """Ask the daemon to shut down (over /ws; SIGTERM if it does not answer); wait for it
    as long as its stop makes progress (client.wait_stopped: ``stall`` seconds without any
    is a typed error). ``until_login``: and keep it stopped until the next login
    (host/daemon/pause.py)."""
    if until_login:
        pause.pause(home)
    restarts = {"restarts": "next_login" if until_login else "on_demand"}
    state = client.running(home, wait=False)
    pid = state["pid"] if state else _starting_pid(home)
    if pid is None:
        return {**status(home), "stopped": False, **restarts}
    if state is None:
        if not (client.read_state(home) or {}).get("stopping"):
            os.kill(pid, signal.SIGTERM)  # still warming (not listening yet): the signal ends it
        # else already stopping: a signal once its loop has ended would cut the archive's close
    else:
        try:
            client.call(home, "shutdown", timeout=5)
        except Exception:
            log.info("shutdown request failed; sending SIGTERM to %s", pid)
            os.kill(pid, signal.SIGTERM)
    client.wait_stopped(home, pid, stall)
    return {**status(home), "stopped": True, "pid": pid, **restarts}


def _starting_pid(home: Path) -> int | None:
    """The pid of the daemon that holds the lock of ``home`` but does not listen yet."""
    starting = client.read_state(home) if client.lock_held(home) else None
    pid = starting.get("pid") if starting else None
    return pid if isinstance(pid, int) else None


def announce_stderr(state: dict) -> None:
    sys.stderr.write(f"pagekeeper daemon pid {state['pid']} serving {state['url']}\n")
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    """``python -m host.daemon --home H [--port P]`` (host/daemon/__main__.py): what ``serve
    --detach`` spawns.

    The same as ``pagekeeper serve`` without building the whole CLI first
    (every command module), which saves a few hundred ms of start-up.
    """

    parser = argparse.ArgumentParser(prog="pagekeeper serve")
    parser.add_argument("--home")
    parser.add_argument("--port", type=int)
    args = parser.parse_args(argv)
    try:
        serve(resolve_home(args.home), args.port, announce_stderr)
    except PageKeeperError as exc:  # typed, one line: the client quotes it (client.wait_ready)
        sys.stderr.write(f"pagekeeper: {exc.code}: {exc.message}\n")
        return 6 if isinstance(exc, Unavailable) else 2 if isinstance(exc, InvalidInput) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
