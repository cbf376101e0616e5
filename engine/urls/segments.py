"""Step 6 (the URL-rewriting method's "ALL" analysis): repair a domain segment by segment.

The domain name is cut into segments; a segment that is not linguistically
acceptable (not a word of the lexicon) is replaced by the acceptable word
sharing the most character n-grams with it, scored by the URL-rewriting method's n-gram count
normalised to 1000, with a low threshold under which nothing is offered; on a
tie the longer word wins. Two-letter segments (``mu``) are repaired by one
neighbouring key (``my``), as n-grams say nothing about them.

The lexicon (``engine/data/lexicon.txt.gz``, 42k words) is the union of the
8,000 most frequent words of English, French, German, Spanish, Italian,
Portuguese and Dutch (wordfreq 3.1, accents folded, 2-12 letters), most
frequent first; the names of the domain dictionary's 10,000 most popular
domains (split at hyphens, 3-12 letters) join it at run time
(``Suggester._labels``), as brands are acceptable segments no word list holds.

>>> ngram_score("ddmain", "domain")
429
>>> Segmenter(Lexicon(["my", "domain"])).repair("muddmain")
('mydomain', 429)
"""

from __future__ import annotations

import gzip
import heapq
import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

from engine.urls.keyboard import neighbours
from engine.urls.typos import costs_more_than, typo_cost

NGRAM_SIZES = (2, 3, 4, 5)
RAREST_TRIGRAMS = 3


def ngrams(word: str) -> list[str]:
    """The 2-5 character groups of a word, in order (the URL-rewriting method's "no, nom, nomd…")."""
    return [word[i : i + n] for n in NGRAM_SIZES for i in range(len(word) - n + 1)]


def ngram_score(typed: str, word: str) -> int:
    """The URL-rewriting method's correspondence rate: n-grams of ``typed`` found in ``word``, per 1000.

    The URL-rewriting method scores ``nomdedoamine`` against ``nomdedomaine`` at 840 without
    giving the formula; this reading (every 2-5-gram of the typed segment
    counts once, found or not) gives 553. See tests/engine/urls/test_suggest_steps.py.

    >>> ngram_score("nomdedoamine", "nomdedomaine")
    553
    """
    return _score(typed, ngrams(typed), word)


def _score(typed: str, grams: list[str], word: str) -> int:
    """:func:`ngram_score` with the typed segment's n-grams worked out once."""
    if not grams:
        return 1000 if typed == word else 0
    found = sum(1 for g in grams if g in word)
    return round(1000 * found / len(grams))


class Lexicon:
    """Acceptable segments (words), most frequent first, with a trigram index."""

    def __init__(self, words) -> None:
        self.order = {w: i for i, w in enumerate(dict.fromkeys(words))}
        # each trigram's words by length, and how many words hold it: a segment counts
        # only the words of about its length, and picks its rarest trigrams by the count
        self.trigrams: dict[str, dict[int, list[str]]] = defaultdict(dict)
        self.holding: Counter = Counter()
        for word in self.order:
            if len(word) >= 4:
                for gram in {word[i : i + 3] for i in range(len(word) - 2)}:
                    self.trigrams[gram].setdefault(len(word), []).append(word)
                    self.holding[gram] += 1

    def __contains__(self, word: str) -> bool:
        return word in self.order

    def word_cost(self, word: str) -> float:
        """Cheaper for frequent words: 1 + log10(rank + 10) / 2."""
        return 1.0 + math.log10(self.order.get(word, 50000) + 10) / 2

    def sharing(self, segment: str, slack: int = 2, top: int = 8) -> list[str]:
        """Words of about the same length sharing the most trigrams with ``segment``."""
        counts: Counter = Counter()
        grams = [segment[i : i + 3] for i in range(len(segment) - 2)]
        # the rarest trigrams say the most and cost the least to count
        n, holding = len(segment), self.holding
        for gram in sorted(grams, key=lambda g: holding.get(g, 0))[:RAREST_TRIGRAMS]:
            by_length = self.trigrams.get(gram, {})
            for length in range(n - slack, n + slack + 1):
                counts.update(by_length.get(length, ()))
        return [w for _, w in heapq.nlargest(top, ((c, w) for w, c in counts.items()))]

    @classmethod
    def bundled(cls, extra: tuple[str, ...] = ()) -> Lexicon:
        return _bundled(extra)


@cache
def _bundled(extra: tuple[str, ...]) -> Lexicon:
    raw = resources.files("engine.data").joinpath("lexicon.txt.gz").read_bytes()
    return Lexicon(list(gzip.decompress(raw).decode().split()) + list(extra))


@dataclass(frozen=True)
class SegmentOptions:
    threshold: int = 300  # the URL-rewriting method's "low threshold", out of 1000
    max_typo_cost: float = 2.0
    budget: int = 12  # at most this many fresh segment look-ups per name (latency)
    max_length: int = 40


class Segmenter:
    """Cuts a name into words and repairs the unacceptable ones (see module doc)."""

    def __init__(self, lexicon: Lexicon, options: SegmentOptions | None = None) -> None:
        self.lexicon = lexicon
        self.options = options or SegmentOptions()
        # segment -> (word, score, typo cost) or None, kept across names
        self._cached = lru_cache(maxsize=4096)(self._replace)
        self._left = self.options.budget

    def replace(self, segment: str) -> tuple[str, int] | None:
        """The acceptable word replacing ``segment`` and its n-gram score, or None."""
        found = self._cached(segment)
        return None if found is None else found[:2]

    def _replace(self, segment: str) -> tuple[str, int, float] | None:
        self._left -= 1  # only a cache miss gets here
        if len(segment) <= 3:
            near = self._by_neighbour_key(segment)
            return None if near is None else (*near, typo_cost(segment, near[0]))
        grams = ngrams(segment)
        scored = [(_score(segment, grams, w), len(w), w) for w in self.lexicon.sharing(segment)]
        # most n-grams first; on a tie the longer (the URL-rewriting method), then the likelier
        # typo: a typo cost is worked out only while no better-placed word has passed
        scored.sort(key=lambda c: (-c[0], -c[1]))
        best, limit = None, self.options.max_typo_cost
        for score, length, word in scored:
            if score < self.options.threshold or (best and (score, length) != best[:2]):
                break
            if costs_more_than(segment, word, limit if best is None else -best[2]):
                continue  # surely over the limit, or dearer than the best: never chosen
            cost = typo_cost(segment, word)
            if cost <= self.options.max_typo_cost and (best is None or (-cost, word) > best[2:]):
                best = (score, length, -cost, word)
        return None if best is None else (best[3], best[0], -best[2])

    def _by_neighbour_key(self, segment: str) -> tuple[str, int] | None:
        near = neighbours()
        for i, ch in enumerate(segment):
            for other in sorted(near.get(ch, ())):
                word = segment[:i] + other + segment[i + 1 :]
                if word in self.lexicon:
                    return word, 1000 - 1000 // (len(segment) + 1)
        return None

    def repair(self, name: str) -> tuple[str, int] | None:
        """The repaired name and its lowest segment score, or None.

        None when every segment is already a word or nothing scores above the
        threshold.
        """
        if not name.isalpha() or len(name) > self.options.max_length or name in self.lexicon:
            return None
        best = self._best_cut(name)
        if best is None:
            return None
        words, score, changed = best
        return ("".join(words), score) if changed else None

    def _best_cut(self, name: str):
        # best[i] = (cost, words, lowest score, changed) for name[:i]
        self._left = self.options.budget
        best: list = [None] * (len(name) + 1)
        best[0] = (0.0, [], 1000, False)
        for i in range(len(name)):
            if best[i] is None:
                continue
            for j in range(i + 2, min(len(name), i + 14) + 1):
                self._extend(best, name, i, j)
        end = best[len(name)]
        return None if end is None else (end[1], end[2], end[3])

    def _lookup(self, segment: str) -> tuple[str, int, float] | None:
        """:meth:`replace` with the typo cost, within the per-name budget of fresh look-ups."""
        if self._left <= 0:
            return None
        return self._cached(segment)  # a fresh look-up (a cache miss) spends the budget

    def _extend(self, best: list, name: str, i: int, j: int) -> None:
        segment = name[i:j]
        cost, words, low, changed = best[i]
        if segment in self.lexicon:
            step = (cost + self.lexicon.word_cost(segment), [*words, segment], low, changed)
        else:
            found = self._lookup(segment)
            if found is None:
                return
            word, score, cost_of_typo = found
            penalty = cost_of_typo + (1000 - score) / 1000
            step = (
                cost + self.lexicon.word_cost(word) + penalty,
                [*words, word],
                min(low, score),
                True,
            )
        if best[j] is None or step[0] < best[j][0]:
            best[j] = step
