"""The warm document index the viewer searches as you type, over 100,000 snapshots.

One :class:`DocumentIndex` per open store (kept in ``store.cache``) holds every document (archive key)
as its newest version, in two orders (time, URL), each also as ONE
newline-joined string of URLs. A ``*`` / ``?`` pattern becomes a regex run by
the regex engine over that string (no Python loop over the URLs); paging is a
slice. Selective filters (site, date range, text, liveness state) first narrow
the candidates, and only those are matched one by one. New registrations are
folded in incrementally (store IDs only grow), so the index is never rebuilt
from scratch after the first search.

>>> pattern_regex("*.example.com/a?c").pattern
'^[^\\\\n]*\\\\.example\\\\.com/a[^\\\\n]c$'
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import cast

from engine.archive.search import wildcard_regex
from engine.errors import InvalidInput

MAX_PATTERN = 2048
CACHE_NAME = "documents"  # its entry in store.cache
BULK = 2000  # more new versions than this: sort once instead of inserting one by one
STEP_VERSIONS = 2000  # versions a step of a build ahead of use (fold_some; ~6 ms CPU at 100k)
DENSE = 5000  # more hits than this expected past a page: count them in C (match_first)


def check_pattern(pattern: str) -> None:
    """Refuse patterns that cannot be a URL pattern, with a message saying why."""
    if not pattern.strip():
        raise InvalidInput("the URL pattern is empty (use * to match everything)")
    if len(pattern) > MAX_PATTERN:
        raise InvalidInput(f"the URL pattern is longer than {MAX_PATTERN} characters")
    bad = next((ch for ch in pattern if ord(ch) < 32 or ch in " \x7f"), None)
    if bad is not None:
        raise InvalidInput(f"the URL pattern holds {bad!r}: URLs contain no spaces or controls")


def pattern_regex(pattern: str, case_sensitive: bool = False) -> re.Pattern:
    """A checked URL pattern as the archive search's regex over one line
    (:func:`engine.archive.search.wildcard_regex`): without a wildcard it matches anywhere
    in the URL (typing ``blog`` finds every URL holding it), with one the whole URL."""
    check_pattern(pattern)
    return wildcard_regex(pattern, case_sensitive)


def scan_regex(rx: re.Pattern) -> re.Pattern:
    """The same pattern without its leading and trailing ``*``, for scanning joined lines.

    ``^[^\\n]*X[^\\n]*$`` backtracks over every character of every line;
    ``X`` alone lets the regex engine jump from one occurrence to the next.
    Each hit is then mapped to its line (a line may hit more than once).

    >>> scan_regex(pattern_regex("*e.com/*")).pattern
    'e\\\\.com/'
    """
    body = rx.pattern[1:-1]
    star = "[^\\n]*"
    head = body.startswith(star)
    tail = body.endswith(star)  # a literal "[^\\n]*" would be escaped: this is a "*"
    body = body[len(star) if head else 0 : len(body) - (len(star) if tail else 0)]
    scan = ("" if head else "^") + body + ("" if tail else "$")
    return re.compile(scan or "^", rx.flags)


def site_matches(host: str, site: str) -> bool:
    """``example.com`` matches itself and its subdomains; the port counts only when named.

    >>> site_matches("www.example.com", "example.com"), site_matches("badexample.com", "example.com")
    (True, False)
    >>> site_matches("127.0.0.1:8080", "127.0.0.1"), site_matches("127.0.0.1:8080", "127.0.0.1:80")
    (True, False)
    """
    host = host.lower()
    if not re.search(r":\d+$", site):
        host = re.sub(r":\d+$", "", host)
    return host == site or host.endswith("." + site)


@dataclass
class DocEntry:
    """One document (archive key) as search shows it: its newest version."""

    key: str
    id: str
    url: str
    title: str
    ts: float
    host: str
    versions: int
    size: int

    def order(self) -> tuple:
        return (self.ts, self.id)


class DocumentIndex:
    """Every document, by time and by URL, with the joined URL strings."""

    def __init__(self) -> None:
        self._clear()

    def _clear(self) -> None:
        self.entries: list[DocEntry] = []
        self.pos: dict[str, int] = {}
        self.hosts: dict[str, list[int]] = {}
        self.by_time: list[int] = []  # oldest first
        self.by_url: list[int] = []
        self.seen = 0
        self.last_seen: str | None = None
        self.revisits = 0  # the store's revisit count folded in
        self.rekeyed: object = None  # the store's ``rekeyed`` when a build in steps began
        self._derived: dict[str, object] = {}

    # -- keeping current -----------------------------------------------------------
    def refresh(self, store) -> DocumentIndex:
        """Fold in versions registered since the last call (rebuild if any vanished)."""
        ids, revisits = store.ids, store.revisit_count()
        unchanged = len(ids) == self.seen and (not ids or ids[-1] == self.last_seen)
        if unchanged and revisits == self.revisits:
            return self
        if len(ids) < self.seen or (self.seen and ids[self.seen - 1] != self.last_seen):
            self._clear()
        if revisits != self.revisits:  # a capture "seen again" adds no ID: fold all again
            self._clear()
        new = ids[self.seen :]
        bulk = len(new) > BULK
        for reg_id in new:
            self._fold(store, reg_id, bulk)
        if bulk:
            self.by_time = sorted(range(len(self.entries)), key=lambda i: self.entries[i].order())
            self.by_url = sorted(range(len(self.entries)), key=lambda i: self.entries[i].url)
        self.seen, self.last_seen = len(ids), ids[-1] if ids else None
        self.revisits = revisits
        self._join()
        return self

    # -- built ahead of use, in steps (the daemon's start) --------------------------------
    def fold_some(self, store, limit: int | None = None) -> bool:
        """Fold up to ``limit`` (``STEP_VERSIONS``) more of the store's versions, unordered, into an index not in
        ``store.cache`` yet (a build in steps, so a capture waits for one step, not for the
        whole build); True once every version is folded (then :meth:`order`, then
        :func:`install`). Begun again when a version vanished, a revisit came or the store
        was re-keyed meanwhile (the folded entries may be stale).

        >>> from types import SimpleNamespace
        >>> versions = {f"v{n}": {"key": f"k{n % 2}", "url": f"u{n % 2}", "ts": n} for n in range(3)}
        >>> store = SimpleNamespace(ids=list(versions), raw=lambda name: versions, rekeyed=0,
        ...     revisit_count=lambda: 0, last_capture_of=lambda i: (i, versions[i]["ts"]))
        >>> index = DocumentIndex()
        >>> index.fold_some(store, 2), index.fold_some(store, 2), [e.id for e in index.entries]
        (False, True, ['v2', 'v1'])
        """
        limit = STEP_VERSIONS if limit is None else limit
        ids, revisits = store.ids, store.revisit_count()
        vanished = len(ids) < self.seen or (self.seen and ids[self.seen - 1] != self.last_seen)
        if vanished or revisits != self.revisits or store.rekeyed != self.rekeyed:
            self._clear()
            self.revisits, self.rekeyed = revisits, store.rekeyed
        new = ids[self.seen : self.seen + limit]
        for reg_id in new:
            self._fold(store, reg_id, bulk=True)
        self.seen += len(new)
        self.last_seen = ids[self.seen - 1] if self.seen else None
        return self.seen == len(ids)

    def order(self) -> None:
        """Sort the entries :meth:`fold_some` folded by time and by URL (any thread: the index
        is not in the cache yet)."""
        self.by_time = sorted(range(len(self.entries)), key=lambda i: self.entries[i].order())
        self.by_url = sorted(range(len(self.entries)), key=lambda i: self.entries[i].url)
        self._join()

    def _fold(self, store, reg_id: str, bulk: bool) -> None:
        doc = store.raw("versions")[reg_id]
        key = doc["key"]
        i = self.pos.get(key)
        if i is None:
            i = self.pos[key] = len(self.entries)
            self.entries.append(_entry(key, reg_id, doc, 0))
            self.hosts.setdefault(self.entries[i].host, []).append(i)
        elif not bulk:
            self._unplace(i)
        entry = self.entries[i]
        entry.versions += 1 + len(doc.get("seen", ()))  # its revisits are captures too
        newest, ts = store.last_capture_of(reg_id)
        if (ts, newest) >= entry.order():
            self.entries[i] = _entry(key, newest, {**doc, "ts": ts}, entry.versions)
        if not bulk:
            self._place(i)

    def _unplace(self, i: int) -> None:
        self.by_time.remove(i)
        self.by_url.remove(i)

    def _place(self, i: int) -> None:
        entries = self.entries
        bisect.insort(self.by_time, i, key=lambda j: entries[j].order())
        bisect.insort(self.by_url, i, key=lambda j: entries[j].url)

    def _join(self) -> None:
        """Forget the derived orders; each is rebuilt on its first use (see :meth:`derived`)."""
        self._derived = {}

    def derived(self, name: str):
        """Joined strings, line starts, ranks and times, built lazily per refresh."""
        if name not in self._derived:
            self._derived.update(_BUILD[name](self))
        return self._derived[name]

    # -- answering ------------------------------------------------------------------
    def order_of(self, sort: str) -> list[int]:
        return self.by_url if sort == "url" else self.by_time[::-1]

    def match_all(self, rx: re.Pattern, sort: str) -> list[int]:
        """Entry indexes whose URL matches, in ``sort`` order (the regex runs once, in C)."""
        return self.match_first(rx, sort, None)[0]

    def match_first(self, rx: re.Pattern, sort: str, stop: int | None) -> tuple[list[int], int]:
        """The first ``stop`` matching entries (all if None) and how many match in all.

        A page of results needs only its first hits and the total: when the hits past
        ``stop`` promise to be many (> ``DENSE``, judged by how far into the string the
        first ``stop`` reached), they are counted by ONE regex pass in C instead of walked
        line by line in Python (a 1-character pattern matching all 50k documents: ~50 ms
        walked, ~5 ms counted); sparse hits are walked, which is cheaper for them.
        """
        order = self.by_url if sort == "url" else self.derived("newest_first")
        if rx.pattern == "^[^\\n]*$":
            return (list(order) if stop is None else order[:stop]), len(order)
        name = "url" if sort == "url" else "time"
        starts = self.derived(f"starts_{name}")
        scan, count = scan_regex(rx), rx
        joined = self.derived(f"joined_{name}")
        lowered = self.derived(f"lower_{name}") if scan.flags & re.IGNORECASE else None
        if lowered is not None:  # URLs are ASCII: lower-case once, scan without the flag
            joined, scan = lowered, re.compile(scan.pattern.lower(), scan.flags & ~re.IGNORECASE)
            count = re.compile(rx.pattern.lower(), rx.flags & ~re.IGNORECASE)
        if scan.pattern.startswith("^"):  # "\nX" is a literal prefix re can jump to; "^X" is not
            scan = re.compile("\n" + scan.pattern[1:], scan.flags)
        # One search per matching LINE, not per occurrence: after a hit the scan resumes
        # at the newline that ends its line ("a" occurs twice in most URLs: half the work).
        hits, pos, end, search = [], 0, len(joined), scan.search
        last_line, total = len(starts) - 1, 0
        while (m := search(joined, pos)) is not None:
            line = bisect.bisect_right(starts, m.start() + 1) - 1
            total += 1
            if stop is None or total <= stop:
                hits.append(order[line])
            elif total == stop + 1 and total * end / m.end() > total + DENSE:
                # Hits this dense promise thousands more: one counting pass beats walking
                # them (the count regex costs ~5-20 ms whatever it matches).
                return hits, count_lines(count, joined)
            if line == last_line:  # an empty match at the end would be the last line again
                break
            pos = starts[line + 1] - 1
        return hits, total

    def match_some(self, rx: re.Pattern, sort: str, candidates: Iterable[int]) -> list[int]:
        """The candidates whose URL matches, in ``sort`` order."""
        rank = self.derived("rank_url" if sort == "url" else "rank_time")
        hits = [i for i in candidates if rx.match(self.entries[i].url)]
        return sorted(hits, key=rank.__getitem__)

    def site(self, site: str) -> set[int]:
        """Entries on a site (and its subdomains)."""
        found: set[int] = set()
        for host, members in self.hosts.items():
            if site_matches(host, site):
                found.update(members)
        return found

    def between(self, since: float | None, until: float | None) -> list[int]:
        """Entries whose newest version falls in [since, until]."""
        times = self.derived("times")
        lo = 0 if since is None else bisect.bisect_left(times, since)
        hi = len(times) if until is None else bisect.bisect_right(times, until)
        return self.by_time[lo:hi]

    def keyed(self, keys: Iterable[str]) -> set[int]:
        """Entries of these document keys (unknown keys dropped); the loop runs in C,
        as a common word's keys may be half the archive (4x faster than a comprehension)."""
        found = set(map(self.pos.get, keys))
        found.discard(None)
        return cast(set[int], found)

    def select_first(
        self, rx: re.Pattern, sort: str, narrowed: list, tests: list[Callable], stop: int
    ) -> tuple[list[DocEntry], int]:
        """The first ``stop`` entries :meth:`select` would give, and its length."""
        if narrowed or tests:
            found = self.select(rx, sort, narrowed, tests)
            return found[:stop], len(found)
        hits, total = self.match_first(rx, sort, stop)
        return [self.entries[i] for i in hits], total

    def select(
        self, rx: re.Pattern, sort: str, narrowed: list[set | list], tests: list[Callable]
    ) -> list[DocEntry]:
        """Match the pattern over the smallest candidate set, then apply the remaining tests."""
        if narrowed:
            sets = sorted((s if isinstance(s, set) else set(s) for s in narrowed), key=len)
            candidates = sets[0].intersection(*sets[1:]) if len(sets) > 1 else sets[0]
            if len(candidates) * 8 > len(self.entries):  # many: one regex pass is cheaper
                hits = [i for i in self.match_all(rx, sort) if i in candidates]
            else:
                hits = self.match_some(rx, sort, candidates)
        else:
            hits = self.match_all(rx, sort)
        entries = [self.entries[i] for i in hits]
        return [e for e in entries if all(t(e) for t in tests)] if tests else entries


def count_lines(rx: re.Pattern, joined: str) -> int:
    """Lines of ``joined`` (``"\\nurl1\\nurl2…"``) the whole-line regex ``rx`` matches.

    ``subn`` counts in C; ``^…$`` matches at most once per line. The empty first line
    is not a URL: it only counts when the pattern matches nothing at all ("**").

    >>> count_lines(pattern_regex("*b*"), "\\nab\\ncd\\nbb")
    2
    """
    return rx.subn("", joined)[1] - (1 if rx.fullmatch("") else 0)


def _entry(key: str, reg_id: str, doc: dict, versions: int) -> DocEntry:
    return DocEntry(
        key,
        reg_id,
        doc["url"],
        doc.get("title") or "",
        doc["ts"],
        doc.get("host", ""),
        versions,
        doc.get("size", 0),
    )


def _join(urls) -> tuple[str, list[int]]:
    """``"\nurl1\nurl2…"`` (every line after a newline) and where each line starts."""
    starts, parts, pos = [], [""], 1
    for url in urls:
        line = url.replace("\n", " ")
        starts.append(pos)
        parts.append(line)
        pos += len(line) + 1
    return "\n".join(parts), starts


def _lowered(joined: str) -> str | None:
    """Lower-cased when that keeps every offset (ASCII, as serialized URLs are), else None."""
    lowered = joined.lower()
    return lowered if len(lowered) == len(joined) else None


def _time_lines(index: DocumentIndex) -> dict:
    newest = index.by_time[::-1]
    joined, starts = _join(index.entries[i].url for i in newest)
    return {"newest_first": newest, "joined_time": joined, "starts_time": starts}


def _url_lines(index: DocumentIndex) -> dict:
    joined, starts = _join(index.entries[i].url for i in index.by_url)
    return {"joined_url": joined, "starts_url": starts}


_BUILD = {
    "newest_first": _time_lines,
    "joined_time": _time_lines,
    "starts_time": _time_lines,
    "joined_url": _url_lines,
    "starts_url": _url_lines,
    "lower_time": lambda ix: {"lower_time": _lowered(ix.derived("joined_time"))},
    "lower_url": lambda ix: {"lower_url": _lowered(ix.derived("joined_url"))},
    "rank_time": lambda ix: {"rank_time": _ranks(ix.derived("newest_first"))},
    "rank_url": lambda ix: {"rank_url": _ranks(ix.by_url)},
    "times": lambda ix: {"times": [ix.entries[i].ts for i in ix.by_time]},
}


def _ranks(order: list[int]) -> list[int]:
    rank = [0] * len(order)
    for r, i in enumerate(order):
        rank[i] = r
    return rank


def install(store, index: DocumentIndex) -> DocumentIndex:
    """Put an index built in steps (:meth:`DocumentIndex.fold_some`, then
    :meth:`DocumentIndex.order`) in ``store.cache``, with what was registered since folded
    in (as :func:`document_index`; a re-keying meanwhile: built anew)."""
    store.cache[CACHE_NAME] = (index.rekeyed, index)
    return document_index(store)


def document_index(store) -> DocumentIndex:
    """The warm index of ``store`` (held in ``store.cache``), brought up to date with its
    newest registrations (built anew after the archive was re-keyed, e.g. by a new key
    profile)."""
    held = store.cache.get(CACHE_NAME)
    if held is None or held[0] != store.rekeyed:
        held = store.cache[CACHE_NAME] = (store.rekeyed, DocumentIndex())
    return held[1].refresh(store)
