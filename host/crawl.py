"""Auto-registration: register a page and, recursively, the pages it links to.

Breadth-first from the start URL, to ``depth`` link hops, at most ``max_pages``
registrations, same site only when asked (same registrable domain, by the
Public Suffix List snapshot bundled with tldextract: never fetched), with a
politeness delay between fetches. Progress goes to a callback (the CLI draws
a bar on stderr). A page that fails is reported and skipped; the crawl goes on.

>>> same_site("https://a.example.co.uk/x", "http://b.example.co.uk/")
True
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import tldextract

from engine.archive.model import Capture, RegisterOptions
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from engine.errors import PageKeeperError
from host.fetch import FetchOptions, fetch

_EXTRACT = tldextract.TLDExtract(suffix_list_urls=())  # bundled snapshot only, no network


@lru_cache(maxsize=4096)
def site_of(url: str) -> str:
    """The registrable domain of a URL (or its host when it has none, e.g. an IP)."""
    parts = _EXTRACT(url)
    return parts.top_domain_under_public_suffix or parts.domain


def same_site(a: str, b: str) -> bool:
    return site_of(a) == site_of(b)


@dataclass(frozen=True)
class CrawlOptions:
    """How far and how fast to crawl."""

    depth: int = 1
    max_pages: int = 50
    same_site: bool = True
    delay: float = 1.0  # seconds between fetches (politeness)
    fetch: FetchOptions = field(default_factory=FetchOptions)
    register: RegisterOptions = field(default_factory=RegisterOptions)


@dataclass
class CrawlReport:
    """What a crawl registered, skipped and failed."""

    registered: list = field(default_factory=list)
    failed: list = field(default_factory=list)
    skipped: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "registered": self.registered,
            "failed": self.failed,
            "skipped": self.skipped,
            "count": len(self.registered),
        }


Progress = Callable[[int, int, str], None]  # (done, limit, url)


def _capture(url: str, options: CrawlOptions) -> Capture:
    got = fetch(url, options.fetch)
    if not got.ok:
        raise PageKeeperError(f"HTTP {got.status}")
    return got.capture(url, "crawl")


def _links(store: ArchiveStore, reg_id: str) -> list[str]:
    return [store.link_url(i) for i in store.refs(reg_id)]


def _wanted(link: str, start: str, options: CrawlOptions) -> bool:
    if not link.startswith(("http://", "https://")):
        return False
    return not options.same_site or same_site(link, start)


def crawl(
    store: ArchiveStore,
    start: str,
    options: CrawlOptions | None = None,
    progress: Progress | None = None,
) -> CrawlReport:
    """Register ``start`` and its linked pages breadth-first (see the module doc)."""
    options = options or CrawlOptions()
    queue, seen, report = deque([(start, 0)]), {start.split("#")[0]}, CrawlReport()
    while queue and len(report.registered) < options.max_pages:
        url, depth = queue.popleft()
        if report.registered or report.failed:
            time.sleep(options.delay)
        reg_id = _visit(store, url, options, report)
        if progress:
            progress(len(report.registered), options.max_pages, url)
        if reg_id is None or depth >= options.depth:
            continue
        for link in _links(store, reg_id):
            bare = link.split("#")[0]
            if bare not in seen and _wanted(bare, start, options):
                seen.add(bare)
                queue.append((bare, depth + 1))
    return report


def _visit(store: ArchiveStore, url: str, options: CrawlOptions, report: CrawlReport) -> str | None:
    try:
        reg = register(store, _capture(url, options), options.register)
    except PageKeeperError as exc:
        report.failed.append({"url": url, "error": {"code": exc.code, "message": exc.message}})
        return None
    entry = {"id": reg.id, "url": url, "version_url": reg.version_url}
    (report.skipped if reg.skipped else report.registered).append(entry)
    return reg.id
