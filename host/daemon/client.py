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
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect

from engine.errors import PageKeeperError, Unavailable
from host.daemon.security import read_token
from host.home import Home, default_home

# A starting daemon is waited for as long as the progress it publishes in daemon.json
# (host/daemon/main.py, Startup) keeps growing; this long without any is a stuck start.
STALL_S = 60.0
# Before its first note a new daemon is still starting Python and importing (seconds on a
# loaded machine): it has this long to publish one.
SPAWN_S = 60.0


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
    place = Home(Path(home))
    if not place.daemon_lock.exists():
        return False
    lock = place.lock()
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

    A daemon that holds the lock but is still warming up is waited for (as long as it
    makes progress: :func:`wait_ready`) unless ``wait`` is false: callers such as the CLI
    must not mistake a starting daemon for none and open the store themselves.
    """
    look = glance(home)
    if look.serving is not None or not look.held or not wait:
        return look.serving
    try:
        return wait_ready(home, None)
    except Unavailable:
        return None


@dataclass(frozen=True)
class Glance:
    """One look at a home's daemon, with no wait (:func:`glance`): what a command's notes
    about it are decided on, so each is one look however many questions it answers."""

    held: bool  # a live process holds the daemon lock
    state: dict | None  # its daemon.json, if any
    age: float  # seconds since daemon.json was last written (its last note of progress)

    @property
    def serving(self) -> dict | None:
        """The state of a daemon that is ready and serves, else None."""
        return self.state if self.held and _ready(self.state) else None

    @property
    def starting(self) -> bool:
        """A daemon holds the lock, is not ready and not stopping, and still makes progress:
        its last note is more recent than a waiting client's limit (:func:`wait_ready`'s
        ``STALL_S``; ``SPAWN_S`` before its first note). A second one cannot start."""
        if not self.held or self.serving is not None:
            return False
        if self.state is None:
            return True  # spawned, still importing: it has not written a note yet
        if self.state.get("stopping") or not _alive(self.state.get("pid")):
            return False
        return self.age <= (STALL_S if self.state.get("phase") else SPAWN_S)


def glance(home: Path) -> Glance:
    """:class:`Glance` at ``home``'s daemon now (the lock, then daemon.json: one look)."""
    if not lock_held(home):
        return Glance(False, None, 0.0)
    path = state_path(home)
    try:
        age = max(0.0, time.time() - path.stat().st_mtime)
    except OSError:
        age = 0.0
    return Glance(True, read_state(home), age)


def _ready(state: dict | None) -> bool:
    return bool(state and state.get("ready") and _alive(state.get("pid")))


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
    output = Home(home).daemon_output
    output.parent.mkdir(parents=True, exist_ok=True)
    if getattr(sys, "frozen", False):
        argv = [sys.executable, "serve", "--home", str(home)]
    else:  # the daemon's own entry point: no need to build the whole CLI first
        argv = [sys.executable, "-m", "host.daemon", "--home", str(home)]
    if port is not None:
        argv += ["--port", str(port)]
    with open(output, "ab") as log:
        log.write(START_MARK)
        log.flush()
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            close_fds=True,
            **_spawn_kwargs(),
        )


# Written to daemon.out before each spawned daemon's own output: what follows it is this start's.
START_MARK = b"-- pagekeeper: a daemon starts\n"
LAST_WORDS_BYTES = 16384


def last_words(home: Path) -> str | None:
    """The typed error a spawned daemon printed before it exited (``code: message``, its last
    ``pagekeeper:`` line since it started), so the caller can say why it did not start.

    >>> import tempfile; home = Path(tempfile.mkdtemp()); out = Home(home).daemon_output
    >>> out.parent.mkdir(); _ = out.write_bytes(b"pagekeeper: storage: old" + b"\\n" + START_MARK)
    >>> last_words(home) is None
    True
    >>> _ = out.write_bytes(out.read_bytes() + b"pagekeeper: invalid_input: bad port" + b"\\n")
    >>> last_words(home)
    'invalid_input: bad port'
    """
    try:
        with open(Home(Path(home)).daemon_output, "rb") as log:
            log.seek(0, 2)
            log.seek(max(0, log.tell() - LAST_WORDS_BYTES))
            tail = log.read()
    except OSError:
        return None
    said = tail.rpartition(START_MARK)[2].decode("utf-8", "replace").splitlines()
    typed = [line.removeprefix("pagekeeper: ") for line in said if line.startswith("pagekeeper: ")]
    return typed[-1] if typed else None


def wait_ready(
    home: Path,
    proc: subprocess.Popen | None,
    stall: float | None = None,
    notify: Callable[[dict], None] | None = None,
) -> dict:
    """Poll until a daemon of ``home`` answers (ours, or one that beat us to the lock).

    No fixed deadline: a first start that builds the dictionary index on a slow machine
    takes what it takes. It fails (``Unavailable``) when the daemon exits, or when its
    published progress (``phase``, ``progress`` in daemon.json) stays the same for
    ``stall`` seconds (default :data:`STALL_S`). ``notify(state)`` hears of each change.
    """
    stall = STALL_S if stall is None else stall
    logs = Home(Path(home)).logs
    mark, moved = None, time.monotonic()
    while True:
        state, held = read_state(home), lock_held(home)
        if held and state is not None and _ready(state):
            return state
        if proc is not None and proc.poll() not in (None, 0):
            words = last_words(home)
            why = f" ({words})" if words else ""
            raise Unavailable(f"daemon exited with {proc.returncode}{why}; see {logs}")
        if proc is None and not held:
            raise Unavailable(f"no daemon is starting for {home}; see {logs}")
        if state is not None and _died_starting(state, proc):
            raise Unavailable(f"daemon pid {state.get('pid')} died while starting; see {logs}")
        now, seen = time.monotonic(), _progress(state)
        if seen != mark:
            mark, moved = seen, now
            if notify is not None and state:
                notify(state)
        elif now - moved > (stall if mark is not None else max(stall, SPAWN_S)):
            doing = f" ({state['phase']})" if state and state.get("phase") else ""
            while_ = "stopping" if state and state.get("stopping") else "starting"
            raise Unavailable(
                f"the daemon stopped making progress while {while_}{doing}: nothing for "
                f"{stall:.0f}s; see {logs}"
            )
        time.sleep(0.02)


def _died_starting(state: dict | None, proc: subprocess.Popen | None) -> bool:
    """A daemon.json that was never ready, of a process gone: the start we wait for failed.
    Not when we spawned the daemon and the file names another pid: that is a leftover of an
    earlier start killed half-way (our own daemon's exit is ``proc``'s), which ours replaces."""
    if not state or state.get("ready") or _alive(state.get("pid")):
        return False
    return proc is None or state.get("pid") == proc.pid


def wait_stopped(home: Path, pid: int, stall: float | None = None) -> None:
    """Poll until the daemon of ``home`` has released its lock (``stop``).

    No fixed deadline, as for a start: a stop that waits for a step under way on a loaded
    machine takes what it takes. It fails (``Unavailable``) when the progress the stopping
    daemon publishes (``"stopping": true``, ``phase``, ``progress`` in daemon.json:
    host/daemon/main.py ``Stopping``) stays the same for ``stall`` seconds (default
    :data:`STALL_S`), or when it has published none that long after it was asked to stop.
    """
    stall = STALL_S if stall is None else stall
    mark, moved = None, time.monotonic()
    while lock_held(home):
        state = read_state(home)
        if not _alive(pid) or _taken_over(state, pid):
            return  # it is gone; a daemon started since holds the lock (a start during the stop)
        seen = _progress(state) if state and state.get("stopping") else None
        now = time.monotonic()
        if seen != mark:
            mark, moved = seen, now
        elif now - moved > stall:
            logs = Home(Path(home)).logs
            if state is None or not state.get("stopping"):
                raise Unavailable(
                    f"daemon pid {pid} did not begin to stop in {stall:.0f}s; see {logs}"
                )
            raise Unavailable(
                f"daemon pid {pid} stopped making progress while stopping ({state.get('phase')}): "
                f"nothing for {stall:.0f}s; it may be stuck, see {logs}"
            )
        time.sleep(0.02)


def _taken_over(state: dict | None, pid: int) -> bool:
    """Does another daemon's note (another pid) stand in ``daemon.json`` now?"""
    other = state.get("pid") if state else None
    return isinstance(other, int) and other != pid


def _progress(state: dict | None) -> tuple | None:
    """What changes while a starting daemon works (None before it published anything)."""
    if not state:
        return None
    return state.get("pid"), state.get("ready"), state.get("phase"), state.get("progress")


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


def own_command(home: Path | None = None) -> str:
    """This PageKeeper's command as a user can type it in any folder, whether or not a venv is
    activated: the single-file binary itself, or the ``pagekeeper`` script installed beside this
    environment's Python (``make run`` puts it in .venv/bin/, which is not on PATH).

    With ``home``, the command also names that home (``--home``) unless it is the platform's
    default folder: a hint followed as printed acts on the archive it was printed about, in a
    shell without ``$PAGEKEEPER_HOME`` too (the browser's helper has it from its launcher, the
    user's shell may not)."""
    if getattr(sys, "frozen", False):
        program = shlex.quote(sys.executable)
    else:
        beside = Path(sys.executable).with_name("pagekeeper")
        program = shlex.quote(str(beside)) if beside.is_file() else "pagekeeper"
    if home is None or Path(home) == default_home():
        return program
    return f"{program} --home {shlex.quote(str(home))}"


def connect(home: Path, state: dict | None = None, timeout: float = 10.0):
    """An open websocket to the daemon (sync client), authenticated with the token."""

    state = state or running(home)
    if state is None:
        raise Unavailable(
            f"no daemon is running (start it with `{own_command(home)} serve --detach`)"
        )
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
