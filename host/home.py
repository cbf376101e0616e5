"""The home folder: where each of its files lives, the one way to write one, and the one lock.

Every file PageKeeper keeps for a user sits under one folder (``--home``, env
``PAGEKEEPER_HOME``, default the platform's user data dir: host/settings.py). Writes go
through :func:`atomic_write` (temporary file, fsync, ``os.replace``, fsync of the folder), so a
crash leaves the old file or the new one, never half; locks are :class:`FileLock` (the OS
drops them with their process). Both are the archive store's own
(engine/archive/storage.py), so there is one implementation of each.

>>> home = Home(Path("/h"))
>>> home.config.as_posix(), home.cache_dir(None).as_posix(), home.cache_dir("/c").as_posix()
('/h/config.json', '/h/cache', '/c')
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.archive.storage import FileLock, atomic_file, write_atomic

__all__ = ["FileLock", "Home", "atomic_file", "atomic_write"]


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
        return self.root / "db"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def learning(self) -> Path:
        """The CLI's learned suggestion state when there is no archive."""
        return self.root / "learning.json"

    def cache_dir(self, configured: str | None) -> Path:
        """The dictionary index cache: ``cache_dir`` of config.json, else ``<home>/cache``."""
        return Path(configured) if configured else self.root / "cache"

    def lock(self) -> FileLock:
        """The daemon's lock on this home (not yet acquired)."""
        return FileLock(self.daemon_lock)
