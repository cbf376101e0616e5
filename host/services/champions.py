"""Champion lists: the best rows of each frequent search term, so a word found in half the
pages is ranked without scoring every page (an impact-ordered tier; Manning, Raghavan &
Schütze, *Introduction to Information Retrieval*, §7.1.3).

A term is one FTS5 phrase: a word, a prefix (``arch*``), a phrase or a CJK word. It is
*frequent* once it matches at least ``MIN_ROWS`` rows; its list (made after the first
search that scored it in full) keeps the rows it matches (a bitmap, so a query needs no
FTS5 lookup of them) and the ``SIZE`` rows with the highest BM25 factor
``g = F·(k1+1) / (F + k1·(1 − b + b·D/avgdl))`` (F: the term's column-weighted count in
the row, D: the row's length in tokens), computed at the average length ``a0`` of the
day the list was made, and ``cutoff``: the highest ``g`` of any row left out. FTS5's
``bm25()`` of a one-term query is ``idf · g``, so the list ranks exactly as FTS5 would.

The guarantee: when the average length has since moved from ``a0`` to ``a``, a row left
out still scores at most ``cutoff / min(1, a0/a)`` (its length term scales by at least
that factor), so every document whose best listed row scores above ``idf`` times that
bound is in its exact place in the full ranking; :func:`ranked` returns only that
certified head, and the caller falls back to scoring every match when it needs more. A
new row enters a list when its ``g`` (at ``a0``) beats ``cutoff``; a deleted one leaves;
neither can break the bound. At most ``LISTS`` lists made after a search are kept (the
oldest goes), so what a capture costs stays bounded.

*Warm* lists (``warm``) are made ahead of any search for the archive's most frequent words,
short prefixes and word pairs (host/services/fulltext.py plans them from FTS5's
vocabularies); they are never dropped for a newer list, and a capture counts their terms in
the row from its tokens, read once (:meth:`Champions.added`), not one query each. A
warm list is read on a connection of its own (:func:`read`, a snapshot) and installed on
the store thread (:meth:`Champions.install`), after which the rows that came and went since
the snapshot are applied to it (:meth:`Champions.enter`, :meth:`Champions.leave`).

*Bands* (impact layers; Anh & Moffat, "Pruned query evaluation using pre-computed impacts",
SIGIR 2006): a word in at least ``BAND_ROWS`` rows also keeps, for each share ``s`` of
``BAND_SHARES``, the ``g`` (at ``a0``) that its best ``s·rows`` reach (the band's *edge*), and
the rows outside the list between that edge and the one before as a bitmap (stored beside the
term's own, as :func:`band_name`), so every row outside the list and bands 0 … j has ``g``
below edge j. A new row's band comes from its count, as its place in the list does.

>>> round(factor(3, 100, 100.0), 4)
1.5714
"""

from __future__ import annotations

import sqlite3
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from host.services.bm25 import K1, B, count_of, factor, idf

if TYPE_CHECKING:
    from host.services.pairs import RowTokens, Scratch

MIN_ROWS = 2000  # a term in at least this many rows gets a list (fewer are scored fast)
SIZE = 2000  # rows kept per list (the threshold algorithm, host/services/threshold.py, certifies
# from two lists of 1,000 rows fewer than 100 documents in 6 of 20 pairs of common words at 20k
# versions, tune half; of 2,000 rows at least 167 in each)
LISTS = 64  # lists made after a search, kept: a capture checks its row against each
PREFIX_CHARS = 4  # warm prefixes are at most this long (a capture sums its terms' prefixes)
BAND_ROWS = 8 * SIZE  # a word in at least this many rows gets bands (see Champions.banded):
# a query needs both words in WORDS_RATIO·SIZE·2 rows before host/services/threshold.py is tried
BAND_SHARES = (0.08, 0.16, 0.32, 0.64)  # band j's edge: the g its best share j of rows reach
# (100k versions, tune half: 100 documents of two common words alike certify at 0.04–0.08)
COLUMNS = ("title", "body", "url")
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS tier (n INTEGER PRIMARY KEY, term TEXT UNIQUE NOT NULL,"
    " cutoff REAL NOT NULL, a0 REAL NOT NULL, warm INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE IF NOT EXISTS champ (term TEXT NOT NULL, n INTEGER NOT NULL,"
    " f REAL NOT NULL, d INTEGER NOT NULL, PRIMARY KEY (term, n)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS champ_n ON champ(n)",
    "CREATE TABLE IF NOT EXISTS hitmap (term TEXT NOT NULL, chunk INTEGER NOT NULL,"
    " bits BLOB NOT NULL, PRIMARY KEY (term, chunk)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS hitmap_chunk ON hitmap(chunk)",
    "CREATE TABLE IF NOT EXISTS hitdelta (n INTEGER PRIMARY KEY, terms TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS band (term TEXT NOT NULL, j INTEGER NOT NULL, edge REAL NOT NULL,"
    " PRIMARY KEY (term, j)) WITHOUT ROWID",
)
CHUNK = 1 << 12  # rows per bitmap chunk (512 bytes)
FOLD_WRITES = 64  # bitmap chunks rewritten per fold step (~2 ms: a short store-thread pause)
PENDING_ROWS = 256  # rows whose bits wait in the delta, at most (a sync folds beyond)
_BITS = [tuple(b for b in range(8) if byte >> b & 1) for byte in range(256)]
_SPREAD = [bytes(byte >> b & 1 for b in range(8)) for byte in range(256)]  # bit i: byte i


def prefix_phrases(word: str) -> list[str]:
    """The FTS5 prefix queries a word counts toward: its first 1 to ``PREFIX_CHARS`` letters.

    >>> prefix_phrases("cats")
    ['"c" *', '"ca" *', '"cat" *', '"cats" *']
    """
    return [f'"{word[:size]}" *' for size in range(1, min(PREFIX_CHARS, len(word)) + 1)]


class Hits:
    """The rows a term matches, as a bitmap in chunks of ``CHUNK`` rows (bit ``n``: row ``n``).

    >>> hits = Hits({0: bytes([0b101])})
    >>> (len(hits), list(hits), 2 in hits, 1 in hits)
    (2, [0, 2], True, False)
    """

    def __init__(self, chunks: dict[int, bytes]) -> None:
        self.chunks = chunks

    def __contains__(self, n: int) -> bool:
        bits = self.chunks.get(n // CHUNK)
        i = n % CHUNK
        return bits is not None and i >> 3 < len(bits) and bool(bits[i >> 3] >> (i & 7) & 1)

    def __len__(self) -> int:
        return sum(int.from_bytes(bits, "little").bit_count() for bits in self.chunks.values())

    def mask(self, size: int) -> bytes:
        """Byte ``n`` is 1 when row ``n`` is set, 0 else, for rows 0 to ``size - 1``.

        >>> Hits({0: bytes([0b101])}).mask(4)
        b'\\x01\\x00\\x01\\x00'
        """
        empty = bytes(CHUNK)
        parts = [
            b"".join(map(_SPREAD.__getitem__, self.chunks[c])).ljust(CHUNK, b"\0")
            if c in self.chunks
            else empty
            for c in range(-(-size // CHUNK))
        ]
        return b"".join(parts)[:size]

    def __iter__(self):
        rows: list[int] = []
        for chunk, bits in sorted(self.chunks.items()):
            base = chunk * CHUNK
            rows += [base + 8 * i + b for i, byte in enumerate(bits) if byte for b in _BITS[byte]]
        return iter(rows)


def bitmap(rows: list[int]) -> dict[int, bytes]:
    """Rows as bitmap chunks (see :class:`Hits`)."""
    chunks: dict[int, bytearray] = {}
    for n in rows:
        bits = chunks.setdefault(n // CHUNK, bytearray(CHUNK // 8))
        bits[(n % CHUNK) >> 3] |= 1 << (n & 7)
    return {c: bytes(b) for c, b in chunks.items()}


@dataclass(frozen=True)
class Row:
    """A scored row of a one-word query: its rowid and ``bm25()`` (lower is better)."""

    n: int
    rank: float


def band_name(term: str, j: int) -> str:
    """The name band ``j`` of ``term`` has among the bitmaps (no term holds a tab).

    >>> band_name('"river"', 2)
    '"river"\\t2'
    """
    return f"{term}\t{j}"


@dataclass(frozen=True)
class Built:
    """A list as read from one snapshot of the index: its term, ``cutoff`` and ``a0``, the
    kept rows ``(n, F, D)``, every row the term matches (as bitmap chunks: made by the
    reader, off the store thread), and its bands, ``(edge, chunks)`` best first (none for a
    term that is not a word in ``BAND_ROWS`` rows)."""

    term: str
    cutoff: float
    a0: float
    kept: list[tuple[int, float, int]]
    matches: dict[int, bytes]
    bands: list[tuple[float, dict[int, bytes]]] = field(default_factory=list)


def read(
    db: sqlite3.Connection, term: str, weights: str, matches: list[int], source: tuple[str, str]
) -> Built:
    """The list of ``term`` (an FTS5 phrase matching the rows ``matches``) from FTS5's own
    ranking of it, on ``db`` (any connection: the caller holds one snapshot); ``source``:
    the table and expression that rank it (a phrase: its pairs, host/services/pairs.py)."""
    rows, avgdl = averages(db)
    weight = idf(rows, len(matches))
    table, expr = source
    sql = f"SELECT rowid, bm25({table}, {weights}) AS r FROM {table} WHERE {table} MATCH ?"
    banded = table == "docs" and not term.endswith("*") and len(matches) >= BAND_ROWS
    if banded:  # every match, best first
        top = sorted(db.execute(sql, (expr,)).fetchall(), key=lambda r: r[1])
    else:
        top = db.execute(sql + " ORDER BY r LIMIT ?", (expr, SIZE + 1)).fetchall()
    kept = []
    for n, rank in top[:SIZE]:
        d = row_length(db, n, "docs")
        kept.append((n, count_of(-rank / weight, K1 * (1 - B + B * d / avgdl)), d))
    cutoff = -top[SIZE][1] / weight if len(top) > SIZE else 0.0
    found = [(edge, bitmap(rows)) for edge, rows in bands(top, weight)] if banded else []
    return Built(term, cutoff, avgdl, kept, bitmap(matches), found)


def bands(top: list[tuple[int, float]], weight: float) -> list[tuple[float, list[int]]]:
    """The bands of a term from every row it matches, ``(n, bm25)`` best first (its IDF
    ``weight``): band j's edge is the ``g`` of the row at depth ``BAND_SHARES[j]`` of them
    (the list's cutoff when the list is deeper), its rows those after the list and the
    bands before it whose ``g`` reaches the edge.

    >>> found = bands([(n, -1.0 - 1 / (n + 1)) for n in range(SIZE * 20)], 1.0)
    >>> [len(rows) for _edge, rows in found], found[0][0] > found[1][0]
    ([1201, 3200, 6400, 12800], True)
    """
    found, i = [], SIZE
    for share in BAND_SHARES:
        edge = -top[max(SIZE, int(share * len(top)))][1] / weight
        rows = []
        while i < len(top) and -top[i][1] / weight >= edge:
            rows.append(top[i][0])
            i += 1
        found.append((edge, rows))
    return found


def _varints(blob: bytes) -> list[int]:
    """SQLite's 1–9 byte big-endian varints (FTS5's docsize and averages records)."""
    out, value, i = [], 0, 0
    while i < len(blob):
        byte = blob[i]
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            out.append(value)
            value = 0
        i += 1
    return out


def averages(db: sqlite3.Connection) -> tuple[int, float]:
    """The index's row count and average row length, as ``bm25()`` reads them."""
    found = db.execute("SELECT block FROM docs_data WHERE id = 1").fetchone()
    numbers = _varints(found[0]) if found and found[0] else [0]
    rows = numbers[0]
    return rows, (sum(numbers[1:]) / rows if rows else 1.0)


def row_length(db: sqlite3.Connection, n: int, table: str) -> int:
    """A row's length in tokens, from FTS5's docsize record."""
    return sum(column_lengths(db, n, table))


def column_lengths(db: sqlite3.Connection, n: int, table: str = "docs") -> list[int]:
    """A row's length in tokens per column (FTS5's docsize record); [] for no row."""
    found = db.execute(f"SELECT sz FROM {table}_docsize WHERE id = ?", (n,)).fetchone()
    return _varints(found[0]) if found else []


class Champions:
    """The lists of one index (its connection; the caller holds the index's lock)."""

    def __init__(
        self, db: sqlite3.Connection, weights: tuple[float, ...], scratch: Scratch
    ) -> None:
        self.db, self.weights, self.scratch = db, weights, scratch
        for statement in SCHEMA:
            db.execute(statement)
        rows = db.execute("SELECT term, cutoff, a0, warm FROM tier ORDER BY n").fetchall()
        self.tiers = {t: (c, a) for t, c, a, _w in rows}
        self.warm = {t for t, _c, _a, w in rows if w}
        self.bands: dict[str, list[float]] = {}  # term -> its bands' edges, best first
        for term, edge in db.execute("SELECT term, edge FROM band ORDER BY term, j"):
            self.bands.setdefault(term, []).append(edge)
        self.band_terms = {n: t for t in self.bands for n in self._band_names(t)}  # name -> term
        mapped = {t for (t,) in db.execute("SELECT DISTINCT term FROM hitmap")}
        for term in [t for t in self.tiers if t not in mapped]:  # made before hit bitmaps
            self.drop(term)
        self._pairs_of: set[str] = set()  # the warm terms self._pairs was made from
        self._pairs: dict[tuple[str, str], str] = {}
        self.load_delta()

    def load_delta(self) -> None:
        """The bits set since the last :meth:`fold`, as the file holds them (``hitdelta``:
        one row per row number, the terms whose bitmap lacks its bit)."""
        self.pending: dict[int, list[str]] = {}
        self.delta: dict[str, set[int]] = defaultdict(set)  # term -> its rows in no chunk yet
        for n, terms in self.db.execute("SELECT n, terms FROM hitdelta"):
            self.pending[n] = terms.split("\n")
            for term in self.pending[n]:
                self.delta[term].add(n)

    def clear(self) -> None:
        for table in ("champ", "tier", "hitmap", "hitdelta", "band"):
            self.db.execute(f"DELETE FROM {table}")
        self.tiers, self.warm, self.bands, self.band_terms = {}, set(), {}, {}
        self.pending, self.delta = {}, defaultdict(set)

    def hits(self, term: str) -> Hits | None:
        """The rows ``term`` matches, kept beside its list (None: no list), so a query
        needs no FTS5 lookup of them (a broad prefix or a frequent phrase costs FTS5 a
        merge of many doclists or positions): its bitmap's chunks and the rows of the
        delta that no :meth:`fold` has set in them yet."""
        return self._bitmap(term) if term in self.tiers else None

    def banded(self, term: str, avgdl: float) -> list[tuple[Hits, float]] | None:
        """The bands of ``term`` (None: it has none), best first: each one's rows and its edge
        at the average length ``avgdl`` (as the list's cutoff: :meth:`listed`), so every row
        of the term outside its list and bands 0 … j has ``g`` at most edge j."""
        edges = self.bands.get(term)
        if not edges or term not in self.tiers:
            return None
        scale = min(1.0, self.tiers[term][1] / avgdl)
        return [(self._bitmap(band_name(term, j)), e / scale) for j, e in enumerate(edges)]

    def _bitmap(self, name: str) -> Hits:
        """The bitmap ``name`` (a term's, or a band's) with the delta's rows set in it."""
        found = self.db.execute("SELECT chunk, bits FROM hitmap WHERE term = ?", (name,))
        chunks = dict(found.fetchall())
        late: dict[int, bytearray] = {}
        for n in self.delta.get(name, ()):
            c = n // CHUNK
            if c not in late:
                late[c] = bytearray(chunks.get(c, bytes(CHUNK // 8)))
            late[c][(n % CHUNK) >> 3] |= 1 << (n & 7)
        return Hits(chunks | {c: bytes(b) for c, b in late.items()})

    def build(self, term: str, matches: list[int], source: tuple[str, str]) -> None:
        """Make the list of ``term`` (an FTS5 phrase, matching the rows ``matches``) from
        FTS5's own ranking of it (``source``: see :func:`read`)."""
        self.install(read(self.db, term, self._weights, matches, source))

    def install(self, built: Built, warm: bool = False) -> None:
        """Store a list read by :func:`read` (``warm``: made ahead, never dropped for a newer
        one); the oldest list made after a search goes beyond ``LISTS``."""
        term = built.term
        self._drop_bands(term)
        self.db.execute("DELETE FROM champ WHERE term = ?", (term,))
        self.db.executemany("INSERT INTO champ (term, n, f, d) VALUES (?, ?, ?, ?)",
                            [(term, n, f, d) for n, f, d in built.kept])  # fmt: skip
        self.db.execute("INSERT OR REPLACE INTO tier (term, cutoff, a0, warm) VALUES (?, ?, ?, ?)",
                        (term, built.cutoff, built.a0, int(warm)))  # fmt: skip
        self.db.execute("DELETE FROM hitmap WHERE term = ?", (term,))
        self.db.executemany("INSERT INTO hitmap (term, chunk, bits) VALUES (?, ?, ?)",
                            [(term, c, b) for c, b in built.matches.items()])  # fmt: skip
        for j, (edge, chunks) in enumerate(built.bands):
            self.db.execute("INSERT INTO band (term, j, edge) VALUES (?, ?, ?)", (term, j, edge))
            self.db.executemany("INSERT INTO hitmap (term, chunk, bits) VALUES (?, ?, ?)",
                                [(band_name(term, j), c, b) for c, b in chunks.items()])  # fmt: skip
            self.bands.setdefault(term, []).append(edge)
            self.band_terms[band_name(term, j)] = term
        self.tiers.pop(term, None)
        self.tiers[term] = (built.cutoff, built.a0)
        self.warm.discard(term)
        if warm:
            self.warm.add(term)
        searched = [t for t in self.tiers if t not in self.warm]
        for old in searched[: max(0, len(searched) - LISTS)]:
            self.drop(old)

    def drop(self, term: str) -> None:
        """Forget the list of ``term`` (the delta's mentions of it stay: each is true of
        its row while the row lives, and a fold skips terms with no list)."""
        for table in ("champ", "tier", "hitmap"):
            self.db.execute(f"DELETE FROM {table} WHERE term = ?", (term,))
        self._drop_bands(term)
        self.tiers.pop(term, None)
        self.warm.discard(term)
        self.delta.pop(term, None)

    def _drop_bands(self, term: str) -> None:
        for name in self._band_names(term):
            self.db.execute("DELETE FROM hitmap WHERE term = ?", (name,))
            self.delta.pop(name, None)
            del self.band_terms[name]
        self.db.execute("DELETE FROM band WHERE term = ?", (term,))
        self.bands.pop(term, None)

    def _band_names(self, term: str) -> list[str]:
        return [band_name(term, j) for j in range(len(self.bands.get(term, ())))]

    def _band_of(self, term: str, f: float, length: int) -> list[str]:
        """The band of a row that holds ``term`` ``f`` times (column-weighted) and is
        ``length`` tokens long, as ``[its name]`` ([]: no band, or the term has none): the
        first whose edge its ``g`` at the list's ``a0`` reaches."""
        edges = self.bands.get(term)
        if not f or not edges:
            return []
        g = factor(f, length, self.tiers[term][1])
        return [band_name(term, j) for j, edge in enumerate(edges) if g >= edge][:1]

    def ranked(self, term: str, hits: int, matching) -> tuple[list[Row], float] | None:
        """The listed rows that ``matching`` accepts, scored as ``bm25()`` would, best first,
        and the score (as ``bm25()``, negative) every row left out is at least; None when
        ``term`` has no list."""
        tier = self.tiers.get(term)
        if tier is None:
            return None
        cutoff, a0 = tier
        rows, avgdl = averages(self.db)
        weight = idf(rows, hits)
        listed = self.db.execute("SELECT n, f, d FROM champ WHERE term = ?", (term,))
        scored = [
            Row(n, -1.0 * (weight * factor(f, d, avgdl))) for n, f, d in listed if matching(n)
        ]
        scored.sort(key=lambda r: r.rank)
        return scored, -weight * cutoff / min(1.0, a0 / avgdl)

    def listed(self, term: str, avgdl: float) -> tuple[dict[int, tuple[float, int]], float]:
        """The listed rows of ``term`` (it has a list), ``n → (F, D)``, and the most the
        factor ``g`` of any row left out can be at the average length ``avgdl``."""
        cutoff, a0 = self.tiers[term]
        found = self.db.execute("SELECT n, f, d FROM champ WHERE term = ?", (term,))
        return {n: (f, d) for n, f, d in found}, cutoff / min(1.0, a0 / avgdl)

    def listed_rows(self, term: str) -> list[int]:
        """The rows the list of ``term`` holds."""
        return [n for (n,) in self.db.execute("SELECT n FROM champ WHERE term = ?", (term,))]

    # -- keeping the lists current as rows come and go ---------------------------------------
    def added(self, n: int, row: RowTokens) -> dict[str, float]:
        """Enter row ``n`` (its tokens ``row``, in the scratch table while this runs) in the
        lists of the frequent terms it holds, where it beats the cutoff; its count of each
        listed term. The counts of warm terms come from its tokens (:meth:`_row_counts`), of
        others from FTS5 itself (``bm25()`` of the row alone, :meth:`Scratch.count`)."""
        counts: dict[str, float] = {}
        if not self.tiers:
            return counts
        words = self._row_counts(row) if self.warm else {}
        for term, (cutoff, a0) in self.tiers.items():
            f = words.get(term, 0.0) if term in self.warm else self.scratch.count(term)
            counts[term] = f
            self._enter(term, n, f, row.length, cutoff, a0)
        marks = [t for t, f in counts.items() if f]
        for term in [t for t in marks if t in self.bands]:
            marks += self._band_of(term, counts[term], row.length)
        self._pend(n, marks)
        return counts

    def _row_counts(self, row: RowTokens) -> dict[str, float]:
        """The row's column-weighted count of each of its words (``"word"``), of each prefix
        of them up to ``PREFIX_CHARS`` characters (``"pre" *``: FTS5 counts every token that
        starts with it) and of each pair of adjacent words that has a warm list (``"a b"``:
        a phrase's count)."""
        words: dict[str, float] = defaultdict(float)
        pairs: dict[tuple[str, str], float] = defaultdict(float)
        for weight, tokens in zip(self.weights, row.columns, strict=True):
            for term, cnt in Counter(tokens).items():
                words[term] += weight * cnt
            for pair, cnt in Counter(zip(tokens, tokens[1:], strict=False)).items():
                pairs[pair] += weight * cnt
        counts: dict[str, float] = defaultdict(float)
        for term, f in words.items():
            counts[f'"{term}"'] += f
            for prefix in prefix_phrases(term):
                counts[prefix] += f
        for pair, phrase in self._warm_pairs().items():
            if pair in pairs:
                counts[phrase] = pairs[pair]
        return counts

    def _warm_pairs(self) -> dict[tuple[str, str], str]:
        """The warm phrases of two words, by their words (made again when the lists change)."""
        if self._pairs_of != self.warm:
            self._pairs_of = set(self.warm)
            words = {t: t.strip('"').split(" ") for t in self.warm if not t.endswith("*")}
            self._pairs = {(w[0], w[1]): t for t, w in words.items() if len(w) == 2}
        return self._pairs

    def _enter(self, term: str, n: int, f: float, length: int, cutoff: float, a0: float) -> None:
        """Row ``n`` holds ``term`` ``f`` times (column-weighted): its place in the list when
        its factor at ``a0`` beats the cutoff (its bit: the caller, :meth:`_pend`)."""
        if f and factor(f, length, a0) > cutoff:
            self.db.execute(
                "INSERT OR REPLACE INTO champ (term, n, f, d) VALUES (?, ?, ?, ?)",
                (term, n, f, length),
            )

    def enter(self, term: str, n: int, title: str, body: str, url: str) -> None:
        """Apply to the list of ``term`` a row added after the snapshot it was read from."""
        cutoff, a0 = self.tiers[term]
        with self.scratch.row(title, body, url) as row:
            f = self.scratch.count(term)
            self._enter(term, n, f, row.length, cutoff, a0)
        if f:
            self._pend(n, [term, *self._band_of(term, f, row.length)])

    def leave(self, term: str, n: int) -> None:
        """Apply to the list of ``term`` a row that left FTS5 after its snapshot."""
        self.db.execute("DELETE FROM champ WHERE term = ? AND n = ?", (term, n))
        for name in [term, *self._band_names(term)]:
            self._unpend(n, name)
            self._unmark(name, n)

    def removed(self, n: int) -> None:
        """Row ``n`` left FTS5: out of every list and bitmap (its number may come again)."""
        self.db.execute("DELETE FROM champ WHERE n = ?", (n,))
        self._unpend(n)
        byte, mask = (n % CHUNK) >> 3, 1 << (n & 7)
        chunks = self.db.execute("SELECT term, bits FROM hitmap WHERE chunk = ?", (n // CHUNK,))
        for term in [t for t, bits in chunks.fetchall() if byte < len(bits) and bits[byte] & mask]:
            self._unmark(term, n)  # one read of the row's chunk of every list, not one each

    # -- the delta: a capture's bits, set in the bitmaps later ------------------------------
    def _pend(self, n: int, terms: list[str]) -> None:
        """Row ``n`` holds ``terms``: one row of ``hitdelta`` in the capture's transaction
        (a crash loses both or neither), not a read and a rewrite of one bitmap chunk per
        term (a real page holds ~365 warm terms: ~5 ms); :meth:`hits` adds them."""
        known = self.pending.get(n, [])
        terms = known + [t for t in terms if t not in known]
        if terms == known:
            return
        self.db.execute("INSERT OR REPLACE INTO hitdelta (n, terms) VALUES (?, ?)",
                        (n, "\n".join(terms)))  # fmt: skip
        self.pending[n] = terms
        for term in terms:
            self.delta[term].add(n)

    def _unpend(self, n: int, term: str | None = None) -> None:
        """Row ``n`` (only its bit of ``term``, when given) out of the delta."""
        terms = self.pending.get(n, [])
        if not terms or term is not None and term not in terms:
            return
        for t in terms if term is None else [term]:
            self.delta.get(t, set()).discard(n)
        left = [t for t in terms if term is not None and t != term]
        del self.pending[n]
        if left:
            self._pend(n, left)
        else:
            self.db.execute("DELETE FROM hitdelta WHERE n = ?", (n,))

    def fold(self) -> bool:
        """Set the delta's oldest bits in the bitmaps, rewriting at most ``FOLD_WRITES``
        chunks (each chunk of a term once, whatever rows it takes; a row's terms left over
        wait for the next step), in the caller's transaction; True once the delta is empty.
        """
        todo: dict[tuple[str, int], list[int]] = defaultdict(list)
        taken: dict[int, set[str]] = defaultdict(set)
        for n in sorted(self.pending):
            for term in self.pending[n]:
                if term not in self.tiers and term not in self.band_terms:  # its list went
                    taken[n].add(term)
                    continue
                key = (term, n // CHUNK)
                if key not in todo and len(todo) >= FOLD_WRITES:
                    break
                todo[key].append(n)
                taken[n].add(term)
            else:
                continue
            break
        for (term, chunk), ns in todo.items():
            self._set(term, chunk, ns)
        for n, terms in taken.items():
            left = [t for t in self.pending[n] if t not in terms]
            self._unpend(n)
            self._pend(n, left)
        return not self.pending

    def _set(self, term: str, chunk: int, rows: list[int]) -> None:
        found = self.db.execute(
            "SELECT bits FROM hitmap WHERE term = ? AND chunk = ?", (term, chunk)
        ).fetchone()
        bits = bytearray(found[0] if found else CHUNK // 8)
        for n in rows:
            bits[(n % CHUNK) >> 3] |= 1 << (n & 7)
        self.db.execute("INSERT OR REPLACE INTO hitmap (term, chunk, bits) VALUES (?, ?, ?)",
                        (term, chunk, bytes(bits)))  # fmt: skip

    def _unmark(self, term: str, n: int) -> None:
        """Clear row ``n``'s bit in the bitmap of ``term``."""
        found = self.db.execute(
            "SELECT bits FROM hitmap WHERE term = ? AND chunk = ?", (term, n // CHUNK)
        ).fetchone()
        byte, mask = (n % CHUNK) >> 3, 1 << (n & 7)
        if found is None or not found[0][byte] & mask:
            return
        bits = bytearray(found[0])
        bits[byte] ^= mask
        self.db.execute("INSERT OR REPLACE INTO hitmap (term, chunk, bits) VALUES (?, ?, ?)",
                        (term, n // CHUNK, bytes(bits)))  # fmt: skip

    @property
    def _weights(self) -> str:
        return ", ".join(map(str, self.weights))
