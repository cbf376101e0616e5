"""Similar-page search among the stored versions of one site (same host and port).

Three stages, cheapest first, so a page can be compared with 10,000 versions
of its site within a registration's budget:

1. **Link counts** (the multi-version server method, fig. 10, step 1): O(1) per candidate.
2. **Sketch**: a bottom-k sketch (Broder 1997, k = 64) of each fingerprint's
   shingles, computed once at registration and stored with the version; folded
   into a bitmap, the hashes two sketches share are one AND and one popcount,
   well under a microsecond per candidate.
3. **Exact**: for the best-ranked candidates only, the shared-link test (the method's
   fig. 10, step 2), then the multi-version server method's structural similarity from one suffix
   automaton of the new page (:class:`FingerprintIndex`), and the content
   similarity of the texts, until ``max_exact`` pages or ``time_budget`` is spent.

>>> a = version_features("a", "<H<B<DheF<d<PxyA<p<b<h" * 3, ["/x", "/y"], "the same words here")
>>> b = version_features("b", "<H<B<DheF<d<PxyA<p<b<h" * 3, ["/x", "/y"], "the same words here")
>>> find_similar(a, [b])
[SimilarMatch(id='b', structural=1.0, content=1.0)]
"""

from __future__ import annotations

import heapq
import time
import zlib
from collections.abc import Callable, Collection, Iterable, MutableSequence
from dataclasses import dataclass, field
from typing import NamedTuple

from engine.errors import TooLarge
from engine.html.similarity import (
    DEFAULT_CONTENT,
    DEFAULT_PREFILTER,
    DEFAULT_SIMILARITY,
    ContentOptions,
    FingerprintIndex,
    PrefilterOptions,
    SimilarityOptions,
    link_counts_pass,
    shared_share,
    shingle_similarity,
    shingles,
)


@dataclass(frozen=True)
class SimilarOptions:
    """Budgets and bars of the similar-page search.

    ``sketch_size``: hashes kept per fingerprint (bottom-k); ``sketch_width``:
    fingerprint pieces (one tag or text each) per shingle; ``min_sketch``:
    shared sketch hashes a candidate needs to reach the exact stage;
    ``max_exact`` / ``time_budget`` (seconds, exact stage, measured with
    ``clock``): exact comparisons at most; a candidate is listed when ``structural >= min_structural`` or
    ``content >= min_content``; at most ``limit`` results.
    """

    sketch_size: int = 64
    sketch_width: int = 4
    min_sketch: int = 3
    max_exact: int = 12
    time_budget: float = 0.06
    min_structural: float = 0.3
    min_content: float = 0.5
    limit: int = 20
    similarity: SimilarityOptions = DEFAULT_SIMILARITY
    prefilter: PrefilterOptions = DEFAULT_PREFILTER
    content: ContentOptions = DEFAULT_CONTENT
    clock: Callable[[], float] = time.perf_counter  # the budget's clock (tests pass their own)


DEFAULT_SIMILAR = SimilarOptions()
# Sketch hashes are folded into a bitmap of this many bits, so that counting shared
# hashes is one AND and one popcount (two random 64-hash sketches share ~0.5 bits).
_BITMAP_BITS = 8192


class SimilarMatch(NamedTuple):
    """One similar version: ``(id, structural, content)``."""

    id: str
    structural: float
    content: float


@dataclass
class VersionFeatures:
    """What the search needs of one version.

    ``sketch`` (from :func:`sketch`; any iterable of ints, stored as a JSON list) and
    ``links`` are small and kept for every candidate; ``fingerprint`` and ``text``
    may be left ``None`` for candidates and fetched on demand through the ``load``
    callback of :func:`find_similar`.
    """

    id: str
    sketch: Collection[int] = field(default_factory=frozenset)
    links: frozenset = field(default_factory=frozenset)
    fingerprint: str | None = None
    text: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.sketch, frozenset):
            self.sketch = frozenset(self.sketch)
        if not isinstance(self.links, frozenset):
            self.links = frozenset(self.links)


def fingerprint_pieces(fp: str) -> list[str]:
    """A fingerprint cut before every ``<``: one tag code (with any text signature after it) each.

    >>> fingerprint_pieces("<H<BheF<b<h")
    ['<H', '<BheF', '<b', '<h']
    """
    return ["<" + piece for piece in fp.split("<") if piece] if fp else []


def sketch(fp: str, options: SimilarOptions | None = None) -> list[int]:
    """Bottom-k sketch (Broder 1997) of a fingerprint: the k smallest CRC-32s of its shingles.

    A shingle is ``sketch_width`` consecutive pieces. Sorted ints, JSON-friendly:
    store it with the version.

    >>> len(sketch("<H<B<DheF<d<PxyA<p<b<h" * 50)) <= 64, sketch("")
    (True, [])
    """
    options = options or DEFAULT_SIMILAR
    pieces = fingerprint_pieces(fp)
    width = min(options.sketch_width, len(pieces)) or 1
    hashes = {
        zlib.crc32("".join(pieces[i : i + width]).encode())
        for i in range(max(0, len(pieces) - width + 1))
    }
    return sorted(heapq.nsmallest(options.sketch_size, hashes))


def sketch_bitmap(hashes: Iterable[int]) -> int:
    """The sketch folded into a bitmap (an int); shared hashes ~ popcount of the AND.

    >>> (sketch_bitmap([1, 2, 3]) & sketch_bitmap([2, 3, 4])).bit_count()
    2
    """
    bits = 0
    for value in hashes:
        bits |= 1 << (value % _BITMAP_BITS)
    return bits


def version_features(
    id: str,
    fingerprint: str,
    links: Iterable[object] = (),
    text: str | None = None,
    options: SimilarOptions | None = None,
) -> VersionFeatures:
    """Features of a version from its fingerprint, links and text (computes the sketch).

    >>> version_features("v1", "<H<h", ["/a"]).links
    frozenset({'/a'})
    """
    return VersionFeatures(
        id=id,
        sketch=sketch(fingerprint, options),
        links=frozenset(links),
        fingerprint=fingerprint,
        text=text,
    )


Loader = Callable[[str], tuple[str, str | None]]  # id -> (fingerprint, text)


class SimilarIndex:
    """The sketches and link sets of one site's versions, kept warm for repeated searches.

    Candidates are held in parallel lists (sketch bitmap, link count) so that
    stages 1 and 2 are one list comprehension of C-level operations.

    >>> index = SimilarIndex()
    >>> index.add(version_features("b", "<H<B<DheF<d<PxyA<p<b<h" * 3))
    >>> [m.id for m in index.search(version_features("a", "<H<B<DheF<d<PxyA<p<b<h" * 3))]
    ['b']
    """

    def __init__(self, versions: Iterable[VersionFeatures] = ()) -> None:
        self.versions: list[VersionFeatures] = []
        self._bitmaps: list[int] = []
        self._counts: list[int] = []
        self._position: dict[str, int] = {}
        for version in versions:
            self.add(version)

    def __len__(self) -> int:
        return len(self.versions)

    def add(self, version: VersionFeatures) -> None:
        """Add or replace a version."""
        if version.id in self._position:
            self.remove(version.id)
        self._position[version.id] = len(self.versions)
        self.versions.append(version)
        self._bitmaps.append(sketch_bitmap(version.sketch))
        self._counts.append(len(version.links))

    def remove(self, id: str) -> None:
        """Forget a version (swap with the last one; O(1))."""
        at = self._position.pop(id, None)
        if at is None:
            return
        _swap_remove(self.versions, at)
        _swap_remove(self._bitmaps, at)
        _swap_remove(self._counts, at)
        if at < len(self.versions):
            self._position[self.versions[at].id] = at

    def search(
        self,
        target: VersionFeatures,
        options: SimilarOptions | None = None,
        load: Loader | None = None,
    ) -> list[SimilarMatch]:
        """Ranked similar versions of ``target`` (itself excluded), best structural first."""
        options = options or DEFAULT_SIMILAR
        ranked = self.ranked_candidates(target, options)
        return _exact_stage(target, ranked, options, load)

    def ranked_candidates(
        self, target: VersionFeatures, options: SimilarOptions, keep: int | None = None
    ) -> list[VersionFeatures]:
        """Stages 1 and 2: candidates passing the link-count test, by shared sketch hashes.

        Keeps the best ``keep`` (default ``4 * max_exact``) that share at least
        ``min_sketch`` hashes, best first.
        """
        if not self.versions or not target.sketch:
            return []
        allowed = self._allowed_counts(len(target.links), options.prefilter)
        query = sketch_bitmap(target.sketch)
        scores = [
            (query & theirs).bit_count() if allowed[count] else -1
            for theirs, count in zip(self._bitmaps, self._counts, strict=True)
        ]
        wanted = keep or 4 * options.max_exact + 1
        best = heapq.nlargest(wanted, range(len(scores)), scores.__getitem__)
        floor, versions = options.min_sketch, self.versions
        return [versions[i] for i in best if scores[i] >= floor and versions[i].id != target.id]

    def _allowed_counts(self, count: int, options: PrefilterOptions) -> list[bool]:
        """Step 1 of the prefilter for every link count present, as a lookup table."""
        top = max(self._counts, default=0)
        return [link_counts_pass(count, other, options) for other in range(top + 1)]


def _swap_remove(column: MutableSequence, at: int) -> None:
    """Remove ``column[at]`` in O(1) by moving the last item into its place."""
    column[at] = column[-1]
    column.pop()


def find_similar(
    target: VersionFeatures,
    candidates: Iterable[VersionFeatures],
    options: SimilarOptions | None = None,
    load: Loader | None = None,
) -> list[SimilarMatch]:
    """Similar versions of ``target`` among ``candidates`` (same host and port), best first.

    ``load(id) -> (fingerprint, text)`` supplies what a candidate left as ``None``.
    """
    return SimilarIndex(candidates).search(target, options, load)


def _exact_stage(
    target: VersionFeatures,
    ranked: list[VersionFeatures],
    options: SimilarOptions,
    load: Loader | None,
) -> list[SimilarMatch]:
    """Stage 3 within the budget: shared links, then structural and content similarity."""
    if not target.fingerprint or not ranked:
        return []
    deadline = options.clock() + options.time_budget
    try:
        index = FingerprintIndex(target.fingerprint, options.similarity)
    except TooLarge:
        return []  # a page too big to compare has no similar list (never fails a registration)
    target_shingles = shingles(target.text or "", options.content)
    matches, done = [], 0
    for version in ranked:
        if done >= options.max_exact or options.clock() > deadline:
            break
        if not _shared_links_pass(target, version, options.prefilter):
            continue
        done += 1
        match = _compare(index, target_shingles, version, options, load)
        if match is not None:
            matches.append(match)
    matches.sort(key=lambda m: (-m.structural, -m.content, m.id))
    return matches[: options.limit]


def _shared_links_pass(a: VersionFeatures, b: VersionFeatures, options: PrefilterOptions) -> bool:
    """Step 2 of the multi-version server method's prefilter; tiny link sets (step 1's "small" case) pass as they are."""
    if len(a.links) + len(b.links) <= options.small_total:
        return True
    return shared_share(a.links, b.links) >= options.min_shared_share


def _compare(
    index: FingerprintIndex,
    target_shingles: set,
    version: VersionFeatures,
    options: SimilarOptions,
    load: Loader | None,
) -> SimilarMatch | None:
    fp, text = version.fingerprint, version.text
    if fp is None and load is not None:
        fp, text = load(version.id)
    if not fp:
        return None
    structural = index.similarity(fp)
    content = shingle_similarity(target_shingles, shingles(text or "", options.content))
    if structural < options.min_structural and content < options.min_content:
        return None
    return SimilarMatch(version.id, round(structural, 4), round(content, 4))
