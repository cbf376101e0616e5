"""Word pairs: the full-text index's second FTS5 table, ``pairs``, in which each token of a row
is written joined to the next one, so a phrase is looked up as one term (or a phrase of fewer,
far rarer terms) instead of FTS5 checking the positions of two long doclists row by row.

The rule: a column of k tokens t0 … tk-1 is written as the k pair tokens ``ti_ti+1`` (the
last one ``tk-1_``). Pair i sits at token i's position and each column keeps its length, so
``pairs`` holds the same rows, column sizes and totals as ``docs``, and ``bm25()`` of
``"a_b b_c"`` on ``pairs`` is bit for bit ``bm25()`` of the phrase ``"a b c"`` on ``docs``
(the same hits per column, row length, average length, row count and matching rows).

The tokens are FTS5's own: the row (or a phrase) put in a one-row table of ``docs``'s
tokenizer (:class:`Scratch`) and read back from its ``instance`` vocabulary. ``unicode61``
never keeps ``_`` in a token (a separator to it), and ``pairs``'s ``ascii`` tokenizer, with
``_`` as a token character, splits only at the other ASCII characters that are neither
letters nor digits, which a ``unicode61`` token never holds: so a pair token is read back
whole.

>>> pair_column(["lower", "meadow", "is"])
'lower_meadow meadow_is is_'
>>> scratch = Scratch("4.0, 1.0, 2.0")
>>> pair_expr(scratch, '"Lower Méadow"'), pair_expr(scratch, '"meadow"')
('"lower_meadow"', None)
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from host.services.bm25 import K1, count_of

TOKENIZER = "unicode61 remove_diacritics 2"  # docs's tokenizer
SCHEMA = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS pairs USING fts5("
    "title, body, url, content='', tokenize=\"ascii tokenchars '_'\")"
)
COLUMNS = ("title", "body", "url")


def pair_column(tokens: list[str]) -> str:
    """One column's pair tokens, one per token (see the module's rule)."""
    return " ".join(f"{a}_{b}" for a, b in zip(tokens, [*tokens[1:], ""], strict=False))


def pair_expr(scratch: Scratch, term: str) -> str | None:
    """The ``pairs`` expression of an FTS5 phrase term (``"a b c"``, ``"a b" *``) of two
    tokens or more, or None (one token: a word, found in ``docs``)."""
    prefix = term.endswith(" *")
    tokens = scratch.tokens(term.removesuffix(" *").strip('"'))
    if len(tokens) < 2:
        return None
    pairs = [f"{a}_{b}" for a, b in zip(tokens, tokens[1:], strict=False)]
    return f'"{" ".join(pairs)}"' + (" *" if prefix else "")


def pair_key(pair: str) -> str | None:
    """The ``docs`` phrase a pair token answers (``of_the`` → ``"of the"``), None for a
    column's last token (``the_``)."""
    first, _, second = pair.partition("_")
    return f'"{first} {second}"' if second else None


@dataclass
class RowTokens:
    """A row's tokens per column, in order, as FTS5 made them."""

    columns: tuple[list[str], ...]

    @cached_property
    def length(self) -> int:
        """The row's length in tokens, as FTS5's docsize record holds it."""
        return sum(map(len, self.columns))

    def pairs(self) -> tuple[str, ...]:
        """The row's values in ``pairs``."""
        return tuple(map(pair_column, self.columns))


class Scratch:
    """A one-row FTS5 table in memory, of ``docs``'s tokenizer, on a connection of its own (any
    thread, one at a time): a row's tokens, and its count of a term as FTS5 counts it.

    >>> with Scratch("4.0, 1.0, 2.0").row("Rivers", "the river rose", "") as row:
    ...     row.columns, row.length
    ((['rivers'], ['the', 'river', 'rose'], []), 4)
    """

    def __init__(self, weights: str) -> None:
        self.db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self.db.execute(
            f"CREATE VIRTUAL TABLE one USING fts5(title, body, url, tokenize='{TOKENIZER}')"
        )
        self.db.execute("CREATE VIRTUAL TABLE temp.tokens USING fts5vocab(main, one, instance)")
        self.lock = threading.Lock()
        self.weights = weights

    @contextlib.contextmanager
    def row(self, title: str, body: str, url: str) -> Iterator[RowTokens]:
        """The row alone in the table while the block runs (:meth:`count` reads it)."""
        with self.lock:
            self.db.execute("INSERT INTO one (rowid, title, body, url) VALUES (1, ?, ?, ?)",
                            (title, body, url))  # fmt: skip
            try:
                yield self._tokens()
            finally:
                self.db.execute("DELETE FROM one")

    def _tokens(self) -> RowTokens:
        found: dict[str, list[tuple[int, str]]] = {c: [] for c in COLUMNS}
        for term, column, offset in self.db.execute("SELECT term, col, offset FROM temp.tokens"):
            found[column].append((offset, term))
        return RowTokens(tuple([t for _o, t in sorted(found[c])] for c in COLUMNS))

    def tokens(self, text: str) -> list[str]:
        """FTS5's tokens of ``text``, in order."""
        with self.row("", text, "") as row:
            return row.columns[1]

    def count(self, term: str) -> float:
        """The row's column-weighted count of ``term`` (an FTS5 phrase), from its ``bm25()``,
        which is ``1e-6 · F·(k1+1)/(F + k1)`` for one row (its own average length); inside
        :meth:`row`."""
        found = self.db.execute(
            f"SELECT bm25(one, {self.weights}) FROM one WHERE one MATCH ?", (term,)
        ).fetchone()
        return count_of(-found[0] / 1e-6, K1) if found else 0.0
