"""The daemon's thin bridge to the archive registry for HTTP routes (``/v/``, ``/gc``).

Runs registry calls on the app's store thread; liveness probes (``areachable``)
run on the event loop, never while holding the store.

>>> copy_bytes.__name__
'copy_bytes'
"""

from __future__ import annotations


def _charset_type(content_type: str, charset: str) -> str:
    base = (content_type or "text/html").split(";", 1)[0].strip() or "text/html"
    return f"{base}; charset={charset}" if base.startswith("text/") else base


def copy_bytes(app, version_id: str, original: bool) -> tuple[bytes, str]:
    """(body, Content-Type) of a stored copy: rewritten with the banner, or the original."""
    from engine.archive import registry

    if original:
        content = registry.get(app.store, version_id, original=True)
    else:
        content = registry.served_copy(app.store, version_id)
    return content.body, _charset_type(content.content_type, content.charset)


async def gc_target(app, url: str, page_id: str) -> dict:
    """Where a gc address leads: ``{"action": "live"|"stored"|"missing", "url", "id"?}``."""
    from engine.archive import registry
    from host.services.fetch import areachable

    live = await areachable(url)
    found = await app.run(registry.resolve_gc, app.store, url, page_id or None, live, app.base_url)
    return found
