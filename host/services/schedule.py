"""Scheduled registration: hourly/daily/weekly per URL, stored in the archive's ``schedules`` table.

The daemon asks :func:`due_schedules` for what is due, registers each URL (with the
schedule's "only if different" threshold) and calls :func:`mark_run`. "Run the due
ones now" (``archive schedule --run-due``, ``schedule_run_due``) and the daemon's
minute tick are both :func:`arun_due`, which registers through the daemon's one
registration path and records each run with :func:`record_run` / :func:`record_failure`.

>>> next_run(0, "hourly")
3600.0
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from engine.archive import alerts
from engine.archive.model import Capture, RegisterOptions, Registration
from engine.archive.store import ArchiveStore
from engine.errors import InvalidInput, InvalidURL, NotFound, PageKeeperError
from host.services.fetch import afetch, http_url
from host.services.resource_fetch import awith_resources

PERIODS = {"hourly": 3600.0, "daily": 86400.0, "weekly": 7 * 86400.0}


def next_run(after: float, every: str) -> float:
    """When a schedule that last ran at ``after`` is due again."""
    if every not in PERIODS:
        raise InvalidInput(f"--every must be one of {', '.join(PERIODS)}, not {every!r}")
    return after + PERIODS[every]


def check_url(url: str) -> str:
    """``url`` if it is an http(s) URL (the only kind a schedule can fetch), else ``InvalidURL``.

    >>> check_url("mailto:a@b.c")
    Traceback (most recent call last):
    ...
    engine.errors.InvalidURL: only http(s) URLs can be scheduled, not 'mailto:a@b.c'
    """

    if http_url(url, "scheduled").protocol not in ("http:", "https:"):
        raise InvalidURL(f"only http(s) URLs can be scheduled, not {url!r}")
    return url


def check_threshold(value) -> float:
    """An "only if different" similarity threshold: a number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InvalidInput(f"only_if_different must be a number in [0, 1], not {value!r}")
    return float(value)


def _find(store: ArchiveStore, url: str) -> int | None:
    return next((int(k) for k, row in store.raw("schedules").items() if row["url"] == url), None)


def add_schedule(
    store: ArchiveStore,
    url: str,
    every: str,
    only_if_different: float | None = None,
    now: float | None = None,
) -> dict:
    """Create or replace the schedule of ``url``; due at once (first capture), then every period."""
    now = time.time() if now is None else now
    next_run(now, every)  # validates ``every``
    check_url(url)
    if only_if_different is not None:
        check_threshold(only_if_different)
    row = {
        "url": url,
        "every": every,
        "only_if_different": only_if_different,
        "created": now,
        "last_run": None,
        "next_run": now,
    }
    table, found = store.db.table("schedules"), _find(store, url)
    if found is None:
        table.insert(row)
    else:
        table.update(row, doc_ids=[found])
    return row


def remove_schedule(store: ArchiveStore, url: str) -> dict:
    """Delete the schedule of ``url``; NotFound when there is none."""
    found = _find(store, url)
    if found is None:
        raise NotFound(f"no schedule for {url}")
    store.db.table("schedules").remove(doc_ids=[found])
    return {"url": url, "removed": True}


def schedules(store: ArchiveStore) -> list[dict]:
    """Every schedule, soonest first."""
    return sorted(store.raw("schedules").values(), key=lambda row: row["next_run"])


# ``claims`` maps url -> when it was handed out, one dict per open store (``App.jobs.claims``):
# the daemon's background runner and a ``schedule_run_due`` request must not both register one
# due URL. In memory only: one process holds the store (its lock), and a claim dies with it.
# A claim not ended by mark_run (a runner that crashed) lapses after CLAIM_S.
CLAIM_S = 600.0


def due_schedules(store: ArchiveStore, claims: dict, now: float | None = None) -> list[dict]:
    """Schedules whose next run is at or before ``now``, each handed out once until :func:`mark_run`.

    >>> import tempfile, pathlib
    >>> s = ArchiveStore.open(pathlib.Path(tempfile.mkdtemp()))
    >>> _ = add_schedule(s, "http://a.test/", "daily", now=0)
    >>> claims = {}
    >>> [len(due_schedules(s, claims, t)) for t in (1, 2, 1 + CLAIM_S)]
    [1, 0, 1]
    >>> s.close()
    """
    now = time.time() if now is None else now
    due = [
        row
        for row in schedules(store)
        if row["next_run"] <= now and now - claims.get(row["url"], -CLAIM_S) >= CLAIM_S
    ]
    claims.update((row["url"], now) for row in due)
    return due


def mark_run(
    store: ArchiveStore, url: str, now: float | None = None, result: str = "ok", claims=None
) -> dict:
    """Record a run of ``url``'s schedule and move its next run one period on."""
    now = time.time() if now is None else now
    found = _find(store, url)
    if found is None:
        raise NotFound(f"no schedule for {url}")
    row = store.raw("schedules")[str(found)]
    fields = {"last_run": now, "next_run": next_run(now, row["every"]), "last_result": result}
    store.db.table("schedules").update(fields, doc_ids=[found])
    if claims is not None:
        claims.pop(url, None)
    return {**row, **fields}


# -- running the due schedules now --------------------------------------------------------


def options_of(row: dict, base: str) -> RegisterOptions:
    """How one due schedule's capture is registered (its "only if different" threshold)."""
    return RegisterOptions(base=base, only_if_different=row.get("only_if_different"))


def record_run(store: ArchiveStore, row: dict, reg: Registration, claims: dict) -> dict:
    """Mark the run of one due schedule registered as ``reg``: ``{"url", "id", "skipped"}``."""

    mark_run(store, row["url"], result="skipped" if reg.skipped else reg.id, claims=claims)
    if not reg.skipped:
        alerts.after_capture(store, reg.id, reg.previous_similarity)
    return {"url": row["url"], "id": reg.id, "skipped": reg.skipped}


def record_failure(store: ArchiveStore, row: dict, exc: PageKeeperError, claims: dict) -> dict:
    """Mark a failed run (one bad URL must not stop the others): ``{"url", "error": code}``."""
    mark_run(store, row["url"], result=exc.code, claims=claims)
    return {"url": row["url"], "error": exc.code}


StoreRun = Callable[..., Awaitable]  # App.run: fn(*args) on the daemon's store thread
# The daemon's registration (handlers' ``register_off_store``): the page is analysed off the
# store thread, so store reads go on while a big scheduled page is parsed.
Register = Callable[[Capture, RegisterOptions], Awaitable[Registration]]


async def arun_due(
    run: StoreRun, store: ArchiveStore, claims: dict, register: Register, base: str
) -> list[dict]:
    """Fetch and register every due schedule now: fetches on the event loop, registration
    through ``register``, the rest through ``run`` (the App's store thread); ``claims`` is
    the store's (``App.jobs.claims``)."""
    done = []
    for row in await run(due_schedules, store, claims):
        try:
            capture = (await afetch(row["url"])).capture(row["url"], "schedule")
            capture = await awith_resources(capture)
            reg = await register(capture, options_of(row, base))
            done.append(await run(record_run, store, row, reg, claims))
        except PageKeeperError as exc:
            done.append(await run(record_failure, store, row, exc, claims))
    return done
