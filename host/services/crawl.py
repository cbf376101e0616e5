"""Auto-registration: register a page and, recursively, the pages it links to.

Breadth-first from the start URL, to ``depth`` link hops, at most ``max_pages``
registrations, same site only when asked (same registrable domain, by the
Public Suffix List snapshot bundled with tldextract: never fetched), with a
politeness delay between fetches. Progress goes to a callback (the CLI draws
a bar on stderr). A page that fails is reported and skipped; the crawl goes on.

One :class:`Frontier` (queue, seen set, report) drives both runners:
:func:`crawl` (the CLI with no daemon: blocking fetches, the store in hand) and
:func:`acrawl` (the daemon: fetches on the event loop, registrations through
its one store thread), so both give the same report for the same site. In the
daemon a crawl is a :class:`CrawlJob` that clients poll (``crawl_status``).

>>> same_site("https://a.example.co.uk/x", "http://b.example.co.uk/")
True
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import urlsplit

from engine.archive.model import Capture, RegisterOptions, Registration, iso
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from engine.errors import InvalidInput, InvalidURL, PageKeeperError, error_payload
from engine.urls.sites import registrable_domain
from host.services.fetch import FetchOptions, afetch, fetch, http_url
from host.services.resource_fetch import ResourceFetchOptions, awith_resources, with_resources

MAX_DEPTH = 10
MAX_PAGES = 10_000
MAX_DELAY = 60.0


@lru_cache(maxsize=4096)
def site_of(url: str) -> str:
    """The registrable domain of a URL (or its host when it has none, e.g. an IP)."""
    return registrable_domain(urlsplit(url).hostname or "")


def same_site(a: str, b: str) -> bool:
    return site_of(a) == site_of(b)


def check_start(url: str) -> str:
    """The start URL, or ``InvalidURL`` when it is no http(s) URL (nothing would be crawled).

    >>> check_start("ftp://example.com/")
    Traceback (most recent call last):
    ...
    engine.errors.InvalidURL: a crawl starts at an http(s) URL, not 'ftp://example.com/'
    """

    parsed = http_url(url, "crawled")  # no URL at all: InvalidURL naming it, with the reason
    if parsed.protocol not in ("http:", "https:"):
        raise InvalidURL(f"a crawl starts at an http(s) URL, not {url!r}")
    return url


@dataclass(frozen=True)
class CrawlOptions:
    """How far and how fast to crawl; out-of-range values raise ``InvalidInput``.

    >>> CrawlOptions(depth=11)
    Traceback (most recent call last):
    ...
    engine.errors.InvalidInput: depth must be an integer in [0, 10]
    """

    depth: int = 1
    max_pages: int = 50
    same_site: bool = True
    delay: float = 1.0  # seconds between fetches (politeness)
    fetch: FetchOptions = field(default_factory=FetchOptions)
    register: RegisterOptions = field(default_factory=RegisterOptions)
    resources: ResourceFetchOptions = field(default_factory=ResourceFetchOptions)

    def __post_init__(self) -> None:
        _bounded("depth", self.depth, 0, MAX_DEPTH, int)
        _bounded("max_pages", self.max_pages, 1, MAX_PAGES, int)
        _bounded("delay", self.delay, 0.0, MAX_DELAY, (int, float))


def _bounded(name: str, value, low, high, kind) -> None:
    if isinstance(value, bool) or not isinstance(value, kind) or not low <= value <= high:
        what = "an integer" if kind is int else "a number"
        raise InvalidInput(f"{name} must be {what} in [{low}, {high}]")


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


class Frontier:
    """The crawl's state: what to visit next, what was seen, and the report.

    >>> f = Frontier("http://a.test/", CrawlOptions(depth=0))
    >>> f.next(), f.next()
    (('http://a.test/', 0), None)
    """

    def __init__(self, start: str, options: CrawlOptions, report: CrawlReport | None = None):
        self.start, self.options = start, options
        self.queue = deque([(start, 0)])
        self.seen = {start.split("#")[0]}
        self.report = CrawlReport() if report is None else report

    @property
    def started(self) -> bool:
        """Has a page been visited (so the politeness delay applies)?"""
        return bool(self.report.registered or self.report.failed or self.report.skipped)

    def next(self) -> tuple[str, int] | None:
        """The next (url, depth) to visit, or None when the crawl is over."""
        if not self.queue or len(self.report.registered) >= self.options.max_pages:
            return None
        return self.queue.popleft()

    def registered(self, url: str, depth: int, reg: Registration) -> bool:
        """Record a registration; True when its links should be followed."""
        entry = {"id": reg.id, "url": url, "version_url": reg.version_url}
        (self.report.skipped if reg.skipped else self.report.registered).append(entry)
        return depth < self.options.depth

    def failed(self, url: str, exc: PageKeeperError) -> None:
        self.report.failed.append({"url": url, "error": {"code": exc.code, "message": exc.message}})

    def follow(self, links: list[str], depth: int) -> None:
        """Queue the wanted, unseen links of a page found at ``depth``."""
        for link in links:
            bare = link.split("#")[0]
            if bare not in self.seen and self._wanted(bare):
                self.seen.add(bare)
                self.queue.append((bare, depth + 1))

    def _wanted(self, link: str) -> bool:
        if not link.startswith(("http://", "https://")):
            return False
        return not self.options.same_site or same_site(link, self.start)

    def progress(self, progress: Progress | None, url: str) -> None:
        if progress:
            progress(len(self.report.registered), self.options.max_pages, url)


def links_of(store: ArchiveStore, reg_id: str) -> list[str]:
    """The absolute URLs a registered version links to (its referenced-link rows)."""
    return [store.link_url(i) for i in store.refs(reg_id)]


def crawl(
    store: ArchiveStore,
    start: str,
    options: CrawlOptions | None = None,
    progress: Progress | None = None,
) -> CrawlReport:
    """Register ``start`` and its linked pages breadth-first (see the module doc)."""
    options = options or CrawlOptions()
    frontier = Frontier(check_start(start), options)
    while (item := frontier.next()) is not None:
        url, depth = item
        if frontier.started:
            time.sleep(options.delay)
        try:
            capture = fetch(url, options.fetch).capture(url, "crawl")
            reg = register(store, with_resources(capture, options.resources), options.register)
            if frontier.registered(url, depth, reg):
                frontier.follow(links_of(store, reg.id), depth)
        except PageKeeperError as exc:
            frontier.failed(url, exc)
        frontier.progress(progress, url)
    return frontier.report


Register = Callable[[Capture], Awaitable[Registration]]
Links = Callable[[str], Awaitable[list[str]]]


async def acrawl(
    start: str,
    options: CrawlOptions,
    register_capture: Register,
    links: Links,
    progress: Progress | None = None,
    stop: asyncio.Event | None = None,
    report: CrawlReport | None = None,
) -> CrawlReport:
    """:func:`crawl` for the daemon: the same frontier, fetches awaited on the event loop.

    ``register_capture`` and ``links`` run the store work (on the daemon's store
    thread); ``stop`` ends the crawl after the page in hand (``crawl_cancel``);
    ``report`` (filled as pages are done) lets a job show counts while it runs.
    """
    stop = stop or asyncio.Event()
    frontier = Frontier(check_start(start), options, report)
    while not stop.is_set() and (item := frontier.next()) is not None:
        url, depth = item
        if frontier.started and await _pause(stop, options.delay):
            break
        try:
            got = await afetch(url, options.fetch)
            capture = await awith_resources(got.capture(url, "crawl"), options.resources)
            reg = await register_capture(capture)
            if frontier.registered(url, depth, reg):
                frontier.follow(await links(reg.id), depth)
        except PageKeeperError as exc:
            frontier.failed(url, exc)
        frontier.progress(progress, url)
    return frontier.report


async def _pause(stop: asyncio.Event, seconds: float) -> bool:
    """Sleep ``seconds`` unless stopped first; True when stopped."""
    try:
        await asyncio.wait_for(stop.wait(), seconds)
    except TimeoutError:
        return False
    return True


@dataclass
class CrawlJob:
    """A crawl running in the daemon, as clients see it through ``crawl_status``.

    >>> job = CrawlJob.new("http://a.test/", 5)
    >>> job.progress(1, 5, "http://a.test/"); job.to_dict()["done"], job.to_dict()["state"]
    (1, 'running')
    """

    id: str
    url: str
    limit: int
    started_at: float
    state: str = "running"  # running | done | cancelled | failed
    done: int = 0
    steps: int = 0
    current: str | None = None
    finished_at: float | None = None
    report: CrawlReport = field(default_factory=CrawlReport)
    error: dict | None = None
    stop: asyncio.Event = field(default_factory=asyncio.Event)

    @classmethod
    def new(cls, url: str, limit: int) -> CrawlJob:
        return cls(id=secrets.token_hex(8), url=url, limit=limit, started_at=time.time())

    def progress(self, done: int, limit: int, url: str) -> None:
        self.done, self.limit, self.current, self.steps = done, limit, url, self.steps + 1

    def finish(self, report: CrawlReport | None, exc: BaseException | None = None) -> None:
        if exc is not None:
            self.state, self.error = "failed", error_payload(exc)
        else:
            self.state = "cancelled" if self.stop.is_set() else "done"
            self.report = report or self.report
        self.finished_at = time.time()

    def to_dict(self) -> dict:
        """Status and counts; the full ``report`` once the crawl is over."""
        report = self.report
        return {
            "job": self.id,
            "url": self.url,
            "state": self.state,
            "done": self.done,
            "limit": self.limit,
            "steps": self.steps,
            "current": self.current,
            "registered": len(report.registered),
            "skipped": len(report.skipped),
            "failed": len(report.failed),
            "started_at": iso(self.started_at),
            "finished_at": iso(self.finished_at) if self.finished_at else None,
            "report": None if self.state == "running" else report.to_dict(),
            "error": self.error,
        }


async def run_job(job: CrawlJob, options: CrawlOptions, register_capture: Register, links: Links):
    """Run ``job`` to its end; any failure is kept in the job (``state: failed``), never raised."""
    try:
        report = await acrawl(
            job.url, options, register_capture, links, job.progress, job.stop, job.report
        )
    except Exception as exc:  # a bug must show in crawl_status, not vanish with the task
        job.finish(None, exc)
    else:
        job.finish(report)
