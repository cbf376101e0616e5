"""Archive handlers: archive_page, versions, similar, search, open, get, check.

Thin: parameters in, one registry call (engine/archive/registry.py) on the store
thread, its value out. Live fetches (``archive_page`` without html, ``open``,
``check``) run on the event loop with ``host.fetch``.

>>> sorted(HANDLERS)
['archive_page', 'check', 'get', 'open', 'search', 'similar', 'versions']
"""

from __future__ import annotations

from engine.errors import InvalidInput
from host.handlers import choice, flag, integer, text

URL_MAX = 8192


def _options(app, **fields):
    from engine.archive.model import RegisterOptions

    return RegisterOptions(base=app.base_url, **fields)


def _capture(params: dict, html):
    from engine.archive.model import Capture

    return Capture(
        url=text(params, "url", max_length=URL_MAX),
        html=html,
        final_url=text(params, "final_url", None, max_length=URL_MAX),
        content_type=text(params, "content_type", "text/html", max_length=200),
        charset=text(params, "charset", None, max_length=64),
        last_modified=text(params, "last_modified", None, max_length=200),
        title=text(params, "title", None, max_length=4096),
        source=text(params, "source", "extension", max_length=32),
    )


def _register(app, capture, options) -> dict:
    from engine.archive import registry
    from host.navigation import record_archived

    reg = registry.register(app.store, capture, options)
    record_archived(app, reg.url)
    result = reg.to_dict()
    result["versions"] = len(app.store.ids_of_key(reg.key))
    return result


async def _fetched_capture(params: dict):
    from host.fetch import afetch

    got = await afetch(text(params, "url", max_length=URL_MAX))
    fields = {**params, "final_url": got.final_url, "content_type": got.content_type}
    fields["charset"] = got.charset
    fields["source"] = "fetch"
    return _capture(fields, got.body)


async def archive_page(params: dict, app) -> dict:
    """Register a capture (``html`` = the DOM as the user saw it), or fetch the URL first."""
    html = params.get("html")
    if html is not None and not isinstance(html, str):
        raise InvalidInput("parameter 'html' must be a string")
    capture = _capture(params, html) if html is not None else await _fetched_capture(params)
    only = params.get("only_if_different")
    options = _options(app, only_if_different=only) if only is not None else _options(app)
    return await app.run(_register, app, capture, options)


def versions(params: dict, app) -> dict:
    """Every version of the document behind a URL (or ID), newest first."""
    from engine.archive import registry

    ref = text(params, "url", max_length=URL_MAX)
    return {"url": ref, "versions": registry.versions(app.store, ref, app.base_url)}


def similar(params: dict, app) -> dict:
    """Pages similar to a version, with structural and content similarity."""
    from engine.archive import registry

    return registry.similar(app.store, text(params, "id", max_length=URL_MAX), app.base_url)


def search(params: dict, app) -> dict:
    """URL wildcard search (``*``, ``?``) and/or full-text search, paged."""
    from engine.archive import registry

    found = registry.search(
        app.store,
        text(params, "pattern", "*", max_length=URL_MAX),
        case_sensitive=flag(params, "case_sensitive"),
        sort=choice(params, "sort", ("url", "time"), "time"),
        text=text(params, "text", None, max_length=4096),
    )
    return _page(list(found), integer(params, "offset", 0), integer(params, "limit", 100, 1, 1000))


def _page(items: list, offset: int, limit: int) -> dict:
    return {"total": len(items), "offset": offset, "results": items[offset : offset + limit]}


async def open_(params: dict, app) -> dict:
    """Live page if reachable now, else the stored copy (``{"action": "live"|"stored"}``)."""
    from engine.archive import registry
    from host.fetch import areachable

    ref = text(params, "url", None, max_length=URL_MAX) or text(params, "id", max_length=URL_MAX)
    record = await app.run(registry.resolve_open, app.store, ref, False, app.base_url)
    live = await areachable(record["url"])
    if not live:
        return record
    return await app.run(registry.resolve_open, app.store, ref, True, app.base_url)


def get(params: dict, app) -> dict:
    """A version's copy as text (rewritten by default). Big ones come paged (PROTOCOL.md)."""
    from engine.archive import registry

    content = registry.get(
        app.store, text(params, "id", max_length=URL_MAX), original=flag(params, "original")
    )
    doc = content.record
    return {
        "id": content.id,
        "url": doc["url"],
        "original": content.original,
        "content_type": content.content_type,
        "charset": content.charset,
        "html": content.body.decode(content.charset or "utf-8", "replace"),
    }


async def check(params: dict, app) -> dict:
    """Is the stored content still at the live URL? ``{"state", "match", ...}``."""
    try:  # engineer D's liveness results store, when it has landed
        from host.liveness_store import check_version
    except ImportError:
        from host.liveness_check import check_version

    ref = text(params, "url", None, max_length=URL_MAX) or text(params, "id", max_length=URL_MAX)
    return await check_version(app, ref)


HANDLERS = {
    "archive_page": archive_page,
    "versions": versions,
    "similar": similar,
    "search": search,
    "open": open_,
    "get": get,
    "check": check,
}
