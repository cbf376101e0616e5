"""Similar-page search among the stored versions of one site (same host and port).

Three stages, cheapest first, so a page can be compared with 10,000 versions
of its site within a registration's budget:

1. **Link counts** (seed fig. 10, step 1): O(1) per candidate.
2. **Sketch**: a 64-byte one-permutation b-bit MinHash of each fingerprint's
   shingles, computed once at registration and stored with the version; the
   equal bytes of two sketches (one XOR and one ``bytes.count``) rank the
   candidates in well under a microsecond each.
3. **Exact**: for the best-ranked candidates only, the shared-link test (seed
   fig. 10, step 2), then the seed's structural similarity from one suffix
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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

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

    ``sketch_bins``: one-permutation MinHash bins per fingerprint (one byte each);
    ``sketch_width``: fingerprint pieces (one tag or text each) per shingle;
    ``min_sketch``: estimated shingle resemblance a candidate needs to reach the
    exact stage; ``max_exact`` / ``time_budget`` (seconds, exact stage): exact
    comparisons at most; a candidate is listed when ``structural >= min_structural``
    or ``content >= min_content``; at most ``limit`` results.
    """

    sketch_bins: int = 64
    sketch_width: int = 4
    min_sketch: float = 0.05
    max_exact: int = 12
    time_budget: float = 0.06
    min_structural: float = 0.3
    min_content: float = 0.5
    limit: int = 20
    similarity: SimilarityOptions = DEFAULT_SIMILARITY
    prefilter: PrefilterOptions = DEFAULT_PREFILTER
    content: ContentOptions = DEFAULT_CONTENT


DEFAULT_SIMILAR = SimilarOptions()
# An empty bin (fewer shingles than bins) holds this; it matches only another empty bin.
_EMPTY_BIN = 0xFFFFFFFF


class SimilarMatch(NamedTuple):
    """One similar version: ``(id, structural, content)``."""

    id: str
    structural: float
    content: float


@dataclass
class VersionFeatures:
    """What the search needs of one version.

    ``sketch`` (bytes from :func:`sketch`; store it as ``sketch.hex()``) and ``links``
    are small and kept for every candidate; ``fingerprint`` and ``text`` may be
    left ``None`` for candidates and fetched on demand through the ``load``
    callback of :func:`find_similar`.
    """

    id: str
    sketch: bytes
    links: frozenset = field(default_factory=frozenset)
    fingerprint: str | None = None
    text: str | None = None


def fingerprint_pieces(fp: str) -> list[str]:
    """A fingerprint cut before every ``<``: one tag code (with any text signature after it) each.

    >>> fingerprint_pieces("<H<BheF<b<h")
    ['<H', '<BheF', '<b', '<h']
    """
    return ["<" + piece for piece in fp.split("<") if piece] if fp else []


def sketch(fp: str, options: SimilarOptions | None = None) -> bytes:
    """One-permutation MinHash (Li, Owen & Zhang 2012) of a fingerprint's shingles, 8 bits per bin.

    A shingle is ``sketch_width`` consecutive pieces; its CRC-32 picks a bin
    (low bits) and competes for that bin's minimum (high bits); each bin keeps
    the low byte of its minimum (b-bit MinHash, Li & König 2010). Equal bytes
    estimate resemblance: P(equal) = J + (1 - J) / 256.

    >>> len(sketch("<H<B<DheF<d<PxyA<p<b<h" * 50)), sketch("") == sketch("")
    (64, True)
    """
    options = options or DEFAULT_SIMILAR
    bins = options.sketch_bins
    pieces = fingerprint_pieces(fp)
    width = min(options.sketch_width, len(pieces)) or 1
    minima = [_EMPTY_BIN] * bins
    for i in range(max(0, len(pieces) - width + 1)):
        value = zlib.crc32("".join(pieces[i : i + width]).encode())
        slot, rank = value % bins, value // bins
        if rank < minima[slot]:
            minima[slot] = rank
    return bytes(m & 0xFF for m in minima)


def estimated_resemblance(a: bytes, b: bytes) -> float:
    """Shingle resemblance estimated from two sketches (equal bins, corrected for 8-bit collisions).

    >>> estimated_resemblance(bytes(64), bytes(64))
    1.0
    """
    equal = sum(x == y for x, y in zip(a, b, strict=True)) / len(a) if a else 0.0
    return max(0.0, (equal - 1 / 256) / (1 - 1 / 256))


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

    Candidates are held in parallel lists (sketch as an int, link count) so that
    stages 1 and 2 are one list comprehension of C-level operations.

    >>> index = SimilarIndex()
    >>> index.add(version_features("b", "<H<B<DheF<d<PxyA<p<b<h" * 3))
    >>> [m.id for m in index.search(version_features("a", "<H<B<DheF<d<PxyA<p<b<h" * 3))]
    ['b']
    """

    def __init__(self, versions: Iterable[VersionFeatures] = ()) -> None:
        self.versions: list[VersionFeatures] = []
        self._sketches: list[int] = []
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
        self._sketches.append(int.from_bytes(version.sketch, "little"))
        self._counts.append(len(version.links))

    def remove(self, id: str) -> None:
        """Forget a version (swap with the last one; O(1))."""
        at = self._position.pop(id, None)
        if at is None:
            return
        for column in (self.versions, self._sketches, self._counts):
            column[at] = column[-1]
            column.pop()
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
        """Stages 1 and 2: candidates passing the link-count test, by sketch resemblance (best first).

        Keeps ``keep`` (default ``4 * max_exact``) candidates whose estimated resemblance is at
        least ``min_sketch``.
        """
        if not self.versions or not target.sketch:
            return []
        allowed = self._allowed_counts(len(target.links), options.prefilter)
        query, size = int.from_bytes(target.sketch, "little"), len(target.sketch)
        scores = [
            (query ^ theirs).to_bytes(size, "little").count(0) if allowed[count] else -1
            for theirs, count in zip(self._sketches, self._counts, strict=True)
        ]
        floor = size * (options.min_sketch * (1 - 1 / 256) + 1 / 256)
        best = heapq.nlargest(
            keep or 4 * options.max_exact + 1, range(len(scores)), scores.__getitem__
        )
        return [
            self.versions[i]
            for i in best
            if scores[i] >= floor and self.versions[i].id != target.id
        ]

    def _allowed_counts(self, count: int, options: PrefilterOptions) -> list[bool]:
        """Step 1 of the prefilter for every link count present, as a lookup table."""
        top = max(self._counts, default=0)
        return [link_counts_pass(count, other, options) for other in range(top + 1)]


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
    deadline = time.perf_counter() + options.time_budget
    index = FingerprintIndex(target.fingerprint, options.similarity)
    target_shingles = shingles(target.text or "", options.content)
    matches, done = [], 0
    for version in ranked:
        if done >= options.max_exact or time.perf_counter() > deadline:
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
    """Step 2 of the seed's prefilter; tiny link sets (step 1's "small" case) pass as they are."""
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
