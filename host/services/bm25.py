"""FTS5's ``bm25()`` in pieces, in its own order of operations (ext/fts5/fts5_aux.c), so the
full-text index's lists (host/services/champions.py), conjunctions and word pairs
(host/services/pairs.py) compute bit for bit what FTS5 would.

>>> round(factor(2.0, 10, 10.0), 6), idf(100, 100), count_of(factor(3.0, 1, 1.0), K1)
(1.375, 1e-06, 3.0)
"""

from __future__ import annotations

import math

K1, B = 1.2, 0.75  # FTS5's bm25() constants (ext/fts5/fts5_aux.c)


def factor(f: float, d: int, avgdl: float) -> float:
    """The single-word BM25 factor ``g``, in FTS5's order of operations (bit-identical)."""
    return (f * (K1 + 1.0)) / (f + K1 * (1 - B + B * d / avgdl))


def idf(rows: int, hits: int) -> float:
    """FTS5's IDF: ``log((N − n + 0.5) / (n + 0.5))``, at least 1e-6."""
    value = math.log((rows - hits + 0.5) / (hits + 0.5))
    return value if value > 0.0 else 1e-6


def count_of(g: float, k: float) -> float:
    """F back from ``g`` and the length term ``k``: a sum of integer column weights, so
    rounded (exact to ~1e-10)."""
    return float(round(g * k / (K1 + 1.0 - g)))
