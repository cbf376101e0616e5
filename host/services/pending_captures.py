"""Captures in transfer: the page and its resource parts, kept on disk until committed.

``<home>/pending/<capture_id>/`` holds ``capture.json`` (the page, its frames and the
planned manifest) and one file per received part, ``parts/<url digest>/<index>``, each
written whole (temp file, fsync, rename). Nothing here is in the archive: a capture that
is never committed leaves no version and no row, and :func:`sweep` removes captures idle
for longer than a day. After a host restart the parts are still there
(:meth:`PendingCapture.missing` tells what to resend).

>>> import tempfile, pathlib
>>> home = pathlib.Path(tempfile.mkdtemp())
>>> cap = PendingCapture.create(home, {"url": "https://e.com/"}, [
...     {"url": "https://e.com/a.css", "size": 3, "status": "pending"}], CaptureLimits())
>>> cap.missing()
{'https://e.com/a.css': [0]}
>>> cap.put_part("https://e.com/a.css", 0, 1, b"a{}")["missing_parts"]
[]
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import time
from pathlib import Path

from engine.archive.resources import (
    PENDING,
    CaptureLimits,
    part_count,
    part_length,
)
from engine.errors import Conflict, InvalidInput, NotFound, StorageError
from host.home import Home, atomic_write

STALE_AFTER_S = 24 * 3600  # a capture idle this long is abandoned (tab closed, browser gone)
ID_FORM = re.compile(r"^[0-9a-f]{32}$")


def pending_root(home: Path) -> Path:
    return Home(Path(home)).pending


def url_digest(url: str) -> str:
    """A resource's directory name (URLs are not file names).

    >>> url_digest("https://e.com/a.css")[:8]
    '12c11a0e'
    """
    return hashlib.sha256(url.encode()).hexdigest()[:32]


class PendingCapture:
    """One capture in transfer (see the module doc)."""

    def __init__(self, path: Path, record: dict) -> None:
        self.path, self.record = path, record
        self.limits = CaptureLimits(**record["limits"])
        self.entries = {e["url"]: e for e in record["plan"]}

    @property
    def id(self) -> str:
        return self.path.name

    @classmethod
    def create(cls, home: Path, page: dict, plan: list[dict], limits: CaptureLimits):
        """Write a new pending capture (``page``: url, html, frames, …) and return it."""
        capture_id = secrets.token_hex(16)
        path = pending_root(home) / capture_id
        record = {"page": page, "plan": plan, "limits": limits.to_dict(), "created": time.time()}
        try:
            (path / "parts").mkdir(parents=True)
            atomic_write(path / "capture.json", json.dumps(record).encode("utf-8"))
        except OSError as exc:
            raise StorageError(f"cannot keep the capture: {exc}") from exc
        return cls(path, record)

    @classmethod
    def load(cls, home: Path, capture_id: object) -> PendingCapture:
        """The pending capture ``capture_id``; NotFound when unknown, committed or aborted."""
        if not isinstance(capture_id, str) or not ID_FORM.match(capture_id):
            raise InvalidInput("parameter 'capture_id' must be 32 hex digits")
        path = pending_root(home) / capture_id
        try:
            record = json.loads((path / "capture.json").read_bytes())
        except FileNotFoundError as exc:
            raise NotFound(
                f"no pending capture {capture_id} (committed, aborted or expired)"
            ) from exc
        except (OSError, ValueError) as exc:
            raise StorageError(f"unreadable pending capture {capture_id}: {exc}") from exc
        return cls(path, record)

    def wanted(self) -> list[dict]:
        """Plan entries whose bytes are expected."""
        return [e for e in self.record["plan"] if e["status"] == PENDING]

    def count(self, entry: dict) -> int:
        return part_count(entry["size"], self.limits.part_bytes)

    def _part_dir(self, url: str) -> Path:
        return self.path / "parts" / url_digest(url)

    def _entry(self, url: str) -> dict:
        entry = self.entries.get(url)
        if entry is None or entry["status"] != PENDING:
            raise InvalidInput(f"the capture does not want bytes of {url!r}")
        return entry

    def put_part(self, url: str, index: int, count: int, data: bytes) -> dict:
        """Keep one part: ``index`` of ``count``, at most its slot's bytes. An identical
        duplicate is ignored; a different one is ``Conflict`` and the first one stays."""
        entry = self._entry(url)
        expected = self.count(entry)
        if count != expected:
            raise InvalidInput(f"{url} is sent in {expected} parts, not {count}")
        if not 0 <= index < expected:
            raise InvalidInput(f"part index {index} is outside 0..{expected - 1}")
        slot = part_length(index, entry["size"], self.limits.part_bytes)
        if len(data) > slot:
            raise InvalidInput(f"part {index} of {url} holds {len(data)} bytes, more than {slot}")
        self._keep(url, index, data)
        self.touch()
        return {
            "url": url,
            "received": expected - len(self._missing(entry)),
            "count": expected,
            "missing_parts": self._missing(entry),
        }

    def _keep(self, url: str, index: int, data: bytes) -> None:
        path = self._part_dir(url) / str(index)
        if path.exists():
            if path.read_bytes() != data:
                raise Conflict(f"part {index} of {url} differs from the one already received")
            return
        try:
            path.parent.mkdir(exist_ok=True)
            atomic_write(path, data)
        except OSError as exc:
            raise StorageError(f"cannot keep part {index} of {url}: {exc}") from exc

    def _missing(self, entry: dict) -> list[int]:
        folder = self._part_dir(entry["url"])
        have = {p.name for p in folder.iterdir()} if folder.is_dir() else set()
        return [i for i in range(self.count(entry)) if str(i) not in have]

    def missing(self) -> dict[str, list[int]]:
        """URL -> part indices not received yet (complete URLs left out)."""
        found = {e["url"]: self._missing(e) for e in self.wanted()}
        return {url: parts for url, parts in found.items() if parts}

    def assemble(self, entry: dict) -> bytes | None:
        """The resource's bytes when every part is in (None otherwise); parts shorter than
        their slot make it shorter than declared (the caller records it ``truncated``)."""
        if self._missing(entry):
            return None
        folder = self._part_dir(entry["url"])
        return b"".join((folder / str(i)).read_bytes() for i in range(self.count(entry)))

    def touch(self) -> None:
        """Mark the capture active (the stale sweep goes by this time)."""
        os.utime(self.path)

    def drop(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def sweep(home: Path, now: float | None = None, older_than: float = STALE_AFTER_S) -> list[str]:
    """Remove pending captures idle for more than ``older_than`` seconds; their IDs.
    (Blobs a killed commit wrote without a version are the blob reclaim's: no version
    names them.)"""
    root, now = pending_root(home), time.time() if now is None else now
    removed = []
    for path in sorted(root.iterdir()) if root.is_dir() else ():
        if path.is_dir() and now - path.stat().st_mtime > older_than:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path.name)
    return removed
