"""Whether two stored pages are the same page, and whether a URL rule's pairs all are.

Both URL learners (DUST substitutions, engine/archive/dust.py, and query parameters,
engine/archive/param_rules.py) merge documents only on this judgement:

- **Same page.** The main texts' word shingles resemble at ``same_content`` AND their
  lines come in the same order at ``same_order`` (rapidfuzz Indel over the lines): a
  list sorted the other way has the same words, and a page showing a fifth more
  paragraphs keeps ~0.85 of its shingles, so shingles alone would merge both. Pages
  without text compare by fingerprint (``same_structure``). Figures:
  tests/bench/bench_same_page.py.
- **Never on a guess.** A rule holds when at least ``min_pairs`` of its compared pairs
  show the same page and NONE shows another page; pairs that cannot be compared (no
  text, no fingerprint) count for nothing.

>>> page = {"a": ("one two three four\\nfive six", ""), "b": ("one two three four\\nfive six", ""),
...         "c": ("five six\\none two three four", ""), "d": ("one two three four\\nfive six", "")}
>>> judge = SamePage(page.__getitem__)
>>> judge.same("a", "b"), judge.same("a", "c")
(True, False)
>>> judge.holds([("a", "b"), ("a", "d")]), judge.holds([("a", "b"), ("a", "d"), ("b", "c")])
(2, 0)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from rapidfuzz.distance import Indel

from engine.html.similarity import shingle_similarity, shingles, similarity

# A URL -> (main text, fingerprint) of its stored page; empty strings when none is stored.
PageLookup = Callable[[str], tuple[str, str]]


@dataclass(frozen=True)
class SamePageOptions:
    """Bars of the "same page" judgement (see the module doc)."""

    same_content: float = 0.85
    same_order: float = 0.95
    same_structure: float = 0.95
    min_pairs: int = 2


class SamePage:
    """Same page or not, for URL pairs, from their stored content (each page read once,
    each pair compared once; ``compared`` counts the pairs compared).
    """

    def __init__(self, content: PageLookup, options: SamePageOptions | None = None) -> None:
        self.content, self.options = content, options or SamePageOptions()
        self.compared = 0
        self._features: dict[str, tuple[set, list[str], str]] = {}
        self._verdicts: dict[tuple[str, str], bool | None] = {}

    def same(self, url_a: str, url_b: str) -> bool | None:
        """True/False, or None when either page has neither text nor fingerprint."""
        key = (url_a, url_b) if url_a <= url_b else (url_b, url_a)
        if key not in self._verdicts:
            self.compared += 1
            self._verdicts[key] = self._judge(*key)
        return self._verdicts[key]

    def holds(self, pairs: Iterable[tuple[str, str]]) -> int:
        """How many pairs show the same page; 0 when one does not or fewer than
        ``min_pairs`` could be compared (stops at the first pair that differs)."""
        same = 0
        for url_a, url_b in pairs:
            verdict = self.same(url_a, url_b)
            if verdict is False:
                return 0
            same += verdict is True
        return same if same >= self.options.min_pairs else 0

    def _judge(self, url_a: str, url_b: str) -> bool | None:
        (sh_a, lines_a, fp_a), (sh_b, lines_b, fp_b) = self._of(url_a), self._of(url_b)
        options = self.options
        if sh_a and sh_b:
            resemble = shingle_similarity(sh_a, sh_b) >= options.same_content
            return resemble and Indel.normalized_similarity(lines_a, lines_b) >= options.same_order
        if fp_a and fp_b:
            return similarity(fp_a, fp_b) >= options.same_structure
        return None

    def _of(self, url: str) -> tuple[set, list[str], str]:
        if url not in self._features:
            text, fp = self.content(url)
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            self._features[url] = (shingles(text), lines, fp)
        return self._features[url]


def spread(items: list, count: int) -> list:
    """Up to ``count`` items spread evenly over the list (deterministic sampling).

    >>> spread(list(range(10)), 3)
    [0, 3, 6]
    """
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[int(k * step)] for k in range(count)]
