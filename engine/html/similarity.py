"""How alike two pages are: fingerprint similarity, content similarity, link prefilter.

Structural similarity follows the multi-version server method (multi-version server, fig. 9): take
the shorter fingerprint as the source; from each ``<`` delimiter, find the
longest substring that also occurs in the longer one; count its length when
it is at least ``min_match`` (6) characters; move past it (at least one
character) to the next ``<``; similarity = counted / len(source).

The multi-version server method's nested loops are quadratic. Here the longest matches come from a
suffix automaton (Blumer et al. 1985) built once over either fingerprint, so a
comparison is linear in the two lengths; :class:`FingerprintIndex` keeps the
automaton of one page to compare it against many.

>>> round(similarity("<H<E<NheF<n<e<B<b<h", "<H<E<NheF<n<e<B<PxA<p<b<h"), 3)
0.842
>>> link_prefilter(["a", "b"], ["a", "c"])
True
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from engine.errors import TooLarge

# ---------------------------------------------------------------- options


@dataclass(frozen=True)
class SimilarityOptions:
    """Structural similarity knobs (the multi-version server method, fig. 9): the delimiter and the shortest counted match.

    ``max_automaton``: the longest fingerprint a suffix automaton is built over
    (about 400 bytes of memory per character); above it, :class:`FingerprintIndex`
    raises TooLarge.
    """

    min_match: int = 6
    delimiter: str = "<"
    max_automaton: int = 500_000


@dataclass(frozen=True)
class PrefilterOptions:
    """Link-dissimilarity prefilter knobs (the multi-version server method, fig. 10).

    Step 1 passes a pair when the two link counts sum to at most
    ``small_total`` (7) or when ``|a - b| / (a + b + count_smoothing)`` is below
    ``max_count_gap`` (1/3; smoothing 2). Step 2 then asks that the links both
    pages share make up at least ``min_shared_share`` of the smaller link set
    (pairs that passed as "small" skip step 2: they have too few links to judge).
    """

    small_total: int = 7
    count_smoothing: int = 2
    max_count_gap: float = 1 / 3
    min_shared_share: float = 0.2


@dataclass(frozen=True)
class ContentOptions:
    """Content similarity knobs: shingle width (words; CJK characters count as words)."""

    shingle: int = 3


DEFAULT_SIMILARITY = SimilarityOptions()
DEFAULT_PREFILTER = PrefilterOptions()
DEFAULT_CONTENT = ContentOptions()


# ---------------------------------------------------------------- suffix automaton


class SuffixAutomaton:
    """The suffix automaton of one string: every substring is a path from state 0.

    ``ends[j]`` is the state of the prefix ``text[: j + 1]``.

    >>> SuffixAutomaton("abcbc").match_ends("xbcbd")
    [0, 1, 2, 3, 0]
    """

    __slots__ = ("text", "nxt", "link", "length", "ends", "_cache")

    def __init__(self, text: str) -> None:
        self.text = text
        self.nxt: list[dict[str, int]] = [{}]
        self.link: list[int] = [-1]
        self.length: list[int] = [0]
        self.ends: list[int] = []
        self._cache: tuple[list[int], list[int], list[int]] | None = None
        self._build(text)

    def _build(self, text: str) -> None:
        nxt, link, length, ends = self.nxt, self.link, self.length, self.ends
        last = 0
        for c in text:
            cur = len(length)
            nxt.append({})
            link.append(0)
            length.append(length[last] + 1)
            p = last
            while p != -1 and c not in nxt[p]:
                nxt[p][c] = cur
                p = link[p]
            if p != -1:
                q = nxt[p][c]
                if length[p] + 1 == length[q]:
                    link[cur] = q
                else:
                    self._clone(p, q, c, cur)
            last = cur
            ends.append(cur)

    def _clone(self, p: int, q: int, c: str, cur: int) -> None:
        nxt, link, length = self.nxt, self.link, self.length
        clone = len(length)
        nxt.append(nxt[q].copy())
        link.append(link[q])
        length.append(length[p] + 1)
        while p != -1 and nxt[p].get(c) == q:
            nxt[p][c] = clone
            p = link[p]
        link[q] = clone
        link[cur] = clone

    def walk(self, other: str) -> tuple[list[int], list[int]]:
        """Run ``other`` through the automaton: per end position, the matched length and state."""
        nxt, link, length = self.nxt, self.link, self.length
        v = size = 0
        out = [0] * len(other)
        states = [0] * len(other)
        for j, c in enumerate(other):
            step = nxt[v].get(c)
            while step is None and v:
                v = link[v]
                size = length[v]
                step = nxt[v].get(c)
            if step is None:
                v = size = 0
            else:
                v = step
                size += 1
            out[j] = size
            states[j] = v
        return out, states

    def longest_prefix(self, other: str, start: int) -> int:
        """Length of the longest prefix of ``other[start:]`` that occurs in the text.

        >>> SuffixAutomaton("abcbc").longest_prefix("xbcbd", 1)
        3
        """
        nxt, v, j, end = self.nxt, 0, start, len(other)
        while j < end:
            v = nxt[v].get(other[j], -1)
            if v < 0:
                break
            j += 1
        return j - start

    def match_ends(self, other: str) -> list[int]:
        """Per end position ``j`` of ``other``: the longest suffix of ``other[: j + 1]`` in the text.

        >>> SuffixAutomaton("hello").match_ends("yell")
        [0, 1, 2, 3]
        """
        return self.walk(other)[0]

    def own_match_ends(self, other: str) -> list[int]:
        """Per end position ``j`` of the text: the longest suffix of ``text[: j + 1]`` in ``other``.

        >>> SuffixAutomaton("yell").own_match_ends("hello")
        [0, 1, 2, 3]
        """
        sizes, states = self.walk(other)
        best = [0] * len(self.length)
        for state, size in zip(states, sizes, strict=True):
            if size > best[state]:
                best[state] = size
        order, link, parent_length = self._tables()
        for v in reversed(order):  # longest first: a matched state's ancestors match fully
            if best[v]:
                best[link[v]] = parent_length[v]
        for v in order:  # shortest first: fall back to the nearest matched ancestor
            if not best[v]:
                best[v] = best[link[v]]
        return [best[s] for s in self.ends]

    def _tables(self) -> tuple[list[int], list[int], list[int]]:
        """Non-root states by increasing length, suffix links, and each link's length (cached)."""
        if self._cache is None:
            link, length = self.link, self.length
            order = self._by_length()[1:]
            self._cache = (order, link, [length[link[v]] if v else 0 for v in range(len(link))])
        return self._cache

    def _by_length(self) -> list[int]:
        """States in order of increasing length (counting sort)."""
        buckets: list[list[int]] = [[] for _ in range(len(self.text) + 1)]
        for v, size in enumerate(self.length):
            buckets[size].append(v)
        return [v for bucket in buckets for v in bucket]


# ---------------------------------------------------------------- structural similarity


def source_and_target(fp_a: str, fp_b: str) -> tuple[str, str]:
    """The multi-version server method compares from the shorter fingerprint; ties break by text so the order is irrelevant.

    >>> source_and_target("<abc", "<a")
    ('<a', '<abc')
    """
    if (len(fp_a), fp_a) <= (len(fp_b), fp_b):
        return fp_a, fp_b
    return fp_b, fp_a


def greedy_count(
    source: str, longest_at: Callable[[int], int], options: SimilarityOptions = DEFAULT_SIMILARITY
) -> int:
    """The multi-version server method's loop (fig. 9): sum of matches >= min_match from successive delimiters.

    >>> greedy_count("<ab<cdefgh", lambda i: {0: 3, 3: 7}[i])
    7
    """
    delimiter, counted = options.delimiter, 0
    pos = source.find(delimiter)
    while pos != -1:
        size = longest_at(pos)
        if size >= options.min_match:
            counted += size
        pos = source.find(delimiter, pos + max(size, 1))
    return counted


def identical_count(source: str, options: SimilarityOptions = DEFAULT_SIMILARITY) -> int:
    """:func:`greedy_count` of a fingerprint against itself, without an automaton: the first
    delimiter's match is the whole rest of the string, which ends the loop.

    >>> identical_count("ab<cdefgh"), identical_count("<ab")
    (7, 0)
    """
    first = source.find(options.delimiter)
    rest = len(source) - first if first != -1 else 0
    return rest if rest >= options.min_match else 0


def _ratio(counted: int, source: str) -> float:
    return counted / len(source) if source else 0.0


def similarity(fp_a: str, fp_b: str, options: SimilarityOptions | None = None) -> float:
    """Structural similarity of two fingerprints in [0, 1], in linear time.

    >>> similarity("<H<BhiB<b<h", "<H<BhiB<b<h")
    1.0
    """
    options = options or DEFAULT_SIMILARITY
    source, target = source_and_target(fp_a, fp_b)
    if not source:
        return 0.0
    # The automaton over the longer one is the cheaper direction; the shorter one saves memory.
    over = target if len(target) <= options.max_automaton else source
    return FingerprintIndex(over, options).similarity(target if over is source else source)


class FingerprintIndex:
    """One fingerprint with its suffix automaton, to compare against many others.

    >>> index = FingerprintIndex("<H<E<NheF<n<e<B<b<h")
    >>> index.similarity("<H<E<NheF<n<e<B<b<h"), index.similarity("")
    (1.0, 0.0)
    """

    def __init__(self, fp: str, options: SimilarityOptions | None = None) -> None:
        self.fp = fp
        self.options = options or DEFAULT_SIMILARITY
        if len(fp) > self.options.max_automaton:
            raise TooLarge(
                f"fingerprint of {len(fp)} characters is above the limit of "
                f"{self.options.max_automaton} for comparison"
            )
        self._automaton: SuffixAutomaton | None = None

    @property
    def automaton(self) -> SuffixAutomaton:
        """Built on first need: a page compared only with an identical one never needs it."""
        if self._automaton is None:
            self._automaton = SuffixAutomaton(self.fp)
        return self._automaton

    def similarity(self, other: str) -> float:
        """Same value as ``similarity(self.fp, other)``, whichever of the two is shorter."""
        source, _ = source_and_target(self.fp, other)
        if not source:
            return 0.0
        if other == self.fp:
            return _ratio(identical_count(source, self.options), source)
        if (
            source is other
        ):  # the multi-version server method's loop walks from each delimiter: linear in all
            automaton = self.automaton
            counted = greedy_count(
                other, lambda i: automaton.longest_prefix(other, i), self.options
            )
            return _ratio(counted, source)
        match_end = self.automaton.own_match_ends(other)
        return _ratio(self._count(source, match_end), source)

    def _count(self, source: str, match_end: list[int]) -> int:
        positions = _Cursor(match_end)
        return greedy_count(source, positions.longest_at, self.options)


class _Cursor:
    """Answers "longest match starting at i" for ascending i in amortized O(1)."""

    def __init__(self, match_end: list[int]) -> None:
        self.match_end = match_end
        self.last = -1

    def longest_at(self, i: int) -> int:
        match_end, last, n = self.match_end, self.last, len(self.match_end)
        while last + 1 < n and last + 2 - match_end[last + 1] <= i:
            last += 1
        self.last = last
        return max(0, last - i + 1)


def matched_spans(
    fp_a: str, fp_b: str, options: SimilarityOptions | None = None
) -> list[tuple[int, int, bool]]:
    """Every visit of the multi-version server method's loop: (position in the source, match length, counted?).

    The source is the shorter fingerprint; useful to show which parts of a page matched.

    >>> matched_spans("<a<b<c<d", "<a<b<c<d<e")
    [(0, 8, True)]
    """
    options = options or DEFAULT_SIMILARITY
    source, target = source_and_target(fp_a, fp_b)
    cursor = _Cursor(SuffixAutomaton(target).match_ends(source))
    spans: list[tuple[int, int, bool]] = []

    def longest_at(i: int) -> int:
        size = cursor.longest_at(i)
        spans.append((i, size, size >= options.min_match))
        return size

    greedy_count(source, longest_at, options)
    return spans


def longest_matches(source: str, target: str, positions: Iterable[int]) -> list[int]:
    """The multi-version server method's ``longestSubstr``: per position of ``source`` (ascending, 0-based), the length
    of the longest substring starting there that also occurs in ``target``.

    >>> longest_matches("xyABCGGD1234", "88890ABCGGABZGGD1234", [2])  # the multi-version server method's "ABCGG"
    [5]
    """
    cursor = _Cursor(SuffixAutomaton(target).match_ends(source))
    return [cursor.longest_at(i) for i in positions]


def naive_similarity(fp_a: str, fp_b: str, options: SimilarityOptions | None = None) -> float:
    """The multi-version server method's algorithm as written: nested loops, quadratic or worse (reference for tests).

    >>> naive_similarity("<H<BhiB<b<h", "<H<BhiB<b<h")
    1.0
    """
    source, target = source_and_target(fp_a, fp_b)
    if not source:
        return 0.0
    return _ratio(
        greedy_count(
            source, lambda i: _naive_longest(source, target, i), options or DEFAULT_SIMILARITY
        ),
        source,
    )


def _naive_longest(source: str, target: str, start: int) -> int:
    """longestSubstr(fp1, fp2, delimPos) of the multi-version server method: try every alignment in the target."""
    best = 0
    for t in range(len(target)):
        size = 0
        while (
            start + size < len(source)
            and t + size < len(target)
            and source[start + size] == target[t + size]
        ):
            size += 1
        best = max(best, size)
    return best


# ---------------------------------------------------------------- link prefilter


def link_prefilter(
    links_a: Iterable[object], links_b: Iterable[object], options: PrefilterOptions | None = None
) -> bool:
    """Could these two pages be similar, judging by their links alone? (the multi-version server method, fig. 10)

    Links are anything hashable (link IDs or absolute URLs); duplicates count once.

    >>> link_prefilter(range(100), range(10))
    False
    """
    options = options or DEFAULT_PREFILTER
    set_a, set_b = _as_set(links_a), _as_set(links_b)
    a, b = len(set_a), len(set_b)
    if a + b <= options.small_total:
        return True
    if not link_counts_pass(a, b, options):
        return False
    return shared_share(set_a, set_b) >= options.min_shared_share


def link_counts_pass(a: int, b: int, options: PrefilterOptions | None = None) -> bool:
    """Step 1 of the prefilter, on link counts only (cheap enough for every candidate).

    >>> link_counts_pass(3, 4), link_counts_pass(10, 40), link_counts_pass(30, 40)
    (True, False, True)
    """
    options = options or DEFAULT_PREFILTER
    if a + b <= options.small_total:
        return True
    return abs(a - b) / (a + b + options.count_smoothing) < options.max_count_gap


def shared_share(set_a: frozenset | set, set_b: frozenset | set) -> float:
    """Shared links as a share of the smaller link set (0 when either has none).

    >>> shared_share({1, 2, 3, 4}, {3, 4, 5})
    0.6666666666666666
    """
    smaller = min(len(set_a), len(set_b))
    return len(set_a & set_b) / smaller if smaller else 0.0


def _as_set(links: Iterable[object]) -> frozenset | set:
    return links if isinstance(links, (set, frozenset)) else set(links)


# ---------------------------------------------------------------- content similarity

_WORD = re.compile(r"\w+")
# Han, Hiragana, Katakana, Hangul: scripts written without spaces between words.
_CJK_RANGES = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f"
_CJK = re.compile(f"[{_CJK_RANGES}]")
_CJK_SPLIT = re.compile(f"([{_CJK_RANGES}])")


def words(text: str) -> list[str]:
    """Normalized words: NFKC, case-folded; each CJK character is a word of its own.

    >>> words("Ünïcode, ＡＢＣ 東京タワー")
    ['ünïcode', 'abc', '東', '京', 'タ', 'ワ', 'ー']
    """
    normalized = unicodedata.normalize("NFKC", text).casefold()
    found = _WORD.findall(normalized)
    if not _CJK.search(normalized):
        return found
    out: list[str] = []
    for word in found:
        if _CJK.search(word):
            out.extend(part for part in _CJK_SPLIT.split(word) if part)
        else:
            out.append(word)
    return out


def shingles(text: str, options: ContentOptions | None = None) -> set[tuple[str, ...]]:
    """The set of w-word shingles of a text (a text shorter than w is one shingle).

    >>> sorted(shingles("a b c d", ContentOptions(shingle=3)))
    [('a', 'b', 'c'), ('b', 'c', 'd')]
    """
    width = (options or DEFAULT_CONTENT).shingle
    tokens = words(text)
    if not tokens:
        return set()
    if len(tokens) <= width:
        return {tuple(tokens)}
    return {tuple(tokens[i : i + width]) for i in range(len(tokens) - width + 1)}


def content_similarity(text_a: str, text_b: str, options: ContentOptions | None = None) -> float:
    """Resemblance (Jaccard) of the two texts' word shingles, in [0, 1]; 0 when either is empty.

    >>> content_similarity("the cat sat on the mat", "the cat sat on the hat")
    0.6
    """
    return shingle_similarity(shingles(text_a, options), shingles(text_b, options))


def shingle_similarity(a: set, b: set) -> float:
    """Jaccard of two shingle sets.

    >>> shingle_similarity({1, 2}, {2, 3})
    0.3333333333333333
    """
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)
