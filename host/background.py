"""The daemon's background work: schedules, stale similar-page lists, journal compaction.

Both run as asyncio tasks next to the server. Store work goes through the one
store thread in small steps (one schedule, one similar list at a time, with a
small similarity budget), so a request never waits long behind them; live
fetches run on the event loop.

>>> SCHEDULE_EVERY, SIMILAR_EVERY, COMPACT_EVERY
(60.0, 30.0, 300.0)
"""

from __future__ import annotations

import asyncio
import logging

from engine.errors import PageKeeperError

SCHEDULE_EVERY = 60.0
SIMILAR_EVERY = 30.0
COMPACT_EVERY = 300.0  # a long journal makes the next open slow; fold it in while idle
SIMILAR_BATCH = 20
SIMILAR_BUDGET_S = 0.2
log = logging.getLogger("pagekeeper.background")


async def run_schedule(app, row: dict) -> str:
    """Fetch and register one scheduled URL; the result line stored with the run."""
    from engine.archive.model import RegisterOptions
    from engine.archive.registry import register
    from host.fetch import afetch

    try:
        got = await afetch(row["url"])
        if not got.ok:
            return f"HTTP {got.status}"
        capture = got.capture(row["url"], "schedule")
        options = RegisterOptions(base=app.base_url, only_if_different=row.get("only_if_different"))
        reg = await app.run(register, app.store, capture, options)
        return "skipped (unchanged)" if reg.skipped else f"ok {reg.id}"
    except PageKeeperError as exc:
        return f"{exc.code}: {exc.message}"


async def schedules_once(app) -> int:
    """Run every due schedule once; how many ran."""
    from host.schedule import due_schedules, mark_run

    due = await app.run(due_schedules, app.store)
    for row in due:
        result = await run_schedule(app, row)
        await app.run(lambda url=row["url"], r=result: mark_run(app.store, url, result=r))
    return len(due)


async def similar_once(app) -> int:
    """Refresh a batch of stale similar-page lists; how many."""
    from engine.archive.model import RegisterOptions
    from engine.archive.registry import refresh_similar, stale_similar

    options = RegisterOptions(base=app.base_url, similar_budget_s=SIMILAR_BUDGET_S)
    stale = await app.run(stale_similar, app.store, SIMILAR_BATCH)
    for reg_id in stale:
        await app.run(refresh_similar, app.store, reg_id, options)
    return len(stale)


async def compact_once(app) -> bool:
    """Fold a long journal into the table snapshots (through the store thread); True if it did."""
    return await app.run(app.store.maybe_compact)


async def warm_search_index(app) -> int:
    """Build the viewer's search index once, on the store thread; how many documents it holds."""
    from host.viewer.index import document_index

    index = await app.run(document_index, app.store)
    return len(index.entries)


async def once(job, app) -> None:
    """Run ``job(app)`` one time in the background; a failure is logged, never fatal."""
    try:
        await job(app)
    except Exception:
        log.exception("background job %s failed", job.__name__)


async def every(seconds: float, job, app) -> None:
    """Run ``job(app)`` forever, ``seconds`` apart; a failure is logged, never fatal."""
    while True:
        await asyncio.sleep(seconds)
        try:
            await job(app)
        except Exception:
            log.exception("background job %s failed", job.__name__)


def start(app) -> list[asyncio.Task]:
    """Start the background tasks (cancel them at shutdown)."""
    from host.navigation import flush_learning

    return [
        asyncio.create_task(flush_learning(app)),
        asyncio.create_task(once(warm_search_index, app)),  # after readiness, not before
        asyncio.create_task(every(SCHEDULE_EVERY, schedules_once, app)),
        asyncio.create_task(every(SIMILAR_EVERY, similar_once, app)),
        asyncio.create_task(every(COMPACT_EVERY, compact_once, app)),
    ]
