"""The home folder: where each of its files lives, the one way to write one, and the one lock.

Every file PageKeeper keeps for a user sits under one folder (``--home``, env
``PAGEKEEPER_HOME``, default the platform's user data dir: :func:`resolve_home`), and only
:class:`Home` names the files in it. Writes go
through :func:`atomic_write` (temporary file, fsync, ``os.replace``, fsync of the folder), so a
crash leaves the old file or the new one, never half; locks are :class:`FileLock` (the OS
drops them with their process). Both are the archive store's own
(engine/archive/storage.py), so there is one implementation of each.

>>> home = Home(Path("/h"))
>>> home.config.as_posix(), home.cache_dir(None).as_posix(), home.cache_dir("/c").as_posix()
('/h/config.json', '/h/cache', '/c')
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from engine.archive.storage import FileLock, atomic_file, write_atomic

__all__ = [
    "HOME_ENV",
    "FileLock",
    "Home",
    "atomic_file",
    "atomic_write",
    "default_home",
    "resolve_home",
]

HOME_ENV = "PAGEKEEPER_HOME"


def resolve_home(arg: str | None = None) -> Path:
    """``--home`` wins, then ``$PAGEKEEPER_HOME``, then the platform's user data dir.

    >>> resolve_home("/tmp/pk").name
    'pk'
    """
    chosen = arg or os.environ.get(HOME_ENV) or platformdirs.user_data_dir("pagekeeper", False)
    return Path(chosen).expanduser().absolute()


def default_home() -> Path:
    """The platform's user data dir: the home of a command given neither ``--home`` nor
    ``$PAGEKEEPER_HOME``."""
    return Path(platformdirs.user_data_dir("pagekeeper", False)).expanduser().absolute()


def atomic_write(path: Path, data: bytes, durable: bool = True) -> None:
    """Write ``data`` to ``path`` whole or not at all (the folder is created if missing)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(Path(path), data, durable)


@dataclass(frozen=True)
class Home:
    """The layout of one home folder."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / "config.json"

    @property
    def token(self) -> Path:
        return self.root / "token"

    @property
    def daemon_state(self) -> Path:
        """What a listening daemon publishes (pid, port, url)."""
        return self.root / "daemon.json"

    @property
    def daemon_lock(self) -> Path:
        """Held by the one daemon of this home for its life."""
        return self.root / "daemon.lock"

    @property
    def db(self) -> Path:
        """The archive store's tables (engine/archive/storage.py)."""
        return self.root / "db"

    @property
    def blobs(self) -> Path:
        """The archive store's content-addressed blobs (engine/archive/store.py)."""
        return self.root / "blobs"

    @property
    def fulltext(self) -> Path:
        """The full-text index (host/services/fulltext.py), rebuilt from the store if lost."""
        return self.root / "index" / "fulltext.sqlite3"

    @property
    def pending(self) -> Path:
        """Captures still receiving their resources (host/services/pending_captures.py)."""
        return self.root / "pending"

    @property
    def launchers(self) -> Path:
        """The native-messaging launcher scripts a per-user install writes."""
        return self.root / "bin"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def daemon_log(self) -> Path:
        """The daemon's own log (rotated)."""
        return self.logs / "daemon.log"

    @property
    def daemon_output(self) -> Path:
        """stdout and stderr of a daemon started detached (what it printed before logging)."""
        return self.logs / "daemon.out"

    @property
    def relay_log(self) -> Path:
        """The native-messaging relay's log."""
        return self.logs / "native.log"

    @property
    def learning(self) -> Path:
        """The CLI's learned suggestion state when there is no archive."""
        return self.root / "learning.json"

    @property
    def paused(self) -> Path:
        """``stop --until-login``'s marker: the boot and login it holds for."""
        return self.root / "paused.json"

    def cache_dir(self, configured: str | None) -> Path:
        """The dictionary index cache: ``cache_dir`` of config.json, else ``<home>/cache``."""
        return Path(configured) if configured else self.root / "cache"

    def dictionary_index(self, configured: str | None, digest: str) -> Path:
        """The cached index of the dictionary whose source and format hash to ``digest``."""
        return self.cache_dir(configured) / f"dictionary-{digest}.idx"

    def lock(self) -> FileLock:
        """The daemon's lock on this home (not yet acquired)."""
        return FileLock(self.daemon_lock)
