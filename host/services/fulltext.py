"""The full-text index: SQLite FTS5 (Python's standard library) in ``<home>/index/fulltext.sqlite3``.

A DERIVED index: the archive store stays the record, and this file can be deleted at any
time (``rebuild``); it is caught up from the store (``sync``): the versions it has not
seen are indexed (title, text, URL; ``visible_text`` when a version has one), those the
store no longer has are removed, and a re-keyed archive moves rows to their new
documents. It survives a restart, so the first query after a start does not re-read
every page. FTS5's table is contentless (the text is in the store's blobs already), so a
row is removed with FTS5's ``'delete'`` command and the values it was indexed with: the
title and URL are kept beside it, the text is read again from its blob (a version is
forgotten before its deletion reaches the store). A row whose blob is gone is marked dead
(never found), and the reclaim deletes it with the body terms FTS5 itself holds for it
(:meth:`FullTextIndex.collect_dead`, off the store thread in the daemon, then
:meth:`FullTextIndex.delete_dead`). :meth:`FullTextIndex.purge` then merges the index
(FTS5 ``'optimize'``) with ``secure_delete`` on, so the removed rows' words leave the file.

Results are documents ranked by the BM25 of their best version (title weighted 4, URL 2,
text 1; ties by key); a query for a frequent term is answered from that term's champion
list (host/services/champions.py), one of several frequent terms from the query's
conjunction list (host/services/conjunctions.py), or without one from the terms' own lists
when one term leads the score (host/services/threshold.py), with the same head. A list is made after
the first search that scored such a query in full (in the daemon, by the background job);
and ahead of any search, the daemon makes *warm* lists for the archive's most frequent
words and prefixes of up to four characters, most frequent first (:meth:`FullTextIndex.warm_plan`, from
FTS5's vocabulary), each read off the store thread on a connection of its own
(:meth:`FullTextIndex.read_list`) and installed on it with the rows that came and went
meanwhile (:meth:`FullTextIndex.install`); they are kept in the file, so the first search of
such a term after a start is answered from its list. The daemon keeps the index current on
the store thread after each registration and in small steps in the background.

>>> import tempfile, pathlib
>>> FullTextIndex(pathlib.Path(tempfile.mkdtemp()) / "f.sqlite3").count()
0
"""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from engine.archive import textquery
from engine.errors import StorageError
from host.home import Home
from host.services import champions, pairs, threshold
from host.services.bm25 import idf
from host.services.champions import (
    MIN_ROWS,
    PENDING_ROWS,
    Built,
    Champions,
    Hits,
    averages,
    bitmap,
    column_lengths,
    prefix_phrases,
    read,
)
from host.services.conjunctions import Conjunctions
from host.services.pairs import Scratch, pair_expr, pair_key

WEIGHTS = (4.0, 1.0, 2.0)  # title, body, url
LAYOUT = 4  # PRAGMA user_version; a file of another layout is derived data: made afresh
SCHEMA = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5("
    f"title, body, url, content='', tokenize='{pairs.TOKENIZER}')",
    pairs.SCHEMA,
    "CREATE TABLE IF NOT EXISTS seen (n INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL,"
    " key TEXT NOT NULL, live INTEGER NOT NULL DEFAULT 1, title TEXT NOT NULL DEFAULT '',"
    " url TEXT NOT NULL DEFAULT '', src TEXT)",
    "CREATE INDEX IF NOT EXISTS seen_key ON seen(key)",
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.instances USING fts5vocab(main, docs, instance)",
)
PAIRED = 4096  # terms whose pairs expression is kept (see FullTextIndex._pair_expr)
WANTED = 16  # champion lists asked for and not made yet, at most
DEAD_SHARE = 0.25  # rebuild once this share of the rows belongs to deleted versions
WARM_LISTS = 1024  # warm lists of words and prefixes made ahead of any search, at most
WARM_PAIRS = 256  # and of phrases of two words (their own budget: see warm_plan)
WARM_RULE = 3  # the warm plan's rule: a file planned by another is planned again, every list read
# again (rule 2: lists of 2,000 rows, phrases on their own budget; rule 3: frequent words have
# bands), but the lists of a rule in KEPT_RULES
KEPT_RULES = (2,)  # (a warm word that should have bands and has none is read again all the same)
PREFIX_COST = 0.75  # a prefix's first search costs about this per row of its words' sum
WARM_GROWTH = 1.25  # plan the warm lists again once the index has grown this much
PAIRS_RATIO = 1.5  # see FullTextIndex._mixed_source (20k versions, tune half)
TIDY_STEPS = 4  # merge steps after a write when no daemon runs them (``tidy``)
RECONCILE_ROWS = 5000  # rows checked against the store per step of a sync (see _reconcile)


@dataclass(frozen=True)
class Ranking:
    """Documents best first, ``(key, best version ID, bm25)``; ``total`` documents match.
    ``results`` holds every match, or (a frequent word's champion list) at least the head
    asked for, in its exact place."""

    results: list[tuple[str, str, float]]
    total: int


class LiveRows:
    """The live rows, by number: ``(document key, version ID)``; and each row's document as a
    number in a list by row number (-1: no live row), so the documents a bitmap of rows
    matches are counted in C (``itertools.compress`` over the bitmap's bits as bytes, a set
    of small ints), not row by row in Python (at 100k versions, 34,000 rows: ~2 ms; the
    keys themselves, strings spread over memory, cost ~8 ms).

    >>> rows = LiveRows({0: ("a", "v1"), 2: ("a", "v2"), 3: ("b", "v3")})  # row 1: dead
    >>> rows.documents(Hits({0: bytes([0b1111])})), rows.documents([1, 2, 3, 7])
    ((2, 3), (2, 2))
    """

    def __init__(self, by_n: dict[int, tuple[str, str]]) -> None:
        self.by_n: dict[int, tuple[str, str]] = {}
        self.numbers: dict[str, int] = {}  # document key -> its number (never reused)
        self.docs: list[int] = []
        for n, (key, reg_id) in sorted(by_n.items()):
            self.put(n, key, reg_id)

    def get(self, n: int) -> tuple[str, str] | None:
        return self.by_n.get(n)

    def put(self, n: int, key: str, reg_id: str) -> None:
        self.by_n[n] = (key, reg_id)
        self.docs.extend([-1] * (n + 1 - len(self.docs)))
        self.docs[n] = self.numbers.setdefault(key, len(self.numbers))

    def pop(self, n: int) -> tuple[str, str] | None:
        if n < len(self.docs):
            self.docs[n] = -1
        return self.by_n.pop(n, None)

    def documents(self, rows: Hits | list[int]) -> tuple[int, int]:
        """How many live documents and live rows of ``rows`` (a bitmap, or row numbers)."""
        if isinstance(rows, Hits):
            found = list(itertools.compress(self.docs, rows.mask(len(self.docs))))
        else:
            found = [self.docs[n] for n in rows if n < len(self.docs)]
        documents = set(found)
        documents.discard(-1)
        return len(documents), len(found) - found.count(-1)


class FullTextIndex:
    """One index file; every call on one thread at a time (the daemon's store thread)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.db = self._connect()
        self.scratch = Scratch(", ".join(map(str, WEIGHTS)))
        self.champions = Champions(self.db, WEIGHTS, self.scratch)
        self.conjunctions = Conjunctions(self.db, WEIGHTS)
        self.stamp: tuple | None = None
        self.paired: dict[str, str | None] = {}  # see _pair_expr
        self.deferred = False  # True: the daemon makes lists (build_lists), folds and merges
        self.wanted: dict[tuple[str, ...], None] = {}  # the terms of searches wanting a list
        self.events: list[tuple[int, tuple[str, str, str] | None]] | None = None  # see install
        self.generation = 0  # bumped when the rows are numbered afresh or a batch rolls back
        self.warming = False  # a warm pass is running (the daemon runs one at a time)
        self.reconciled: int | None = None  # the store's ``rekeyed`` the last pass checked
        self.checking: int | None = None  # a pass under way (_reconcile): its last row checked
        self.merger: sqlite3.Connection | None = None  # merge steps' own connection (_step)
        self.checkpoints_deferred = False  # see defer_checkpoints
        self.merging = threading.Lock()  # one merge step at a time on it
        self.writes = threading.Condition()  # guards ``writing``; a merge step waits on it
        self.writing = 0  # writes on ``db`` begun and not ended: no merge step runs meanwhile
        self.stepping = False  # a merge step holds (or is taking) the file's lock
        self.interrupts = 0  # interrupts sent to merge steps (see _merge_in)
        self.gave_way = 0  # merge steps interrupted in a row (see _step: ``GIVE_WAY``)
        self.whole = False  # the step under way runs whole: a write waits for it
        self._load_known()

    def _load_known(self) -> None:
        rows = self.db.execute("SELECT n, id, key FROM seen WHERE live").fetchall()
        self.known: dict[str, str] = {reg_id: key for _n, reg_id, key in rows}
        self.rows = LiveRows({n: (key, reg_id) for n, reg_id, key in rows})

    def _connect(self) -> sqlite3.Connection:
        """Open the file; a damaged one, or one of another layout, is derived data: it is
        removed and started afresh."""
        try:
            return self._open()
        except sqlite3.DatabaseError:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        try:
            return self._open()
        except sqlite3.DatabaseError as exc:
            raise StorageError(f"the full-text index {self.path} is unusable: {exc}") from exc

    def _open(self) -> sqlite3.Connection:
        db = _connection(self.path)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            layout = db.execute("PRAGMA user_version").fetchone()[0]
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables and layout != LAYOUT:
                raise sqlite3.DatabaseError(f"layout {layout}, not {LAYOUT}")
            for statement in SCHEMA:
                db.execute(statement)
            db.execute(f"PRAGMA user_version={LAYOUT}")
            db.execute("SELECT count(*) FROM seen").fetchone()
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def defer_checkpoints(self) -> None:
        """No automatic checkpoint on this connection (the store thread's): SQLite copies the
        WAL into the file in the transaction that takes it over 1,000 pages (copying them
        and an fsync: the longest captures); the caller runs :meth:`checkpoint` instead."""
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        self.checkpoints_deferred = True
        if self.merger is not None:
            self.merger.execute("PRAGMA wal_autocheckpoint=0")

    def defer_merges(self) -> None:
        """No merging of FTS5's segments in a capture's transaction: by default FTS5 merges a
        level's segments in the transaction that adds its fourth (``automerge``), which made
        the longest captures (~22 ms CPU at 20k versions, in the COMMIT); the caller runs
        :meth:`merge` between captures instead. FTS5 still merges a level that reaches
        ``crisismerge`` (16) segments itself. Stored in the file (FTS5's config table)."""
        with self.lock, self._batch():
            for table in ("docs", "pairs"):
                self.db.execute(_AUTOMERGE.format(table))

    def merge(self, steps: int | None = None) -> bool:
        """Merge FTS5's segments as its automerge would (``'merge'`` with a positive page
        count: a level's segments once it holds ``usermerge``, 4, of them), ``STEP_PAGES``
        pages a step, each step its own transaction on a connection of its own (:meth:`_step`:
        any thread may run it, and a write on the index never waits behind a step); True once
        no level has that many (False: ``steps`` ran out first, the last one interrupted
        or not)."""
        while steps is None or steps > 0:
            if self._step(STEP_PAGES) == "idle":
                return True
            steps = None if steps is None else steps - 1
        return False

    def _step(self, pages: int) -> str:
        """One FTS5 ``'merge'`` of ``pages`` pages in both tables (negative: down to one
        segment, as ``'optimize'``, while the file says ``unpurged``), on the merge
        connection in a transaction of its own: ``"merged"``, ``"idle"`` (nothing left to
        merge: ``"purged"`` when that ended a purge) or ``"interrupted"``. FTS5 checks its
        page budget only where a term ends, so a frequent term's list is written whole (at
        100k versions a step held the file's one writer up to 33 ms): a write on the index's
        own connection (:meth:`_batch`) does not wait for that, it interrupts the step
        (``sqlite3_interrupt``; the step is rolled back whole and merged again later) and
        waits for the rollback alone; no step begins while a write waits. A step that
        follows ``GIVE_WAY`` interrupted ones in a row runs whole (a write waits for it), so
        merging progresses under any rate of writes (captures closer than one step apart
        would interrupt every step) at the cost of one wait in ``GIVE_WAY + 1`` steps.

        >>> import tempfile
        >>> FullTextIndex(Path(tempfile.mkdtemp()) / "f.sqlite3")._step(STEP_PAGES)
        'idle'
        """
        with self.merging:
            db = self._merger()
            with self.writes:  # a step begun now would take the file's lock from the write
                self.writes.wait_for(lambda: not self.writing)
                self.stepping, interrupts = True, self.interrupts
                self.whole = self.gave_way >= GIVE_WAY
            done = "interrupted"
            try:
                done = self._merge_in(db, pages, interrupts)
                return done
            finally:
                with self.writes:
                    self.stepping = self.whole = False
                    self.gave_way = self.gave_way + 1 if done == "interrupted" else 0
                    self.writes.notify_all()

    def _merge_in(self, db: sqlite3.Connection, pages: int, interrupts: int) -> str:
        """:meth:`_step`'s transaction. A failed one closes the connection, which rolls it
        back (a ROLLBACK can itself be interrupted while FTS5 holds a blob open, and an
        interrupt left over from a step that ended first would stop the next one); the next
        step opens another. An interrupt may surface as another error (FTS5 opening its
        table: "vtable constructor failed"): a failure after a write interrupted the step is
        its interruption. SQLite drops an interrupt that no statement of the step looks at (one
        sent between two of them, or while BEGIN ends, is cleared as the next one starts), so
        the step also gives way before its COMMIT if a write asked it to meanwhile: a step a
        write asked to give way is rolled back, however late the write's resent interrupt
        (its thread may wait for a core longer than the step lasts)."""
        try:
            db.execute("BEGIN IMMEDIATE")
            done = _merge_step(db, pages)
            with self.writes:  # a write that asked since the step began: give way to it
                if self.interrupts != interrupts:
                    raise sqlite3.OperationalError("interrupted")
            db.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            with self.writes:  # a write interrupts ``self.merger`` under this lock
                self.merger = None
                db.close()
            if self.interrupts == interrupts and str(exc) != "interrupted":
                raise
            return "interrupted"
        return done

    def _merger(self) -> sqlite3.Connection:
        """The merge steps' connection, opened once; with :meth:`defer_checkpoints`, its
        commits never copy the WAL either (else a step's COMMIT that takes the WAL over 1,000
        pages copies it whole: at 100k versions a step of 93 ms CPU)."""
        if self.merger is None:
            self.merger = _connection(self.path)
            if self.checkpoints_deferred:
                self.merger.execute("PRAGMA wal_autocheckpoint=0")
        return self.merger

    def fold(self, steps: int | None = None) -> bool:
        """Set the bits captures left in the delta (host/services/champions.py) in the
        champion lists' bitmaps, ``FOLD_WRITES`` chunks a step, each step its own
        transaction; True once none is left (False: ``steps`` ran out first)."""
        with self.lock:
            return self._fold(steps)

    def _fold(self, steps: int | None) -> bool:
        while steps is None or steps > 0:
            with self._batch():
                if self.champions.fold():
                    return True
            steps = None if steps is None else steps - 1
        return not self.champions.pending

    def tidy(self, steps: int = TIDY_STEPS) -> None:
        """Without the daemon, after a write: what its text job does between captures,
        bounded (the delta folded, at most ``steps`` merge steps), so an index the daemon
        left with ``automerge`` off does not pile up segments when only the CLI writes."""
        self.fold()
        self.merge(steps)

    def checkpoint(self) -> tuple[int, int]:
        """Copy what the WAL holds into the file (SQLite's PASSIVE checkpoint: it waits for
        no reader or writer), on a connection of its own, so any thread may run it while
        captures go on; the WAL's frames and how many are now in the file.

        >>> import tempfile
        >>> index = FullTextIndex(Path(tempfile.mkdtemp()) / "f.sqlite3")
        >>> index.defer_checkpoints()
        >>> _frames, copied = index.checkpoint()
        >>> copied == _frames
        True
        """
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            _busy, frames, copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        finally:
            db.close()
        return frames, copied

    def count(self) -> int:
        """Live (searchable) versions."""
        return self.db.execute("SELECT count(*) FROM seen WHERE live").fetchone()[0]

    # -- keeping current ----------------------------------------------------------------
    def sync(self, store, limit: int | None = None) -> bool:
        """Catch up with the store (at most ``limit`` new versions); True when current."""
        with self.lock:
            stamp = (len(store.ids), store.ids[-1] if store.ids else None, store.rekeyed)
            if stamp == self.stamp:
                return True
            checked = self._reconcile(store, whole=limit is None)
            todo = self._new_ids(store)
            self._index(store, todo[:limit] if limit else todo)
            if len(self.champions.pending) > PENDING_ROWS:  # a big batch: fold it now
                self._fold(None)
            done = checked and (limit is None or len(todo) <= limit)
            self.stamp = stamp if done else None
            return done

    def _new_ids(self, store) -> list[str]:
        """The store's versions not indexed yet: a capture's ID comes last, so the tail is read
        (what a capture costs stays flat as the archive grows); others, a full pass."""
        missing, tail = len(store.ids) - len(self.known), list[str]()
        for reg_id in reversed(store.ids):
            if len(tail) == missing or reg_id in self.known:
                break
            tail.append(reg_id)
        if len(tail) == missing:
            return tail[::-1]
        return [i for i in store.ids if i not in self.known]

    def _reconcile(self, store, whole: bool) -> bool:
        """Remove the rows of versions the store lost, move re-keyed ones: a pass over every
        row, once a process opens the index, after the store was re-keyed, or when it holds
        fewer versions than the index; ``RECONCILE_ROWS`` rows a call (a sync with a limit:
        the daemon's start job, a capture; at 100k versions the whole pass held the store
        thread ~200 ms) or the rest of the pass (``whole``: a search). True once no pass is
        under way."""
        shrunk = self.checking is None and len(store.ids) < len(self.known)
        if store.rekeyed != self.reconciled or shrunk:  # (again) from the first row
            self.checking, self.reconciled = -1, store.rekeyed
        while self.checking is not None:
            self._check_rows(store)
            if not whole:
                break
        return self.checking is None

    def _check_rows(self, store) -> None:
        """The next ``RECONCILE_ROWS`` rows of the pass, one transaction."""
        rows = self.db.execute(_CHECKED, (self.checking, RECONCILE_ROWS)).fetchall()
        versions = store.raw("versions")
        try:
            with self._batch():
                for n, reg_id, key, live in rows:
                    doc = versions.get(reg_id)
                    if doc is None and live:
                        self._remove(store, n)
                        self.known.pop((self.rows.pop(n) or ("", ""))[1], None)
                    elif doc is not None and doc["key"] != key:
                        self.db.execute("UPDATE seen SET key = ? WHERE n = ?", (doc["key"], n))
                        if live:
                            self.known[reg_id] = doc["key"]
                            self.rows.put(n, doc["key"], reg_id)
        except BaseException:
            self._load_known()  # rolled back: what the file holds
            raise
        self.checking = rows[-1][0] if len(rows) == RECONCILE_ROWS else None
        if self.checking is None:
            self._maybe_rebuild()

    def forget(self, store, ids: list[str]) -> int:
        """Remove versions about to be deleted from the store (their text is still there);
        how many rows went. A deletion that then fails is undone by the next ``sync``."""
        with self.lock:
            marks = ",".join("?" * len(ids))
            found = self.db.execute(f"SELECT n FROM seen WHERE id IN ({marks})", ids).fetchall()
            with self._batch():
                for (n,) in found:
                    self._remove(store, n)
            for (n,) in found:
                self.known.pop((self.rows.pop(n) or ("", ""))[1], None)
            self.stamp = None
            return len(found)

    def _remove(self, store, n: int) -> None:
        """FTS5's ``'delete'`` with the values the row was indexed with; without its text
        (blob gone) the row is marked dead (never found) and :meth:`delete_dead` removes it
        with the body terms FTS5 itself holds for it."""
        title, url, src = self.db.execute(
            "SELECT title, url, src FROM seen WHERE n = ?", (n,)
        ).fetchone()
        body = blob_text(store, src) if src else ""
        if body is None:
            self.db.execute("UPDATE seen SET live = 0 WHERE n = ?", (n,))
        else:
            self._delete_row(n, title, textquery.index_text(body), url)
        self.db.execute("INSERT OR REPLACE INTO meta VALUES ('unpurged', 1)")

    def _delete_row(
        self, n: int, title: str, body: str, url: str, paired: tuple[str, ...] | None = None
    ) -> None:
        """FTS5's ``'delete'`` of row ``n`` from both tables, with the values it was indexed
        with (``paired``: its values in ``pairs``, made from these when not given)."""
        if paired is None:
            with self.scratch.row(title, body, url) as row:
                paired = row.pairs()
        for table, values in (("docs", (title, body, url)), ("pairs", paired)):
            self.db.execute(
                f"INSERT INTO {table} ({table}, rowid, title, body, url)"
                " VALUES ('delete', ?, ?, ?, ?)",
                (n, *values),
            )
        self.db.execute("DELETE FROM seen WHERE n = ?", (n,))
        self.champions.removed(n)
        self.conjunctions.removed(n)
        if self.events is not None:
            self.events.append((n, None))

    def collect_dead(self) -> dict[tuple[int, str], tuple[set[str], set[str]]]:
        """The body terms FTS5 holds for each dead row (its text blob was gone) in ``docs``
        and in ``pairs``, by row number and version ID: FTS5's ``instance`` vocabularies, a
        scan of every token of the index. On a connection of its own (:meth:`_reader`, a
        snapshot), so any thread may run it and the store thread does not wait for the scan;
        :meth:`delete_dead` then deletes."""
        with self._reader() as db:
            rows = db.execute("SELECT n, id FROM seen WHERE NOT live").fetchall()
            found = {(n, reg_id): (set[str](), set[str]()) for n, reg_id in rows}
            for side, table in enumerate(("docs", "pairs")):
                by_n = {n: found[n, reg_id][side] for n, reg_id in rows}
                db.execute(
                    f"CREATE VIRTUAL TABLE temp.i{table} USING fts5vocab(main, {table}, instance)"
                )
                marks = ",".join("?" * len(by_n))
                for n, column, term in db.execute(_DEAD_TERMS.format(table, marks), tuple(by_n)):
                    if column == "body":  # compared here: in SQL it cost a third more per instance
                        by_n[n].add(term)
        return found

    def delete_dead(self, found: dict[tuple[int, str], tuple[set[str], set[str]]]) -> int:
        """Delete the dead rows :meth:`collect_dead` read, those still dead and of the same
        version (a restore revives a row; a rebuild numbers rows afresh); how many."""
        deleted = 0
        with self.lock, self._batch():
            for (n, reg_id), terms in found.items():
                still = "SELECT 1 FROM seen WHERE n = ? AND id = ? AND NOT live"
                if self.db.execute(still, (n, reg_id)).fetchone():
                    self._delete_orphan(n, sorted(terms[0]), sorted(terms[1]))
                    deleted += 1
            if deleted:
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('unpurged', 1)")
        return deleted

    def _delete_orphan(self, n: int, terms: list[str], paired: list[str]) -> None:
        """FTS5's ``'delete'`` writes one marker per distinct term (no positions) and takes
        each column's token count off the totals: so the body is its terms (``terms`` in
        ``docs``, ``paired`` in ``pairs``), the first one repeated up to the length FTS5
        recorded for it (the same in both tables)."""
        title, url = self.db.execute("SELECT title, url FROM seen WHERE n = ?", (n,)).fetchone()
        lengths = column_lengths(self.db, n)
        length = lengths[1] if len(lengths) > 1 else None
        with self.scratch.row(title, "", url) as row:
            title_pairs, _body, url_pairs = row.pairs()
        paired_body = _padded(paired, length)
        self._delete_row(
            n, title, _padded(terms, length), url, (title_pairs, paired_body, url_pairs)
        )

    def purge(self, steps: int | None = None) -> bool:
        """After removals (dead rows: :meth:`collect_dead` and :meth:`delete_dead` first),
        merge the index down to one segment (FTS5 ``'merge'`` with a negative size, in steps
        of ``MERGE_PAGES`` pages: :meth:`_step`, as ``'optimize'`` does, but a capture comes
        between two steps and interrupts one under way), so the removed rows' words leave
        the file (freed pages are zeroed, the WAL is truncated). True once done (nothing to
        do included); False when ``steps`` ran out first."""
        while steps is None or steps > 0:
            done = self._step(-MERGE_PAGES)
            if done == "purged":
                checkpoint = _connection(self.path)  # not the merge connection: never interrupted
                try:
                    checkpoint.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                finally:
                    checkpoint.close()
            if done in ("idle", "purged"):
                return True
            steps = None if steps is None else steps - 1
        return False

    def _maybe_rebuild(self) -> None:
        total = self.db.execute("SELECT count(*) FROM seen").fetchone()[0]
        if total and (total - len(self.known)) / total > DEAD_SHARE:
            self._clear()

    def _clear(self) -> None:
        with self._batch():
            for table in ("docs", "pairs"):  # not DELETE: refused on contentless tables
                self.db.execute(f"INSERT INTO {table} ({table}) VALUES ('delete-all')")
            self.db.execute("DELETE FROM seen")
            self.champions.clear()
            self.conjunctions.clear()
            self.db.execute("DELETE FROM meta WHERE name = 'warmed'")
        self.known, self.rows = {}, LiveRows({})
        self.checking = None
        self.generation += 1

    def rebuild(self, store) -> int:
        """Drop everything and index the store again; how many versions."""
        with self.lock:
            self._clear()
            self.stamp = None
        self.sync(store)
        return len(self.known)

    @contextlib.contextmanager
    def _batch(self):
        """One write transaction on the index's connection; a merge step under way on the
        merge connection gives way to it (:meth:`_step`: interrupted, it is rolled back, and
        the write then takes the file's lock at once, with none of the busy handler's
        sleeps), and none begins until it ends."""
        with self.writes:
            self.writing += 1
            while self.stepping and self.merger is not None:  # sent again: SQLite clears an
                if self.whole:  # a step that gave way GIVE_WAY times in a row: wait for it
                    self.writes.wait()
                    continue
                self.merger.interrupt()  # interrupt when a statement of the step begins
                self.interrupts += 1
                self.writes.wait(RESEND_S)
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self.db.execute("ROLLBACK")
                self.champions.load_delta()  # what the file holds
                self.generation += 1  # rows noted as added or removed in it did not happen
                raise
            self.db.execute("COMMIT")
        finally:
            self._writing(-1)

    def _writing(self, change: int) -> None:
        with self.writes:
            self.writing += change
            self.writes.notify_all()

    def reindex_sources(self, store, ids: list[str]) -> int:
        """Index again, in one transaction, the rows of those of ``ids`` indexed with another
        text than the one they are found by now (:func:`text_source`: the visible text kept
        after the row was indexed with the main text); how many.

        >>> import tempfile
        >>> FullTextIndex(Path(tempfile.mkdtemp()) / "f.sqlite3").reindex_sources(None, [])
        0
        """
        if not ids:
            return 0
        with self.lock:
            marks = ",".join("?" * len(ids))
            found = self.db.execute(
                f"SELECT n, id, title, url, src FROM seen WHERE live AND id IN ({marks})", ids
            ).fetchall()
            return self._reindex_sources(store, found)

    def reindex_sources_pass(self, store, after: int = -1) -> int | None:
        """One step of a pass over every live row (``RECONCILE_ROWS`` rows after row number
        ``after``, one transaction): :meth:`reindex_sources` for each; the last row checked, or None
        once the pass is over. The daemon runs the pass at every start, after keeping the
        older versions' visible texts: a row left behind (a kill between the store's write
        and the index's, a text kept by a check without the daemon) is found again."""
        with self.lock:
            rows = self.db.execute(_SOURCED, (after, RECONCILE_ROWS)).fetchall()
            self._reindex_sources(store, rows)
            return rows[-1][0] if len(rows) == RECONCILE_ROWS else None

    def _reindex_sources(self, store, rows: list) -> int:
        versions, stale = store.raw("versions"), []
        for n, reg_id, title, url, src in rows:
            if reg_id in versions and text_source(store, reg_id) != src:
                body = blob_text(store, src) if src else ""
                if body is not None:  # its old text gone: left to the reclaim (dead rows)
                    stale.append((n, reg_id, title, textquery.index_text(body), url))
        if not stale:
            return 0
        try:
            with self._batch():
                for n, reg_id, title, body, url in stale:
                    self._delete_row(n, title, body, url)
                    self.rows.pop(n)
                    self.known.pop(reg_id, None)
                    self._add(store, reg_id)
        except BaseException:
            self._load_known()  # rolled back: what the file holds
            raise
        return len(stale)

    def _index(self, store, ids: list[str]) -> None:
        if not ids:
            return
        try:
            with self._batch():
                for reg_id in ids:
                    self._add(store, reg_id)
        except BaseException:
            self._load_known()  # rolled back: what the file holds
            raise

    def _add(self, store, reg_id: str) -> None:
        doc = store.raw("versions")[reg_id]
        seen = self.db.execute("SELECT n FROM seen WHERE id = ?", (reg_id,)).fetchone()
        if seen is not None:  # kept dead (its text was gone), now restored: the row is there
            self.db.execute("UPDATE seen SET live = 1, key = ? WHERE n = ?", (doc["key"], seen[0]))
            self.known[reg_id] = doc["key"]
            self.rows.put(seen[0], doc["key"], reg_id)
            return
        src = text_source(store, reg_id)
        body = (blob_text(store, src) if src else "") or ""
        title, url = textquery.index_text(doc.get("title") or ""), doc["url"]
        self.add_row(reg_id, doc["key"], title, textquery.index_text(body), url, src)

    def add_row(self, reg_id: str, key: str, title: str, body: str, url: str, src) -> int:
        """Index one version's indexed strings (``src``: its text blob); its row number.
        Inside a batch; the bench fills an index through this too."""
        n = self.db.execute(
            "INSERT INTO seen (id, key, title, url, src) VALUES (?, ?, ?, ?, ?)",
            (reg_id, key, title, url, src),
        ).lastrowid
        assert n is not None  # an INSERT always sets it
        self.db.execute(
            "INSERT INTO docs (rowid, title, body, url) VALUES (?, ?, ?, ?)", (n, title, body, url)
        )
        with self.scratch.row(title, body, url) as row:
            self.db.execute("INSERT INTO pairs (rowid, title, body, url) VALUES (?, ?, ?, ?)",
                            (n, *row.pairs()))  # fmt: skip
            counts = self.champions.added(n, row)
        if self.conjunctions.lists:
            self.conjunctions.added(n, counts, row.length)
        if self.events is not None:
            self.events.append((n, (title, body, url)))
        self.known[reg_id] = key
        self.rows.put(n, key, reg_id)
        return n

    # -- warm lists: made ahead of any search ---------------------------------------------
    def warm_due(self) -> bool:
        """True when the warm lists should be planned (again): none was planned for these
        rows, the index has grown ``WARM_GROWTH`` times since (a big import), or the last
        plan followed another rule (``WARM_RULE``: phrases have had their own budget since 2)."""
        with self.lock:
            found = self.db.execute("SELECT value FROM meta WHERE name = 'warmed'").fetchone()
            rule = self.db.execute("SELECT value FROM meta WHERE name = 'warmrule'").fetchone()
            rows, grown = (
                len(self.known),
                found is None or len(self.known) >= found[0] * WARM_GROWTH,
            )
            return rows >= MIN_ROWS and (grown or rule is None or rule[0] != WARM_RULE)

    def warm_plan(self, limit: int | None = None) -> list[str]:
        """The terms to make warm lists for, most frequent first: every word of FTS5's
        vocabulary, and every prefix of up to ``PREFIX_CHARS`` characters (its rows estimated
        as ``PREFIX_COST`` times its words' sum: what scoring it in full costs, in rows), in at
        least ``MIN_ROWS`` rows and with no warm list yet, at most ``WARM_LISTS``; then the
        phrases of two words (``pairs``'s vocabulary) in the most rows, at most ``WARM_PAIRS``
        (a budget of their own: prefixes' estimates outrank them). A plan under a new
        ``WARM_RULE`` takes the warm terms again (their lists are read afresh). On a
        connection of its own (a scan of FTS5's vocabulary: off the store thread)."""
        limit = WARM_LISTS if limit is None else limit
        with self._reader() as db:
            db.execute("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, docs, row)")
            db.execute("CREATE VIRTUAL TABLE temp.pairterms USING fts5vocab(main, pairs, row)")
            found = db.execute("SELECT term, doc FROM temp.terms").fetchall()
            paired = db.execute(_FREQUENT_PAIRS, (MIN_ROWS,)).fetchall()
            rows = db.execute("SELECT count(*) FROM seen WHERE live").fetchone()[0]
        estimate: dict[str, float] = {}
        for term, doc in found:
            estimate[f'"{term}"'] = doc
            for key in prefix_phrases(term):
                estimate[key] = estimate.get(key, 0) + PREFIX_COST * doc
        phrases = {pair_key(pair): doc for pair, doc in paired}  # a phrase of two words
        phrases.pop(None, None)
        with self.lock, self._batch():
            rule = self.db.execute("SELECT value FROM meta WHERE name = 'warmrule'").fetchone()
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('warmed', ?)", (rows,))
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('warmrule', ?)", (WARM_RULE,))
            same = rule is not None and rule[0] in (WARM_RULE, *KEPT_RULES)  # else all read again
            warm = set(self.champions.warm) - self._unbanded(estimate) if same else set()
        return _most_rows(estimate, warm, limit) + _most_rows(phrases, warm, WARM_PAIRS)

    def _unbanded(self, estimate: dict[str, float]) -> set[str]:
        """The warm words (``estimate``: term → rows) in at least ``BAND_ROWS`` rows whose
        list has no bands (read before rule 3)."""
        bands, warm = self.champions.bands, self.champions.warm
        frequent = {t for t in warm if estimate.get(t, 0) >= champions.BAND_ROWS}
        return {t for t in frequent if not t.endswith("*") and " " not in t and t not in bands}

    def begin_warm(self) -> int:
        """Before :meth:`read_list` takes its snapshot (on the store thread): note the rows
        added and removed from now on, to apply to the list it reads; the generation."""
        with self.lock:
            self.events = []
            return self.generation

    def read_list(self, term: str) -> Built | None:
        """The warm list of ``term`` from one snapshot of the file, on a connection of its
        own (the scoring of every match: off the store thread); None when it matches fewer
        than ``MIN_ROWS`` rows."""
        source = self._term_source(term)
        with self._reader() as db:
            matches = self._rowids(source, db)
            if not self._frequent(len(matches)):
                return None
            return read(db, term, ", ".join(map(str, WEIGHTS)), matches, source)

    def install(self, built: Built | None, generation: int) -> bool:
        """Store a warm list (on the store thread), then apply to it the rows added and
        removed since :meth:`begin_warm`, in their order (applying one the snapshot already
        had changes nothing); a list read before the rows were numbered afresh is dropped.
        True when stored."""
        with self.lock:
            events, self.events = self.events, None
            if built is None or events is None or generation != self.generation:
                return False
            with self._batch():
                self.champions.install(built, warm=True)
                for n, values in events:
                    if values is None:
                        self.champions.leave(built.term, n)
                    else:
                        self.champions.enter(built.term, n, *values)
            return True

    @contextlib.contextmanager
    def _reader(self):
        """A connection of its own in one read transaction (the WAL gives it a snapshot)."""
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            db.execute("BEGIN")
            yield db
            db.execute("COMMIT")
        finally:
            db.close()

    # -- queries ----------------------------------------------------------------------
    def search(self, query: textquery.Query, want: int | None = None) -> Ranking:
        """Documents matching ``query``, best first (lower BM25 is better, as SQLite gives
        it). With ``want``, a frequent word may answer only its certified head (at least
        ``want`` documents, or all)."""
        with self.lock:
            try:
                if want is not None:
                    head = self._champion_head(query, want) or self._conjunction_head(query, want)
                    if head is None and (head := self._threshold_head(query, want)):
                        self._want(_phrases(query))  # its conjunction list: a cheaper next search
                        if not self.deferred:
                            self._build_wanted(None)
                    if head is not None:
                        return head
                if want is None:
                    ranking, matched = self._scored(self._source(query))
                else:
                    ranking, matched = self._scored_head(query, want)
                if want is not None and self._frequent(matched):  # the next search: its list
                    self._want(_phrases(query))
                if not self.deferred:
                    self._build_wanted(None)
                return ranking
            except sqlite3.OperationalError as exc:  # the expression is built quoted; a bug
                raise StorageError(f"full-text query failed: {exc}") from exc

    def _source(self, query: textquery.Query) -> tuple[str, str]:
        """The table and MATCH expression that rank ``query``: a query of phrases only (no
        ``-excluded`` terms) is ranked on their pairs (bit for bit the same ``bm25()``,
        host/services/pairs.py), any other on ``docs``.

        >>> import tempfile
        >>> index = FullTextIndex(Path(tempfile.mkdtemp()) / "f.sqlite3")
        >>> index._source(textquery.parse('"lower meadow" "rising river"'))
        ('pairs', '"lower_meadow" AND "rising_river"')
        >>> index._source(textquery.parse('"lower meadow" river'))
        ('docs', '"lower meadow" AND "river"')
        """
        if not any(t.negative for t in query.terms):
            paired = [self._pair_expr(p) for p in _phrases(query)]
            if all(paired):
                return "pairs", " AND ".join(map(str, paired))
        return "docs", textquery.to_fts(query)

    def _head_source(self, query: textquery.Query) -> tuple[str, str]:
        """The table and expression that rank the head of ``query``: as :meth:`_source`, but
        phrases with ``-excluded`` terms on their pairs too, the excluded rows taken out by
        :meth:`_scored_head` (an excluded term adds nothing to ``bm25()``: its count in a
        matching row is 0), not by FTS5 checking the phrases' positions in ``docs``.

        >>> import tempfile
        >>> index = FullTextIndex(Path(tempfile.mkdtemp()) / "f.sqlite3")
        >>> index._head_source(textquery.parse('"lower meadow" -river'))
        ('pairs', '"lower_meadow"')
        """
        paired = [self._pair_expr(p) for p in _phrases(query)]
        if paired and all(paired):
            return "pairs", " AND ".join(map(str, paired))
        return self._mixed_source(query, paired) or self._source(query)

    def _mixed_source(self, query, paired: list[str | None]) -> tuple[str, str] | None:
        """Phrases with plain words (``"a b" c``) on ``pairs``, each word as the prefix of its
        pairs (``"c_" *``: every pair token it starts, so the same hits per column, bit for
        bit the same ``bm25()``), when that is cheaper than ``docs``: FTS5 checks a phrase's
        positions in every row holding all its words there (twice: the matches, and the
        phrase's IDF), and merges the doclists of every pair a word starts here (twice too).
        Taken when the rows holding each phrase's words number at least ``PAIRS_RATIO`` times
        the rows of the plain words (each from its list's bitmap; a term with no list is rare,
        so ``docs`` is cheap). None: rank on ``docs``."""
        if not paired or all(paired) or not any(paired):
            return None
        positions, words, exprs = 0, 0, []
        for term, expr in zip(query.positives, paired, strict=True):
            found = self._token_hits(term)
            if found is None:
                return None
            tokens, hits = found
            if expr is None:  # a plain word
                words += len(hits[0])
                exprs.append(f'"{tokens[0]}_" *')
            else:
                positions += len(_both(hits))
                exprs.append(expr)
        return ("pairs", " AND ".join(exprs)) if positions >= PAIRS_RATIO * words else None

    def _token_hits(self, term) -> tuple[list[str], list[Hits]] | None:
        """A query term's FTS5 tokens and each one's bitmap; None for a prefix, or when a
        token has no list."""
        tokens = self.scratch.tokens(" ".join(term.tokens))
        if term.prefix or not tokens:
            return None
        hits = [self.champions.hits(f'"{t}"') for t in tokens]
        return None if None in hits else (tokens, [h for h in hits if h is not None])

    def _term_source(self, term: str) -> tuple[str, str]:
        """The table and expression that rank one term (see :meth:`_source`)."""
        paired = self._pair_expr(term)
        return ("pairs", paired) if paired else ("docs", term)

    def _pair_expr(self, term: str) -> str | None:
        """:func:`pairs.pair_expr` of ``term``, kept (``PAIRED`` at most): tokenizing a term
        costs three statements on the scratch table, and a query of two words two of them."""
        if term not in self.paired:
            if len(self.paired) >= PAIRED:
                self.paired.clear()
            self.paired[term] = pair_expr(self.scratch, term)
        return self.paired[term]

    def _rowids(self, source: tuple[str, str], db: sqlite3.Connection | None = None) -> list[int]:
        """The rows a ``(table, expression)`` matches (on ``db``, else the index's own)."""
        table, expr = source
        return [n for (n,) in (db or self.db).execute(_ROWIDS.format(table), (expr,))]

    def _scored(self, source: tuple[str, str]) -> tuple[Ranking, int]:
        """Every match scored by FTS5, its documents by their best version; and how many
        live rows matched."""
        table, match = source
        found = self.db.execute(_SCORED.format(table), (*WEIGHTS, match)).fetchall()
        return Ranking([r[:3] for r in found], len(found)), sum(r[3] for r in found)

    def _scored_head(self, query, want: int) -> tuple[Ranking, int]:
        """The head of the full ranking without grouping every match: FTS5 scores every
        match and keeps the best rows (its sorter, in C), which are grouped here into their
        documents; a document is certain once its best row scores strictly better than the
        last row fetched (rows are fetched until ``want`` documents are, or all are). The
        matches themselves (the total, and how many rows matched) come from the terms'
        bitmaps when each has a list, else from FTS5. Ranked on ``pairs`` (see
        :meth:`_head_source`), the rows of excluded terms are skipped here."""
        table, match = source = self._head_source(query)
        skip = self._excluded(query) if table == "pairs" else []  # docs: FTS5's own NOT
        total, matched = self.rows.documents(self._matching(query, source, skip))
        limit = 8 * want + 64  # rows: a document has a few versions; a second pass costs a full one
        while True:
            found = self.db.execute(_TOP.format(table), (*WEIGHTS, match, limit)).fetchall()
            complete = len(found) < limit
            bound = float("inf") if complete else found[-1][1]
            head, seen_keys = list[tuple[str, str, float]](), set[str]()
            for n, rank in found:
                row = self.rows.get(n)
                if row is None or row[0] in seen_keys or not rank < bound:
                    continue
                if skip and any(n in hits for hits in skip):
                    continue
                seen_keys.add(row[0])
                head.append((row[0], row[1], rank))
            if complete or len(head) >= min(want, total):
                head.sort(key=lambda r: (r[2], r[0]))
                return Ranking(head, total), matched
            limit *= 4

    def _matching(self, query, source: tuple[str, str], skip: list[Hits]) -> Hits | list[int]:
        """The rows ``query`` matches: the AND of its terms' bitmaps when each term has a
        list (see :meth:`_unexcluded`), else FTS5's (``source``: see :meth:`_head_source`;
        ``skip``: the excluded rows when its expression leaves them in)."""
        phrases = _phrases(query)
        hits = [self.champions.hits(p) for p in phrases]
        if any(h is None and self._pair_expr(p) for p, h in zip(phrases, hits, strict=True)):
            hits = [
                h or Hits(bitmap(self._rowids(self._term_source(p))))
                for p, h in zip(phrases, hits, strict=True)
            ]
        if all(h is not None for h in hits):
            both = _both([h for h in hits if h is not None])
            return self._unexcluded(query, both, skip if skip else None)
        rows = self._rowids(source)
        return self._unexcluded(query, Hits(bitmap(rows)), skip) if skip else rows

    def _excluded(self, query) -> list[Hits]:
        """The rows of each ``-excluded`` term of ``query``: from its bitmap when it has a
        list, else from FTS5 (that term alone)."""
        found = []
        for term in query.terms:
            if term.negative:
                phrase = textquery.to_fts(textquery.Query((replace(term, negative=False),)))
                excluded = self.champions.hits(phrase)
                if excluded is None:
                    excluded = Hits(bitmap(self._rowids(self._term_source(phrase))))
                found.append(excluded)
        return found

    def _unexcluded(self, query, hits: Hits, excluded: list[Hits] | None = None) -> Hits:
        """The rows of ``hits`` that no ``-excluded`` term of ``query`` matches, as FTS5's
        ``NOT`` leaves them (``excluded``: :meth:`_excluded`, when the caller has it)."""
        for other in self._excluded(query) if excluded is None else excluded:
            hits = _minus(hits, other)
        return hits

    def _champion_head(self, query, want: int) -> Ranking | None:
        """The certified head of a one-term query (a word, prefix, phrase or CJK word, plus any
        ``-excluded`` ones) from the term's champion list (then its bands, when the excluded
        rows leave the list too few), or None."""
        positives = query.positives
        if len(positives) != 1:
            return None
        term = textquery.to_fts(textquery.Query(tuple(positives)))
        hits = self.champions.hits(term)
        if hits is None:
            return None
        df = len(hits)
        if not self._frequent(df):
            return None  # few matches (left): scoring them all is fast
        matching = self._unexcluded(query, hits)
        listed = self.champions.ranked(term, df, matching.__contains__)
        head = None if listed is None else self._certified(*listed, matching, want)
        if head is None and term in self.champions.bands:  # the list alone: too few (excluded)
            rows, avgdl = averages(self.db)
            head = self._banded_head(query, want, (term,), matching, [idf(rows, df)], avgdl)
        return head

    def _conjunction_head(self, query, want: int) -> Ranking | None:
        """The certified head of a query of several terms (plus any ``-excluded`` ones) from
        its conjunction list (host/services/conjunctions.py), or None."""
        phrases = _phrases(query)
        expr = " AND ".join(phrases)
        if len(phrases) < 2 or expr not in self.conjunctions.lists:
            return None
        found = [self.champions.hits(p) for p in phrases]
        hits = [h for h in found if h is not None]
        if len(hits) < len(found):
            return None
        both = _both(hits)
        if not self._frequent(len(both)):
            return None
        matching = self._unexcluded(query, both)
        listed = self.conjunctions.ranked(expr, [len(h) for h in hits], matching.__contains__)
        return None if listed is None else self._certified(*listed, matching, want)

    def _threshold_head(self, query, want: int) -> Ranking | None:
        """The certified head of a query of several terms (plus any ``-excluded`` ones), each
        with a champion list, from those lists (host/services/threshold.py), or None."""
        phrases = _phrases(query)
        hits = [self.champions.hits(p) for p in phrases]
        if len(phrases) < 2 or any(h is None for h in hits):
            return None
        both = _both([h for h in hits if h is not None])
        phrased = any(self._pair_expr(p) for p in phrases)
        ratio = threshold.PHRASE_RATIO if phrased else threshold.WORDS_RATIO
        if len(both) < max(MIN_ROWS, ratio * champions.SIZE * len(phrases)):
            return None  # few matches for the listed rows: scoring them all costs less
        matching = self._unexcluded(query, both)
        rows, avgdl = averages(self.db)
        idfs = [idf(rows, len(h)) for h in hits if h is not None]
        head = None
        if max(idfs) >= threshold.DOMINANT * (sum(idfs) - max(idfs)):  # a term leads
            head = self._leading_head(query, want, (phrases, phrased), matching, idfs, avgdl)
        return head or self._banded_head(query, want, phrases, matching, idfs, avgdl)

    def _leading_head(
        self, query, want: int, terms, matching: Hits, idfs: list[float], avgdl: float
    ) -> Ranking | None:  # fmt: skip
        """:meth:`_threshold_head` when one term leads the score: the rows of the terms' lists
        that may score above the most an unlisted row can (``terms``: the phrases, and
        whether one is a phrase of several words)."""
        phrases, phrased = terms
        lists = [self.champions.listed(p, avgdl) for p in phrases]
        weights = ", ".join(map(str, WEIGHTS))

        def alone(i: int, missing: dict[int, int]) -> dict[int, float] | None:
            source = self._term_source(phrases[i])
            return threshold.counts_alone(self.db, source, weights, missing, idfs[i], avgdl)

        bound = threshold.bound(idfs, [g for _r, g in lists])
        hopeful = threshold.hopeful(lists, matching.__contains__, idfs, avgdl, bound)
        if not self._may_certify(list(hopeful), matching, want):
            return None  # known before FTS5 scores a row: too few documents can pass
        if phrased or any(p.endswith("*") for p in phrases):
            found = threshold.scored(hopeful, [r for r, _g in lists], idfs, avgdl, alone)
        else:  # words: FTS5 walks their doclists once, and scores the query itself
            found = threshold.together(self.db, self._head_source(query), weights, hopeful)
        return None if found is None else self._certified(found, bound, matching, want)

    def _banded_head(
        self, query, want: int, phrases, matching: Hits, idfs: list[float], avgdl: float
    ) -> Ranking | None:  # fmt: skip
        """The certified head of a query of several words with bands (host/services/
        champions.py), when no word leads the score or the lists could not certify (an
        unlisted row's bound from the lists alone is too loose): level by level, FTS5 scores
        the matching rows in some word's list or bands 0 … j not scored yet
        (:func:`threshold.together`), until ``want`` documents (or all) score above every
        other row's most (:func:`threshold.bound` of the edges j); None when a word has no
        bands, or the last level certifies too few."""
        found_bands = [self.champions.banded(p, avgdl) for p in phrases]
        banded = [b for b in found_bands if b is not None]
        if len(banded) < len(phrases):
            return None
        reach = Hits(bitmap([n for p in phrases for n in self.champions.listed_rows(p)]))
        weights, source = ", ".join(map(str, WEIGHTS)), self._head_source(query)
        total, scored = self.rows.documents(matching)[0], Hits({})
        found: list[champions.Row] = []
        for j in range(min(len(b) for b in banded)):
            reach = _either([reach, *(b[j][0] for b in banded)])
            rows = _both([reach, matching])
            if self.rows.documents(rows)[0] < min(want, total):
                continue  # too few documents to certify: the next level, before FTS5 scores
            fresh = list(_minus(rows, scored))
            if fresh:
                more = threshold.together(self.db, source, weights, dict.fromkeys(fresh, 0))
                if more is None:
                    return None
                found = sorted([*found, *more], key=lambda r: (r.rank, r.n)) if found else more
                scored = rows
            edges = [b[j][1] for b in banded]
            head = self._certified(found, threshold.bound(idfs, edges), matching, want, total)
            if head is not None:
                return head
        return None

    def _may_certify(self, rows: list[int], matching: Hits, want: int) -> bool:
        """True when ``rows`` (those that may score above the bound) hold ``want``
        documents, or every document ``matching`` holds."""
        found = self.rows.documents(rows)[0]
        return found >= want or found >= self.rows.documents(matching)[0]

    def build_lists(self, limit: int | None = None) -> bool:
        """Make the champion lists that searches wanted (at most ``limit``); True when none
        is left. The daemon calls it in the background (``deferred``), so a frequent term's
        first search costs one full scoring and no more."""
        with self.lock:
            self._build_wanted(limit)
            return not self.wanted

    def _want(self, phrases: tuple[str, ...]) -> None:
        """Ask for a list; the oldest request goes beyond ``WANTED`` (the daemon makes one
        list per tick of its job, so a burst of searches does not queue work for long)."""
        self.wanted.pop(phrases, None)
        self.wanted[phrases] = None
        while len(self.wanted) > WANTED:
            del self.wanted[next(iter(self.wanted))]

    def _build_wanted(self, limit: int | None) -> None:
        for phrases in list(self.wanted)[:limit]:
            del self.wanted[phrases]
            with self._batch():
                self._make_list(phrases)

    def _make_list(self, phrases: tuple[str, ...]) -> None:
        """A champion list for a query's terms, if it has none and is frequent (several
        terms: a list of each first)."""
        for term in phrases:
            if term not in self.champions.tiers:
                source = self._term_source(term)
                found = self._rowids(source)
                if not self._frequent(len(found)):
                    return
                self.champions.build(term, found, source)
        expr = " AND ".join(phrases)
        if len(phrases) > 1 and expr not in self.conjunctions.lists:
            hits = [self.champions.hits(p) for p in phrases]
            self.conjunctions.build(phrases, [len(h) for h in hits if h is not None])

    def _frequent(self, df: int) -> bool:
        """A term matching ``df`` rows is answered from a champion list: scoring fewer
        than ``MIN_ROWS`` is fast at any size of index."""
        return df >= MIN_ROWS

    def _certified(
        self, scored, bound: float, hits, want: int, total: int | None = None
    ) -> Ranking | None:
        """The documents whose best row of ``scored`` (best first) scores better than
        ``bound`` (every other row scores at least that), if they number ``want`` or all
        of ``hits`` (``total`` documents, counted when not given); None else."""
        seen_keys, head = set[str](), list[tuple[str, str, float]]()
        for row in scored:
            found = self.rows.get(row.n)
            if found is None or found[0] in seen_keys:
                continue
            if not row.rank < bound:
                break
            seen_keys.add(found[0])
            head.append((found[0], found[1], row.rank))
        total = self.rows.documents(hits)[0] if total is None else total
        if len(head) < min(want, total):
            return None
        head.sort(key=lambda r: (r[2], r[0]))
        return Ranking(head, total)

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.db.close()
            if self.merger is not None:
                self.merger.close()


_CHECKED = "SELECT n, id, key, live FROM seen WHERE n > ? ORDER BY n LIMIT ?"  # see _reconcile
_SOURCED = (  # see reindex_sources_pass
    "SELECT n, id, title, url, src FROM seen WHERE live AND n > ? ORDER BY n LIMIT ?"
)
_ROWIDS = "SELECT rowid FROM {0} WHERE {0} MATCH ?"  # {0}: docs, or pairs
_SCORED = (  # bm25() only runs in the MATCH query itself: materialize it, then group
    "WITH m AS MATERIALIZED (SELECT rowid AS n, bm25({0}, ?, ?, ?) AS r FROM {0}"
    " WHERE {0} MATCH ?) SELECT s.key, s.id, min(m.r) AS r, count(*) FROM m"
    " JOIN seen s ON s.n = m.n WHERE s.live GROUP BY s.key ORDER BY r, s.key"
)
_TOP = "SELECT rowid, bm25({0}, ?, ?, ?) AS r FROM {0} WHERE {0} MATCH ? ORDER BY r LIMIT ?"
_DEAD_TERMS = "SELECT doc, col, term FROM temp.i{} WHERE doc IN ({})"  # every token read
_FREQUENT_PAIRS = "SELECT term, doc FROM temp.pairterms WHERE doc >= ?"  # a scan of every doclist


_MERGE = "INSERT INTO {0} ({0}, rank) VALUES ('merge', ?)"
_AUTOMERGE = "INSERT INTO {0} ({0}, rank) VALUES ('automerge', 0)"
MERGE_PAGES = 250  # pages merged per purge step (~1 MB: a short pause of the store thread)
STEP_PAGES = 32  # pages merged per step of ``merge``
# (at 20k versions, tune half: a step of 250 pages up to 12.8 ms CPU, of 32 up to 3.0 ms; the
# merging costs ~20 % more CPU in all, off the captures)
RESEND_S = 0.001  # a write waiting for a merge step to stop interrupts it again this often
GIVE_WAY = 4  # merge steps interrupted in a row, after which the next one runs whole
_UNPURGED = "SELECT 1 FROM meta WHERE name = 'unpurged'"


def _merge_step(db: sqlite3.Connection, pages: int) -> str:
    """FTS5's ``'merge'`` of ``pages`` in both tables, inside the caller's transaction (see
    :meth:`FullTextIndex._step`); a purge's (``pages`` < 0) last step clears ``unpurged``."""
    if pages < 0 and not db.execute(_UNPURGED).fetchone():
        return "idle"
    before = db.total_changes
    for table in ("docs", "pairs"):
        db.execute(_MERGE.format(table), (pages,))
    if db.total_changes - before > 2:  # each command's own row: nothing merged
        return "merged"
    if pages > 0:
        return "idle"
    db.execute("DELETE FROM meta WHERE name = 'unpurged'")
    return "purged"


def _connection(path: Path) -> sqlite3.Connection:
    """A connection to the index file, usable from any thread (one at a time)."""
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA synchronous=NORMAL")  # derived: a lost tail is re-indexed
    db.execute("PRAGMA secure_delete=ON")  # freed pages are zeroed: removed words go
    return db


def _most_rows(estimate: dict, warm: set[str], limit: int) -> list[str]:
    """The terms of ``estimate`` (term → rows) in at least ``MIN_ROWS`` rows, most first, as
    many as ``limit`` leaves beside those of them already warm.

    >>> _most_rows({'"a"': 5000, '"b"': 9000, '"c"': 10, '"d"': 7000}, {'"d"'}, 2)
    ['"b"']
    """
    room = max(0, limit - len(warm & estimate.keys()))
    frequent = [(-d, t) for t, d in estimate.items() if d >= MIN_ROWS and t not in warm]
    return [t for _d, t in sorted(frequent)[:room]]


def _phrases(query: textquery.Query) -> tuple[str, ...]:
    """The FTS5 phrase of each positive term, in query order."""
    return tuple(textquery.to_fts(textquery.Query((t,))) for t in query.positives)


def _padded(terms: list[str], length: int | None) -> str:
    """Distinct terms, the first one repeated up to ``length`` tokens.

    >>> _padded(["reed", "weir"], 4)
    'reed weir reed reed'
    """
    return " ".join(terms + terms[:1] * ((length or len(terms)) - len(terms)))


def _both(hits: list[Hits]) -> Hits:
    """The rows every one of ``hits`` holds."""
    chunks = dict(hits[0].chunks)
    for other in hits[1:]:
        chunks = {c: _and(b, other.chunks[c]) for c, b in chunks.items() if c in other.chunks}
    return Hits(chunks)


def _either(hits: list[Hits]) -> Hits:
    """The rows any of ``hits`` holds.

    >>> list(_either([Hits({0: bytes([0b001])}), Hits({0: bytes([0b100]), 1: bytes([1])})]))
    [0, 2, 4096]
    """
    chunks: dict[int, bytes] = {}
    for other in hits:
        for c, b in other.chunks.items():
            chunks[c] = _or(chunks[c], b) if c in chunks else b
    return Hits(chunks)


def _minus(hits: Hits, other: Hits) -> Hits:
    """The rows of ``hits`` that ``other`` does not hold.

    >>> list(_minus(Hits({0: bytes([0b111])}), Hits({0: bytes([0b010])})))
    [0, 2]
    """
    return Hits({c: _and_not(b, other.chunks.get(c, b"")) for c, b in hits.chunks.items()})


def _and_not(a: bytes, b: bytes) -> bytes:
    value = int.from_bytes(a, "little") & ~int.from_bytes(b, "little")
    return value.to_bytes(len(a), "little")


def _or(a: bytes, b: bytes) -> bytes:
    value = int.from_bytes(a, "little") | int.from_bytes(b, "little")
    return value.to_bytes(max(len(a), len(b)), "little")


def _and(a: bytes, b: bytes) -> bytes:
    value = int.from_bytes(a, "little") & int.from_bytes(b, "little")
    return value.to_bytes(max(len(a), len(b)), "little")


def text_source(store, reg_id: str) -> str | None:
    """The blob a version is found by: its ``visible_text`` when it has one (what the page
    showed), else the extracted main text."""
    doc = store.raw("versions")[reg_id]
    row = store.row("extracts", reg_id) or {}
    return doc.get("visible_text") or row.get("visible_text") or row.get("text")


def blob_text(store, digest: str) -> str | None:
    """A text blob, or None when it is missing or damaged (that must not stop the index)."""
    try:
        return store.get_blob(digest).decode("utf-8", "replace")
    except Exception:
        return None


def stored_text(store, reg_id: str) -> str:
    """The text a version is found by ("" when it has none or its blob is unreadable)."""
    src = text_source(store, reg_id)
    return (blob_text(store, src) if src else None) or ""


_OPEN: dict[str, FullTextIndex] = {}
_OPENING: dict[str, threading.Lock] = {}  # held while a thread opens that index
_OPEN_LOCK = threading.Lock()


def index_of(home: Path) -> FullTextIndex:
    """The index of an archive home, opened once per process (reading its rows: ~200 ms CPU
    at 100k versions)."""
    found = _opened(home, wait=True)
    assert found is not None  # waited for
    return found


def index_unless_opening(home: Path) -> FullTextIndex | None:
    """:func:`index_of`, or None while another thread is opening it (a capture does not wait
    for that: the daemon's start job opens it, then catches up)."""
    return _opened(home, wait=False)


def _opened(home: Path, wait: bool) -> FullTextIndex | None:
    path = str(Home(Path(home)).fulltext)
    with _OPEN_LOCK:
        found = _OPEN.get(path)
        opening = _OPENING.setdefault(path, threading.Lock())
    if found is not None:
        return found
    if not opening.acquire(blocking=wait):
        return None
    try:
        with _OPEN_LOCK:
            found = _OPEN.get(path)
        if found is None:
            found = FullTextIndex(Path(path))
            with _OPEN_LOCK:
                _OPEN[path] = found
        return found
    finally:
        opening.release()


def ranked(
    store, home: Path, text: str, want: int | None = None
) -> tuple[textquery.Query, Ranking]:
    """Parse ``text`` (typed errors), bring the index up to date, and rank the documents
    (with ``want``: at least the first ``want``, see :meth:`FullTextIndex.search`)."""
    query = textquery.parse(text)
    index = index_of(home)
    index.sync(store)
    return query, index.search(query, want)


def result_snippet(store, opened: str, best: str, query: textquery.Query) -> dict:
    """The snippet of a result that opens version ``opened`` and ranked by version ``best``:
    from ``opened`` when its text holds the query (the snippet shows what the result opens),
    from ``best`` only when the words are in older versions alone. ``opened`` may be a
    revisit ("seen again"): its text is its version's."""
    opened = store.version(opened).get("revisit_of") or opened
    if opened != best and textquery.holds(text := stored_text(store, opened), query):
        return snippet(store, opened, query, text)  # its text read once
    return snippet(store, best, query)


def snippet(store, reg_id: str, query: textquery.Query, text: str | None = None) -> dict:
    """``{"snippet": safe HTML with <mark>, "snippet_text", "snippet_marks": [[start, end]]}``
    (``text``: the version's :func:`stored_text`, when the caller has it)."""
    doc = store.raw("versions").get(reg_id) or {}
    text = stored_text(store, reg_id) if text is None else text
    window, marks = textquery.highlight(text or doc.get("title", ""), query)
    return {
        "snippet": textquery.marked_html(window, marks),
        "snippet_text": window,
        "snippet_marks": marks,
    }
