"""An exclusive, non-blocking OS file lock: one daemon per home.

The OS drops the lock when its process dies, so a crashed daemon never leaves
a stale lock behind (a pid file alone would).

>>> import tempfile, pathlib
>>> a = DaemonLock(pathlib.Path(tempfile.mkdtemp()) / "x.lock")
>>> a.acquire()
True
"""

from __future__ import annotations

import os
from pathlib import Path


class DaemonLock:
    """An exclusive, non-blocking OS lock on a file (fcntl on POSIX, msvcrt on Windows)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.handle = None

    def acquire(self) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+b")  # noqa: SIM115 (held for the daemon's lifetime)
        try:
            _lock(handle)
        except OSError:
            handle.close()
            return False
        self.handle = handle
        return True

    def release(self) -> None:
        if self.handle is not None:
            _unlock(self.handle)
            self.handle.close()
            self.handle = None


if os.name == "nt":  # pragma: no cover (Windows)
    import msvcrt

    def _lock(handle) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)

    def _unlock(handle) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(handle) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(handle) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
