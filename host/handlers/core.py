"""Core handlers: ping, get_token, stats, shutdown, key_profile, and the navigation
ones (nav_error, visited, suggestion_taken) that feed and use the Suggester.

>>> {"ping", "get_token", "nav_error", "visited"} <= set(HANDLERS)
True
"""

from __future__ import annotations

import asyncio
import os
import time

from engine import __version__
from engine.archive import keys
from engine.urls.rules import PROFILES
from host.handlers import choice, integer, text
from host.protocol.envelope import PROTOCOL_VERSION
from host.services.navigation import navigation_help, record_choice, record_visit


async def ping(params: dict, app) -> dict:
    """``{"version", "protocol"}``; answered on the event loop, never queued behind work."""
    return {"version": __version__, "protocol": PROTOCOL_VERSION}


async def get_token(params: dict, app) -> dict:
    """The daemon's token and address, for the extension (it reached us through the native host)."""
    return {"token": app.token, "url": app.base_url}


def _store_stats(app) -> dict:
    stats = getattr(app.store, "stats", None)
    return stats() if callable(stats) else {}


def stats(params: dict, app) -> dict:
    """Archive counts (documents, versions, bytes…) plus the daemon's own."""
    daemon = {
        "pid": os.getpid(),
        "port": app.config.port,
        "url": app.base_url,
        "uptime_s": round(time.time() - app.started, 3),
        "requests": app.counters.get("requests", 0),
    }
    return {"archive": _store_stats(app), "daemon": daemon}


async def shutdown(params: dict, app) -> dict:
    """Stop the daemon after this reply (``pagekeeper stop``)."""
    asyncio.get_running_loop().call_later(0.05, app.shutdown_event.set)
    return {"stopping": True, "pid": os.getpid()}


def nav_error(params: dict, app) -> dict:
    """Suggestions, archived copies of the URL and similar archived pages for a failed load."""

    url = text(params, "url", max_length=8192)
    limit = integer(params, "limit", app.config.suggest_limit, 1, 100)
    return navigation_help(app, url, params, limit)


def visited(params: dict, app) -> dict:
    """A successful top-level navigation: its host joins the user's own domains."""

    return record_visit(app, text(params, "url", max_length=8192))


def suggestion_taken(params: dict, app) -> dict:
    """The user took (or rejected, or retried the failed address past) a suggestion: the
    engine learns from it."""

    url = text(params, "url", max_length=8192)
    chosen = text(params, "suggestion", None, max_length=8192)
    taken = params.get("taken", chosen is not None)
    return record_choice(app, url, chosen, taken, params.get("retried", False))


def key_profile(params: dict, app) -> dict:
    """The normalization profile that keys the archive; with ``profile``, set it (every
    version is re-keyed, so the documents that now share a key merge)."""

    if params.get("profile") is None:
        return {"profile": keys.key_profile(app.store), "profiles": list(PROFILES)}
    profile = choice(params, "profile", tuple(PROFILES), "archive")
    return {**keys.set_key_profile(app.store, profile), "profiles": list(PROFILES)}


HANDLERS = {
    "ping": ping,
    "get_token": get_token,
    "stats": stats,
    "shutdown": shutdown,
    "key_profile": key_profile,
    "nav_error": nav_error,
    "visited": visited,
    "suggestion_taken": suggestion_taken,
}
