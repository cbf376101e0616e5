"""One way for a CLI command to run a protocol message: ``backend(ctx).call(type, params)``.

When a daemon runs for the home, the message goes to it over ``/ws`` (it owns the
archive: the one writer). Otherwise the same handler (host/protocol/dispatch.py) runs in
this process, on an :class:`~host.daemon.app.App` whose store the command opens as the
writer and closes when it ends. Either way the answer is the reply the protocol gives,
results cleaned and errors typed in the one place, so a command never forks on "is a
daemon running?".

>>> import tempfile
>>> with backend_for(Path(tempfile.mkdtemp()), daemon=False) as b:
...     sorted(b.call("ping")), type(b).__name__
(['protocol', 'version'], 'LocalBackend')
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from engine.archive.store import ArchiveStore
from engine.errors import PageKeeperError
from host.daemon import client
from host.daemon.app import DEFAULT_PORT, App, Config
from host.home import Home
from host.protocol import dispatch

DEFAULT_TIMEOUT = 120.0


class DaemonBackend:
    """Messages to the running daemon, one connection for the command's life."""

    def __init__(self, home: Path, state: dict) -> None:
        self.home, self.state = Path(home), state
        self._stack = contextlib.ExitStack()
        self._ws = None

    def call(self, type: str, params: dict | None = None, timeout: float = DEFAULT_TIMEOUT):
        """The handler's result, or the typed error the daemon sent."""
        if self._ws is None:
            self._ws = self._stack.enter_context(client.connect(self.home, self.state))
        return client.request(self._ws, type, params or {}, timeout)

    def call_many(self, type: str, params: list[dict], concurrency: int, done: Callable):
        """``call`` for each params, ``concurrency`` at a time; ``done(result)`` as each ends."""
        with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            futures = [pool.submit(client.call, self.home, type, p) for p in params]
            return [done(f.result()) for f in futures]

    def each(self, jobs: list[Callable], concurrency: int, ended: Callable) -> None:
        """Run ``job(call)`` for each job, ``concurrency`` at a time in threads (``call`` is
        this backend's ``call``, safe from any thread); ``ended(i, error)`` as each ends,
        ``error`` None or the typed error it raised."""
        with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            futures = {pool.submit(job, self._threaded_call): i for i, job in enumerate(jobs)}
            for future in as_completed(futures):
                ended(futures[future], _typed_error(future))

    def _threaded_call(self, type: str, params: dict | None = None):
        return client.call(self.home, type, params or {})

    def pause(self, seconds: float) -> None:
        """Wait (the daemon's jobs go on without us)."""
        time.sleep(seconds)

    def close(self) -> None:
        self._stack.close()


class LocalBackend:
    """The protocol's handlers in this process, on a store this command holds as the writer
    (``readonly``: opened for reading only, beside any writer and on a read-only disk)."""

    def __init__(self, home: Path, readonly: bool = False) -> None:
        self.app = App(Path(home), Config.load(home), readonly=readonly)
        # version URLs name the port a daemon will serve (none serves now: backend_for looked)
        self.app.base_url = base_url(home, None)
        self._runner = asyncio.Runner()

    def call(self, type: str, params: dict | None = None, timeout: float = DEFAULT_TIMEOUT):
        """The handler's result, or its typed error (as the daemon would have sent it)."""
        return self._runner.run(self._acall(type, params or {}))

    async def _acall(self, type: str, params: dict):
        reply = await dispatch.handle({"id": 1, "type": type, "params": params}, self.app)
        if not reply["ok"]:
            raise client.error_from(reply["error"])
        return reply["result"]

    def call_many(self, type: str, params: list[dict], concurrency: int, done: Callable):
        """``call`` for each params, ``concurrency`` at a time on this loop; ``done`` as each ends."""
        return self._runner.run(self._many(type, params, max(1, concurrency), done))

    async def _many(self, type: str, params: list[dict], concurrency: int, done: Callable):
        gate = asyncio.Semaphore(concurrency)

        async def one(p: dict):
            async with gate:
                return done(await self._acall(type, p))

        return list(await asyncio.gather(*(one(p) for p in params)))

    def each(self, jobs: list[Callable], concurrency: int, ended: Callable) -> None:
        """:meth:`DaemonBackend.each` with the handlers on this process's loop: each job
        runs in a thread, its ``call`` hands the message to the loop and waits."""
        self._runner.run(self._each(jobs, max(1, concurrency), ended))

    async def _each(self, jobs: list[Callable], concurrency: int, ended: Callable) -> None:
        loop, gate = asyncio.get_running_loop(), asyncio.Semaphore(concurrency)

        def call(type: str, params: dict | None = None):
            return asyncio.run_coroutine_threadsafe(self._acall(type, params or {}), loop).result()

        async def one(i: int, job: Callable) -> None:
            async with gate:
                task = asyncio.ensure_future(asyncio.to_thread(job, call))
                await asyncio.wait([task])
                ended(i, _typed_error(task))

        await asyncio.gather(*(one(i, job) for i, job in enumerate(jobs)))

    def pause(self, seconds: float) -> None:
        """Let the background jobs a handler started (a crawl) run for ``seconds``."""
        self._runner.run(asyncio.sleep(seconds))

    def close(self) -> None:
        """Stop what a handler left running (a crawl cancelled with Ctrl-C), close the store."""
        try:
            self._runner.run(_cancel_pending())
        finally:
            self._runner.close()
            self.app.close()


def _typed_error(done) -> PageKeeperError | None:
    """The typed error a finished job (a future or a task) raised, else None; anything
    else it raised is raised here."""
    error = done.exception()
    if error is None or isinstance(error, PageKeeperError):
        return error
    raise error


async def _cancel_pending() -> None:
    pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)


@contextlib.contextmanager
def backend_for(
    home: Path, daemon: bool = True, write: bool = True
) -> Iterator[DaemonBackend | LocalBackend]:
    """The running daemon of ``home`` (when ``daemon`` and one runs), else the local handlers
    (on a store opened for reading only unless the command ``write``s)."""
    state = client.running(home) if daemon else None
    chosen = DaemonBackend(home, state) if state else LocalBackend(home, readonly=not write)
    try:
        yield chosen
    finally:
        chosen.close()


def backend(ctx, write: bool = True):
    """``with backend(ctx) as b: b.call(type, params)`` for a CLI command's context; a command
    that only reads says ``write=False``."""
    return backend_for(ctx.home, write=write)


def send(ctx, type: str, params: dict, timeout: float = DEFAULT_TIMEOUT, write: bool = True):
    """One protocol message through the command's backend (daemon or in process)."""
    with backend(ctx, write) as b:
        return b.call(type, params, timeout)


def base_url(home: Path, serving: dict | None) -> str:
    """The archive's base URL: the port of the daemon that serves it (``serving``, its state as
    the caller looked: no second look here), else the port its config names (a chosen one, or
    the free one a daemon took when the default was busy), else the default's."""
    state = serving
    if state and state.get("port"):
        return f"http://127.0.0.1:{state['port']}"
    return f"http://127.0.0.1:{configured_port(home)}"


def configured_port(home: Path) -> int:
    """The port a daemon of ``home`` listens on when it starts, if it is free: config.json's
    (a chosen one, or the free one a daemon took when the default was busy), else the default;
    0 (the system picks one at each start) gives no port to name: the default's is named."""
    return Config.load(home).port or DEFAULT_PORT


def addresses_note(home: Path, seen: client.Glance | None = None) -> str | None:
    """What a user must know before opening the version addresses a command printed for
    ``home``: nothing when its daemon serves them; else that no daemon of this home answers
    them now, and what makes them open. Another program on their port (another home's daemon,
    whose token refuses them: 403) is named, since they would reach it, not this archive.
    A daemon still starting is named as starting, with no start command (a second one
    cannot start: it holds the lock). A command named runs as printed: this program, this
    home (client.own_command). ``seen``: the look the caller took (else one is taken here)."""
    seen = client.glance(home) if seen is None else seen
    if seen.serving:
        return None
    if seen.starting:
        phase = (seen.state or {}).get("phase")
        doing = f" ({phase})" if phase else ""
        return (
            f"this home's daemon is still starting{doing}: these addresses open once it is"
            " ready; nothing more to start"
        )
    start = f"`{client.own_command(home)} serve --detach`"
    if Config.load(home).port == 0:
        return (
            "this home's daemon is not running, and it takes a new free port at each start"
            " (config.json's port is 0), so these addresses name no port it serves: "
            f"{start} starts it; then run this command again for addresses that open"
        )
    port = configured_port(home)
    if not _listening(port):
        return (
            "this home's daemon is not running, so nothing answers these addresses yet: "
            f"{start} starts it on port {port}, then they open"
        )
    taken = (
        f"port {port} is another program's (another PageKeeper home's daemon?), so these"
        " addresses reach it, not this archive"
    )
    if Config.chose_port(home):
        return (
            f"{taken}; this home's daemon cannot start on it (config.json's port) until that"
            " program ends or the port setting names another"
        )
    return (
        f"{taken}: {start} starts this home's daemon on a free port (kept in its config.json);"
        " then run this command again for addresses that open"
    )


def note_addresses(ctx, seen: client.Glance | None = None) -> None:
    """Write :func:`addresses_note` for ``ctx``'s home on stderr, if there is one (text and
    ``--json`` alike: stdout keeps the result and its contract)."""
    note = addresses_note(ctx.home, seen)
    if note:
        ctx.stderr.write(f"pagekeeper: note: {note}\n")


def holds_addresses(copy: bytes, home: Path, seen: client.Glance) -> bool:
    """Whether a copy of a version holds addresses of ``home``'s daemon (a rewritten copy's
    resources and its ``/gc`` links name its base URL; an original names none), by the look
    ``seen`` the caller took (the note then uses the same one)."""
    return f"{base_url(home, seen.serving)}/".encode() in copy


def _listening(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:``port`` now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@contextlib.contextmanager
def reading(home: Path) -> Iterator[ArchiveStore]:
    """The store opened read-only (safe while the daemon writes)."""
    if not Home(Path(home)).db.exists():
        Path(home).mkdir(parents=True, exist_ok=True)
    store = ArchiveStore.open(home, readonly=True)
    try:
        yield store
    finally:
        store.close()
