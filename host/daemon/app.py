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
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from host.daemon.changes import ChangeFeed
from host.daemon.security import ensure_token
from host.protocol.framing import DEFAULT_REQUEST_CAP, REPLY_LIMIT

DEFAULT_PORT = 47477
CONFIG_FILE = "config.json"
ROOT = Path(__file__).resolve().parents[2]
# The Chromium extension's fixed ID (from the public key in its manifest).
EXTENSION_ID_FILE = ROOT / "packaging" / "extension-id.txt"
log = logging.getLogger("pagekeeper.app")


def bundled_extension_ids() -> list[str]:
    """The extension ID shipped with the source tree (packaging/extension-id.txt)."""
    try:
        text = EXTENSION_ID_FILE.read_text("ascii")
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
        path = Path(home) / CONFIG_FILE
        return port is not None or (
            path.is_file() and "port" in json.loads(path.read_text("utf-8"))
        )

    @staticmethod
    def remember_port(home: Path, port: int) -> None:
        """Write ``port`` into ``<home>/config.json`` (the other settings stay)."""
        path = Path(home) / CONFIG_FILE
        data = json.loads(path.read_text("utf-8")) if path.is_file() else {}
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({**data, "port": port}, indent=2), "utf-8")
        tmp.replace(path)

    @classmethod
    def load(cls, home: Path, **overrides) -> Config:
        """Defaults, then ``<home>/config.json``, then explicit overrides (e.g. ``--port``)."""
        data = {}
        path = Path(home) / CONFIG_FILE
        if path.is_file():
            data = json.loads(path.read_text("utf-8"))
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**known)


class App:
    """The daemon's state, shared by all handlers."""

    def __init__(self, home: Path, config: Config) -> None:
        self.home = Path(home)
        self.config = config
        self.base_url = config.base_url
        self.token = ensure_token(self.home)
        self.started = time.time()
        self.executor = ThreadPoolExecutor(1, thread_name_prefix="pagekeeper-store")
        self.counters: dict[str, int] = {"requests": 0}
        self.shutdown_event: asyncio.Event | None = None
        self.changes = ChangeFeed()  # bumped after each durable write (viewer_watch)
        self._store = None
        self._suggester = None
        self._lock = threading.Lock()

    @property
    def store(self):
        """The archive store, opened on first use (``ArchiveStore.open(home)``); each durable
        write notes a change (``self.changes``), which wakes ``viewer_watch`` long-polls."""
        if self._store is None:
            from engine.archive.store import ArchiveStore

            self._store = ArchiveStore.open(self.home, on_write=self.changes.note)
        return self._store

    @property
    def suggester(self):
        """The warm Suggester (bundled dictionary + the user's learned state)."""
        if self._suggester is None:
            from host.services.navigation import build_suggester

            self._suggester = build_suggester(self)
        return self._suggester

    def warm(self) -> None:
        """Open the store and build the Suggester now, so the first request is fast."""
        for part in ("suggester", "store"):
            try:
                getattr(self, part)
            except Exception:  # a missing part must not keep the daemon down
                log.exception("could not warm %s", part)

    async def run(self, fn, *args):
        """Run ``fn(*args)`` on the single store thread."""
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)

    def close(self) -> None:
        """Flush learned state and close the store (on the store thread)."""
        self.executor.submit(self._close).result(timeout=30)
        self.executor.shutdown(wait=True)

    def _close(self) -> None:
        from host.services.navigation import save_learning

        if self._suggester is not None and getattr(self, "learning_dirty", False):
            save_learning(self)
        close = getattr(self._store, "close", None)
        if close:
            close()
