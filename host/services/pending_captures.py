"""Captures in transfer: the page and its resource parts, kept on disk until committed.

``<home>/pending/<capture_id>/`` holds ``capture.json`` (the planned manifest, read by every
part), ``page.json`` (the page and its frames, read at commit) and one file per received
part, ``parts/<url digest>.<index>`` (the CRC-32 of its bytes, then them), written whole
(temp file, rename). Parts are
not fsynced one by one: they are not archive data yet, a killed host leaves each whole or
absent, and a part an OS crash lost or cut short fails its CRC, so :meth:`missing` (what
the extension asks after a restart) lists it again and :meth:`assemble` never uses it.
Nothing here is in the archive: a capture that is never committed leaves no version and
no row, and :func:`sweep` removes captures idle for longer than a day.

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
import threading
import time
import zlib
from pathlib import Path

from engine.archive.resources import (
    PENDING,
    CaptureLimits,
    part_count,
    part_length,
)
from engine.archive.storage import AtomicBatch
from engine.errors import Conflict, InvalidInput, NotFound, StorageError
from host.home import Home, atomic_write

STALE_AFTER_S = 24 * 3600  # a capture idle this long is abandoned (tab closed, browser gone)
ID_FORM = re.compile(r"^[0-9a-f]{32}$")
CAPTURE_FILE, PAGE_FILE = "capture.json", "page.json"
DROPPED = ".dropped-"  # a committed or aborted capture whose files are being removed
PARSED_KEPT = 16  # captures whose capture.json stays parsed (read-only: entries are not changed)
_PARSED: dict[Path, tuple] = {}


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

    def __init__(self, path: Path, record: dict, page: dict | None = None) -> None:
        self.path, self.record, self._page = path, record, page or record.get("page")
        self.limits = CaptureLimits(**record["limits"])
        self.entries = {e["url"]: e for e in record["plan"]}

    @property
    def id(self) -> str:
        return self.path.name

    @property
    def page(self) -> dict:
        """The page (url, html, frames, …): read from disk on first use (commit only)."""
        if self._page is None:
            self._page = _read_json(self.path, PAGE_FILE)
        return self._page

    @classmethod
    def create(cls, home: Path, page: dict, plan: list[dict], limits: CaptureLimits):
        """Write a new pending capture (``page``: url, html, frames, …) and return it."""
        capture_id = secrets.token_hex(16)
        path = pending_root(home) / capture_id
        record = {"plan": plan, "limits": limits.to_dict(), "created": time.time()}
        try:
            (path / "parts").mkdir(parents=True)
            files = AtomicBatch()
            files.add(path / PAGE_FILE, json.dumps(page).encode("utf-8"))
            files.add(path / CAPTURE_FILE, json.dumps(record).encode("utf-8"))
            files.commit()
        except OSError as exc:
            raise StorageError(f"cannot keep the capture: {exc}") from exc
        return cls(path, record, page)

    @classmethod
    def load(cls, home: Path, capture_id: object) -> PendingCapture:
        """The pending capture ``capture_id``; NotFound when unknown, committed or aborted.
        Its plan is parsed once per process: ``capture.json`` is written once and never
        changed, so a part reads it again only when the file is not the one parsed (stat)."""
        if not isinstance(capture_id, str) or not ID_FORM.match(capture_id):
            raise InvalidInput("parameter 'capture_id' must be 32 hex digits")
        path = pending_root(home) / capture_id
        try:
            stat = (path / CAPTURE_FILE).stat()
        except OSError:
            stat = None  # _read_json says why (NotFound, StorageError)
        stamp = stat and (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        held = _PARSED.get(path)
        if held is None or stamp is None or held[0] != stamp:
            held = (stamp, _read_json(path, CAPTURE_FILE))
            _PARSED[path] = held
            while len(_PARSED) > PARSED_KEPT:
                _PARSED.pop(next(iter(_PARSED)))
        return cls(path, held[1])

    def wanted(self) -> list[dict]:
        """Plan entries whose bytes are expected."""
        return [e for e in self.record["plan"] if e["status"] == PENDING]

    def count(self, entry: dict) -> int:
        return part_count(entry["size"], self.limits.part_bytes)

    def _part_path(self, url: str, index: int) -> Path:
        return self.path / "parts" / f"{url_digest(url)}.{index}"

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
        missing = self._missing(entry)
        return {
            "url": url,
            "received": expected - len(missing),
            "count": expected,
            "missing_parts": missing,
        }

    def _keep(self, url: str, index: int, data: bytes) -> None:
        path = self._part_path(url, index)
        kept = _intact(path)  # a damaged one is removed here and written again below
        if kept is not None:
            if kept != data:
                raise Conflict(f"part {index} of {url} differs from the one already received")
            return
        try:  # not fsynced: see the module doc
            atomic_write(path, zlib.crc32(data).to_bytes(4, "big") + data, durable=False)
        except OSError as exc:
            raise StorageError(f"cannot keep part {index} of {url}: {exc}") from exc

    def _missing(self, entry: dict, check: bool = False) -> list[int]:
        """Part indices not received; ``check``: a part whose bytes fail its CRC (an OS crash
        cut it short) is removed and counted missing."""
        paths = [self._part_path(entry["url"], i) for i in range(self.count(entry))]
        if check:
            return [i for i, path in enumerate(paths) if _intact(path) is None]
        return [i for i, path in enumerate(paths) if not path.exists()]

    def missing(self) -> dict[str, list[int]]:
        """URL -> part indices not received yet or damaged (complete URLs left out): what
        the extension resends after a restart."""
        found = {e["url"]: self._missing(e, check=True) for e in self.wanted()}
        return {url: parts for url, parts in found.items() if parts}

    def assemble(self, entry: dict) -> bytes | None:
        """The resource's bytes when every part is in and intact (None otherwise); parts
        shorter than their slot make it shorter than declared (the caller records it
        ``truncated``)."""
        pieces = []
        for index in range(self.count(entry)):
            piece = _intact(self._part_path(entry["url"], index))
            if piece is None:
                return None
            pieces.append(piece)
        return b"".join(pieces)

    def touch(self) -> None:
        """Mark the capture active (the stale sweep goes by this time)."""
        os.utime(self.path)

    def drop(self) -> None:
        """Forget the capture at once (one rename: a later request finds no capture) and
        remove its files in the background; :func:`sweep` removes what a stop left."""
        gone = self.path.with_name(f"{DROPPED}{self.id}.{secrets.token_hex(4)}")
        try:
            os.replace(self.path, gone)
        except FileNotFoundError:
            return
        except OSError:
            gone = self.path
        threading.Thread(target=shutil.rmtree, args=(gone, True), daemon=True).start()


def _intact(path: Path) -> bytes | None:
    """A part's bytes (the file is a CRC-32 of them, then them), or None when it is absent or
    fails its CRC; a damaged one is removed, so it is asked for again."""
    try:
        stored = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StorageError(f"cannot read {path.name} of a pending capture: {exc}") from exc
    data = stored[4:]
    if len(stored) >= 4 and int.from_bytes(stored[:4], "big") == zlib.crc32(data):
        return data
    path.unlink(missing_ok=True)
    return None


def _read_json(path: Path, name: str) -> dict:
    try:
        return json.loads((path / name).read_bytes())
    except FileNotFoundError as exc:
        raise NotFound(f"no pending capture {path.name} (committed, aborted or expired)") from exc
    except (OSError, ValueError) as exc:
        raise StorageError(f"unreadable pending capture {path.name}: {exc}") from exc


def sweep(home: Path, now: float | None = None, older_than: float = STALE_AFTER_S) -> list[str]:
    """Remove pending captures idle for more than ``older_than`` seconds; their IDs.
    (Blobs a killed commit wrote without a version are the blob reclaim's: no version
    names them.)"""
    root, now = pending_root(home), time.time() if now is None else now
    removed = []
    for path in sorted(root.iterdir()) if root.is_dir() else ():
        dropped = path.name.startswith(DROPPED)
        if path.is_dir() and (dropped or now - path.stat().st_mtime > older_than):
            shutil.rmtree(path, ignore_errors=True)
            removed += [] if dropped else [path.name]
    return removed
