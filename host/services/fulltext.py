"""The full-text index: SQLite FTS5 (Python's standard library) in ``<home>/index/fulltext.sqlite3``.

A DERIVED index: the archive store stays the record, and this file can be deleted at any
time (``rebuild``); it is caught up from the store (``sync``): the versions it has not
seen are indexed (title, text, URL; ``visible_text`` when a version has one), those the
store no longer has are marked dead, so no query returns them, and a re-keyed archive
moves rows to their new documents. It survives a restart, so the first query after a
start does not re-read every page. FTS5's table is contentless (the text is in the
store's blobs already); with SQLite before 3.43 a contentless row cannot be deleted, so a
deleted version's tokens stay until the next rebuild, which ``sync`` starts once dead
rows pass a quarter of the index. Results are documents ranked by the BM25 of their best
version (title weighted 4, URL 2, text 1); the daemon keeps it current on the store
thread after each registration and in small steps in the background.

>>> import tempfile, pathlib
>>> FullTextIndex(pathlib.Path(tempfile.mkdtemp()) / "f.sqlite3").count()
0
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from pathlib import Path

from engine.archive import textquery
from engine.errors import StorageError
from host.home import Home

WEIGHTS = (4.0, 1.0, 2.0)  # title, body, url
SCHEMA = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5("
    "title, body, url, content='', tokenize='unicode61 remove_diacritics 2')",
    "CREATE TABLE IF NOT EXISTS seen (n INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL,"
    " key TEXT NOT NULL, live INTEGER NOT NULL DEFAULT 1)",
    "CREATE INDEX IF NOT EXISTS seen_key ON seen(key)",
)
DEAD_SHARE = 0.25  # rebuild once this share of the rows belongs to deleted versions


class FullTextIndex:
    """One index file; every call on one thread at a time (the daemon's store thread)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.db = self._connect()
        self.stamp: tuple | None = None
        self.known: dict[str, str] = dict(self.db.execute("SELECT id, key FROM seen WHERE live"))

    def _connect(self) -> sqlite3.Connection:
        """Open the file; a damaged one is derived data: it is removed and started afresh."""
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
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # derived: a lost tail is re-indexed
            for statement in SCHEMA:
                db.execute(statement)
            db.execute("SELECT count(*) FROM seen").fetchone()
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

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
            if self.stamp is None or stamp[2] != self.stamp[2] or stamp[0] < len(self.known):
                self._reconcile(store)
            todo = [i for i in store.ids if i not in self.known]
            self._index(store, todo[:limit] if limit else todo)
            done = limit is None or len(todo) <= limit
            self.stamp = stamp if done else None
            return done

    def _reconcile(self, store) -> None:
        """Dead rows for versions the store lost, live again for restored ones, new keys."""
        versions = store.raw("versions")
        rows = self.db.execute("SELECT id, key, live FROM seen").fetchall()
        with self._batch():
            for reg_id, key, live in rows:
                doc = versions.get(reg_id)
                if doc is None and live:
                    self.db.execute("UPDATE seen SET live = 0 WHERE id = ?", (reg_id,))
                elif doc is not None and (not live or doc["key"] != key):
                    self.db.execute(
                        "UPDATE seen SET live = 1, key = ? WHERE id = ?", (doc["key"], reg_id)
                    )
        self.known = dict(self.db.execute("SELECT id, key FROM seen WHERE live"))
        self._maybe_rebuild(store)

    def _maybe_rebuild(self, store) -> None:
        total = self.db.execute("SELECT count(*) FROM seen").fetchone()[0]
        if total and (total - len(self.known)) / total > DEAD_SHARE:
            self._clear()

    def _clear(self) -> None:
        with self._batch():
            self.db.execute("DELETE FROM docs")  # a contentless table may be emptied whole
            self.db.execute("DELETE FROM seen")
        self.known = {}

    def rebuild(self, store) -> int:
        """Drop everything and index the store again; how many versions."""
        with self.lock:
            self._clear()
            self.stamp = None
        self.sync(store)
        return len(self.known)

    @contextlib.contextmanager
    def _batch(self):
        self.db.execute("BEGIN")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _index(self, store, ids: list[str]) -> None:
        if not ids:
            return
        with self._batch():
            for reg_id in ids:
                self._add(store, reg_id)
        self.known.update((i, store.raw("versions")[i]["key"]) for i in ids)

    def _add(self, store, reg_id: str) -> None:
        doc = store.raw("versions")[reg_id]
        seen = self.db.execute("SELECT n FROM seen WHERE id = ?", (reg_id,)).fetchone()
        if seen is not None:  # indexed before, deleted, now restored: the row is still there
            self.db.execute("UPDATE seen SET live = 1, key = ? WHERE n = ?", (doc["key"], seen[0]))
            return
        n = self.db.execute(
            "INSERT INTO seen (id, key) VALUES (?, ?)", (reg_id, doc["key"])
        ).lastrowid
        title, body = doc.get("title") or "", stored_text(store, reg_id)
        self.db.execute(
            "INSERT INTO docs (rowid, title, body, url) VALUES (?, ?, ?, ?)",
            (n, textquery.index_text(title), textquery.index_text(body), doc["url"]),
        )

    # -- queries ----------------------------------------------------------------------
    def search(self, query: textquery.Query) -> list[tuple[str, str, float]]:
        """Documents matching ``query``, best first: ``(key, best version ID, bm25)``
        (lower BM25 is better, as SQLite gives it)."""
        sql = (  # bm25() only runs in the MATCH query itself: materialize it, then group
            "WITH m AS MATERIALIZED (SELECT rowid AS n, bm25(docs, ?, ?, ?) AS r FROM docs"
            " WHERE docs MATCH ?) SELECT s.key, s.id, min(m.r) AS r FROM m"
            " JOIN seen s ON s.n = m.n WHERE s.live GROUP BY s.key ORDER BY r, s.key"
        )
        with self.lock:
            try:
                return self.db.execute(sql, (*WEIGHTS, textquery.to_fts(query))).fetchall()
            except sqlite3.OperationalError as exc:  # the expression is built quoted; a bug
                raise StorageError(f"full-text query failed: {exc}") from exc

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.db.close()


def stored_text(store, reg_id: str) -> str:
    """The text a version is found by: its ``visible_text`` blob when it has one (what the
    page showed), else the extracted main text."""
    doc = store.raw("versions")[reg_id]
    row = store.row("extracts", reg_id) or {}
    digest = doc.get("visible_text") or row.get("visible_text") or row.get("text")
    if not digest:
        return ""
    try:
        return store.get_blob(digest).decode("utf-8", "replace")
    except Exception:  # a missing or damaged blob must not stop the index
        return ""


_OPEN: dict[str, FullTextIndex] = {}
_OPEN_LOCK = threading.Lock()


def index_of(home: Path) -> FullTextIndex:
    """The index of an archive home, opened once per process."""
    path = Home(Path(home)).fulltext
    with _OPEN_LOCK:
        found = _OPEN.get(str(path))
        if found is None:
            found = _OPEN[str(path)] = FullTextIndex(path)
        return found


def ranked(store, home: Path, text: str) -> tuple[textquery.Query, list[tuple[str, str, float]]]:
    """Parse ``text`` (typed errors), bring the index up to date, and rank the documents."""
    query = textquery.parse(text)
    index = index_of(home)
    index.sync(store)
    return query, index.search(query)


def snippet(store, reg_id: str, query: textquery.Query) -> dict:
    """``{"snippet": safe HTML with <mark>, "snippet_text", "snippet_marks": [[start, end]]}``."""
    doc = store.raw("versions").get(reg_id) or {}
    window, marks = textquery.highlight(stored_text(store, reg_id) or doc.get("title", ""), query)
    return {
        "snippet": textquery.marked_html(window, marks),
        "snippet_text": window,
        "snippet_marks": marks,
    }
