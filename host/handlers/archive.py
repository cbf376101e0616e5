"""Archive handlers: archive_page, versions, similar, search, open, get, check, and the
auto-registration ones: crawl (+ crawl_status, crawl_cancel), schedule_*, dust_learn.

Thin: parameters in, one registry call (engine/archive/registry.py) on the store
thread, its value out. Live fetches (``archive_page`` without html, ``open``,
``check``, crawls, due schedules) run on the event loop with ``host.services.fetch``.
A crawl outlives its request: ``crawl`` starts a job and answers at once, the
client polls ``crawl_status`` (the protocol has one reply per request, no stream).

>>> sorted(HANDLERS)[:6]
['archive_page', 'archived', 'check', 'crawl', 'crawl_cancel', 'crawl_status']
"""

from __future__ import annotations

import base64
import binascii
import gc
import logging
import threading
import time
from dataclasses import replace

from engine.archive import keys, provider, registry
from engine.archive.model import Capture, RegisterOptions, make_id
from engine.archive.resources import is_html
from engine.archive.search import SearchOptions, entry, matching_keys
from engine.archive.single_file import single_file
from engine.errors import InvalidInput, NotFound
from engine.liveness import LivenessOptions
from host.daemon.app import BIG_PAGE_CHARS
from host.daemon.http_routes import openable_copy
from host.daemon.security import strip_credentials
from host.handlers import choice, flag, integer, text
from host.services import archive_access, fulltext
from host.services.crawl import (
    MAX_DELAY,
    MAX_DEPTH,
    MAX_PAGES,
    CrawlJob,
    CrawlOptions,
    check_start,
    links_of,
    run_job,
)
from host.services.fetch import afetch, areachable
from host.services.liveness import check_version
from host.services.navigation import record_archived
from host.services.resource_fetch import ResourceFetchOptions, awith_resources
from host.services.schedule import PERIODS, add_schedule, arun_due, remove_schedule, schedules

URL_MAX = 8192
MAX_URLS = 100_000  # per ``archived`` request (a bookmarks file)
# The tab's rendered HTML for ``check`` (the extension sends at most 2,000,000 characters,
# extension/background/liveness.js): far under native messaging's 64 MiB to the host.
TAB_PAGE_MAX = 4 << 20


def _options(app, **fields):

    return RegisterOptions(base=app.base_url, **fields)


def _capture(params: dict, html):
    """The extension's capture; URL credentials are cut (never stored, never shown)."""

    return Capture(
        url=strip_credentials(text(params, "url", max_length=URL_MAX)),
        html=html,
        final_url=strip_credentials(text(params, "final_url", None, max_length=URL_MAX)),
        content_type=text(params, "content_type", "text/html", max_length=200),
        charset=text(params, "charset", None, max_length=64),
        last_modified=text(params, "last_modified", None, max_length=200),
        title=text(params, "title", None, max_length=4096),
        source=text(params, "source", "extension", max_length=32),
    )


def register_capture(app, capture, options) -> dict:
    """Register a capture on the store thread, note its host as archived; the reply of
    ``archive_page`` (capture_commit's registration)."""
    reg = registry.register(app.store, capture, options)
    record_archived(app, reg.url)
    return _with_versions(app, reg)


def _reserve_id(app, now: float) -> str:
    """A registration ID later than every stored and every reserved one (store thread)."""

    last = max(filter(None, (app.store.last_id(), app.reserved_id)), default=None)
    app.reserved_id = make_id(now, last)
    return app.reserved_id


def _register_analysed(app, capture, prep, reg_id: str, now: float, options):

    reg = registry.register_analysed(app.store, capture, prep, reg_id, now, options)
    record_archived(app, reg.url)
    keep_text_index(app)
    return reg


_GC_PAUSES = [0]
_GC_LOCK = threading.Lock()


def without_gc_pauses(fn, *args):
    """``fn(*args)`` with the cyclic GC off: a big page allocates millions of objects, and
    each full collection then holds the GIL for 100-250 ms, stalling the event loop's
    pings (bench_hostile.py). Parsed pages hold no cycles; refcounting frees them."""
    with _GC_LOCK:
        _GC_PAUSES[0] += 1
        gc.disable()
    try:
        return fn(*args)
    finally:
        with _GC_LOCK:
            _GC_PAUSES[0] -= 1
            if not _GC_PAUSES[0]:
                gc.enable()


async def register_off_store(app, capture, options):
    """Register a capture with its analysis off the store thread: other requests that need
    the store go on while a big page is parsed (the store only does the writes)."""

    now = time.time()
    reg_id = await app.run(_reserve_id, app, now)
    if len(capture.html) > BIG_PAGE_CHARS:
        prep = await app.analyse(registry.analyse, capture, reg_id, options, big=True)
    else:
        prep = await app.analyse(without_gc_pauses, registry.analyse, capture, reg_id, options)
    register = _register_analysed
    return await app.run(without_gc_pauses, register, app, capture, prep, reg_id, now, options)


def _with_versions(app, reg) -> dict:
    result = reg.to_dict()
    result["versions"] = len(app.store.captures_of_key(reg.key))
    return result


def keep_text_index(app) -> None:
    """Index what was just registered for full-text search (host/services/fulltext.py; on the store
    thread, a few ms); without the daemon's text job (the CLI alone), tidy the index after it
    (fold and a bounded merge). A failure leaves it to the next sync, never fails the capture;
    so does an index the daemon's start job is still opening (its catch-up comes after)."""

    try:
        index = fulltext.index_unless_opening(app.home)
        if index is None:
            return
        index.sync(app.store, limit=50)
        if not index.deferred:
            index.tidy()
    except Exception:  # derived data: the next query or background step catches up
        logging.getLogger("pagekeeper.fulltext").exception("full-text indexing failed")


async def _fetched_capture(params: dict):
    """Fetch ``url`` and archive what it answered: a non-2xx answer is ``invalid_input``,
    as for the CLI, crawls and schedules (one rule: ``Fetched.capture``)."""

    url = text(params, "url", max_length=URL_MAX)
    capture = (await afetch(url)).capture(url, "fetch")
    title = text(params, "title", None, max_length=4096)
    return capture if title is None else replace(capture, title=title)


def _resource_options(app) -> ResourceFetchOptions:
    return ResourceFetchOptions(limits=app.config.capture_limits())


def _html(params: dict) -> str | bytes | None:
    """The page: ``html`` (the DOM as text), ``html_b64`` (a saved file's bytes, kept
    byte for byte), or None (the handler fetches the URL)."""
    if params.get("html_b64") is not None:
        raw = text(params, "html_b64", max_length=RegisterOptions().max_bytes * 4 // 3 + 4)
        try:
            return base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise InvalidInput(f"html_b64 is not base64: {exc}") from exc
    html = params.get("html")
    if html is not None and not isinstance(html, str):
        raise InvalidInput("parameter 'html' must be a string")
    return html


async def archive_page(params: dict, app) -> dict:
    """Register a capture (``html`` = the DOM as the user saw it), or fetch the URL first;
    a fetched page (or ``fetch_resources``) has its resources fetched by the host too."""
    html = _html(params)
    capture = _capture(params, html) if html is not None else await _fetched_capture(params)
    if html is None or flag(params, "fetch_resources"):
        capture = await awith_resources(capture, _resource_options(app))
    options = _options(app, only_if_different=_number(params, "only_if_different", None, 0, 1))
    reg = await register_off_store(app, capture, options)
    return await app.run(_with_versions, app, reg)


def versions(params: dict, app) -> dict:
    """Every version of the document behind a URL (or ID), newest first."""

    ref = strip_credentials(text(params, "url", max_length=URL_MAX))
    return {"url": ref, "versions": provider.versions(app.store, ref, app.base_url)}


def similar(params: dict, app) -> dict:
    """Pages similar to a version, with structural and content similarity."""

    return provider.similar(app.store, text(params, "id", max_length=URL_MAX), app.base_url)


def search(params: dict, app) -> dict:
    """URL wildcard search (``*``, ``?``), tag and/or full-text search, paged. With ``text``
    the documents come in relevance order (BM25; ``sort`` time|url reorders them), each
    with a ``snippet`` of its best version marking the matched words."""

    pattern = text(params, "pattern", "*", max_length=URL_MAX)
    query = text(params, "text", None, max_length=4096)
    sort = choice(params, "sort", ("relevance", "url", "time"), "relevance" if query else "time")
    tag = text(params, "tag", None, max_length=256)
    offset, limit = integer(params, "offset", 0), integer(params, "limit", 100, 1, 1000)
    case = flag(params, "case_sensitive")
    if query and query.strip():
        found, total = ranked_search(app, pattern, case, sort, query, tag, offset + limit)
        page = found[offset : offset + limit]
        return {"total": total, "offset": offset, "results": _with_snippets(app, page)}
    if sort == "relevance":
        raise InvalidInput("sort 'relevance' needs a full-text query ('text')")
    found = provider.search(app.store, pattern, case, sort, None, app.base_url, tag)
    return _page(list(found), offset, limit)


def ranked_search(
    app, pattern: str, case: bool, sort: str, query: str, tag, want: int
) -> tuple[list[dict], int]:
    """Documents matching the full-text ``query`` (host/services/fulltext.py) and the URL pattern and
    tag, best first (or by time or URL), and how many match; each remembers its best version
    for the snippet. Ranked by relevance with no other filter, the first ``want`` at least."""

    unfiltered = (pattern or "*") == "*" and tag is None
    head = want if unfiltered and sort == "relevance" else None
    parsed, ranking = fulltext.ranked(app.store, app.home, query, head)
    options = SearchOptions(pattern or "*", case, "time", None, RegisterOptions().base, tag)
    allowed = None if unfiltered else set(matching_keys(app.store, options))
    found = []
    for key, best, rank in ranking.results:
        if (allowed is None or key in allowed) and app.store.ids_of_key(key):
            found.append({"key": key, "best": best, "rank": rank})
    if sort == "url":
        found.sort(
            key=lambda f: app.store.raw("versions")[app.store.latest_of_key(f["key"])]["url"]
        )
    elif sort == "time":
        found.sort(
            key=lambda f: app.store.capture_order(app.store.latest_of_key(f["key"])), reverse=True
        )
    for item in found:
        item["query"] = parsed
    return found, (ranking.total if head is not None else len(found))


def _with_snippets(app, page: list[dict]) -> list[dict]:

    out = []
    for item in page:
        result = entry(app.store, item["key"], app.base_url)
        snippet = fulltext.result_snippet(app.store, result["id"], item["best"], item["query"])
        out.append(
            {**result, "score": round(-item["rank"], 4), "match_id": item["best"], **snippet}
        )
    return out


def _page(items: list, offset: int, limit: int) -> dict:
    return {"total": len(items), "offset": offset, "results": items[offset : offset + limit]}


async def open_(params: dict, app) -> dict:
    """Live page if reachable now, else the stored copy (``{"action": "live"|"stored"}``)."""

    ref = text(params, "url", None, max_length=URL_MAX) or text(params, "id", max_length=URL_MAX)
    record = await app.run(provider.resolve_open, app.store, ref, False, app.base_url)
    live = await areachable(record["url"])
    if not live:
        return record
    return await app.run(provider.resolve_open, app.store, ref, True, app.base_url)


def get(params: dict, app) -> dict:
    """A version's copy (rewritten by default; ``single_file``: every stored resource inlined)
    as text, or with ``bytes`` as the exact bytes in base64. Big ones come paged (PROTOCOL.md)."""

    content = provider.get(
        app.store, text(params, "id", max_length=URL_MAX), original=flag(params, "original")
    )
    if flag(params, "single_file"):
        content.body, content.charset = single_file(app.store, content.id), "utf-8"
    elif not content.original and is_html(content.content_type):  # XHTML too
        produced = archive_access.produced_links(app, content.id)
        html = content.body.decode("utf-8", "replace")
        content.body = openable_copy(app, html, content.id, produced).encode("utf-8")
    doc = content.record
    found = {
        "id": content.id,
        "url": strip_credentials(doc["url"]),
        "original": content.original,
        "content_type": content.content_type,
        "charset": content.charset,
    }
    if flag(params, "bytes"):
        return {**found, "body_b64": base64.b64encode(content.body).decode("ascii")}
    return {**found, "html": content.body.decode(content.charset or "utf-8", "replace")}


def latest_versions(params: dict, app) -> dict:
    """The newest version of every document, documents in the order they were first archived."""
    store = app.store
    return {"ids": [i for i in map(store.latest_of_key, list(store.keys())) if i]}


def archived(params: dict, app) -> dict:
    """Which of ``urls`` have a stored version (their document, as keyed by the archive)."""
    urls = params.get("urls")
    if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
        raise InvalidInput("parameter 'urls' must be a list of strings")
    if len(urls) > MAX_URLS:
        raise InvalidInput(f"parameter 'urls' holds more than {MAX_URLS} URLs")
    store = app.store
    return {"archived": [u for u in urls if store.ids_of_key(keys.document_key(store, u))]}


async def check(params: dict, app) -> dict:
    """Is the stored content still at the live URL? ``{"state", "match", ...}``; the
    thresholds ``present_at`` and ``changed_at`` default to the engine's. With ``page`` (the
    HTML the browser's tab shows) that page is judged and nothing is fetched."""
    ref = text(params, "url", None, max_length=URL_MAX) or text(params, "id", max_length=URL_MAX)
    page = text(params, "page", None, max_length=TAB_PAGE_MAX)
    return await check_version(app, ref, _liveness_options(params), page)


def _liveness_options(params: dict) -> LivenessOptions:
    default = LivenessOptions()
    present = _number(params, "present_at", default.present_at, 0, 1)
    changed = _number(params, "changed_at", default.changed_at, 0, 1)
    if changed > present:
        raise InvalidInput("thresholds must satisfy changed_at <= present_at")
    return LivenessOptions(present_at=present, changed_at=changed)


# -- crawl, schedules, DUST (the CLI's ``archive crawl|schedule|dust`` while a daemon runs) --

KEEP_FINISHED = 32  # finished jobs kept for crawl_status


def _number(params: dict, name: str, default, low: float, high: float):
    value = params.get(name, default)
    if value is default:
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise InvalidInput(f"parameter {name!r} must be a number in [{low}, {high}]")
    return value


def _crawl_options(params: dict, app):

    return CrawlOptions(
        depth=integer(params, "depth", 1, 0, MAX_DEPTH),
        max_pages=integer(params, "max_pages", 50, 1, MAX_PAGES),
        same_site=flag(params, "same_site", True),
        delay=_number(params, "delay", 1.0, 0, MAX_DELAY),
        register=_options(app, only_if_different=_number(params, "only_if_different", None, 0, 1)),
    )


async def crawl(params: dict, app) -> dict:
    """Start a crawl in the daemon; answers the job's status at once (poll ``crawl_status``)."""

    url = check_start(text(params, "url", max_length=URL_MAX))
    options = _crawl_options(params, app)
    job = CrawlJob.new(url, options.max_pages)

    async def register_capture(capture):
        return await register_off_store(app, capture, options.register)

    async def links(reg_id: str) -> list[str]:
        return await app.run(links_of, app.store, reg_id)

    _remember(app, job)
    app.jobs.start(run_job(job, options, register_capture, links))
    return job.to_dict()


def _remember(app, job) -> None:
    jobs = app.jobs.crawls
    finished = [key for key, old in jobs.items() if old.state != "running"]
    for key in finished[: max(0, len(finished) - KEEP_FINISHED + 1)]:
        del jobs[key]
    jobs[job.id] = job


def _job(params: dict, app):
    job_id = text(params, "job", max_length=64)
    job = app.jobs.crawls.get(job_id)
    if job is None:
        raise NotFound(f"no crawl {job_id!r} (finished crawls are kept until the daemon stops)")
    return job


async def crawl_status(params: dict, app) -> dict:
    """A crawl's progress; its ``report`` once it is over. On the loop: never waits behind work."""
    return _job(params, app).to_dict()


async def crawl_cancel(params: dict, app) -> dict:
    """Stop a crawl after the page in hand; what it registered so far stays registered."""
    job = _job(params, app)
    job.stop.set()
    return job.to_dict()


def schedule_add(params: dict, app) -> dict:
    """Create or replace the schedule of ``url`` (``every``: hourly, daily, weekly)."""

    return add_schedule(
        app.store,
        text(params, "url", max_length=URL_MAX),
        choice(params, "every", tuple(PERIODS), "daily"),
        _number(params, "only_if_different", None, 0, 1),
    )


def schedule_remove(params: dict, app) -> dict:
    """Delete the schedule of ``url``; ``not_found`` when it has none."""

    return remove_schedule(app.store, text(params, "url", max_length=URL_MAX))


def schedule_list(params: dict, app) -> dict:
    """Every schedule, soonest first."""

    return {"schedules": schedules(app.store)}


async def run_due_schedules(app) -> list[dict]:
    """Every due schedule fetched and registered, by the same path as ``archive_page``
    (:func:`register_off_store`), so a big scheduled page never holds the store thread."""

    async def register(capture, options):
        return await register_off_store(app, capture, options)

    return await arun_due(app.run, app.store, app.jobs.claims, register, app.base_url)


async def schedule_run_due(params: dict, app) -> dict:
    """Fetch and register every due schedule now: ``{"done": [{"url", "id", "skipped"} | …]}``."""

    return {"done": await run_due_schedules(app)}


def dust_learn(params: dict, app) -> dict:
    """Relearn the DUST and parameter rules from the archive's URLs, save them and re-key
    every stored version under them in one transaction (new keys use them too)."""

    return keys.learn(app.store)


HANDLERS = {
    "archive_page": archive_page,
    "versions": versions,
    "similar": similar,
    "search": search,
    "open": open_,
    "get": get,
    "latest_versions": latest_versions,
    "archived": archived,
    "check": check,
    "crawl": crawl,
    "crawl_status": crawl_status,
    "crawl_cancel": crawl_cancel,
    "schedule_add": schedule_add,
    "schedule_remove": schedule_remove,
    "schedule_list": schedule_list,
    "schedule_run_due": schedule_run_due,
    "dust_learn": dust_learn,
}
