"""Navigation help in the daemon: the warm Suggester, its learned state, and ``nav_error``.

The Suggester (engine/urls/suggest/) is built once from the bundled domain
dictionary plus the user's learned state. That state (visited hosts, taken and
rejected corrections) is plain data owned by the engine; the host persists it in
the archive store's key/value area (``store.save_state("suggest", …)``) so it
shares the store's journal and crash safety. Visits are saved at most every
``SAVE_EVERY`` seconds (and at shutdown); a taken/rejected suggestion at once.

``nav_error`` answers with three lists, every URL in them stripped of credentials
(host/daemon/security.py; also those of pages archived with ``user:pass@`` before the host
started cutting them at registration):
``suggestions`` (repaired URLs), ``archived`` (versions of this URL) and
``similar`` (similar archived pages, or same-site pages with the nearest path).

>>> strip_credentials("https://user:pw@example.com/a")
'https://example.com/a'
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Callable
from datetime import datetime
from urllib.parse import urlsplit

import Levenshtein

from engine.archive import provider, registry
from engine.errors import InvalidInput, NotFound, error_payload
from engine.urls.suggest import ERRORS, Suggester, SuggestOptions, SuggestRequest
from host.daemon.security import strip_credentials, strip_credentials_deep
from host.services.learning_file import STATE_NAME, bundled_dictionary

SAVE_EVERY = 10.0
# The engine ranks this many; each request cuts to its own ``limit`` (nav_error's and
# ``suggest --limit`` go up to 100): a first cut at the engine's default 5 would cap them.
MAX_SUGGESTIONS = 100
ARCHIVED_LIMIT = 5
SIMILAR_LIMIT = 6
log = logging.getLogger("pagekeeper.navigation")


# -- the Suggester and its learned state ---------------------------------------------------

# ``step(phase, count)``: ``count`` more units of start-up work done in ``phase``.
Step = Callable[[str, int], None]


def no_step(phase: str, count: int = 1) -> None:
    """A :data:`Step` that tells no one."""


def build_suggester(app, step: Step = no_step) -> Suggester:
    """The bundled dictionary + the learned state saved in the store; ``step`` hears of the
    dictionary index build (2,000 domains at a time) and of each phase."""
    options = SuggestOptions(limit=MAX_SUGGESTIONS)
    step("loading the dictionary index", 1)
    dictionary = bundled_dictionary(
        app.home,
        app.config.cache_dir,
        lambda count: step("building the dictionary index (first start only)", count),
    )
    suggester = Suggester(dictionary, options=options)
    step("loading what PageKeeper learned", 1)
    state = app.store.load_state(STATE_NAME)
    if state:
        suggester.load_state(state)
    suggester.warm()
    settle_heap()
    app.learning.dirty = False
    return suggester


def settle_heap() -> None:
    """Once the warm state is built, take what is alive now (the dictionary, the lexicon,
    the public suffix list, the imported modules) out of the cyclic collector's walks
    (:func:`gc.freeze`): they live as long as the daemon, and a full collection over them
    paused a request by tens of milliseconds. Objects made later are collected as before.

    >>> settle_heap(); frozen = gc.get_freeze_count(); gc.unfreeze(); frozen > 0
    True
    """
    gc.collect()
    gc.freeze()


def save_learning(app) -> None:
    """Persist the Suggester's learned state into the store (store thread only)."""
    app.store.save_state(STATE_NAME, app.suggester.state())
    app.learning.dirty = False


def _maybe_save(app, now: bool = False) -> None:
    """Save a taken/rejected choice at once; visits and "shown" counts in the background
    (:func:`flush_learning`, every ``SAVE_EVERY`` seconds), off the request's path."""
    if now:
        save_learning(app)
    else:
        app.learning.dirty = True


async def flush_learning(app) -> None:
    """The daemon's background task: persist learned state when it changed."""
    while True:
        await asyncio.sleep(SAVE_EVERY)
        if app.learning.dirty:
            try:
                await app.run(save_learning, app)
            except Exception:
                log.exception("saving the learned state failed")


def record_archived(app, url: str) -> None:
    """An archived page's host joins the user's own domains (store thread)."""
    if app.suggester_warm:
        app.suggester.add_user_urls([url], source="archived")
        _maybe_save(app)


def record_visit(app, url: str) -> dict:
    """Count a successful top-level visit of the URL's host (``visited``)."""
    host = _host(url)
    app.suggester.record_visit(host)
    _maybe_save(app)
    return {"host": host}


def record_choice(
    app, url: str, suggestion: str | None, taken: object, retried: object = False
) -> dict:
    """A suggestion shown for ``url`` was taken (or rejected, or passed over by a retry of
    ``url``: weak evidence against it): feed the learning."""
    for name, value in (("taken", taken), ("retried", retried)):
        if not isinstance(value, bool):
            raise InvalidInput(f"parameter '{name}' must be true or false")
    if suggestion is None:
        raise InvalidInput("missing parameter 'suggestion'")
    app.suggester.record_choice(url, suggestion, taken and not retried, retried)
    _maybe_save(app, now=True)
    return {"recorded": True, "taken": taken and not retried, "retried": retried}


def _host(url: str) -> str:
    try:
        host = urlsplit(url if "//" in url else f"http://{url}").hostname
    except ValueError:
        host = None
    if not host:
        raise InvalidInput(f"no host in {strip_credentials(url)!r}")
    return host


# -- nav_error -------------------------------------------------------------------------


def _suggestions(app, url: str, params: dict, limit: int, archived: list[dict]) -> list[dict]:
    """The suggestions the error page shows, best first, at most ``limit``."""
    request = SuggestRequest(
        url=url,
        error=error_kind(params),
        referrer=params.get("referrer") if isinstance(params.get("referrer"), str) else None,
        time=epoch(params.get("time")),
        languages=tuple(x for x in params.get("languages") or () if isinstance(x, str)),
        archived=tuple(v["version_url"] for v in archived),
    )
    shown = app.suggester.suggest(request)[:limit]
    app.suggester.record_shown(url, shown)
    _maybe_save(app)
    return [s.to_dict() for s in shown]


def _key(app, url: str) -> str | None:
    """The document key ``url`` is archived under (None for what is not a page's URL)."""
    try:
        return provider.ref_key(app.store, url)
    except InvalidInput:
        return None


def epoch(value) -> float | None:
    """Seconds since the epoch from a number or an ISO-8601 string (the extension's ``time``).

    >>> epoch("1970-01-01T00:01:00.000Z")
    60.0
    """
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def error_kind(params: dict) -> str:
    """The engine's error kind from ``kind`` (the extension's classification) or ``error``.

    >>> error_kind({"error": "net::ERR_NAME_NOT_RESOLVED", "kind": "dns"})
    'dns'
    """

    for name in ("kind", "error"):
        value = params.get(name)
        if isinstance(value, str) and value in ERRORS:
            return value
    return "unknown"


def _archived(app, url: str) -> list[dict]:

    try:
        return provider.versions(app.store, url, app.base_url)[:ARCHIVED_LIMIT]
    except (NotFound, InvalidInput):
        return []


def _similar(app, url: str, archived: list[dict], offered: frozenset = frozenset()) -> list[dict]:
    """Pages similar to the newest version; without one, same-site pages nearest in path.
    A page whose live address is a suggestion (``offered``: document keys) is left out."""

    if archived:
        pages = provider.similar(app.store, archived[0]["id"], app.base_url)["similar"]
        return [page for page in pages if page.get("key") not in offered][:SIMILAR_LIMIT]
    return nearest_on_site(app, url, offered)


def nearest_on_site(app, url: str, offered: frozenset = frozenset()) -> list[dict]:
    """Archived pages of the same host whose path is nearest to the failed one (a 404 on a live host)."""

    try:
        ids = app.store.ids_of_host(registry.host_of(url))[-2000:]
    except InvalidInput:
        return []
    path = urlsplit(url).path
    seen, ranked = set(), []
    for reg_id in ids:
        doc = app.store.version(reg_id)
        if doc["key"] in seen or doc["key"] in offered:
            continue
        seen.add(doc["key"])
        ratio = Levenshtein.ratio(urlsplit(doc["url"]).path, path)
        ranked.append((ratio, reg_id))
    ranked.sort(reverse=True)
    return [
        {**provider.describe(app.store, reg_id, app.base_url), "path_similarity": round(r, 4)}
        for r, reg_id in ranked[:SIMILAR_LIMIT]
    ]


def confident_bar() -> float:
    """The score from which a suggestion is a sure repair (the error page's large button):
    the engine's, sent in every ``nav_error`` answer so the extension never keeps its own.

    >>> confident_bar()
    0.5
    """

    return SuggestOptions.confident


def navigation_help(app, url: str, params: dict, limit: int) -> dict:
    """The ``nav_error`` answer: ``{"url", "suggestions", "confident", "archived", "similar"}``."""
    clean = strip_credentials(url)  # the archive stores URLs without credentials
    # cut here, not only in the reply: version URLs become suggestions the learner records
    archived = strip_credentials_deep(_archived(app, clean))
    answer = {"url": clean, "suggestions": [], "archived": archived, "confident": confident_bar()}
    try:
        answer["suggestions"] = _suggestions(app, url, params, limit, archived)
        answer["confident"] = app.suggester.options.confident
    except Exception as exc:  # the archived copies must still reach the error page
        log.exception("suggestions failed for a nav_error")
        answer["suggest_error"] = error_payload(exc)
    # Each page once: a page the suggestions repair to (the site answered, so its live address
    # is the repair, "Did you mean") is not listed again among the archived similar pages.
    offered = frozenset(_key(app, s["url"]) for s in answer["suggestions"]) - {None}
    answer["similar"] = _similar(app, clean, archived, offered)
    return answer
