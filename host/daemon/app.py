"""What every handler gets: the daemon's home, config, token, open store and warm Suggester.

The store and the Suggester are opened once (``App.warm()`` at daemon start) and
used from ONE worker thread (``App.run``), so the archive has a single writer
and the event loop never blocks on engine work.

>>> Config(port=1).base_url
'http://127.0.0.1:1'
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import threading
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from engine.archive.resources import CaptureLimits
from engine.archive.store import ArchiveStore
from engine.errors import InvalidInput
from engine.liveness import TemplateCache
from engine.urls.suggest import Suggester
from host.daemon.changes import ChangeFeed
from host.daemon.security import ensure_token
from host.home import Home, atomic_write
from host.protocol.framing import DEFAULT_REQUEST_CAP, REPLY_LIMIT
from host.services.navigation import Step, build_suggester, no_step, save_learning
from host.services.pending_captures import sweep

DEFAULT_PORT = 47477
BIG_PAGE_CHARS = 1 << 20  # pages above this are analysed in the worker process
ANALYSIS_TASKS_PER_PROCESS = 20  # then a fresh worker: a huge page's heap is given back
# The Chromium extension's fixed ID (from the public key in its manifest), shipped inside the
# package so an installed wheel has it too; packaging/build_extension.py checks it against the key.
EXTENSION_ID_RESOURCE = ("host", "data/extension-id.txt")
log = logging.getLogger("pagekeeper.app")


def bundled_extension_ids() -> list[str]:
    """The extension IDs shipped in the package (host/data/extension-id.txt).

    >>> [len(i) for i in bundled_extension_ids()]
    [32]
    """
    package, name = EXTENSION_ID_RESOURCE
    try:
        text = resources.files(package).joinpath(name).read_text("ascii")
    except OSError:
        return []
    return [line.strip() for line in text.splitlines() if line.strip()]


@dataclass
class Config:
    """Daemon settings; ``<home>/config.json`` may override any field.

    ``extension_ids``: Chromium extension IDs whose origin may connect (besides
    the bundled one); ``firefox_ids``: add-on IDs the Firefox manifest allows.
    """

    port: int = DEFAULT_PORT
    request_cap: int = DEFAULT_REQUEST_CAP
    reply_limit: int = REPLY_LIMIT
    extension_ids: list[str] = field(default_factory=list)
    firefox_ids: list[str] = field(default_factory=lambda: ["pagekeeper@pagekeeper.app"])
    suggest_limit: int = 8
    cache_dir: str | None = None  # default <home>/cache (the dictionary index)
    # Resource capture caps (engine/archive/resources.py CaptureLimits), sent to the extension.
    capture_part_bytes: int = 8 * 1024 * 1024
    capture_resource_bytes: int = 20 * 1024 * 1024
    capture_page_bytes: int = 200 * 1024 * 1024

    def capture_limits(self):
        return CaptureLimits(
            self.capture_part_bytes, self.capture_resource_bytes, self.capture_page_bytes
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def all_extension_ids(self) -> list[str]:
        return list(dict.fromkeys([*bundled_extension_ids(), *self.extension_ids]))

    @staticmethod
    def chose_port(home: Path, port: int | None = None) -> bool:
        """Did the user pick the port (``--port``, or ``port`` in config.json)?

        >>> Config.chose_port(Path("/nonexistent"), None)
        False
        """
        return port is not None or "port" in read_config(home)

    @staticmethod
    def remember_port(home: Path, port: int) -> None:
        """Write ``port`` into ``<home>/config.json`` (the other settings stay)."""
        data = read_config(home)
        atomic_write(
            Home(Path(home)).config, json.dumps({**data, "port": port}, indent=2).encode("utf-8")
        )

    @classmethod
    def load(cls, home: Path, **overrides) -> Config:
        """Defaults, then ``<home>/config.json``, then explicit overrides (e.g. ``--port``)."""
        data = read_config(home)
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        for name, value in known.items():
            check_setting(home, name, value)
        known.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**known)


# What each setting of config.json must hold: a whole number of at least the bound, a list of
# strings, or a string (``cache_dir``, which may also be null).
WHOLE_AT_LEAST = {
    "port": 0,  # 0: the system picks a free port (the test homes use it)
    "request_cap": 1,
    "reply_limit": 1,
    "suggest_limit": 1,
    "capture_part_bytes": 1,
    "capture_resource_bytes": 1,
    "capture_page_bytes": 1,
}
STRING_LISTS = ("extension_ids", "firefox_ids")
HIGHEST_PORT = 65535


def read_config(home: Path) -> dict:
    """``<home>/config.json`` as a dict (``{}`` when there is none). A file the user broke by
    hand is a typed error naming it and where, never a traceback.

    >>> import tempfile; home = Path(tempfile.mkdtemp()); _ = (home / "config.json").write_text("{")
    >>> read_config(home)
    Traceback (most recent call last):
    ...
    engine.errors.InvalidInput: .../config.json is not valid JSON (Expecting property name enclosed in double quotes, line 1 column 2): fix it or remove it
    """
    path = Home(Path(home)).config
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{path} is not UTF-8 text ({exc.reason}): fix it or remove it"
        ) from None
    except json.JSONDecodeError as exc:
        where = f"{exc.msg}, line {exc.lineno} column {exc.colno}"
        raise InvalidInput(f"{path} is not valid JSON ({where}): fix it or remove it") from None
    if not isinstance(data, dict):
        raise InvalidInput(f'{path} must hold a JSON object ({{"setting": value, …}})')
    return data


def check_setting(home: Path, name: str, value) -> None:
    """A setting of config.json of the wrong kind is a typed error naming it.

    >>> check_setting(Path("h"), "port", 70000)
    Traceback (most recent call last):
    ...
    engine.errors.InvalidInput: h/config.json: "port" must be a whole number from 0 to 65535, not 70000
    """
    where = f'{Home(Path(home)).config}: "{name}"'
    if name in WHOLE_AT_LEAST:
        top = HIGHEST_PORT if name == "port" else None
        whole = isinstance(value, int) and not isinstance(value, bool)
        if not whole or value < WHOLE_AT_LEAST[name] or (top is not None and value > top):
            span = (
                f"from {WHOLE_AT_LEAST[name]} to {top}"
                if top
                else f"of at least {WHOLE_AT_LEAST[name]}"
            )
            raise InvalidInput(f"{where} must be a whole number {span}, not {value!r}")
    elif name in STRING_LISTS:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InvalidInput(f"{where} must be a list of strings, not {value!r}")
    elif name == "cache_dir" and not (value is None or isinstance(value, str)):
        raise InvalidInput(f"{where} must be a directory (a string) or null, not {value!r}")


class Pool(ThreadPoolExecutor):
    """A thread pool that counts the work it has under way and the work it finished, so a
    stopping daemon can tell a long step that ends from a stuck one (:meth:`App.close`)."""

    def __init__(self, workers: int | None = None, thread_name_prefix: str = "") -> None:
        super().__init__(workers, thread_name_prefix=thread_name_prefix)
        self.pending, self.finished = 0, 0
        self._count = threading.Lock()

    def submit(self, fn, /, *args, **kwargs):
        future = super().submit(fn, *args, **kwargs)
        with self._count:
            self.pending += 1
        future.add_done_callback(self._done)  # also when cancelled before it ran
        return future

    def _done(self, _future) -> None:
        with self._count:
            self.pending -= 1
            self.finished += 1


@dataclass
class Jobs:
    """Work the daemon runs beside requests: crawls by job ID (oldest first), the one liveness
    sweep, schedule claims (url -> when handed out) and strong references to their tasks (the
    event loop keeps only weak ones)."""

    crawls: dict = field(default_factory=dict)
    sweep: object | None = None
    claims: dict[str, float] = field(default_factory=dict)
    tasks: set = field(default_factory=set)

    def start(self, coro) -> asyncio.Task:
        """Run ``coro`` as a task on the running loop, held until it ends."""
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task


@dataclass
class Learning:
    """The Suggester's learned state: ``dirty`` once it changed since it was last saved."""

    dirty: bool = False


class App:
    """The daemon's state, shared by all handlers: home, config, token, the store, the
    Suggester and its learning, background jobs, the change feed."""

    def __init__(self, home: Path, config: Config, readonly: bool = False) -> None:
        self.home = Path(home)
        self.config = config
        self.readonly = readonly  # the store opened for reading only (a CLI read, no daemon)
        self.base_url = config.base_url
        self.token = ensure_token(self.home)
        self.started = time.time()
        self.executor = Pool(1, thread_name_prefix="pagekeeper-store")
        # The event loop's own pool (asyncio.to_thread: the full-text index's steps), counted
        # too: a stop waits for a step under way there, which nothing can cut.
        self.threads = Pool(thread_name_prefix="pagekeeper-worker")
        # Page analysis (parse, fingerprint, rewrite, extract) runs off the store thread,
        # one page at a time (two huge pages never double the peak memory): a small page
        # on a thread, a big one in a worker process, since lexbor's serializer and CSS
        # queries hold the GIL for up to a second on a 500k-element page.
        self.analysis = ThreadPoolExecutor(1, thread_name_prefix="pagekeeper-analysis")
        self._analysis_process: ProcessPoolExecutor | None = None
        self.reserved_id: str | None = None  # the last registration ID handed out
        self.counters: dict[str, int] = {"requests": 0}
        self.shutdown_event: asyncio.Event | None = None
        self.stopping: Step | None = None  # told of each part of a stop done (main.Stopping)
        self.changes = ChangeFeed()  # bumped after each durable write (viewer_watch)
        self.jobs = Jobs()
        self.learning = Learning()
        self.site_templates = TemplateCache()  # the liveness check's (host/services/liveness.py)
        self._store: ArchiveStore | None = None
        self._suggester: Suggester | None = None
        self._lock = threading.Lock()  # guards the analysis process's creation

    @property
    def store(self) -> ArchiveStore:
        """The archive store, opened on first use (``ArchiveStore.open(home)``); each durable
        write notes a change (``self.changes``), which wakes ``viewer_watch`` long-polls."""
        if self._store is None:
            self._store = ArchiveStore.open(
                self.home, readonly=self.readonly, on_write=self.changes.note
            )
        return self._store

    @property
    def suggester(self) -> Suggester:
        """The warm Suggester (bundled dictionary + the user's learned state)."""
        if self._suggester is None:
            self._suggester = build_suggester(self)
        return self._suggester

    @property
    def suggester_warm(self) -> bool:
        """Is the Suggester built (without building it)?"""
        return self._suggester is not None

    def warm(self, step: Step = no_step) -> None:
        """Open the store and build the Suggester now, so the first request is fast;
        remove captures abandoned in transfer (host/services/pending_captures.py). ``step(phase,
        count)`` is told of the work as it goes (a waiting client sees the start progress)."""
        try:
            if self._suggester is None:
                self._suggester = build_suggester(self, step)
        except Exception:  # a missing part must not keep the daemon down
            log.exception("could not warm the suggester")
        try:
            step("opening the archive", 1)
            self.store  # noqa: B018 - opened now rather than on the first request
        except Exception:
            log.exception("could not warm the store")
        step("removing abandoned captures", 1)
        removed = sweep(self.home)
        if removed:
            log.info("removed %d abandoned captures", len(removed))

    async def run(self, fn, *args):
        """Run ``fn(*args)`` on the single store thread."""
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)

    async def analyse(self, fn, *args, big: bool = False):
        """Run ``fn(*args)`` (which must not touch the store) on the analysis thread, or
        in the analysis process when ``big`` (``fn`` and its arguments are then pickled)."""
        loop = asyncio.get_running_loop()
        if not big:
            return await loop.run_in_executor(self.analysis, fn, *args)
        with self._lock:
            if self._analysis_process is None:
                spawn = multiprocessing.get_context("spawn")  # never fork a threaded daemon
                self._analysis_process = ProcessPoolExecutor(
                    1, mp_context=spawn, max_tasks_per_child=ANALYSIS_TASKS_PER_PROCESS
                )
        return await loop.run_in_executor(self._analysis_process, fn, *args)

    def close(self, step: Step = no_step) -> None:
        """Flush learned state and close the store, on the store thread once the step under
        way there has ended (a write is never cut; work not begun was cancelled with the
        request or job that wanted it). No deadline here: ``step(phase, count)`` tells of
        each part done, and the one who asked for the stop judges a stall (client.wait_stopped)."""
        self.analysis.shutdown(wait=False, cancel_futures=True)
        if self._analysis_process is not None:
            self._analysis_process.shutdown(wait=False, cancel_futures=True)
        step("closing the archive", 1)
        self.executor.submit(self._close, step).result()
        self.executor.shutdown(wait=True)

    def _close(self, step: Step = no_step) -> None:

        if self._suggester is not None and self.learning.dirty:
            save_learning(self)
            step("saving the learned state", 1)
        close = getattr(self._store, "close", None)
        if close:
            close()
            step("closing the archive", 1)
