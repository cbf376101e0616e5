"""The daemon's thin bridge to the archive registry for HTTP routes (``/v/``, ``/gc``).

Runs registry calls on the app's store thread; liveness probes (``astatus``)
run on the event loop, never while holding the store.

>>> copy_bytes.__name__
'copy_bytes'
"""

from __future__ import annotations

import contextlib

import httpx

from engine.archive import provider
from engine.errors import FetchError, NotFound
from host.services.fetch import FetchOptions, _acheck_public, astatus


def _charset_type(content_type: str, charset: str) -> str:
    base = (content_type or "text/html").split(";", 1)[0].strip() or "text/html"
    return f"{base}; charset={charset}" if base.startswith("text/") else base


def copy_bytes(app, version_id: str, original: bool) -> tuple[bytes, str]:
    """(body, Content-Type) of a stored copy: rewritten with the banner, or the original."""

    if original:
        content = provider.get(app.store, version_id, original=True)
    else:
        content = provider.served_copy(app.store, version_id)
    return content.body, _charset_type(content.content_type, content.charset)


def resource_bytes(app, version_id: str, number: int, original: bool) -> tuple[bytes, str]:
    """(body, Content-Type) of resource ``number`` of a version (NotFound when missing)."""
    content = provider.served_resource(app.store, version_id, number, original, app.base_url)
    kind = content.content_type.split(";", 1)[0].strip().lower() or "application/octet-stream"
    if kind == "text/html" and not original:
        kind = "text/html; charset=utf-8"
    return content.body, kind


def produced_links(app, version_id: str) -> set[str]:
    """The navigation links the rewriter turned into gc links in this copy (its refs)."""
    store, urls = app.store, set()
    for link in store.refs(version_id):
        with contextlib.suppress(NotFound):
            urls.add(store.link_url(link))
    return urls


def _page_url(app, page_id: str) -> str | None:
    if not page_id or not app.store.has_capture(page_id):  # a revisit opens as its version
        return None
    return app.store.version(page_id)["url"]


async def gc_target(app, url: str, page_id: str, user_asked: bool = False) -> dict:
    """Where a gc address leads: ``{"action": "live"|"stored"|"missing", "url", "id"?}``;
    a missing one says what the live address ``answered`` (its HTTP status, or None).

    A link followed from a copy (``user_asked`` False: a signed link, which an iframe
    loads without a click) never makes the daemon fetch a private or loopback address,
    unless the copy itself came from one (a LAN page's own links).
    """

    page_url = await app.run(_page_url, app, page_id)
    private_page = page_url is not None and await is_private_host(page_url)
    public_only = not (user_asked or private_page)
    options = FetchOptions(
        timeout=5.0, connect_timeout=3.0, max_bytes=2 * 1024 * 1024, public_only=public_only
    )
    status = await astatus(url, options)
    live = status is not None and status < 400
    found = await app.run(provider.resolve_gc, app.store, url, page_id or None, live, app.base_url)
    if found["action"] == "missing":  # what the page tells the user: no answer, or which one
        found["answered"] = status
    return found


async def is_private_host(url: str) -> bool:
    """True when ``url``'s host is or resolves to a non-global address (loopback, LAN, ...);
    False when it does not resolve.

    >>> import asyncio; asyncio.run(is_private_host("http://127.0.0.1:8000/"))
    True
    """

    try:
        await _acheck_public(httpx.URL(url), FetchOptions(public_only=True))
    except FetchError as exc:
        return "private or loopback" in str(exc)
    except (httpx.InvalidURL, ValueError):
        return False
    return False
