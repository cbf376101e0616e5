"""Scheduled registration: hourly/daily/weekly per URL, stored in the archive's ``schedules`` table.

The daemon asks :func:`due_schedules` for what is due, registers each URL (with the
schedule's "only if different" threshold) and calls :func:`mark_run`.

>>> next_run(0, "hourly")
3600.0
"""

from __future__ import annotations

import time

from engine.archive.store import ArchiveStore
from engine.errors import InvalidInput, NotFound

PERIODS = {"hourly": 3600.0, "daily": 86400.0, "weekly": 7 * 86400.0}


def next_run(after: float, every: str) -> float:
    """When a schedule that last ran at ``after`` is due again."""
    if every not in PERIODS:
        raise InvalidInput(f"--every must be one of {', '.join(PERIODS)}, not {every!r}")
    return after + PERIODS[every]


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


def due_schedules(store: ArchiveStore, now: float | None = None) -> list[dict]:
    """Schedules whose next run is at or before ``now``."""
    now = time.time() if now is None else now
    return [row for row in schedules(store) if row["next_run"] <= now]


def mark_run(store: ArchiveStore, url: str, now: float | None = None, result: str = "ok") -> dict:
    """Record a run of ``url``'s schedule and move its next run one period on."""
    now = time.time() if now is None else now
    found = _find(store, url)
    if found is None:
        raise NotFound(f"no schedule for {url}")
    row = store.raw("schedules")[str(found)]
    fields = {"last_run": now, "next_run": next_run(now, row["every"]), "last_result": result}
    store.db.table("schedules").update(fields, doc_ids=[found])
    return {**row, **fields}
