"""The JSON protocol: ONE dict from message type to handler, and one place that answers.

Each module of ``host/handlers/`` exports ``HANDLERS = {type: handler}``; they
are merged here into :data:`HANDLERS` (a type defined twice is a bug and fails
at import). A handler is ``handler(params: dict, app: App) -> result`` (plain or
``async``); it returns a value and raises ``engine.errors`` types.
:func:`handle` turns any request into exactly one reply dict: results become
``{"ok": true}`` replies and exceptions are mapped by
``engine.errors.error_payload`` (via :func:`host.protocol.envelope.error_reply`).
Plain handlers run on the app's single store thread (one writer), async ones
on the event loop. Documented in host/PROTOCOL.md (a test checks every type).

>>> HANDLERS["ping"].__module__, HANDLERS["archive_page"].__module__
('host.handlers.core', 'host.handlers.archive')
"""

from __future__ import annotations

import importlib
import inspect
import logging
from collections.abc import Callable

from engine.errors import UnknownType
from host.daemon.security import strip_credentials_deep
from host.protocol.envelope import (
    PROTOCOL_VERSION,
    error_reply,
    ok_reply,
    parse_request,
    request_id,
)

__all__ = ["HANDLERS", "PROTOCOL_VERSION", "handle"]

# Handler modules under host/handlers/; optional ones may not exist yet.
HANDLER_MODULES = ("core", "archive", "capture", "collection", "viewer")
OPTIONAL_MODULES = {"viewer"}
log = logging.getLogger("pagekeeper.protocol")


def _load(name: str) -> dict[str, Callable]:
    try:
        module = importlib.import_module(f"host.handlers.{name}")
    except ModuleNotFoundError as exc:
        if name in OPTIONAL_MODULES and exc.name == f"host.handlers.{name}":
            return {}
        raise
    return module.HANDLERS


def merge_handlers(names=HANDLER_MODULES) -> dict[str, Callable]:
    """Merge every module's ``HANDLERS``; a duplicate type is an error."""
    merged: dict[str, Callable] = {}
    for name in names:
        for kind, handler in _load(name).items():
            if kind in merged:
                raise RuntimeError(f"message type {kind!r} defined twice (host.handlers.{name})")
            merged[kind] = handler
    return merged


HANDLERS: dict[str, Callable] = merge_handlers()


async def call_handler(handler: Callable, params: dict, app) -> object:
    """Run one handler: async ones on the loop, plain ones on the store thread."""
    if inspect.iscoroutinefunction(handler):
        return await handler(params, app)
    return await app.run(handler, params, app)


# Replies that carry content byte for byte (an archived copy's HTML, a WARC file); their
# handlers cut credentials from their own URL fields.
VERBATIM = frozenset({"get", "export_warc"})


def clean_result(kind: str, result: object) -> object:
    """The one place a result loses URL credentials (``user:pass@``; host/daemon/security.py), as
    error_reply is for errors: the daemon cuts them before storing, but a page archived
    before that, a schedule's own URL or an echoed parameter may still carry them.

    >>> clean_result("versions", {"url": "https://u:pw@a.example/"})
    {'url': 'https://a.example/'}
    """
    return result if kind in VERBATIM else strip_credentials_deep(result)


async def handle(message: object, app) -> dict:
    """The one loop body: any decoded message in, exactly one reply dict out."""
    rid = request_id(message)
    try:
        req = parse_request(message)
        handler = HANDLERS.get(req.type)
        if handler is None:
            raise UnknownType(f"unknown message type {req.type!r}")
        return ok_reply(
            req.id, clean_result(req.type, await call_handler(handler, req.params, app))
        )
    except Exception as exc:  # every failure becomes a typed reply, never a crash
        if not getattr(exc, "code", None):
            log.exception("handler failed")
        return error_reply(rid, exc)
