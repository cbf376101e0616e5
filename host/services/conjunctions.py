"""Champion lists of queries of several terms (``"a" AND "b"``): the head of two frequent words
without scoring every row holding both (host/services/champions.py does one term).

A list is made the first time its query matches many rows: the ``champions.SIZE`` rows FTS5 ranks
best, each with its count ``F`` of every term and its length ``D``, at the day's IDFs
``idf0`` and average length ``a0``, and ``cutoff``: the best score ``S0 = Σ idf0·g`` of any
row left out. FTS5's ``bm25()`` of the query is ``Σ idf·g`` (terms in query order), so the
listed rows are scored exactly as FTS5 would.

The guarantee: now, each term's factor ``g`` is at most ``g(a0) / min(1, a0/a)`` and its
IDF is ``idf0`` times its ratio, so a row left out scores at most
``cutoff · ρ / min(1, a0/a)``, ``ρ`` the largest ratio of a term's IDF now to its IDF then;
only listed documents above that are returned (the certified head). A new row enters when
its ``S0`` beats the cutoff; a deleted one leaves. A list lives while each of its terms has
its own list (whose bitmap gives the term's matches and count, and whose scratch counts
give a new row's ``F``).

>>> score([2.0, 1.0], 100, [1.5, 0.5], 100.0) == -1.0 * (1.5 * factor(2.0, 100, 100.0) + 0.5 * factor(1.0, 100, 100.0))
True
"""

from __future__ import annotations

import json
import sqlite3

from host.services import champions
from host.services.bm25 import K1, B, count_of, factor, idf
from host.services.champions import Row, averages, row_length

LISTS = 32  # lists kept (the oldest goes): a capture checks its row against each
MARGIN = 1e-9  # the bound is rounded up by this share: float sums are not exact
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS conj (n INTEGER PRIMARY KEY, expr TEXT UNIQUE NOT NULL,"
    " phrases TEXT NOT NULL, idf0 TEXT NOT NULL, cutoff REAL NOT NULL, a0 REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS conjrow (expr TEXT NOT NULL, n INTEGER NOT NULL,"
    " fs TEXT NOT NULL, d INTEGER NOT NULL, PRIMARY KEY (expr, n)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS conjrow_n ON conjrow(n)",
)


def score(counts: list[float], d: int, idfs: list[float], avgdl: float) -> float:
    """FTS5's ``bm25()`` of a row holding each term ``counts[i]`` times, in its order of
    operations (bit-identical): ``-1 · (0 + idf₁·g₁ + idf₂·g₂ …)``."""
    total = 0.0
    for f, weight in zip(counts, idfs, strict=True):
        total += weight * factor(f, d, avgdl)
    return -1.0 * total


class Conjunctions:
    """The lists of one index (its connection; the caller holds the index's lock)."""

    def __init__(self, db: sqlite3.Connection, weights: tuple[float, ...]) -> None:
        self.db, self.weights = db, ", ".join(map(str, weights))
        for statement in SCHEMA:
            db.execute(statement)
        found = db.execute("SELECT expr, phrases, idf0, cutoff, a0 FROM conj ORDER BY n")
        self.lists = {e: (tuple(json.loads(p)), json.loads(i), c, a) for e, p, i, c, a in found}

    def clear(self) -> None:
        self.db.execute("DELETE FROM conjrow")
        self.db.execute("DELETE FROM conj")
        self.lists = {}

    def drop(self, expr: str) -> None:
        self.db.execute("DELETE FROM conjrow WHERE expr = ?", (expr,))
        self.db.execute("DELETE FROM conj WHERE expr = ?", (expr,))
        self.lists.pop(expr, None)

    def build(self, phrases: tuple[str, ...], dfs: list[int]) -> bool:
        """Make the list of the query ``phrases`` joined by AND (``dfs``: each one's matching
        rows) from FTS5's own ranking; each listed row's counts from FTS5's ranking of each
        term alone. False (no list) if the counts do not give back FTS5's scores exactly."""
        expr = " AND ".join(phrases)
        rows, avgdl = averages(self.db)
        idfs = [idf(rows, df) for df in dfs]
        top = self.db.execute(
            f"SELECT rowid, bm25(docs, {self.weights}) AS r FROM docs WHERE docs MATCH ?"
            " ORDER BY r LIMIT ?",
            (expr, champions.SIZE + 1),
        ).fetchall()
        kept = {n: (rank, row_length(self.db, n, "docs")) for n, rank in top[: champions.SIZE]}
        counts: dict[int, list[float]] = {n: [] for n in kept}
        for phrase, weight in zip(phrases, idfs, strict=True):
            alone = self.db.execute(
                f"SELECT rowid, bm25(docs, {self.weights}) FROM docs WHERE docs MATCH ?", (phrase,)
            )
            for n, rank in alone:
                if n in kept:
                    k = K1 * (1 - B + B * kept[n][1] / avgdl)
                    counts[n].append(count_of(-rank / weight, k))
        if any(score(counts[n], d, idfs, avgdl) != rank for n, (rank, d) in kept.items()):
            return False
        self.drop(expr)
        self.db.executemany(
            "INSERT INTO conjrow (expr, n, fs, d) VALUES (?, ?, ?, ?)",
            [(expr, n, json.dumps(counts[n]), d) for n, (_rank, d) in kept.items()],
        )
        cutoff = -top[-1][1] if len(top) > champions.SIZE else 0.0
        self.db.execute("INSERT INTO conj (expr, phrases, idf0, cutoff, a0) VALUES (?, ?, ?, ?, ?)",
                        (expr, json.dumps(phrases), json.dumps(idfs), cutoff, avgdl))  # fmt: skip
        self.lists[expr] = (phrases, idfs, cutoff, avgdl)
        while len(self.lists) > LISTS:
            self.drop(next(iter(self.lists)))
        return True

    def ranked(self, expr: str, dfs: list[int], matching) -> tuple[list[Row], float] | None:
        """The listed rows that ``matching`` accepts, scored as ``bm25()`` would, best first,
        and the score (negative) every row left out is at least; None without a list."""
        found = self.lists.get(expr)
        if found is None:
            return None
        _phrases, idf0, cutoff, a0 = found
        rows, avgdl = averages(self.db)
        idfs = [idf(rows, df) for df in dfs]
        listed = self.db.execute("SELECT n, fs, d FROM conjrow WHERE expr = ?", (expr,))
        scored = [
            Row(n, score(json.loads(fs), d, idfs, avgdl)) for n, fs, d in listed if matching(n)
        ]
        scored.sort(key=lambda r: r.rank)
        ratio = max(now / then for now, then in zip(idfs, idf0, strict=True))
        return scored, -cutoff * ratio / min(1.0, a0 / avgdl) * (1 + MARGIN)

    def added(self, n: int, counts: dict[str, float], length: int) -> None:
        """Enter row ``n`` (its count of each listed term, ``counts``) in the lists whose
        every term it holds, where it beats the cutoff; a list one of whose terms lost its
        own list (so no count) goes."""
        for expr, (phrases, idf0, cutoff, a0) in list(self.lists.items()):
            if any(p not in counts for p in phrases):
                self.drop(expr)
                continue
            fs = [counts[p] for p in phrases]
            if all(fs) and -score(fs, length, idf0, a0) > cutoff:
                self.db.execute("INSERT OR REPLACE INTO conjrow (expr, n, fs, d) VALUES (?, ?, ?, ?)",
                                (expr, n, json.dumps(fs), length))  # fmt: skip

    def removed(self, n: int) -> None:
        self.db.execute("DELETE FROM conjrow WHERE n = ?", (n,))
