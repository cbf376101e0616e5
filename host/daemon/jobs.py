"""The daemon's background work: schedules, stale similar-page lists, journal compaction,
the full-text index, and keeping the address and the visible text of older versions.

They run as asyncio tasks next to the server. Store work goes through the one
store thread in small steps (one schedule, one similar list at a time, with a
small similarity budget), so a request never waits long behind them; live
fetches run on the event loop.

>>> SCHEDULE_EVERY, SIMILAR_EVERY, COMPACT_EVERY
(60.0, 30.0, 300.0)
"""

from __future__ import annotations

import asyncio
import logging

from engine.archive.addresses import keep_addresses, without_address
from engine.archive.documents import DocumentIndex, install
from engine.archive.model import RegisterOptions
from engine.archive.provider import (
    keep_all_visible_texts,
    refresh_similar,
    stale_similar,
    without_visible_text,
)
from engine.archive.trash import purge
from host.handlers.archive import run_due_schedules
from host.services.fulltext import index_of
from host.services.navigation import flush_learning

SCHEDULE_EVERY = 60.0
SIMILAR_EVERY = 30.0
COMPACT_EVERY = 300.0  # a long journal makes the next open slow; fold it in while idle
TEXT_INDEX_EVERY = 10.0  # the full-text index's catch-up step (250 versions at most)
CHECKPOINT_STEPS = 8  # merge steps (of 32 pages) between two copies of the index's WAL
RECLAIM_EVERY = 60.0  # deletions are undoable for 10 minutes; their space comes back after
SIMILAR_BATCH = 20
ADDRESS_STEP = 50  # versions whose address is kept per store-thread step (~2 ms each)
ADDRESS_SCAN = 5000  # versions checked for a kept address per store-thread step (~10 ms at 100k)
VISIBLE_STEP = 16  # versions whose visible text is read and kept per store-thread step (~2 ms each)
SIMILAR_BUDGET_S = 0.2
log = logging.getLogger("pagekeeper.background")


async def schedules_once(app) -> int:
    """Run every due schedule once (the same steps as ``schedule --run-due``); how many ran."""

    return len(await run_due_schedules(app))


async def similar_once(app) -> int:
    """Refresh a batch of stale similar-page lists; how many."""

    options = RegisterOptions(base=app.base_url, similar_budget_s=SIMILAR_BUDGET_S)
    stale = await app.run(stale_similar, app.store, SIMILAR_BATCH)
    for reg_id in stale:
        await app.run(refresh_similar, app.store, reg_id, options)
    return len(stale)


async def keep_all_addresses(app) -> int:
    """Keep the address every version stored before it was kept names for itself
    (engine/archive/addresses.py): the versions without one found in one pass, then kept
    ADDRESS_STEP at a time on the store thread (requests come between the steps), so that
    liveness sweeps never parse a stored page for it; how many versions. The pass itself
    reads ADDRESS_SCAN versions a step (all 100k at once held the store thread ~200 ms)."""
    ids = await app.run(list, app.store.ids)
    pending: list[str] = []
    for at in range(0, len(ids), ADDRESS_SCAN):
        pending += await app.run(without_address, app.store, ids[at : at + ADDRESS_SCAN])
    kept = 0
    for at in range(0, len(pending), ADDRESS_STEP):
        kept += await app.run(keep_addresses, app.store, pending[at : at + ADDRESS_STEP])
    return kept


async def keep_visible_texts(app) -> int:
    """Keep the visible text of every version stored before it was kept (not of one that
    registration left unanalysed: its first check reads it), and index those versions again
    with it (the full-text index found them
    by their main text): the versions without one found ADDRESS_SCAN a step, then read
    from their originals and kept VISIBLE_STEP at a time on the store thread
    (engine/archive/provider.py: ``keep_all_visible_texts``, blobs durable before the one
    transaction that names them), each step's rows indexed again right after; then the
    index's own pass over every row (``reindex_sources_pass``, RECONCILE_ROWS a step) indexes
    again any row found by another text than its version's (a kill between a step's two
    writes, a text kept by a check run without the daemon). Each part finds its work from
    what is stored, so a run cut short resumes at the next start; how many versions kept."""
    ids = await app.run(list, app.store.ids)
    pending: list[str] = []
    for at in range(0, len(ids), ADDRESS_SCAN):
        pending += await app.run(without_visible_text, app.store, ids[at : at + ADDRESS_SCAN])
    text = await asyncio.to_thread(index_of, app.home)  # its rows read: off the store thread
    kept = 0
    for at in range(0, len(pending), VISIBLE_STEP):
        done = await app.run(keep_all_visible_texts, app.store, pending[at : at + VISIBLE_STEP])
        if done:
            await app.run(text.reindex_sources, app.store, done)
        kept += len(done)
    after: int | None = -1
    while after is not None:
        after = await app.run(text.reindex_sources_pass, app.store, after)
    return kept


async def compact_once(app) -> bool:
    """Fold a long journal into the table snapshots (through the store thread); True if it did."""
    return await app.run(app.store.maybe_compact)


async def reclaim_once(app) -> dict:
    """Expire deletions whose undo window is over and free the blobs nothing references;
    then delete the full-text index's dead rows (their terms read in a worker thread on a
    connection of its own: a scan of the whole index, which the store thread does not wait
    for) and merge what deleted versions left in it, one short step at a time on the store
    thread, so captures come between the steps; after each step its WAL is copied into the
    file in a worker thread (else the purge's last step, which truncates the WAL, would copy
    every step's pages on the store thread: 5.5 s at 100k versions). The purge's steps run
    in a worker thread too: on the index's merge connection, a capture interrupts a step
    under way (up to 47 ms at 100k versions) instead of waiting for it."""

    done = await app.run(purge, app.store)
    text = index_of(app.home)
    dead = await asyncio.to_thread(text.collect_dead)
    if dead:
        await app.run(text.delete_dead, dead)
    while not await asyncio.to_thread(text.purge, 1):
        await asyncio.to_thread(text.checkpoint)  # each step's pages: copied into the file
    return done


async def warm_search_index(app) -> int:
    """Build the viewer's search indexes once, on the store thread; how many documents.

    The full-text index opened in a worker thread (a capture meanwhile leaves its row to the
    catch-up below), the URL index in steps of ``STEP_VERSIONS`` versions on the store thread
    (it was one pass of ~0.6 s at 100k versions: a capture waited for it) and sorted in a
    worker thread (it is not in use until installed), then the full-text
    index (host/services/fulltext.py, kept on disk: only what it has not seen) caught up in
    steps of 250 versions (its rows checked against the store 5,000 a step), so requests
    typed meanwhile wait behind one short step.
    """

    text = await asyncio.to_thread(index_of, app.home)  # its rows read: off the store thread
    building = DocumentIndex()
    while not await app.run(building.fold_some, app.store):
        pass
    await asyncio.to_thread(building.order)
    index = await app.run(install, app.store, building)
    text.deferred = True  # champion lists are made by text_index_once, not by a search
    await app.run(text.defer_checkpoints)  # made by text_index_once, off the store thread
    await app.run(text.defer_merges)  # FTS5's segments: merged by merge_text_index
    while not await app.run(text.sync, app.store, 250):
        pass
    await fold_text_index(app)
    await merge_text_index(app)
    if await app.run(text.warm_due):
        await warm_lists(app)
    return len(index.entries)


async def warm_lists(app) -> int:
    """Make the warm champion lists (host/services/fulltext.py): the archive's most frequent
    words and short prefixes, most frequent first, so that even their first search is
    answered from a list. The vocabulary and each list are read in a worker thread on a
    connection of their own; the store thread only installs each list (one short
    transaction), so captures and searches come between; how many lists were made."""

    text = index_of(app.home)
    if text.warming:  # one pass at a time: a list's read and install bracket its noted rows
        return 0
    text.warming, made = True, 0
    try:
        for term in await asyncio.to_thread(text.warm_plan):
            generation = await app.run(text.begin_warm)
            built = await asyncio.to_thread(text.read_list, term)
            made += await app.run(text.install, built, generation)
    finally:
        text.warming = False
    return made


async def text_index_once(app) -> bool:
    """Catch the full-text index up with what crawls, schedules and imports registered; then
    make one champion list a search wanted (host/services/champions.py), so the next search
    of that term is fast and no search waits for a list to be made; copy its WAL into the
    file in a worker thread (a capture does not: ``defer_checkpoints``); merge FTS5's segments
    (a capture does not: ``defer_merges``) and fold the champion lists' delta; once caught up after a rebuild or a big import,
    make the warm lists again."""

    text = index_of(app.home)
    done = await app.run(text.sync, app.store, 250)
    await fold_text_index(app)
    await merge_text_index(app)
    await app.run(text.build_lists, 1)
    await asyncio.to_thread(text.checkpoint)
    if done and await app.run(text.warm_due):
        await warm_lists(app)
    return done


async def fold_text_index(app) -> None:
    """Set the bits captures left in the champion lists' delta (a capture writes one row
    there instead of rewriting a bitmap chunk per frequent term) in the bitmaps, one short
    step at a time on the store thread, so captures come between the steps."""
    text = index_of(app.home)
    while not await app.run(text.fold, 1):
        pass


async def merge_text_index(app) -> None:
    """Merge the full-text index's segments, which captures leave to this (``defer_merges``:
    FTS5 merging in a capture's COMMIT made the longest captures), one step at a time in a
    worker thread, on the index's merge connection: a capture arriving meanwhile interrupts
    the step (rolled back, run again after it) instead of waiting for it; the WAL copied
    into the file every ``CHECKPOINT_STEPS`` steps."""
    text = index_of(app.home)
    steps = 0
    while not await asyncio.to_thread(text.merge, 1):
        steps += 1
        if steps % CHECKPOINT_STEPS == 0:
            await asyncio.to_thread(text.checkpoint)


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

    return [
        asyncio.create_task(flush_learning(app)),
        asyncio.create_task(once(warm_search_index, app)),  # after readiness, not before
        asyncio.create_task(once(keep_all_addresses, app)),
        asyncio.create_task(once(keep_visible_texts, app)),
        asyncio.create_task(every(SCHEDULE_EVERY, schedules_once, app)),
        asyncio.create_task(every(SIMILAR_EVERY, similar_once, app)),
        asyncio.create_task(every(COMPACT_EVERY, compact_once, app)),
        asyncio.create_task(every(RECLAIM_EVERY, reclaim_once, app)),
        asyncio.create_task(every(TEXT_INDEX_EVERY, text_index_once, app)),
    ]
