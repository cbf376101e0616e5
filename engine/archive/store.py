"""The archive store: TinyDB records (journaled, see storage.py) + compressed content-addressed blobs.

Layout under the home directory::

    <home>/db/       MANIFEST, <table>.<gen>.json snapshots, journal.<gen>.log, LOCK
    <home>/blobs/ab/cdef...   zlib-compressed bytes, named by the SHA-256 of the raw bytes

Tables (one TinyDB document each; doc id = the int of the 20-digit registration ID
where there is one, so lookups by ID are dict lookups):

=============  ==========================================================================
versions       url, final_url, key, host, ts, content_type, charset, last_modified, title,
               orig / rewritten / manifest (blob hashes), size, source, prev_similarity,
               seen: the unchanged re-captures ("seen again", WARC revisits) that share this
               version's content and rows, each an ID (model.seen_entry)
links          the link table: link id -> {"url": absolute URL}
refs           the referenced-link table: registration id -> {"links": [link ids]}
fingerprints   registration id -> {"fp": blob hash, "similar": [[id, sim, content]], "computed_at"}
extracts       registration id -> {"title", "summary", "keywords", "text": blob hash (main text),
               "visible_text": blob hash (visible text: search, diff)}
dust           learned DUST rules;  schedules: scheduled registrations;  state: host key/values
=============  ==========================================================================

In-memory indexes (key -> ids, host -> ids, link URL -> link id, all ids in time
order, revisit id -> the version it shares) are rebuilt on open and kept current by
every write. ``ids`` and the key/host indexes hold versions with content only; a
revisit's ID opens through :meth:`ArchiveStore.version` and :meth:`ArchiveStore.row`
as its version's record and derived rows, with its own ``id``, ``ts`` and ``revisit_of``.

>>> import tempfile, pathlib
>>> store = ArchiveStore.open(pathlib.Path(tempfile.mkdtemp()))
>>> store.get_blob(store.put_blob(b"<p>hi"))
b'<p>hi'
>>> store.close()
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import os
import time
import zlib
from collections import ChainMap
from collections.abc import Iterator
from pathlib import Path

from tinydb.table import Document

from engine.archive.model import make_id, seen_entry, seen_fields
from engine.archive.storage import AtomicBatch, JournalStorage, open_tinydb, write_atomic
from engine.errors import NotFound, StorageError

TABLES = ("versions", "links", "refs", "fingerprints", "extracts", "dust", "schedules", "state")
SHARDED = frozenset({"refs", "fingerprints", "extracts"})  # split by host
SHARDS = 64
LINK_SHARDS = 16  # links are split by link ID


def shard_of(host: str) -> int:
    """The shard number of a host.

    >>> shard_of("example.com")
    57
    """
    return zlib.crc32(host.encode()) % SHARDS


def link_id(url: str) -> int:
    """A link's ID: the first 63 bits of BLAKE2b of its URL (stable, needs no lookup).

    >>> link_id("https://example.com/") == link_id("https://example.com/")
    True
    """
    return int.from_bytes(hashlib.blake2b(url.encode(), digest_size=8).digest(), "big") >> 1


COMPACT_LINES = 5_000  # compact on close once the journal holds this many lines
COMPACT_BYTES = 32 * 1024 * 1024  # … or this many bytes


def blob_hash(data: bytes) -> str:
    """SHA-256 hex of raw bytes: a blob's name.

    >>> blob_hash(b"")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(data).hexdigest()


class ArchiveStore:
    """The only engine object that touches files. Open with :meth:`open`, close when done."""

    def __init__(self, home: Path, storage: JournalStorage) -> None:
        self.home = home
        self.storage = storage
        self.db = open_tinydb(storage)
        self.blob_dir = home / "blobs"
        self.cache: dict = {}  # warm derived structures (similar-page indexes, search index)
        self.rekeyed = 0  # bumped by reindex()
        self.reclaims = 0  # bumped when engine/archive/trash.py removed blob files
        self._build_indexes()

    @classmethod
    def open(
        cls, home: Path, readonly: bool = False, fsync: bool = True, on_write=None
    ) -> ArchiveStore:
        """Open (creating if needed) the archive under ``home``.

        A writer takes the exclusive lock; a second writer raises StorageError.
        ``on_write`` is called after each durable journal line (see JournalStorage).
        """
        home = Path(home)
        try:
            home.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot create {home}: {exc}") from exc
        storage = JournalStorage(home / "db", readonly=readonly, fsync=fsync, on_write=on_write)
        return cls(home, storage)

    def close(self, compact: bool | None = None) -> None:
        """Close; compact first when asked (default: when the journal is long)."""
        if compact or (compact is None and self.journal_is_long()):
            self.compact()
        self.storage.close()

    def journal_is_long(self) -> bool:
        """True when replaying the journal on the next open would cost more than a compaction."""
        size = self.storage.journal_bytes()
        return self.storage.journal_lines >= COMPACT_LINES or size >= COMPACT_BYTES

    def maybe_compact(self) -> bool:
        """Compact if the journal is long (the daemon calls this when idle); True if it did."""
        if self.readonly or not self.journal_is_long():
            return False
        self.compact()
        return True

    def compact(self) -> None:
        """Fold the journal into table snapshots (atomic; see storage.py)."""
        self.storage.compact()

    def __enter__(self) -> ArchiveStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def readonly(self) -> bool:
        return self.storage.readonly

    @contextlib.contextmanager
    def transaction(self):
        """All writes inside become one journal line: durable together or not at all.

        On failure the tables are restored by the storage and the indexes rebuilt.
        """
        try:
            with self.storage.transaction():
                yield
        except BaseException:
            if self.storage._depth == 0:
                self._build_indexes()
                self.cache.clear()
            raise

    def raw(self, table: str):
        """The live dict of a table (str doc id -> document); read-only by convention.

        For a sharded table (refs, fingerprints, extracts, links) this is a read-only
        ChainMap over every shard, which loads them all: prefer :meth:`row`.
        """
        if table in SHARDED or table == "links":
            count = LINK_SHARDS if table == "links" else SHARDS
            return ChainMap(*(self.storage.table(f"{table}@{n:02d}") for n in range(count)))
        return self.storage.table(table)

    def shard(self, table: str, reg_id: str | int) -> str:
        """The physical table that holds ``reg_id``'s row of ``table``.

        refs, fingerprints and extracts are split by host into 64 shards, loaded on
        first use, so registering a page reads only its own site's shard.
        """
        if table not in SHARDED:
            return table
        host = self.raw("versions")[str(int(reg_id))]["host"]
        return f"{table}@{shard_of(host):02d}"

    # -- indexes ---------------------------------------------------------------
    def _build_indexes(self) -> None:
        self._by_key: dict[str, list[str]] = {}
        self._by_host: dict[str, list[str]] = {}
        self._revisits: dict[str, str] = {}  # revisit id -> the version holding its content
        self._top_revisit = ""
        self.ids: list[str] = sorted(self.raw("versions"))
        for reg_id in self.ids:
            self._index(reg_id, self.raw("versions")[reg_id])

    def reindex(self) -> None:
        """Rebuild the key and host indexes and drop warm caches (after versions were re-keyed);
        ``rekeyed`` counts these, so indexes held outside the store know to rebuild."""
        self._build_indexes()
        self.cache.clear()
        self.rekeyed += 1

    def _index(self, reg_id: str, doc: dict) -> None:
        self._by_key.setdefault(doc["key"], []).append(reg_id)
        self._by_host.setdefault(doc["host"], []).append(reg_id)
        for entry in doc.get("seen", ()):
            self._index_revisit(seen_fields(entry)["id"], reg_id)

    def _index_revisit(self, revisit_id: str, reg_id: str) -> None:
        self._revisits[revisit_id] = reg_id
        self._top_revisit = max(self._top_revisit, revisit_id)

    # -- blobs -----------------------------------------------------------------
    def _blob_path(self, digest: str) -> Path:
        return self.blob_dir / digest[:2] / digest[2:]

    def put_blob(self, data: bytes, level: int = 3) -> str:
        """Store ``data`` once (content-addressed, zlib), durably; return its hash."""
        digest = blob_hash(data)
        path = self._blob_path(digest)
        if not path.exists():
            self._write_blob(path, digest, data, level)
        return digest

    @staticmethod
    def _write_blob(path: Path, digest: str, data: bytes, level: int) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, zlib.compress(data, level))
        except OSError as exc:
            raise StorageError(f"cannot write blob {digest}: {exc}") from exc

    def blob_batch(self) -> BlobBatch:
        """Blobs written as they come and made durable together (:class:`BlobBatch`)."""
        return BlobBatch(self)

    def get_blob(self, digest: str) -> bytes:
        """The bytes of a blob, verified against its hash."""
        try:
            data = zlib.decompress(self._blob_path(digest).read_bytes())
        except FileNotFoundError as exc:
            raise NotFound(f"no blob {digest}") from exc
        except (OSError, zlib.error) as exc:
            raise StorageError(f"unreadable blob {digest}: {exc}") from exc
        if blob_hash(data) != digest:
            raise StorageError(f"blob {digest} is corrupt (hash mismatch)")
        return data

    def has_blob(self, digest: str) -> bool:
        return self._blob_path(digest).exists()

    # -- versions ----------------------------------------------------------------
    def new_id(self, ts: float | None = None) -> str:
        """A fresh time-ordered registration ID (later than every stored one)."""
        return make_id(time.time() if ts is None else ts, self.last_id())

    def last_id(self) -> str | None:
        """The highest registration ID in use, a revisit's included (None when empty)."""
        top = max(self.ids[-1] if self.ids else "", self._top_revisit)
        return top or None

    def add_version(self, reg_id: str, doc: dict) -> None:
        """Insert a version record (call inside a transaction with its other rows)."""
        self.db.table("versions").insert(Document(doc, doc_id=int(reg_id)))
        if not self.ids or reg_id > self.ids[-1]:
            self.ids.append(reg_id)
        else:
            bisect.insort(self.ids, reg_id)
        self._index(reg_id, doc)

    def version(self, reg_id: str) -> dict:
        """The version record of ``reg_id`` (with ``id``); NotFound when there is none.

        A revisit's record is its version's, with the revisit's own ``id`` and ``ts`` (and
        ``capture_id``), ``revisit_of`` naming the version, and no ``seen`` list.
        """
        doc = self.raw("versions").get(str(reg_id))
        if doc is not None:
            return {"id": str(reg_id), **doc}
        held = self._revisits.get(str(reg_id))
        if held is None:
            raise NotFound(f"no registration {reg_id!r}")
        doc = {
            k: v for k, v in self.raw("versions")[held].items() if k not in ("seen", "capture_id")
        }
        return {**doc, **self.seen_of(held)[str(reg_id)], "revisit_of": held}

    def has_version(self, reg_id: str | int) -> bool:
        """True for a version holding content (a revisit's ID: :meth:`has_capture`)."""
        return str(reg_id) in self.raw("versions")

    def has_capture(self, reg_id: str | int) -> bool:
        """True for a version or a revisit (anything :meth:`version` opens)."""
        return self.has_version(reg_id) or str(reg_id) in self._revisits

    def revisit_count(self) -> int:
        """How many revisits the archive holds."""
        return len(self._revisits)

    def revisit_of(self, reg_id: str) -> str | None:
        """The version whose content a revisit shares; None for a version (or unknown ID)."""
        return self._revisits.get(str(reg_id))

    def content_id(self, reg_id: str | int) -> str:
        """The version that holds the content of ``reg_id`` (itself unless a revisit)."""
        return self._revisits.get(str(reg_id), str(reg_id))

    def seen_of(self, reg_id: str) -> dict[str, dict]:
        """The revisits of a version: revisit id -> ``{"id", "ts"[, "capture_id"]}``, in order."""
        seen = self.raw("versions")[str(reg_id)].get("seen", ())
        return {f["id"]: f for f in map(seen_fields, seen)}

    def last_capture_of(self, reg_id: str) -> tuple[str, float]:
        """(ID, time) of the newest capture of a version's content: itself or a revisit."""
        doc = self.raw("versions")[reg_id]
        ts = doc["ts"]
        if not doc.get("seen"):  # most versions: no revisit to look at
            return reg_id, ts
        last = max(self.seen_of(reg_id).values(), key=lambda f: (f["ts"], f["id"]))
        return (
            (last["id"], last["ts"])
            if last and (last["ts"], last["id"]) > (ts, reg_id)
            else (reg_id, ts)
        )

    def captures_of_key(self, key: str) -> list[str]:
        """IDs of every capture of a document key: each version, then its revisits."""
        return self.with_revisits(self.ids_of_key(key))

    def with_revisits(self, ids) -> list[str]:
        """``ids`` (versions) each followed by its revisits."""
        return [one for reg_id in ids for one in (reg_id, *self.seen_of(reg_id))]

    def add_revisit(self, reg_id: str, revisit_id: str, ts: float, capture_id=None) -> None:
        """Record an unchanged re-capture of version ``reg_id`` (in a transaction: one
        journal line, so a crash leaves the entry whole or absent)."""
        seen = list(self.raw("versions")[reg_id].get("seen", ()))
        seen.append(seen_entry(revisit_id, ts, capture_id))
        self.db.table("versions").update({"seen": seen}, doc_ids=[int(reg_id)])
        self._index_revisit(revisit_id, reg_id)

    def forget_capture_id(self, revisit_id: str) -> None:
        """Drop the transfer ID a revisit kept for a repeated commit (call once that transfer
        is gone: it can no longer be committed), leaving its entry at its smallest."""
        held = self._revisits[str(revisit_id)]
        seen = list(self.raw("versions")[held]["seen"])
        at = next(n for n, e in enumerate(seen) if seen_fields(e)["id"] == str(revisit_id))
        fields = seen_fields(seen[at])
        if "capture_id" in fields:
            seen[at] = seen_entry(fields["id"], fields["ts"])
            self.db.table("versions").update({"seen": seen}, doc_ids=[int(held)])

    def remove_revisit(self, revisit_id: str) -> tuple[str, int | dict, int]:
        """Drop a revisit from its version's list (in a transaction); (version, entry, index)."""
        held = self._revisits.pop(str(revisit_id))
        seen = list(self.raw("versions")[held]["seen"])
        at = next(n for n, e in enumerate(seen) if seen_fields(e)["id"] == str(revisit_id))
        entry = seen.pop(at)
        self.db.table("versions").update({"seen": seen}, doc_ids=[int(held)])
        return held, entry, at

    def ids_of_key(self, key: str) -> list[str]:
        """Registration IDs of a document key, oldest first."""
        return list(self._by_key.get(key, ()))

    def latest_of_key(self, key: str) -> str | None:
        """The newest capture of a document key by capture time (``ts``; the ID breaks ties):
        a WARC import registers an older capture under a newer ID.

        >>> import tempfile, pathlib
        >>> ArchiveStore.open(pathlib.Path(tempfile.mkdtemp())).latest_of_key("example.com/")
        """
        ids = self._by_key.get(key)
        return max(ids, key=self.capture_order) if ids else None

    def capture_order(self, reg_id: str) -> tuple[float, str]:
        """Sort key of a version or revisit: capture time, then ID."""
        doc = self.raw("versions").get(reg_id)
        return (doc["ts"] if doc is not None else self.version(reg_id)["ts"]), reg_id

    def ids_of_host(self, host: str) -> list[str]:
        """Registration IDs on a host:port, oldest first."""
        return list(self._by_host.get(host, ()))

    def newest_of_host(self, host: str) -> str | None:
        """The highest registration ID on a host:port (no copy of the index), or None."""
        ids = self._by_host.get(host)
        return ids[-1] if ids else None

    def keys(self) -> Iterator[str]:
        return iter(self._by_key)

    def update(self, table: str, reg_id: str | int, fields: dict) -> None:
        """Set ``fields`` on one document (created when missing)."""
        tab = self.db.table(self.shard(table, reg_id))
        doc_id = int(reg_id)
        if tab.contains(doc_id=doc_id):
            tab.update(fields, doc_ids=[doc_id])
        else:
            tab.insert(Document(fields, doc_id=doc_id))

    def row(self, table: str, reg_id: str | int) -> dict | None:
        """One document of a table by id, or None."""
        if table in SHARDED:
            reg_id = self.content_id(reg_id)  # a revisit shares its version's derived rows
            if not self.has_version(reg_id):
                return None
        return self.storage.table(self.shard(table, reg_id)).get(str(int(reg_id)))

    # -- links -------------------------------------------------------------------
    def link_ids(self, urls: list[str]) -> list[int]:
        """Link IDs for absolute URLs (a hash of the URL), adding them to the link table.

        The rows are written without loading the link table (idempotent puts).
        """
        ids = []
        for url in urls:
            link = link_id(url)
            self.storage.put_blind(f"links@{link % LINK_SHARDS:02d}", str(link), {"url": url})
            ids.append(link)
        return ids

    def link_url(self, link: int) -> str:
        """The absolute URL of a link ID; NotFound when unknown."""
        row = self.storage.table(f"links@{link % LINK_SHARDS:02d}").get(str(link))
        if row is None:
            raise NotFound(f"no link {link}")
        return row["url"]

    def link_id(self, url: str) -> int:
        """The link ID of a URL (whether or not it is stored)."""
        return link_id(url)

    def refs(self, reg_id: str) -> list[int]:
        """Link IDs referenced by a registration (the referenced-link table)."""
        row = self.row("refs", reg_id)
        return list(row["links"]) if row else []

    # -- host key/value state ------------------------------------------------------
    def load_state(self, name: str) -> dict | None:
        """A named piece of host state (e.g. suggestion learning), or None.

        >>> import tempfile, pathlib
        >>> s = ArchiveStore.open(pathlib.Path(tempfile.mkdtemp())); s.save_state("x", {"a": 1})
        >>> s.load_state("x"), s.load_state("y"); s.close()
        ({'a': 1}, None)
        """
        for doc in self.raw("state").values():
            if doc["name"] == name:
                return doc["data"]
        return None

    def save_state(self, name: str, data: dict) -> None:
        """Replace a named piece of state atomically (one journal line)."""
        table = self.db.table("state")
        found = [int(k) for k, doc in self.raw("state").items() if doc["name"] == name]
        if found:
            table.update({"data": data}, doc_ids=found[:1])
        else:
            table.insert({"name": name, "data": data})

    # -- plain files the host may keep next to the archive ---------------------------
    def write_file(self, relative: str, data: bytes) -> Path:
        """Atomically write a file under the home (exports, viewer caches)."""
        path = self.home / relative
        with contextlib.suppress(FileExistsError):
            os.makedirs(path.parent, exist_ok=True)
        write_atomic(path, data)
        return path

    # -- removal (engine/archive/trash.py drives it) ----------------------------------
    def remove_version(self, reg_id: str) -> None:
        """Delete a version record and drop it from the in-memory indexes (inside a
        transaction with its other rows; the caller removes the sharded rows first)."""
        doc = self.raw("versions")[reg_id]
        self.db.table("versions").remove(doc_ids=[int(reg_id)])
        self.ids.remove(reg_id)
        for revisit_id in self.seen_of_doc(doc):
            self._revisits.pop(revisit_id, None)
        for index, name in ((self._by_key, doc["key"]), (self._by_host, doc["host"])):
            index[name].remove(reg_id)
            if not index[name]:
                del index[name]

    def restore_revisit(self, reg_id: str, entry: int | dict, at: int) -> None:
        """Put a removed revisit entry back at its place in its version's list (undo)."""
        if not self.has_version(reg_id):
            raise NotFound(f"version {reg_id} is gone; its revisit cannot come back")
        seen = list(self.raw("versions")[reg_id].get("seen", ()))
        seen.insert(min(at, len(seen)), entry)
        self.db.table("versions").update({"seen": seen}, doc_ids=[int(reg_id)])
        self._index_revisit(seen_fields(entry)["id"], reg_id)

    @staticmethod
    def seen_of_doc(doc: dict) -> list[str]:
        """The revisit IDs a version record lists."""
        return [seen_fields(e)["id"] for e in doc.get("seen", ())]

    def remove_row(self, table: str, reg_id: str | int) -> dict | None:
        """Delete one document of a table (its shard for a sharded one); the removed document."""
        tab = self.db.table(self.shard(table, reg_id))
        doc = self.storage.table(tab.name).get(str(int(reg_id)))
        if doc is not None:
            tab.remove(doc_ids=[int(reg_id)])
        return doc

    def all_tables(self) -> dict[str, dict]:
        """Every table (shards included) by its stored name, all loaded: for a full scan."""
        self.storage.load_all()
        return dict(self.storage.read())

    def blob_names(self) -> Iterator[tuple[str, Path]]:
        """Every file under the blob area: (name, path); a crash may leave ``.tmp`` files."""
        if not self.blob_dir.exists():
            return
        for folder in sorted(self.blob_dir.iterdir()):
            if folder.is_dir():
                for path in sorted(folder.iterdir()):
                    yield folder.name + path.name, path

    def remove_blob_file(self, path: Path) -> int:
        """Unlink one blob file; its size in bytes (0 when it was already gone)."""
        try:
            size = path.stat().st_size
            path.unlink()
        except FileNotFoundError:
            return 0
        except OSError as exc:
            raise StorageError(f"cannot remove blob {path.name}: {exc}") from exc
        return size


SAMPLE_BYTES = 16 * 1024


def compressible(data: bytes) -> bool:
    """Would deflate save anything? Judged on a sample of a larger blob: PNG, JPEG, WOFF2,
    video are compressed already, and level 0 stores them at the speed of a copy.

    >>> compressible(b"a{}" * 20000), compressible(hashlib.sha256(b"x").digest() * 2), compressible(os.urandom(40000))
    (True, True, False)
    """
    if len(data) <= SAMPLE_BYTES:
        return True
    sample = data[:SAMPLE_BYTES]
    return len(zlib.compress(sample, 1)) < 0.97 * len(sample)


class BlobBatch:
    """Many blobs, durable together: :meth:`add` hashes, compresses and writes each under a
    temporary name at once; :meth:`commit` makes them all durable with one concurrent round of
    fsyncs (storage.AtomicBatch), where :meth:`ArchiveStore.put_blob` pays two fsyncs per blob.
    Commit before any row names them; a blob the store already holds is not written again.

    >>> import tempfile, pathlib
    >>> store = ArchiveStore.open(pathlib.Path(tempfile.mkdtemp()))
    >>> batch = store.blob_batch()
    >>> digest = batch.add(b"a{}", 6); store.has_blob(digest)
    False
    >>> batch.commit(); store.get_blob(digest)
    b'a{}'
    >>> store.close()
    """

    def __init__(self, store: ArchiveStore) -> None:
        self.store, self.files = store, AtomicBatch()
        self.added: set[str] = set()
        self.new_bytes = 0  # raw bytes of the blobs the store did not hold

    def add(self, data: bytes, level: int = 3, digest: str | None = None) -> str:
        """Queue ``data`` (``digest``: its :func:`blob_hash`, when the caller has it); its hash."""
        digest = digest or blob_hash(data)
        if digest in self.added or self.store.has_blob(digest):
            return digest
        path = self.store._blob_path(digest)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.files.add(path, zlib.compress(data, level if compressible(data) else 0))
        except OSError as exc:
            self.files.discard()
            raise StorageError(f"cannot write blob {digest}: {exc}") from exc
        self.added.add(digest)
        self.new_bytes += len(data)
        return digest

    def commit(self) -> None:
        try:
            self.files.commit()
        except OSError as exc:
            raise StorageError(f"cannot write blobs: {exc}") from exc

    def discard(self) -> None:
        """Remove what was written and not committed (the caller gave up)."""
        self.files.discard()
