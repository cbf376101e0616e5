"""A crash-safe TinyDB storage: an fsync'ed journal of changes plus per-table snapshots.

TinyDB's ``JSONStorage`` rewrites the whole file on every write (O(database)
per insert) and leaves a truncated file if the process dies mid-write. This
storage keeps every table in memory and makes each change durable by
appending ONE line to a journal and fsync'ing it:

    <crc32 hex> <json {"ops": [["put", table, id, doc] | ["del", table, id] | ["clear", table]]}>\\n

* A transaction (:meth:`JournalStorage.transaction`) groups all ops of one
  registration into one line: it is either wholly there or wholly absent.
* On open the snapshots are loaded and the journal replayed; a torn last line
  (bad CRC, bad JSON, no newline) is the tail of a write that was never
  acknowledged, so it is cut off. A bad line *before* the tail is skipped
  (counted in ``skipped_lines``) and every good line after it is kept; a torn
  fragment glued to the front of the next line (a failed write followed by a
  good one) gives that line back.
* Each append remembers the journal's length first; a failed write is cut back
  to it and the file reopened, so the next line never lands after a fragment.
  A failed fsync stops all writes until the archive is reopened: after one, the
  page cache no longer says what is on the disk (PostgreSQL's "fsyncgate").
* :meth:`JournalStorage.compact` writes each dirty table to
  ``<table>.<gen>.json`` (temp file, fsync, ``os.replace``), then a new
  ``MANIFEST`` the same way, which atomically switches to generation
  ``gen`` and an empty ``journal.<gen>.log``. A crash at any point leaves
  either the old or the new generation complete. Tables are sharded: only
  tables changed since the last compaction are rewritten.
* ``LOCK`` is held with an exclusive ``flock`` by the one writer; a second
  writer gets a ``StorageError`` at once. Readers may open read-only.
* Readers load tables lazily too. A compaction keeps the snapshots it
  replaced for one more generation, so a reader that opened before it still
  finds its generation's files; only a reader outliving two compactions gets
  a ``StorageError`` (asking to run the command again).

``JournalTable`` overrides TinyDB's ``Table._update_table`` (which would copy
the whole table per write) to apply the update in place and journal only the
documents the update touched.

>>> import tempfile, pathlib
>>> storage = JournalStorage(pathlib.Path(tempfile.mkdtemp()))
>>> db = open_tinydb(storage)
>>> db.table("t").insert({"a": 1})
1
>>> storage.close()
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import sys
import threading
import zlib
from collections.abc import Iterator, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import BinaryIO

from tinydb import TinyDB
from tinydb.storages import Storage
from tinydb.table import Table

from engine.errors import StorageError

if sys.platform == "win32":  # pragma: no cover - msvcrt gives the same exclusivity as flock
    import msvcrt
else:  # POSIX advisory locks
    import fcntl

MANIFEST = "MANIFEST"
SNAPSHOT_NAME = re.compile(r".+\.\d+\.json")  # <table>.<gen>.json
LOCK = "LOCK"
LINE_START = re.compile(rb"[0-9a-f]{8} \{")  # where a journal line can begin


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # not supported on every platform
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_file(path: Path, durable: bool = True) -> Iterator:
    """A binary file that appears at ``path`` whole or not at all: written under a temporary
    name beside it, fsynced, renamed over ``path``, then its folder fsynced (``durable``;
    without it a crash may lose the new file, never leave half of it).

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x"
    >>> with atomic_file(p) as out:
    ...     _ = out.write(b"hi")
    >>> p.read_bytes()
    b'hi'
    """
    # Unique per thread too: the store's blob writer and a caller may write the same blob.
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(temp, "wb") as handle:
            yield handle
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)  # a full disk must not keep the half-written copy
        raise
    if durable:
        _fsync_dir(path.parent)


def write_atomic(path: Path, data: bytes, durable: bool = True) -> None:
    """Write ``data`` to ``path`` so that a crash leaves the old or the new file, never half.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x"; write_atomic(p, b"hi"); p.read_bytes()
    b'hi'
    """
    with atomic_file(path, durable) as handle:
        handle.write(data)


class AtomicBatch:
    """Files that appear whole or not at all, made durable together: :meth:`add` writes each
    under a temporary name beside its path at once (nothing is held in memory);
    :meth:`commit` fsyncs every temporary file concurrently (the file system folds the
    flushes into a few journal commits, where one after another each waits for its own),
    renames each over its path, then fsyncs each folder once. The guarantee is
    :func:`write_atomic`'s for every file: after ``commit`` returns all are durable; a crash
    before leaves temporary files (``.tmp``) and never part of a file under its name.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> batch = AtomicBatch()
    >>> batch.add(d / "a", b"1"); batch.add(d / "b", b"2"); (d / "a").exists()
    False
    >>> batch.commit(); (d / "a").read_bytes(), (d / "b").read_bytes()
    (b'1', b'2')
    """

    THREADS = 16

    def __init__(self) -> None:
        self.temps: list[tuple[Path, Path]] = []

    def add(self, path: Path, data: bytes) -> None:
        temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            with open(temp, "wb") as handle:
                handle.write(data)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
        self.temps.append((temp, path))

    def commit(self) -> None:
        """Make every added file durable under its name (see the class doc)."""
        try:
            self._each(_fsync_file, [temp for temp, _ in self.temps])
            for temp, path in self.temps:
                os.replace(temp, path)
        except BaseException:
            self.discard()
            raise
        self._each(_fsync_dir, sorted({path.parent for _, path in self.temps}))
        self.temps = []

    def discard(self) -> None:
        """Remove the temporary files not yet renamed (after a failure)."""
        for temp, _ in self.temps:
            temp.unlink(missing_ok=True)
        self.temps = []

    def _each(self, action, paths: list[Path]) -> None:
        if len(paths) <= 1:
            for path in paths:
                action(path)
            return
        list(_fsync_pool().map(action, paths))  # list(): an OSError in any thread is raised here


_POOL: list = []  # [(pid, ThreadPoolExecutor)]: threads started once per process, not per batch


def _fsync_pool() -> ThreadPoolExecutor:
    """The process's fsync threads (a forked child starts its own: it has none of the parent's)."""
    if not _POOL or _POOL[0][0] != os.getpid():
        _POOL[:] = [(os.getpid(), ThreadPoolExecutor(AtomicBatch.THREADS, "fsync"))]
    return _POOL[0][1]


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDWR)  # Windows flushes only a file open for writing
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _open_journal(path: Path) -> BinaryIO:
    """The writer's journal: unbuffered, so a failed write leaves no bytes queued in memory."""
    return open(path, "ab", buffering=0)  # noqa: SIM115 - the writer's journal stays open


def _write_all(handle, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(handle.fileno(), view) :]


def encode_line(ops: list) -> bytes:
    """One journal line: CRC32 of the JSON, a space, the JSON, a newline.

    >>> encode_line([["clear", "t"]])
    b'c7b5be14 {"ops":[["clear","t"]]}\\n'
    """
    return _line(encode_ops(ops))


def encode_ops(ops: list) -> list[bytes]:
    """Each op as compact JSON (encoded once, when it is recorded)."""
    return [json.dumps(op, separators=(",", ":"), ensure_ascii=False).encode() for op in ops]


def _line(parts: list[bytes]) -> bytes:
    body = b'{"ops":[' + b",".join(parts) + b"]}"
    return b"%08x %s\n" % (zlib.crc32(body), body)


def decode_line(line: bytes) -> list | None:
    """The ops of a journal line, or None when it is torn or corrupt.

    >>> decode_line(encode_line([["del", "t", "1"]]))
    [['del', 't', '1']]
    >>> decode_line(b"00000000 {}")
    """
    if not line.endswith(b"\n") or len(line) < 10:
        return None
    crc, body = line[:8], line[9:-1]
    try:
        if int(crc, 16) != zlib.crc32(body):
            return None
        return json.loads(body)["ops"]
    except (ValueError, KeyError):
        return None


def salvage_line(line: bytes) -> list | None:
    """The ops of a good line glued behind a torn fragment, or None.

    A write cut short leaves a fragment without its newline; the next good write
    then continues on the same line.

    >>> good = encode_line([["del", "t", "1"]])
    >>> salvage_line(good[:20] + good)
    [['del', 't', '1']]
    """
    for match in LINE_START.finditer(line, 1):
        ops = decode_line(line[match.start() :])
        if ops is not None:
            return ops
    return None


@contextlib.contextmanager
def _quiet_gc() -> Iterator[None]:
    """Load a snapshot without the cyclic GC, then freeze what is loaded.

    Parsed JSON is acyclic; left to the collector, every gen-2 pass would walk
    millions of table objects (seconds at 100,000 snapshots). ``gc.freeze``
    (Python 3.7+) moves them to the permanent generation; refcounting still frees them.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


class FileLock:
    """An exclusive, non-blocking OS lock on a file (flock on POSIX, msvcrt on Windows), held
    until :meth:`release`; the OS drops it when the process dies, so a crash leaves no stale
    lock. The holder's pid is written into the file (for people; the lock is the truth).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "x.lock"
    >>> a, b = FileLock(path), FileLock(path)
    >>> a.acquire(), b.acquire(), a.release(), b.acquire()
    (True, False, None, True)
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.handle: BinaryIO | None = None

    def acquire(self) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+b")  # noqa: SIM115 - held open until release()
        try:
            _lock(handle)
        except OSError:
            handle.close()
            return False
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()).encode())
        handle.flush()
        self.handle = handle
        return True

    def release(self) -> None:
        if self.handle is None:
            return
        with contextlib.suppress(OSError):
            _unlock(self.handle)
        self.handle.close()
        self.handle = None


def _lock(handle: BinaryIO) -> None:
    if sys.platform == "win32":  # pragma: no cover
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
    else:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


def _unlock(handle: BinaryIO) -> None:
    if sys.platform == "win32":  # pragma: no cover
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
    else:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _writer_lock(path: Path) -> FileLock:
    """The store's writer lock on ``<dir>/LOCK``, or a clear ``storage`` error."""
    lock = FileLock(path)
    try:
        acquired = lock.acquire()
    except OSError as exc:  # a read-only or vanished home
        raise StorageError(
            f"cannot write to the archive at {path.parent}: {exc.strerror or exc}"
        ) from exc
    if not acquired:
        raise StorageError(
            f"the archive at {path.parent} is open by another writer "
            "(the daemon, or another pagekeeper command); try again or go through the daemon"
        )
    return lock


class JournalStorage(Storage):
    """TinyDB storage over ``directory``: snapshots + journal + lock (see the module doc).

    ``on_write``, when given, is called with no arguments after each journal line is
    durable (one call per write or per transaction), on the writing thread; it must
    not raise. The daemon uses it to wake viewers without polling (host/daemon/changes.py).

    >>> import tempfile, pathlib
    >>> seen = []
    >>> storage = JournalStorage(pathlib.Path(tempfile.mkdtemp()), on_write=lambda: seen.append(1))
    >>> open_tinydb(storage).table("t").insert({"a": 1}); len(seen)
    1
    1
    >>> storage.close()
    """

    def __init__(
        self, directory: Path, readonly: bool = False, fsync: bool = True, on_write=None
    ) -> None:
        self.dir = Path(directory)
        self.readonly = readonly
        self.fsync = fsync
        self.on_write = on_write
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot create the archive at {self.dir}: {exc.strerror}") from exc
        self._lock = None if readonly else _writer_lock(self.dir / LOCK)
        self._tables: dict[str, dict] = {}
        self._unloaded: dict[str, str] = {}
        self._deferred: dict[str, list] = {}
        self._dirty: set[str] = set()
        self._pending: list | None = None
        self._undo_log: list = []
        self._depth = 0
        self._broken: str | None = None
        self.journal_lines = 0
        self.skipped_lines: list[int] = []
        try:
            self._load()
        except BaseException:
            self.close()
            raise

    # -- loading -------------------------------------------------------------
    def _manifest(self) -> dict:
        path = self.dir / MANIFEST
        if not path.exists():
            return {"gen": 0, "tables": {}}
        try:
            return json.loads(path.read_bytes())
        except ValueError as exc:
            raise StorageError(f"corrupt manifest {path}: {exc}") from exc

    def _load(self) -> None:
        for _attempt in range(5):
            manifest = self._manifest()
            try:
                self._load_generation(manifest)
            except StorageError:
                if not self.readonly or self._manifest() == manifest:
                    raise
                continue  # the writer compacted while we read: read the new generation
            if not self.readonly:
                self._sweep()
                return
            if self._manifest() == manifest:
                return
        raise StorageError(f"the archive at {self.dir} keeps changing under a reader")

    def _sweep(self) -> None:
        """Remove what a crash mid-compaction left: temp files and a generation never switched to."""
        for path in self.dir.iterdir():
            orphan = path.name.endswith(".tmp") and path.name.startswith(".")
            if not orphan and SNAPSHOT_NAME.fullmatch(path.name):
                orphan = int(path.name.rsplit(".", 2)[1]) > self.gen
            if orphan:
                with contextlib.suppress(OSError):
                    path.unlink()

    def _load_generation(self, manifest: dict) -> None:
        self.gen = manifest["gen"]
        self._files = dict(manifest["tables"])
        self._tables, self._dirty, self.journal_lines = _Tables(self), set(), 0
        self._unloaded, self._deferred = dict(self._files), {}
        self._replay(self.dir / f"journal.{self.gen}.log")

    def load_all(self) -> None:
        """Load every table still on disk (they load lazily, on first use, otherwise)."""
        for name in list(self._unloaded):
            self._tables[name]  # noqa: B018 - __missing__ loads it

    def _load_table(self, name: str) -> dict:
        """Load a table's snapshot and the journal ops replayed for it (the lazy path)."""
        file = self._unloaded.pop(name)  # KeyError: no such table
        data = self._read_snapshot(self.dir / file)
        for op in self._deferred.pop(name, ()):
            _apply_op(data, op)
        dict.__setitem__(self._tables, name, data)
        return data

    def _read_snapshot(self, path: Path) -> dict:
        try:
            with _quiet_gc():
                return json.loads(path.read_bytes())
        except FileNotFoundError as exc:
            if self.readonly:  # retired by two compactions since this reader opened
                raise StorageError(
                    f"the archive at {self.dir} was compacted twice while this command read "
                    "it; run the command again"
                ) from exc
            raise StorageError(f"cannot read table snapshot {path}: {exc}") from exc
        except (OSError, ValueError) as exc:
            raise StorageError(f"cannot read table snapshot {path}: {exc}") from exc

    def _replay(self, path: Path) -> None:
        good = 0
        if path.exists():
            with open(path, "rb") as handle:
                good = self._replay_lines(handle, path)
        if self.readonly:
            self._journal = None
            return
        try:
            self._journal = journal = _open_journal(path)
            if journal.tell() != good:  # cut a torn tail left by a crash mid-write
                journal.truncate(good)
                journal.seek(good)
                self._sync(journal)
        except OSError as exc:
            raise StorageError(f"cannot open the journal {path}: {exc}") from exc

    def _replay_lines(self, handle, path: Path) -> int:
        """Apply every good line; return the length to keep (a torn last line is cut)."""
        offset = good = 0
        lines = handle.readlines()
        for index, line in enumerate(lines):
            ops = decode_line(line)
            if ops is None and index == len(lines) - 1:
                break  # torn tail: never acknowledged
            if ops is None:
                ops = salvage_line(line)
            if ops is None:
                self.skipped_lines.append(offset)  # damaged in place: keep what follows
            else:
                self._apply(ops)
                self.journal_lines += 1
            offset += len(line)
            good = offset
        return good

    def _apply(self, ops: list) -> None:
        for op in ops:
            self._dirty.add(op[1])
            if op[1] in self._unloaded:
                self._deferred.setdefault(op[1], []).append(op)
            else:
                _apply_op(self._tables.setdefault(op[1], {}), op)

    # -- TinyDB's Storage interface --------------------------------------------
    def read(self) -> dict:
        """All tables (live dicts, keyed by str doc id): TinyDB reads through this."""
        return self._tables

    def write(self, data: dict) -> None:
        """Whole-database write (TinyDB's drop_table path): journal it as clear+puts."""
        self.load_all()
        ops = []
        for name in set(self._tables) | set(data):
            ops.append(["clear", name])
            ops += [["put", name, key, doc] for key, doc in data.get(name, {}).items()]
        self._tables = _Tables(self)
        self._tables.update({name: dict(table) for name, table in data.items()})
        self.record(ops)

    def table(self, name: str) -> dict:
        """The live dict of one table (str doc id -> document), loaded on first use."""
        try:
            return self._tables[name]
        except KeyError:
            return self._tables.setdefault(name, {})

    # -- writing -----------------------------------------------------------------
    def put_blind(self, name: str, key: str, doc: dict) -> None:
        """Put a document without loading its table (for idempotent rows such as links).

        If the table is still on disk the op waits with the replayed ones and applies
        when it loads. Not undone by an aborted transaction: use only for rows that are
        harmless on their own.
        """
        op = ["put", name, key, doc]
        if name in self._unloaded:
            self._deferred.setdefault(name, []).append(op)
        else:
            table = self.table(name)
            if table.get(key) == doc:
                return
            table[key] = doc
        self.record([op])

    def record(self, ops: list, undo: list | None = None) -> None:
        """Make ``ops`` (already applied in memory) durable, now or at the end of the transaction.

        ``undo`` holds ``(table, key, previous document or None)`` to restore memory
        when the ops cannot be made durable (unserializable data, disk full): the
        in-memory tables never hold what the journal does not.
        """
        if not ops:
            return
        undo = undo or []
        try:
            parts = encode_ops(ops)  # refuse unserializable documents before they are pending
        except (TypeError, ValueError) as exc:
            self._undo(undo)
            raise StorageError(f"cannot store this document: {exc}") from exc
        self._dirty.update(op[1] for op in ops)
        if self._pending is not None:
            self._pending.extend(parts)
            self._undo_log.extend(undo)
            return
        try:
            self._append(parts)
        except StorageError:
            self._undo(undo)
            raise

    def record_failed(self, name: str, before: dict) -> None:
        """An update raised half-way (e.g. duplicate id): restore what it touched."""
        self._undo([(name, key, doc) for key, doc in before.items()])

    def _undo(self, undo: list) -> None:
        for name, key, before in reversed(undo):
            table = self.table(name)
            if before is None:
                table.pop(key, None)
            else:
                table[key] = before

    def _append(self, parts: list[bytes]) -> None:
        if self._broken is not None:
            raise StorageError(self._broken)
        journal = self._journal
        if journal is None:
            raise StorageError("the archive is open read-only")
        start = journal.tell()
        try:
            _write_all(journal, _line(parts))
        except OSError as exc:
            self._rewind(journal, start)
            raise StorageError(f"cannot write the journal: {exc}") from exc
        try:
            self._sync(journal)
        except OSError as exc:
            self._broken = (
                f"the disk failed to sync the journal ({exc}); writes are stopped because "
                "the page cache can no longer be trusted: restart the daemon to reopen the archive"
            )
            self._rewind(journal, start)
            raise StorageError(self._broken) from exc
        self.journal_lines += 1
        if self.on_write is not None:
            self.on_write()

    def _rewind(self, journal: BinaryIO, start: int) -> None:
        """Cut the journal back to ``start`` bytes and reopen it; if even that fails, stop writing."""
        path = Path(journal.name)
        with contextlib.suppress(OSError):
            journal.close()
        try:
            os.truncate(path, start)
            self._journal = _open_journal(path)
        except OSError as exc:
            self._broken = f"cannot repair the journal {path} after a failed write ({exc})"
            self._journal = None

    def journal_bytes(self) -> int:
        """Size of the current journal (0 for a reader)."""
        return self._journal.tell() if self._journal is not None else 0

    def _sync(self, journal: BinaryIO) -> None:
        if self.fsync:
            os.fsync(journal.fileno())

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Group every write inside into one journal line (one fsync), committed on exit.

        If the body raises, or the line cannot be written, every change made inside
        is undone in memory and nothing reaches the journal.
        """
        if self._depth == 0:
            self._pending, self._undo_log = [], []
        self._depth += 1
        try:
            yield
        except BaseException:
            self._depth -= 1
            if self._depth == 0:
                self._abort()
            raise
        self._depth -= 1
        if self._depth == 0:
            self._commit()

    def _abort(self) -> None:
        undo, self._pending, self._undo_log = self._undo_log, None, []
        self._undo(undo)

    def _commit(self) -> None:
        parts, self._pending = self._pending, None
        try:
            if parts:
                self._append(parts)
        except StorageError:
            self._undo(self._undo_log)
            raise
        finally:
            self._undo_log = []

    # -- compaction --------------------------------------------------------------
    def compact(self) -> None:
        """Rewrite dirty tables as generation gen+1 and switch to it atomically."""
        if self.readonly or not (self._dirty or self.journal_lines):
            return
        if self._broken is not None:
            raise StorageError(self._broken)
        gen = self.gen + 1
        files = dict(self._files)
        try:
            for name in sorted(self._dirty):
                files[name] = f"{name}.{gen}.json"
                write_atomic(self.dir / files[name], _dump(self.table(name)))
            journal = self.dir / f"journal.{gen}.log"
            write_atomic(journal, b"")
            # The MANIFEST last: until it is replaced, generation gen does not exist.
            write_atomic(self.dir / MANIFEST, json.dumps({"gen": gen, "tables": files}).encode())
        except OSError as exc:
            self._drop_unswitched(gen)
            raise StorageError(f"cannot compact the archive at {self.dir}: {exc}") from exc
        self._switch(gen, files, journal)

    def _drop_unswitched(self, gen: int) -> None:
        """Remove the files of a generation whose MANIFEST was never written."""
        for path in [*self.dir.glob(f"*.{gen}.json"), self.dir / f"journal.{gen}.log"]:
            if SNAPSHOT_NAME.fullmatch(path.name) or path.name.startswith("journal."):
                with contextlib.suppress(OSError):
                    path.unlink(missing_ok=True)

    def _switch(self, gen: int, files: dict, journal: Path) -> None:
        old_journal, kept = self._journal, set(self._files.values()) | set(files.values())
        self._journal = _open_journal(journal)
        if old_journal is not None:  # a writer always has one; a failed repair leaves none
            old_journal.close()
        (self.dir / f"journal.{self.gen}.log").unlink(missing_ok=True)
        # The snapshots just replaced stay one generation for readers opened before (module doc).
        for stale in self.dir.glob("*.json"):
            if stale.name not in kept and SNAPSHOT_NAME.fullmatch(stale.name):
                stale.unlink(missing_ok=True)
        self.gen, self._files, self._dirty, self.journal_lines = gen, files, set(), 0

    def close(self) -> None:
        """Release the journal and the lock (no compaction; call compact() first if wanted)."""
        journal = getattr(self, "_journal", None)
        if journal is not None:
            journal.close()
            self._journal = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None


class _Tables(dict):
    """Table name -> live table; a table still on disk is loaded when first looked up."""

    def __init__(self, storage: JournalStorage) -> None:
        super().__init__()
        self.storage = storage

    def __missing__(self, name: str) -> dict:
        return self.storage._load_table(name)


def _apply_op(table: dict, op: list) -> None:
    if op[0] == "put":
        table[op[2]] = op[3]
    elif op[0] == "del":
        table.pop(op[2], None)
    elif op[0] == "clear":
        table.clear()


def _dump(table: dict) -> bytes:
    return json.dumps(table, separators=(",", ":"), ensure_ascii=False).encode()


class _Tracked(MutableMapping):
    """The int-keyed view TinyDB's updaters edit; remembers which documents they touched."""

    def __init__(self, raw: dict) -> None:
        self.raw = raw
        self.touched: set[str] = set()
        self.before: dict[str, dict | None] = {}
        self.cleared = False

    def _touch(self, key: str) -> None:
        if key not in self.before:
            doc = self.raw.get(key)
            self.before[key] = dict(doc) if doc is not None else None  # updates are shallow
        self.touched.add(key)

    def __getitem__(self, key):
        doc = self.raw[str(key)]
        self._touch(str(key))  # updates mutate the returned document in place
        return doc

    def __setitem__(self, key, value) -> None:
        self._touch(str(key))
        self.raw[str(key)] = value

    def __delitem__(self, key) -> None:
        self._touch(str(key))
        del self.raw[str(key)]

    def __contains__(self, key) -> bool:
        return str(key) in self.raw

    def __iter__(self):
        return (int(key) for key in list(self.raw))

    def __len__(self) -> int:
        return len(self.raw)

    def clear(self) -> None:
        for key in list(self.raw):
            self._touch(key)
        self.raw.clear()
        self.cleared, self.touched = True, set()

    def ops(self, name: str) -> list:
        ops = [["clear", name]] if self.cleared else []
        for key in sorted(self.touched, key=lambda k: (len(k), k)):
            doc = self.raw.get(key)
            ops.append(["put", name, key, doc] if doc is not None else ["del", name, key])
        return ops


class JournalTable(Table):
    """A TinyDB table whose writes cost O(changed documents), not O(table)."""

    _storage: JournalStorage  # TinyDB types it as any Storage; JournalStorage makes every table

    def _update_table(self, updater) -> None:
        view = _Tracked(self._storage.table(self.name))
        try:
            updater(view)
        except BaseException:
            self._storage.record_failed(self.name, view.before)
            raise
        undo = [(self.name, key, doc) for key, doc in view.before.items()]
        try:
            self._storage.record(view.ops(self.name), undo)
        finally:
            self.clear_cache()


class JournalDB(TinyDB):
    """TinyDB wired to :class:`JournalTable`."""

    table_class = JournalTable

    def drop_table(self, name: str) -> None:
        """Drop one table durably. TinyDB's own drop deletes the name from the dict
        ``read()`` returns (our live tables) before it calls ``write()``, so the journal
        never heard of it, and a table still on disk was not in that dict at all: both
        came back on the next open. Here every table is loaded and the rest written
        (``write`` journals a clear of every table it knew, the dropped one included)."""
        self._tables.pop(name, None)  # TinyDB's cache of Table objects
        storage = self.storage
        assert isinstance(storage, JournalStorage)
        storage.load_all()
        storage.write({key: table for key, table in storage.read().items() if key != name})


def open_tinydb(storage: JournalStorage) -> TinyDB:
    """A TinyDB over an already constructed JournalStorage.

    TinyDB constructs its storage from a class; this passes the instance in.
    """
    return JournalDB(storage=lambda: storage)
