"""Talk to the running daemon: find it, start it, and call it over ``/ws``.

Used by the native relay and by CLI commands that must go through the one
daemon that owns the archive (the CLI writes directly only when none runs):

>>> info = running(Path("/nonexistent"))
>>> info is None
True

``call(home, "ping")`` returns the handler's result or raises the typed
``engine.errors`` exception the daemon reported. Kept light (no engine
imports beyond the error tree): the native relay imports it on every start.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect

from engine.errors import PageKeeperError, Unavailable
from host.daemon.security import read_token
from host.home import FileLock, Home

LOG_DIR = "logs"
START_TIMEOUT = 20.0


def state_path(home: Path) -> Path:
    return Home(Path(home)).daemon_state


def read_state(home: Path) -> dict | None:
    """What the daemon wrote when it started listening (pid, port, url), if anything."""
    try:
        return json.loads(state_path(home).read_text("utf-8"))
    except (OSError, ValueError):
        return None


def lock_held(home: Path) -> bool:
    """Does a live process hold the daemon lock of ``home``?"""
    path = Home(Path(home)).daemon_lock
    if not path.exists():
        return False
    lock = FileLock(path)
    if lock.acquire():
        lock.release()
        return False
    return True


def _alive(pid: object) -> bool:
    if not isinstance(pid, int):
        return False
    if os.name == "nt":  # pragma: no cover: the lock alone tells
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running(home: Path, wait: bool = True) -> dict | None:
    """The running daemon's state ``{"pid","port","url","home"}``, or ``None``.

    A daemon that holds the lock but is still warming up is waited for (up to
    ``START_TIMEOUT``) unless ``wait`` is false: callers such as the CLI must not
    mistake a starting daemon for none and open the store themselves.
    """
    deadline = time.monotonic() + (START_TIMEOUT if wait else 0)
    while lock_held(home):
        state = read_state(home)
        if state and state.get("ready") and _alive(state.get("pid")):
            return state
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.02)
    return None


def host_command() -> list[str]:
    """argv that runs the ``pagekeeper`` CLI: the frozen binary itself, or this Python."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "host.cli"]


def _spawn_kwargs() -> dict:
    if sys.platform == "win32":
        flags = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
        return {"creationflags": flags}
    return {"start_new_session": True}


def spawn_daemon(home: Path, port: int | None = None) -> subprocess.Popen:
    """Start ``pagekeeper serve`` detached from us (own session, output to its log)."""
    home = Path(home)
    (home / LOG_DIR).mkdir(parents=True, exist_ok=True)
    if getattr(sys, "frozen", False):
        argv = [sys.executable, "serve", "--home", str(home)]
    else:  # the daemon's own entry point: no need to build the whole CLI first
        argv = [sys.executable, "-m", "host.daemon.main", "--home", str(home)]
    if port is not None:
        argv += ["--port", str(port)]
    with open(home / LOG_DIR / "daemon.out", "ab") as log:
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            close_fds=True,
            **_spawn_kwargs(),
        )


def wait_ready(home: Path, proc: subprocess.Popen | None, timeout: float = START_TIMEOUT) -> dict:
    """Poll until a daemon of ``home`` answers (ours, or one that beat us to the lock)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = running(home, wait=False)
        if state:
            return state
        if proc is not None and proc.poll() not in (None, 0):
            raise Unavailable(f"daemon exited with {proc.returncode}; see {Path(home) / LOG_DIR}")
        time.sleep(0.02)
    raise Unavailable(f"daemon did not start within {timeout:.0f}s; see {Path(home) / LOG_DIR}")


def ensure_daemon(home: Path, port: int | None = None) -> dict:
    """The running daemon's state, starting one (detached) if none runs."""
    state = running(home)
    if state and state.get("ready"):
        return state
    return wait_ready(home, spawn_daemon(home, port))


def error_from(payload: dict) -> PageKeeperError:
    """Rebuild the typed exception a reply's ``error`` names."""
    code = payload.get("code", "internal")
    todo = [PageKeeperError]
    while todo:
        cls = todo.pop(0)
        if cls.code == code:
            return cls(payload.get("message", code))
        todo.extend(cls.__subclasses__())
    exc = PageKeeperError(payload.get("message", code))
    exc.code = code
    return exc


def connect(home: Path, state: dict | None = None, timeout: float = 10.0):
    """An open websocket to the daemon (sync client), authenticated with the token."""

    state = state or running(home)
    if state is None:
        raise Unavailable("no daemon is running (start it with `pagekeeper serve --detach`)")
    token = read_token(home) or ""
    try:
        return ws_connect(
            f"ws://127.0.0.1:{state['port']}/ws",
            additional_headers={"Authorization": f"Bearer {token}"},
            open_timeout=timeout,
            max_size=None,
            compression=None,
            ping_interval=None,
        )
    except OSError as exc:
        raise Unavailable(f"cannot reach the daemon on port {state['port']}: {exc}") from None


def request(ws, type: str, params: dict | None = None, timeout: float = 120.0, rid: int = 1):
    """One request on a connection from :func:`connect` (several may follow on it, one at a
    time, e.g. polling a crawl); its result, or the typed error the daemon sent."""

    try:
        ws.send(json.dumps({"id": rid, "type": type, "params": params or {}}))
        reply = json.loads(ws.recv(timeout=timeout))
    except ConnectionClosed:
        raise Unavailable("the daemon closed the connection (stopped?)") from None
    except TimeoutError:
        raise Unavailable(f"no answer from the daemon to {type!r} within {timeout:.0f}s") from None
    if not reply.get("ok"):
        raise error_from(reply.get("error") or {})
    return reply.get("result")


def call(home: Path, type: str, params: dict | None = None, timeout: float = 120.0):
    """One request to the running daemon; its result, or the typed error it sent."""
    with connect(home) as ws:
        return request(ws, type, params, timeout)
