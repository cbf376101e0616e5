"""The domain dictionary (the URL-rewriting method's "SPE" dictionary) and its typo index.

Domains are kept in popularity order (id 0 is rank 1). Each domain is split
once into a *key* (everything left of the public suffix: ``bbc`` for
``bbc.co.uk``) and its suffix. Lookups:

* exact domain, and every domain sharing a key (``google`` → google.com,
  google.de, …);
* keys within OSA distance 2 of a query key (a swap is one edit),
  sublinear: keys of 10+ characters are cut into 3 parts (pigeonhole: two
  edits leave one part intact, PassJoin, Li et al., VLDB 2011), twice (the
  second cut one letter later, so a swap across a cut of one is inside a
  part of the other), each part indexed by its sorted letters under
  (part, position, key length); keys of 6-9 characters are indexed by their
  2-deletion neighbourhood (symmetric delete: the parts of such short keys
  are 2 letters, whose buckets are huge), keys of 4-5 too (two edits on a
  short name are common: ``yaaho`` for yahoo; the ranking holds such a match
  below its confident score), keys under 4 by their 1-deletion neighbourhood
  (distance 1 only: two edits on a 3-letter name leave nothing to recognise).

Storage is compact: every index entry is a 64-bit hash of
``crc32(text) | tag | length | part`` in one sorted ``array('Q')`` searched
with :func:`bisect`, and the domain id in a parallel ``array('I')`` (12 bytes
an entry; a lookup returns a C-level slice of ids). A hash collision
only adds a candidate, which verification against the real key drops. The
whole index serialises to bytes (:meth:`DomainDictionary.to_bytes`) that the
host caches on disk for a warm start. The domains are one newline-joined
string and an offset per domain, not a list of 1M strings.

>>> d = DomainDictionary.from_domains(["google.com", "bbc.co.uk", "google.de"])
>>> d.rank("bbc.co.uk"), [d.domain(i) for i in d.ids_with_key("google")]
(2, ['google.com', 'google.de'])
>>> [(d.domain(i), dist) for i, dist in d.near_keys("gogle")]
[('google.com', 1), ('google.de', 1)]
"""

from __future__ import annotations

import gzip
import json
import zlib
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from functools import cache, lru_cache
from importlib import resources
from itertools import chain

# OSA distance (an adjacent swap is one edit). rapidfuzz is python-Levenshtein's
# own backend, so it is installed with it; Levenshtein has no OSA.
from rapidfuzz import process
from rapidfuzz.distance import OSA

from engine.errors import InvalidInput
from engine.urls.sites import EXTRACT

ID_BITS = 22
MAX_DOMAINS = 1 << ID_BITS
ID_MASK = MAX_DOMAINS - 1
TAG_DOMAIN, TAG_KEY, TAG_PART, TAG_DELETE = 0, 1, 2, 3
SHORT_KEY = 6  # two edits on a key shorter than this are never a confident match
TINY_KEY = 4  # keys shorter than this are matched at distance 1 only
DELETE_MAX_LENGTH = 9  # keys up to this long use deletion neighbourhoods
MAGIC = b"PKDICT7\n"
HASH_BITS = 44  # _entry(): crc32 (32 bits) above 12 bits of tag, length and part
# Above this many long-key candidates, keep those hit by the most parts (2+,
# more while still crowded): every Levenshtein-2 match has 2+ (a part intact
# in each cut), a one-edit typo 4+; only then can a far match be lost.
CROWDED = 150
# A key one edit from the query keeps 4 of its 6 parts (by letters, at their place or
# shifted by one): an edit breaks one part of each cut, and a swap across a cut of one
# lies inside a part of the other (which it leaves whole).
ONE_EDIT_HITS = 4
PROGRESS_EVERY = 2000  # domains between two progress reports of a build


def split_host(host: str) -> tuple[str, str]:
    """(key, public suffix) of a host; an unknown TLD counts as the suffix.

    >>> split_host("www.bbc.co.uk"), split_host("google.cmo")
    (('www.bbc', 'co.uk'), ('google', 'cmo'))
    """
    parts = EXTRACT(host)
    if parts.suffix:
        key = f"{parts.subdomain}.{parts.domain}" if parts.subdomain else parts.domain
        return key, parts.suffix
    head, _, tail = host.rpartition(".")
    return head, tail


def _entry(text: str, tag: int, length: int = 0, part: int = 0) -> int:
    """The 43-bit hash of one index entry."""
    return _crc(text) | _entry_low(tag, length, part)


def _crc(text: str) -> int:
    return zlib.crc32(text.encode()) << 11


def _entry_low(tag: int, length: int, part: int) -> int:
    return tag << 9 | min(length, 63) << 3 | part


DELETE_LOWS = tuple(_entry_low(TAG_DELETE, n, 0) for n in range(64))


def _letters(text: str) -> str:
    """A part by its letters only: a swap inside it leaves this unchanged."""
    return "".join(sorted(text))


def partitions(length: int) -> list[list[tuple[int, int]]]:
    """The even 3-part split and the same split with its cuts one letter later.

    A swap across a cut of the first lies inside a part of the second, so with
    parts compared by their letters (:func:`_letters`) one of the two always
    keeps a part intact under two OSA edits.

    >>> partitions(10)
    [[(0, 3), (3, 3), (6, 4)], [(0, 4), (4, 3), (7, 3)]]
    """
    first = partition(length)
    shifted = [
        (0, first[0][1] + 1),
        (first[1][0] + 1, first[1][1]),
        (first[2][0] + 1, first[2][1] - 1),
    ]
    return [first, shifted]


def partition(length: int) -> list[tuple[int, int]]:
    """(start, size) of the 3 parts of a key of ``length`` (PassJoin's even split).

    >>> partition(8)
    [(0, 2), (2, 3), (5, 3)]
    """
    base, longer = divmod(length, 3)
    sizes = [base] * (3 - longer) + [base + 1] * longer
    starts = [sum(sizes[:i]) for i in range(3)]
    return list(zip(starts, sizes, strict=True))


def deletions(text: str, depth: int) -> set[str]:
    """Every string made by deleting up to ``depth`` characters (with itself).

    >>> sorted(deletions("abc", 1))
    ['ab', 'abc', 'ac', 'bc']
    """
    found, layer = {text}, {text}
    for _ in range(depth):
        layer = {s[:i] + s[i + 1 :] for s in layer for i in range(len(s))}
        found |= layer
    return found


def key_entries(key: str) -> Iterator[int]:
    """Index entries (without id) of one key: its parts, or its deletions."""
    n = len(key)
    if n > DELETE_MAX_LENGTH:
        for p, parts in enumerate(partitions(n)):
            for i, (start, size) in enumerate(parts):
                yield _entry(_letters(key[start : start + size]), TAG_PART, n, 4 * p + i)
        return
    for variant in deletions(key, 1 if n < TINY_KEY else 2):
        yield _entry(variant, TAG_DELETE, n)


def _part_probes(query: str) -> list[int]:
    """Entries to look up for long keys of length ±2.

    Each part (by its letters) is looked for within ±2 of its place, and of
    its place shifted by the length difference (PassJoin's windows, widened:
    they assume Levenshtein edits, and a swap is two of those). A substring's
    letters are hashed once, whatever key length and part it is probed for.
    """
    plan = _probe_plan(len(query))
    crcs = {cut: _crc(_letters(query[cut[0] : cut[0] + cut[1]])) for cut in plan}
    return [crcs[cut] | low for cut, lows in plan.items() for low in lows]


@cache
def _probe_plan(q: int, reach: int = 2) -> dict[tuple[int, int], tuple[int, ...]]:
    """For a query of ``q`` letters: each substring (start, size) to probe, with the
    low entry bits (key length and part) it is probed under, for keys up to ``reach``
    letters longer or shorter (a key one edit away is at most one letter longer or
    shorter: the one-edit search asks for reach 1); the same for every query of that
    length, so it is worked out once. A key's hits come only from probes under its own
    length, so a narrower reach leaves the hits of the lengths it keeps unchanged.

    >>> _probe_plan(9) == {}, len(_probe_plan(12)), len(_probe_plan(12, 1))
    (False, 27, 20)
    """
    plan: dict[tuple[int, int], list[int]] = {}
    for n in range(max(DELETE_MAX_LENGTH + 1, q - reach), q + reach + 1):
        delta = q - n
        for p, parts in enumerate(partitions(n)):
            for i, (start, size) in enumerate(parts):
                lo = max(0, start - 2, start + delta - 2)
                hi = min(q - size, start + 2, start + delta + 2)
                for s in range(lo, hi + 1):
                    plan.setdefault((s, size), []).append(_entry_low(TAG_PART, n, 4 * p + i))
    return {cut: tuple(lows) for cut, lows in plan.items()}


@lru_cache(maxsize=512)
def _deletion_texts(query: str, depth: int) -> tuple[int, ...]:
    """The hashed texts (without the low bits) of the query's deletions of exactly
    ``depth`` letters (0: the query itself), worked out once per query and depth: the
    one-edit search and the walk both probe them, and a search at one edit never needs
    the two-letter ones.

    >>> sorted(_deletion_texts("abc", 1)) == sorted(_crc(v) for v in ("ab", "ac", "bc"))
    True
    """
    layer = {query}
    for _ in range(depth):
        layer = {s[:i] + s[i + 1 :] for s in layer for i in range(len(s))}
    return tuple(map(_crc, layer))


def _key_lengths(low: int, high: int) -> range:
    """Lengths of deletion-indexed keys from ``low`` to ``high`` (both included)."""
    return range(max(low, 1), min(high, DELETE_MAX_LENGTH) + 1)


class DomainDictionary:
    """Known domains in popularity order, with the typo index (see module doc)."""

    def __init__(
        self,
        domains: list[str] | tuple[str, array],
        key_lengths: array,
        hashes: array,
        ids: array,
        starts: array | None = None,
        twins: array | None = None,
    ) -> None:
        # The domains are one string plus where each starts (offsets[i + 1] - 1 is where
        # it ends): 1M domains load as 2 objects instead of 1M, which halves the warm
        # start from disk, saves ~50 MB and makes freeing them at exit free.
        self.text, self.offsets = _pack(domains) if isinstance(domains, list) else domains
        self.key_lengths = key_lengths
        self.hashes = hashes  # sorted entry hashes, array('Q')
        self.ids = ids  # the domain id of each entry, array('I')
        # where each bucket of the top hash bits starts: bisect only inside it
        self.starts = starts if starts is not None else _bucket_starts(hashes)
        self.shift = HASH_BITS - ((len(self.starts) - 1).bit_length() - 1)
        # the next id with the same key (0: none): a key's domains without a lookup
        self.twins = twins if twins is not None else _twins(self)
        self._suffixes: Counter | None = None

    # -- building -----------------------------------------------------------
    @classmethod
    def from_domains(
        cls, domains: Iterable[str], progress: Callable[[int], None] | None = None
    ) -> DomainDictionary:
        """Build from domains in popularity order (duplicates and junk dropped).

        ``progress(n)``, when given, hears of the work as it goes: ``n`` more units done (a
        domain read, a domain indexed, a step of the final sort; the bundled 100k take
        seconds, more on a slow machine).

        >>> steps = []; d = DomainDictionary.from_domains(["a.com", "b.org"], steps.append)
        >>> len(d), steps
        (2, [2, 2, 1, 1])
        """
        report = progress or _ignore
        kept, seen, lengths, read = [], set(), array("B"), 0
        for raw in domains:
            read += 1
            if read % PROGRESS_EVERY == 0:
                report(PROGRESS_EVERY)
            domain = raw.strip().strip(".").lower()
            if not _plausible(domain) or domain in seen:
                continue
            key, _ = split_host(domain)
            if not key or len(key) > 255:
                continue
            seen.add(domain)
            kept.append(domain)
            lengths.append(len(key))
        if read % PROGRESS_EVERY:
            report(read % PROGRESS_EVERY)
        if len(kept) > MAX_DOMAINS:
            raise InvalidInput(f"dictionary too large: {len(kept)} > {MAX_DOMAINS} domains")
        return cls(kept, lengths, *_build_entries(kept, lengths, report))

    @classmethod
    def from_keys(cls, keys: Iterable[str]) -> DomainDictionary:
        """A bare key index (no suffixes), e.g. over lexicon words.

        >>> [w for w, _ in DomainDictionary.from_keys(["domain", "my"]).near_words("ddmain")]
        ['domain']
        """
        kept = list(dict.fromkeys(k for k in keys if k))
        lengths = array("B", (min(len(k), 255) for k in kept))
        return cls(
            [k + "." for k in kept],
            lengths,
            *_build_entries([k + "." for k in kept], lengths, _ignore),
        )

    def near_words(self, query: str) -> list[tuple[str, int]]:
        """(key, distance) pairs of :meth:`near_keys`, for a key-only index."""
        return [(self.key(i), dist) for i, dist in self.near_keys(query)]

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[int | str, str]]) -> DomainDictionary:
        """Build from (rank, domain) rows, e.g. a parsed ``rank,domain`` CSV.

        >>> DomainDictionary.from_rows([(2, "b.com"), ("1", "a.com")]).domain(0)
        'a.com'
        """
        ranked = []
        for rank, domain in rows:
            try:
                ranked.append((int(rank), str(domain)))
            except (TypeError, ValueError):
                raise InvalidInput(f"bad dictionary row: {rank!r},{domain!r}") from None
        ranked.sort(key=lambda row: row[0])
        return cls.from_domains(domain for _, domain in ranked)

    @classmethod
    def bundled(cls) -> DomainDictionary:
        """The top-100k list shipped in ``engine/data/domains.txt.gz`` (built once)."""
        return _bundled()

    # -- serialisation (the host stores these bytes as a warm cache) ---------
    def to_bytes(self) -> bytes:
        """The whole dictionary and index as bytes for :meth:`from_bytes`."""
        blob = self.text.encode()
        head = {
            "n": len(self),
            "blob": len(blob),
            "entries": len(self.hashes),
            "starts": len(self.starts),
            "suffixes": dict(self.suffix_counts()),  # a 1M-domain count costs 0.1-0.5 s
        }
        parts = [MAGIC, json.dumps(head).encode(), b"\n", blob, self.key_lengths.tobytes()]
        parts += [self.offsets.tobytes(), self.hashes.tobytes(), self.ids.tobytes()]
        parts += [self.starts.tobytes(), self.twins.tobytes()]
        return b"".join(parts)

    @classmethod
    def from_bytes(cls, data: bytes) -> DomainDictionary:
        """Load what :meth:`to_bytes` wrote; raises InvalidInput on damage."""
        if not data.startswith(MAGIC):
            raise InvalidInput("not a PageKeeper dictionary index")
        try:
            end = data.index(b"\n", len(MAGIC))
            head = json.loads(data[len(MAGIC) : end])
            pos = end + 1
            blob = data[pos : pos + head["blob"]].decode()
            pos += head["blob"]
            lengths = array("B", data[pos : pos + head["n"]])
            pos += head["n"]
            view = memoryview(data)  # no temporary copies of 100+ MB slices
            offsets = array("I")
            offsets.frombytes(view[pos : pos + 4 * (head["n"] + 1)])
            pos += 4 * (head["n"] + 1)
            count = head["entries"]
            hashes, ids = array("Q"), array("I")
            hashes.frombytes(view[pos : pos + 8 * count])
            ids.frombytes(view[pos + 8 * count : pos + 12 * count])
            starts, twins = array("I"), array("I")
            pos += 12 * count
            starts.frombytes(view[pos : pos + 4 * head["starts"]])
            pos += 4 * head["starts"]
            twins.frombytes(view[pos : pos + 4 * head["n"]])
            suffixes = Counter({str(k): int(v) for k, v in head["suffixes"].items()})
        except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"damaged dictionary index: {exc}") from None
        n = head["n"]
        if len(offsets) != n + 1 or offsets[n] != (len(blob) + 1 if n else 0) or len(lengths) != n:
            raise InvalidInput("damaged dictionary index: truncated")
        if (
            len(ids) != count
            or len(twins) != n
            or len(starts) != head["starts"]
            or (len(starts) - 1) & (len(starts) - 2)
        ):
            raise InvalidInput("damaged dictionary index: bucket table")
        loaded = cls((blob, offsets), lengths, hashes, ids, starts, twins)
        loaded._suffixes = suffixes
        return loaded

    # -- lookups ------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def domains(self) -> list[str]:
        """Every domain, most popular first (a new list: for tests and baselines)."""
        return self.text.split("\n") if len(self) else []

    def domain(self, ident: int) -> str:
        return self.text[self.offsets[ident] : self.offsets[ident + 1] - 1]

    def key(self, ident: int) -> str:
        start = self.offsets[ident]
        return self.text[start : start + self.key_lengths[ident]]

    def suffix(self, ident: int) -> str:
        start = self.offsets[ident] + self.key_lengths[ident] + 1
        return self.text[start : self.offsets[ident + 1] - 1]

    def _ids(self, probe: int) -> array:
        bucket = probe >> self.shift
        lo, hi = self.starts[bucket], self.starts[bucket + 1]
        start = bisect_left(self.hashes, probe, lo, hi)
        return self.ids[start : bisect_right(self.hashes, probe, start, hi)]

    def id_of(self, domain: str) -> int | None:
        """The id (rank - 1) of a known domain, else None."""
        for ident in self._ids(_entry(domain, TAG_DOMAIN)):
            if self.domain(ident) == domain:
                return ident
        return None

    def rank(self, domain: str) -> int | None:
        """1-based popularity rank of a known domain."""
        ident = self.id_of(domain)
        return None if ident is None else ident + 1

    def has_key(self, key: str) -> bool:
        """Whether some domain's key is exactly ``key``."""
        return any(self.key(ident) == key for ident in self._ids(_entry(key, TAG_KEY)))

    def ids_with_key(self, key: str) -> list[int]:
        """Ids of every domain whose key is exactly ``key``, most popular first."""
        # entries of one hash are in id order: the first id with this key is its most
        # popular domain, and the twin chain lists the others
        for ident in self._ids(_entry(key, TAG_KEY)):
            if self.key(ident) == key:
                return self._key_ids(ident)
        return []

    def near_keys(self, query: str) -> list[tuple[int, int]]:
        """(id, distance) of domains whose key is 1 or 2 edits from ``query``.

        Edits count as in OSA: an adjacent swap is one edit (``gogole`` is 1
        from ``google``); the index finds those too, as a swap is resolved by
        one deletion on each side, and costs at most 2 parts of the partition
        (so a swap plus another edit on a long key is still found when one
        part stays intact). Keys shorter than 4 characters: distance 1 only.
        """
        found = []
        for _key, dist, ids in self._near_groups(query):
            found += [(ident, dist) for ident in ids]
        found.sort()
        return found

    def nearest_keys(
        self, query: str, limit: int, most: int = 2
    ) -> list[tuple[str, int, list[int]]]:
        """(key, distance, ids) of the first ``limit`` keys :meth:`near_keys` finds,
        nearest first, then by the rank of the key's most popular domain; ids in rank
        order. The same as grouping :meth:`near_keys` by key, without verifying every
        candidate: a 4-letter query's two-deletion neighbourhood holds ~700 keys, most
        3-4 edits away, and only the most popular two-edit ones are wanted.

        Every key one edit away shares a deletion of depth <= 1 with the query (an
        adjacent swap is one deletion on each side), and is at most one letter longer
        than that deletion (an inserted letter is one deletion of the key, down to the
        query itself): those candidates are verified first; the rest are walked in rank
        order until ``limit`` keys are found.

        >>> d = DomainDictionary.from_domains(["gogle.de", "google.com", "google.de"])
        >>> d.nearest_keys("gogle", 5)
        [('google', 1, [1, 2])]
        """
        first, longer = self._one_edit_candidates(query, most)
        groups = self._verified(query, first)
        for group in groups.values():
            group[2].sort()
        ones = sorted((g for g in groups.values() if g[1] == 1), key=lambda g: g[2][0])
        if most < 2:
            return [tuple(g) for g in ones[:limit]]
        need = limit - len(ones)
        if need <= 0 or len(query) > DELETE_MAX_LENGTH + 2:
            twos = sorted((g for g in groups.values() if g[1] == 2), key=lambda g: g[2][0])
            return [tuple(g) for g in (ones + twos)[:limit]]
        # keys of 4+ letters (two edits on a shorter one are never searched) holding one of
        # the query's two-letter deletions, the longer keys, and the verified two-edit keys'
        # ids (placed by rank with the rest); the other verified ids are skipped
        q, two = len(query), _deletion_texts(query, 2)
        probes = self._deletion_matches(two, _key_lengths(max(q - 2, TINY_KEY), q))
        far = [group[2] for group in groups.values() if group[1] == 2]
        skip = first.difference(chain.from_iterable(far))
        # each list is in rank order: sorting them together merges runs (a set of ~1,000
        # ids sorted from scratch costs twice as much)
        walk = sorted(chain(chain.from_iterable(probes), longer, chain.from_iterable(far)))
        return [tuple(g) for g in ones + self._first_twos(query, walk, groups, need, skip)]

    def _one_edit_candidates(self, query: str, most: int = 2) -> tuple[set[int], list[int]]:
        """The ids that may be one edit from ``query``: the part index's (long keys; with
        ``most`` 1, only those hit ONE_EDIT_HITS times), the query's own deletion probe's
        whose key is at most one letter longer, and its one-letter deletions' whose key is
        at most as long as the query; and the deletion probes' other ids (two edits away
        or more: candidates for the walk)."""
        if most < 2:
            first = self._one_edit_parts(query)
        else:
            hits = Counter(chain.from_iterable(self._part_matches(query)))
            first = set(hits) if len(hits) <= CROWDED else _most_hit(hits)
        q, found = len(query), self._deletion_matches
        if q > DELETE_MAX_LENGTH + 1:
            return first, []  # no deletion-indexed key is one or two letters shorter
        # deletion entries carry their key's length: each probe asks for the lengths it needs
        own, one = _deletion_texts(query, 0), _deletion_texts(query, 1)
        first.update(chain.from_iterable(found(own, _key_lengths(q, q + 1))))
        first.update(chain.from_iterable(found(one, _key_lengths(q - 1, q))))
        if most < 2:
            return first, []  # the walk over two-edit keys never runs
        # keys two letters longer than the text: never one under 4 letters (those hold their
        # one-letter deletions only), so the walk sees none of them
        longer = found(own, _key_lengths(q + 2, q + 2)) + found(one, _key_lengths(q + 1, q + 1))
        return first, list(chain.from_iterable(longer))

    def _one_edit_parts(self, query: str) -> set[int]:
        """Long keys the part index names as maybe one edit from ``query``: hit by
        ONE_EDIT_HITS of their 6 part probes (one edit breaks at most two parts), among
        keys at most one letter longer or shorter (those hits are all the one-edit search
        reads). Past CROWDED such keys, only the most hit ones (:func:`_most_hit`)."""
        hits = Counter(chain.from_iterable(self._part_matches(query, 1)))
        strong = {i for i, n in hits.items() if n >= ONE_EDIT_HITS}
        return strong if len(strong) <= CROWDED else _most_hit(hits)

    def _first_twos(
        self, query: str, walk: list[int], groups: dict, need: int, skip: set[int]
    ) -> list[list]:
        """The first ``need`` keys two edits from ``query`` among ``walk`` (ids in rank
        order, repeats allowed, of keys of 4+ letters at most two letters longer or shorter
        than the query, none of them one edit away but those in ``skip``, each with all its
        ids; ``groups``: keys already verified; ``skip``: ids verified and not two edits
        away."""
        text, at, lengths = self._key_layout()
        distance = OSA.distance
        out: list[list] = []
        taken: set[str] = set()
        last = -1
        for ident in walk:
            if ident == last:
                continue  # under two of the query's deletions
            last = ident
            if ident in skip:
                continue
            start = at[ident]
            key = text[start : start + lengths[ident]]
            if key in taken or distance(query, key, score_cutoff=2) != 2:
                continue
            if len(out) == need:
                break
            taken.add(key)
            group = groups.get(key)
            out.append(group if group is not None else [key, 2, self._key_ids(ident)])
        return out

    def _key_layout(self) -> tuple:
        """(text, offsets, key lengths): local names for the key scans' inner loops."""
        return self.text, self.offsets, self.key_lengths

    def _key_ids(self, ident: int) -> list[int]:
        """``ident`` and every less popular id with its key, in rank order."""
        ids, twins = [ident], self.twins
        while twins[ident] > ident:  # rising: a damaged file cannot loop
            ident = twins[ident]
            ids.append(ident)
        return ids

    def _near_groups(self, query: str) -> list[list]:
        """[key, distance, ids] of every key 1 or 2 edits from ``query`` (ids unsorted)."""
        return list(self._verified(query, self._candidates(query)).values())

    def _candidates(self, query: str) -> set[int]:
        """Ids the part index and the deletion probes name for ``query``: keys up to two
        letters longer than one of its deletions (up to two, one under 4 letters), and at
        most two letters longer or shorter than the query."""
        hits = Counter(chain.from_iterable(self._part_matches(query)))
        seen = set(hits) if len(hits) <= CROWDED else _most_hit(hits)
        q = len(query)
        if q > DELETE_MAX_LENGTH + 2:
            return seen
        for depth in range(3 if q >= TINY_KEY else 2):
            lengths = _key_lengths(q - depth, min(q - depth + 2, q + 2))
            texts = _deletion_texts(query, depth)
            seen.update(chain.from_iterable(self._deletion_matches(texts, lengths)))
        return seen

    def _verified(self, query: str, seen: Iterable[int]) -> dict[str, list]:
        """{key: [key, distance, ids]} of the keys 1 or 2 edits from ``query`` among the
        candidates ``seen``, each key verified once (domains sharing a key share it)."""
        groups: dict[str, list] = {}
        text, at, lengths = self._key_layout()
        distance, q = OSA.distance, len(query)
        for ident in seen:
            n = lengths[ident]
            if n - q > 2 or q - n > 2:
                continue  # more than two letters apart in length
            start = at[ident]
            key = text[start : start + n]
            group = groups.get(key)
            if group is None:
                group = groups[key] = [key, distance(query, key, score_cutoff=2), []]
            group[2].append(ident)
        return {
            k: g for k, g in groups.items() if 0 < g[1] <= 2 and (g[1] == 1 or len(k) >= TINY_KEY)
        }

    def _part_matches(self, query: str, reach: int = 2) -> list[array]:
        """The ids under each of :func:`_part_probes` that has entries (keys up to
        ``reach`` letters longer or shorter). A part's probes differ only in their low
        bits (key length, part): one bisect tells whether its letters are in the index at
        all (most are not), before each probe is looked up."""
        plan = _probe_plan(len(query), reach)
        hashes, ids, starts, shift, out = self.hashes, self.ids, self.starts, self.shift, []
        crc = zlib.crc32
        for (at, size), lows in plan.items():
            base = crc("".join(sorted(query[at : at + size])).encode()) << 11
            bucket = base >> shift  # the low bits never reach the bucket
            first, hi = (
                bisect_left(hashes, base, starts[bucket], starts[bucket + 1]),
                starts[bucket + 1],
            )
            if first == hi or hashes[first] >> 11 != base >> 11:
                continue
            for low in lows:
                probe = base | low
                start = bisect_left(hashes, probe, first, hi)
                if start < hi and hashes[start] == probe:
                    out.append(ids[start : bisect_right(hashes, probe, start, hi)])
        return out

    def _deletion_matches(self, texts: Iterable[int], lengths: range) -> list[array]:
        """The ids under the deletion entries of each hashed text in ``texts`` (from
        :func:`_crc`) whose key length is in ``lengths``: the length sits in the low bits,
        below the text's hash, so one text's entries for a range of lengths are one
        slice of the sorted hashes."""
        if not lengths:
            return []
        hashes, ids, starts, shift, out = self.hashes, self.ids, self.starts, self.shift, []
        low, high = DELETE_LOWS[lengths[0]], DELETE_LOWS[lengths[-1]]
        for base in texts:
            bucket = base >> shift  # the low bits never reach the bucket
            hi = starts[bucket + 1]
            start = bisect_left(hashes, base | low, starts[bucket], hi)
            if start < hi and hashes[start] <= base | high:
                out.append(ids[start : bisect_right(hashes, base | high, start, hi)])
        return out

    def suffix_counts(self) -> Counter:
        """How many known domains use each public suffix (for TLD repair)."""
        if self._suffixes is None:
            self._suffixes = Counter(self.suffix(i) for i in range(len(self)))
        return self._suffixes

    def memory_bytes(self) -> int:
        """Approximate memory of the index structures (domains + entries)."""
        strings = 49 + len(self.text) + 4 * len(self.offsets)
        index = (
            12 * len(self.hashes) + len(self.key_lengths) + 4 * (len(self.starts) + len(self.twins))
        )
        return strings + index


def _pack(domains: list[str]) -> tuple[str, array]:
    """Domains as one newline-joined string and the offset where each starts.

    >>> _pack(["a.com", "bb.org"])
    ('a.com\\nbb.org', array('I', [0, 6, 13]))
    """
    offsets, at = array("I", [0]), 0
    for domain in domains:
        at += len(domain) + 1
        offsets.append(at)
    return "\n".join(domains), offsets


def _plausible(domain: str) -> bool:
    return 3 <= len(domain) <= 253 and "." in domain and " " not in domain and "\n" not in domain


def _build_entries(
    domains: list[str], lengths: array, report: Callable[[int], None]
) -> tuple[array, array]:
    values: list[int] = []
    add = values.append
    for ident, domain in enumerate(domains):
        if ident % PROGRESS_EVERY == 0 and ident:
            report(PROGRESS_EVERY)
        key = domain[: lengths[ident]]
        add(_entry(domain, TAG_DOMAIN) << ID_BITS | ident)
        add(_entry(key, TAG_KEY) << ID_BITS | ident)
        for entry in key_entries(key):
            add(entry << ID_BITS | ident)
    if domains:
        report(len(domains) % PROGRESS_EVERY or PROGRESS_EVERY)
    values.sort()  # seconds for the bundled 100k on a slow machine: one unit each side
    report(1)
    hashes = array("Q", (v >> ID_BITS for v in values))
    report(1)
    return hashes, array("I", (v & ID_MASK for v in values))


def _within_two(query: str, keys: list[str]) -> list[tuple[str, int, int]]:
    """(key, OSA distance, position) of each of ``keys`` at most two edits from ``query``.

    >>> _within_two("gogle", ["google", "goggles", "bing"])
    [('google', 1, 0), ('goggles', 2, 1)]
    """
    return process.extract(query, keys, scorer=OSA.distance, score_cutoff=2, limit=None)


def _ignore(count: int) -> None:
    """The progress report of a build nobody watches."""


def _most_hit(hits: Counter) -> set[int]:
    """Candidates hit at least ``need`` times: the least ``need`` >= 2 that keeps
    at most CROWDED of them (or just the most hit ones)."""
    by_count = Counter(hits.values())
    top = max(by_count)
    if top < 2:
        return set()  # no Levenshtein-2 match among them
    need, kept = top + 1, 0
    while need > 2 and kept + by_count.get(need - 1, 0) <= CROWDED:
        need -= 1
        kept += by_count.get(need, 0)
    need = min(need, top)
    return {i for i, n in hits.items() if n >= need}


def _twins(d: DomainDictionary) -> array:
    """For each id, the next id whose key is the same (0 when none).

    >>> list(_twins(DomainDictionary.from_domains(["a.com", "b.com", "a.de"])))
    [2, 0, 0]
    """
    twins, last = array("I", bytes(4 * len(d))), dict[str, int]()
    for ident in range(len(d)):
        key = d.key(ident)
        before = last.get(key)
        if before is not None:
            twins[before] = ident
        last[key] = ident
    return twins


def _bucket_starts(hashes: array) -> array:
    """First index of each bucket of the top hash bits (about 4 entries a bucket)."""
    bits = max(4, min(24, (len(hashes) // 4).bit_length()))
    shift = HASH_BITS - bits
    return array("I", (bisect_left(hashes, b << shift) for b in range((1 << bits) + 1)))


@cache
def _bundled() -> DomainDictionary:
    raw = resources.files("engine.data").joinpath("domains.txt.gz").read_bytes()
    return DomainDictionary.from_domains(gzip.decompress(raw).decode().split("\n"))
