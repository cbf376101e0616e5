"""The archive daemon's life: one per home (a lock file), start, serve, stop, status.

``serve()`` takes ``<home>/daemon.lock`` (an OS file lock, released by the OS if
the process dies), warms the App (store + Suggester), listens on 127.0.0.1 and
only then writes ``<home>/daemon.json`` ``{"pid","port","url","home","ready"}``.
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

from engine.errors import Unavailable
from host.daemon import client, jobs, pause
from host.daemon.app import App, Config
from host.daemon.security import CredentialFilter
from host.daemon.server import make_server
from host.home import Home, atomic_write
from host.settings import resolve_home

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
    (Path(home) / client.LOG_DIR).mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(
        Path(home) / client.LOG_DIR / "daemon.log", maxBytes=2_000_000, backupCount=2
    )
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
        log.info("serving on %s (pid %d)", app.base_url, os.getpid())
        announce(status(app.home))
        tasks = jobs.start(app)
        await app.shutdown_event.wait()
        for task in tasks:
            task.cancel()
        server.close()


def serve(home: Path, port: int | None = None, announce=lambda state: None) -> dict:
    """Run the daemon in this process until stopped; or report the one already running."""

    home = Path(home)
    pause.resume(home)  # a started daemon ends a `stop --until-login` pause
    lock = Home(Path(home)).lock()
    if not lock.acquire():
        return {**status_when_ready(home), "already_running": True}
    client.state_path(home).unlink(missing_ok=True)  # a killed daemon's stale address
    try:
        setup_logging(home)
        app = App(home, Config.load(home, port=port))
        app.warm()
        try:
            _serve_somewhere(app, announce, Config.chose_port(home, port))
        finally:
            app.close()
    finally:
        client.state_path(home).unlink(missing_ok=True)
        lock.release()
    return {**status(home), "stopped": True}


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


def status_when_ready(home: Path) -> dict:
    """The other daemon's status once it is listening (it may be starting right now)."""
    client.wait_ready(home, None)
    return status(home)


def start_detached(home: Path, port: int | None = None) -> dict:
    """``serve --detach``: start a daemon in the background (or find the running one); it
    ends a ``stop --until-login`` pause."""
    pause.resume(home)
    state = client.running(home)
    if state and state.get("ready"):
        return {**status(home), "already_running": True}
    client.wait_ready(home, client.spawn_daemon(home, port))
    return status(home)


def stop(home: Path, timeout: float = 15.0, until_login: bool = False) -> dict:
    """Ask the daemon to shut down (over /ws; SIGTERM if it does not answer); wait for it.
    ``until_login``: and keep it stopped until the next login (host/daemon/pause.py)."""
    if until_login:
        pause.pause(home)
    restarts = {"restarts": "next_login" if until_login else "on_demand"}
    state = client.running(home)
    if state is None:
        return {**status(home), "stopped": False, **restarts}
    try:
        client.call(home, "shutdown", timeout=5)
    except Exception:
        log.info("shutdown request failed; sending SIGTERM to %s", state["pid"])
        os.kill(state["pid"], signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while client.lock_held(home) and time.monotonic() < deadline:
        time.sleep(0.02)
    if client.lock_held(home):
        raise Unavailable(f"daemon pid {state['pid']} did not stop within {timeout:.0f}s")
    return {**status(home), "stopped": True, "pid": state["pid"], **restarts}


def announce_stderr(state: dict) -> None:
    sys.stderr.write(f"pagekeeper daemon pid {state['pid']} serving {state['url']}\n")
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    """``python -m host.daemon.main --home H [--port P]``: what ``serve --detach`` spawns.

    The same as ``pagekeeper serve`` without building the whole CLI first
    (every command module), which saves a few hundred ms of start-up.
    """

    parser = argparse.ArgumentParser(prog="pagekeeper serve")
    parser.add_argument("--home")
    parser.add_argument("--port", type=int)
    args = parser.parse_args(argv)
    try:
        serve(resolve_home(args.home), args.port, announce_stderr)
    except Unavailable as exc:
        sys.stderr.write(f"pagekeeper: {exc.code}: {exc.message}\n")
        return 6
    return 0


if __name__ == "__main__":
    sys.exit(main())
