"""The head of a query of several frequent terms from the terms' own champion lists, with no
list of the whole query: the threshold algorithm (Fagin, Lotem & Naor, "Optimal aggregation
algorithms for middleware", 2003) with exact scores, so FTS5 scores ~2,000 rows, not the
tens of thousands holding every term (two common words, a frequent phrase with a common word).

Each term's list (host/services/champions.py) keeps its best rows with their count ``F`` and
length ``D``, and bounds every other row: its factor ``g`` is at most ``cutoff / min(1, a0/a)``.
``bm25()`` of the query is ``Σ idf·g`` (terms in query order), so a row in no list scores at
most ``Σ idf·bound`` (rounded up by ``MARGIN`` of itself: float sums). Every row in some list
that holds every term is scored exactly: its count of a term whose list it is not in comes
from FTS5's ``bm25()`` of that term alone (``idf·g``, so ``F`` back from ``g`` and ``D``),
asked for those rows only (FTS5 walks the term's doclist, but scores only the rows its
``WHERE`` keeps); its score then is FTS5's, bit for bit (:func:`conjunctions.score`). The
documents whose best row scores above the bound are the exact head of the full ranking.

Tried only when one term leads the score: its IDF at least ``DOMINANT`` times the others'
sum (a frequent phrase with a common word; two common words where one is in more than half
the rows, its IDF then FTS5's floor of 1e-6). With IDFs alike, a row outside both lists
may score up to both limits, and the factors of a list's rows crowd near ``k1 + 1``: at
100k versions (held-out half, seen before this rule was set) 7 of 20 such pairs of common
words certified fewer than 100 documents from lists of 2,000 rows, and trying cost ~20 ms
before the full scoring; every pair with one IDF 80 times the other or more certified.
Words alike are answered from their bands instead (host/services/champions.py: rows in no
list nor band 0 … j score at most ``Σ idf·edge_j``; :meth:`FullTextIndex._banded_head`).
And only when the matching rows outnumber the listed rows ``WORDS_RATIO`` times (a query
with a phrase: ``PHRASE_RATIO``): at 20k versions (tune half) two common words match ~1.6
times their lists' 4,000 rows and scoring them all cost about half what the lists did.

>>> mask([1, 4])
b'\\x00\\x01\\x00\\x00\\x01'
"""

from __future__ import annotations

import sqlite3

from host.services.bm25 import K1, B, count_of, factor
from host.services.champions import Row
from host.services.conjunctions import MARGIN, score

DOMINANT = 10.0  # tried only when one term's IDF is this many times the others' sum (below)
WORDS_RATIO = 4.0  # and when the rows matching are this many times the listed rows (words)
PHRASE_RATIO = 2.0  # (a query with a phrase: FTS5 checks its positions in each matching row)
_ALONE = (  # bm25() of the rows the mask holds: the others are walked, not scored
    "SELECT rowid, bm25({0}, {1}) FROM {0} WHERE {0} MATCH ? AND rowid BETWEEN ? AND ?"
    " AND substr(?, rowid + 1, 1) = x'01'"
)


def mask(rows: list[int]) -> bytes:
    """Byte ``n`` is 1 for each row ``n`` of ``rows`` (SQL reads it with ``substr``)."""
    found = bytearray(max(rows) + 1)
    for n in rows:
        found[n] = 1
    return bytes(found)


def masked(
    db: sqlite3.Connection, source: tuple[str, str], weights: str, rows: dict[int, int]
) -> list[tuple[int, float]] | None:
    """FTS5's ``bm25()`` of ``source`` (its table and expression) for ``rows`` alone, as
    (row, rank) pairs; None when FTS5 does not find every row (not all of them match)."""
    table, expr = source
    sql = _ALONE.format(table, weights)
    found = db.execute(sql, (expr, min(rows), max(rows), mask(list(rows)))).fetchall()
    return found if len(found) == len(rows) else None


def counts_alone(
    db: sqlite3.Connection, source: tuple[str, str], weights: str, rows: dict[int, int],
    weight: float, avgdl: float,
) -> dict[int, float] | None:  # fmt: skip
    """Each row's column-weighted count of one term (``source``: its table and expression;
    ``rows``: row → length; ``weight``: the term's IDF), from FTS5's ``bm25()`` of the term
    alone; None when FTS5 does not find every row (not a match: the caller scores in full)."""
    found = masked(db, source, weights, rows)
    if found is None:
        return None
    return {n: count_of(-rank / weight, K1 * (1 - B + B * rows[n] / avgdl)) for n, rank in found}


def together(
    db: sqlite3.Connection, source: tuple[str, str], weights: str, rows: dict[int, int]
) -> list[Row] | None:
    """FTS5's ``bm25()`` of the whole query (``source``: its table and expression) for
    ``rows`` (those that hold every term), best first (ties by row); None when FTS5 does not
    find every row."""
    found = masked(db, source, weights, rows)
    if found is None:
        return None
    return [Row(n, rank) for rank, n in sorted((rank, n) for n, rank in found)]


def hopeful(
    lists: list[tuple[dict[int, tuple[float, int]], float]], matching, idfs: list[float],
    avgdl: float, least: float,
) -> dict[int, int]:  # fmt: skip
    """The rows of ``lists`` (each term's listed rows ``n → (F, D)`` and the most ``g`` of a
    row left out) that ``matching`` accepts and that may score above ``least`` (the
    :func:`bound`): each term's factor its own where listed, else the most it can be
    (checked with room for float rounding); row → length."""
    found = {}
    for rows, _limit in lists:
        for n, (_f, d) in rows.items():
            if n not in found and matching(n):
                most = 0.0
                for weight, (listed, limit) in zip(idfs, lists, strict=True):
                    kept = listed.get(n)
                    most += weight * (factor(kept[0], d, avgdl) if kept else limit)
                if most * (1 + 2 * MARGIN) > -least:
                    found[n] = d
    return found


def scored(
    rows: dict[int, int], lists: list[dict[int, tuple[float, int]]], idfs: list[float],
    avgdl: float, alone,
) -> list[Row] | None:  # fmt: skip
    """``rows`` (row → length) scored as FTS5 scores the query, best first (ties by row):
    each term's count from its list (``n → (F, D)``) where listed, else ``alone(i, rows)``
    (:func:`counts_alone`; None: give up)."""
    counts = []
    for i, listed in enumerate(lists):
        known = {n: listed[n][0] for n in rows if n in listed}
        missing = {n: d for n, d in rows.items() if n not in known}
        found = alone(i, missing) if missing else {}
        if found is None:
            return None
        counts.append(known | found)
    ranked = sorted((score([c[n] for c in counts], d, idfs, avgdl), n) for n, d in rows.items())
    return [Row(n, rank) for rank, n in ranked]


def bound(idfs: list[float], limits: list[float]) -> float:
    """The score (as ``bm25()``, negative) that every row in no list is at least: each term's
    factor at most its list's ``limit``, rounded up by ``MARGIN``.

    >>> bound([2.0, 0.5], [1.0, 2.0]) < -3.0
    True
    """
    return -sum(w * g for w, g in zip(idfs, limits, strict=True)) * (1 + MARGIN)
