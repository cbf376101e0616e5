"""The daemon's background jobs, run once against a real store and a real local web server."""

from __future__ import annotations

import asyncio
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from engine.archive import documents, provider, registry, textquery
from engine.archive import store as store_module
from engine.archive.addresses import without_address
from engine.archive.documents import CACHE_NAME, DocumentIndex
from engine.archive.model import Capture, RegisterOptions
from host.daemon import jobs
from host.daemon.app import App, Config
from host.daemon.jobs import (
    compact_once,
    schedules_once,
    similar_once,
    text_index_once,
    warm_search_index,
)
from host.protocol.dispatch import handle
from host.services import champions, fulltext
from host.services.fulltext import index_of
from host.services.schedule import add_schedule, schedules
from tests.engine.archive.test_addresses import archive
from tests.engine.archive.test_registry import near_identical
from tests.engine.archive.test_visible_kept import old_version


class Page(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        body = b"<title>Daily</title><h1>News</h1><p>" + b"fresh words " * 40 + b"</p>"
        self.send_response(200 if self.path == "/daily" else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture
def app(tmp_path):
    application = App(tmp_path, Config(port=1))
    yield application
    application.close()


def test_due_schedules_register_and_move_on(app, server):
    url, missing = f"{server}/daily", f"{server}/gone"
    for target in (url, missing):
        app.executor.submit(add_schedule, app.store, target, "daily").result()
    assert asyncio.run(schedules_once(app)) == 2
    assert len(provider.versions(app.store, url)) == 1
    rows = {row["url"]: row for row in schedules(app.store)}
    stored = provider.versions(app.store, url)[0]["id"]
    assert rows[url]["last_result"] == stored  # as PROTOCOL.md says: an ID, skipped or a code
    assert rows[missing]["last_result"] == "invalid_input"  # it answered 404
    assert rows[url]["next_run"] > rows[url]["last_run"]
    assert asyncio.run(schedules_once(app)) == 0  # not due again for a day


def test_stale_similar_lists_are_refreshed(app):
    html = "<title>A</title><div><p>" + "same template text " * 30 + "</p></div>"

    def add(n):
        return registry.register(app.store, Capture(f"https://s.example/{n}", html + f"<p>{n}</p>"))

    first = app.executor.submit(add, 1).result()
    app.executor.submit(add, 2).result()  # newer page on the host: the first list is stale
    assert first.id in app.executor.submit(provider.stale_similar, app.store, 50).result()
    assert asyncio.run(similar_once(app)) >= 1
    assert first.id not in app.executor.submit(provider.stale_similar, app.store, 50).result()


def test_the_sweep_completes_a_list_of_near_identical_pages_step_by_step(app, monkeypatch):
    """Each registration and each sweep step compares one candidate only (a zero budget:
    the first candidate is always compared), so the list is finished by resumed steps."""
    monkeypatch.setattr(jobs, "SIMILAR_BUDGET_S", 0.0)
    rushed = RegisterOptions(similar_budget_s=0.0)
    ids = [
        app.executor.submit(registry.register, app.store, Capture(url, body), rushed).result().id
        for url, body in near_identical(14)  # more than the dozen lists once stopped at
    ]

    def ask() -> dict:
        reply = asyncio.run(handle({"id": "1", "type": "similar", "params": {"id": ids[-1]}}, app))
        return reply["result"]

    assert ask()["complete"] is False and len(ask()["similar"]) == 1
    rounds = 0
    while not ask()["complete"]:
        asyncio.run(similar_once(app))
        rounds += 1
        assert rounds <= 20, "the sweep does not resume where it stopped"
    assert rounds >= 10  # one candidate a step: the list grew step by step
    assert {p["id"] for p in ask()["similar"]} == set(ids[:-1])


def test_a_long_journal_is_compacted_when_idle(app, monkeypatch):

    monkeypatch.setattr(store_module, "COMPACT_LINES", 3)
    for n in range(4):
        page = Capture(f"https://c.example/{n}", f"<title>{n}</title><p>page {n} text</p>")
        app.executor.submit(registry.register, app.store, page).result()
    assert app.store.storage.journal_lines >= 3
    assert asyncio.run(compact_once(app)) is True
    assert app.store.storage.journal_lines == 0
    assert asyncio.run(compact_once(app)) is False  # nothing left to fold
    assert len(app.store.ids) == 4


def test_the_search_index_is_warmed_in_the_background(app, monkeypatch):
    """The URL index and the full-text index; the latter opened (its rows read: ~200 ms CPU
    at 100k versions) in a worker thread, neither on the event loop nor on the store
    thread, where a capture would wait for it."""
    for n in range(3):
        page = Capture(f"https://w.example/{n}", f"<title>{n}</title><p>warm {n}</p>")
        app.executor.submit(registry.register, app.store, page).result()
    app.store.cache.pop(CACHE_NAME, None)
    opened, open_index = [], jobs.index_of
    monkeypatch.setattr(
        jobs, "index_of", lambda home: opened.append(threading.get_ident()) or open_index(home)
    )
    store_thread = app.executor.submit(threading.get_ident).result()
    assert asyncio.run(warm_search_index(app)) == 3
    _, index = app.store.cache[CACHE_NAME]
    assert index.seen == 3
    assert index_of(app.home).count() == 3  # the full-text index too, on disk
    assert opened[0] not in (store_thread, threading.get_ident())  # the loop runs here


def test_the_url_index_is_built_in_steps_a_capture_waits_for_one(app, monkeypatch):
    """At start the URL index is folded ``STEP_VERSIONS`` versions a store-thread step, so a
    capture waits for one step, not for the whole build, and sorted in a worker thread; it
    then equals an index built in one go, with the captures and a revisit (which makes the
    folded entries stale: the build begins again) that came in the middle."""
    monkeypatch.setattr(documents, "STEP_VERSIONS", 2)
    pages = [
        Capture(f"https://u.example/{n}", f"<title>{n}</title><p>url {n}</p>") for n in range(9)
    ]
    for page in pages:
        app.executor.submit(registry.register, app.store, page).result()
    store_thread = app.executor.submit(threading.get_ident).result()
    events, fold_some, order = list[str](), DocumentIndex.fold_some, DocumentIndex.order
    late = {2: Capture("https://u.example/late", "<title>late</title><p>late</p>"), 5: pages[3]}

    def step(index, store, limit=None):
        assert threading.get_ident() == store_thread
        events.append(f"step {index.seen}")
        if len(events) in late:  # queued behind this step: it runs before the next one
            page = late[len(events)]
            app.executor.submit(
                lambda: events.append(f"capture {page.url}") or registry.register(app.store, page)
            )
        return fold_some(index, store, limit)

    monkeypatch.setattr(DocumentIndex, "fold_some", step)
    sorting = Capture("https://u.example/sorting", "<title>s</title><p>while sorting</p>")

    def sort(index):  # a capture while the folded entries are sorted: folded in on install
        assert threading.get_ident() != store_thread  # sorted in a worker thread
        app.executor.submit(registry.register, app.store, sorting).result()
        events.append(threading.get_ident())
        return order(index)

    monkeypatch.setattr(DocumentIndex, "order", sort)
    asyncio.run(warm_search_index(app))
    assert events[2] == "capture https://u.example/late"  # between two steps of the build
    assert events[5] == "capture https://u.example/3"  # a revisit: the folded entries stale
    assert events[-1] not in (store_thread, threading.get_ident())  # sorted in a worker
    steps = [e for e in events if isinstance(e, str) and e.startswith("step")]
    assert steps.count("step 2") == 2 and app.store.revisit_count() == 1  # begun again
    _, built = app.store.cache[CACHE_NAME]
    whole = DocumentIndex().refresh(app.store)
    assert built.entries == whole.entries and built.seen == whole.seen == 11
    assert built.by_time == whole.by_time and built.by_url == whole.by_url


def test_champion_lists_are_made_in_the_background_not_by_a_search(app, monkeypatch):
    """In the daemon a frequent term's search is scored in full and only asks for a list;
    the text index job makes it, and the next search is answered from it."""
    monkeypatch.setattr(fulltext, "MIN_ROWS", 3)
    monkeypatch.setattr(fulltext, "WARM_LISTS", 0)  # no list made ahead (tested apart)
    monkeypatch.setattr(fulltext, "WARM_PAIRS", 0)
    for n in range(4):
        page = Capture(f"https://l.example/{n}", f"<title>{n}</title><p>lists {n} words</p>")
        app.executor.submit(registry.register, app.store, page).result()
    asyncio.run(warm_search_index(app))
    text = index_of(app.home)
    query = textquery.parse("lists")
    app.executor.submit(text.search, query, 2).result()
    assert text.champions.tiers == {} and list(text.wanted) == [('"lists"',)]
    asyncio.run(text_index_once(app))
    assert list(text.champions.tiers) == ['"lists"'] and text.wanted == {}
    monkeypatch.setattr(text, "_scored", lambda match: pytest.fail("scored in full"))
    head = app.executor.submit(text.search, query, 2).result()
    assert len(head.results) == head.total == 4  # the list answered


def test_warm_lists_are_made_after_a_start_off_the_store_thread(app, monkeypatch):
    """After a start the daemon makes the most frequent terms' lists ahead of any search: the
    vocabulary and each list are read in a worker thread, installed on the store thread, and
    the FIRST search of such a term is answered from its list."""
    monkeypatch.setattr(fulltext, "MIN_ROWS", 3)
    monkeypatch.setattr(champions, "SIZE", 2)
    for n in range(6):
        words = " ".join(["warm"] * (1 + n) + ["cold"] * (n % 2))
        page = Capture(f"https://h.example/{n}", f"<title>{n}</title><p>{words} page{n}</p>")
        app.executor.submit(registry.register, app.store, page).result()
    text = index_of(app.home)
    store_thread = app.executor.submit(threading.get_ident).result()
    threads, read_list = [], text.read_list
    monkeypatch.setattr(
        text, "read_list", lambda term: threads.append(threading.get_ident()) or read_list(term)
    )
    asyncio.run(warm_search_index(app))
    assert {'"warm"', '"w" *', '"cold"'} <= text.champions.warm
    assert threads and store_thread not in threads
    assert asyncio.run(jobs.warm_lists(app)) == 0  # planned once: nothing left to make

    async def twice():
        return await asyncio.gather(jobs.warm_lists(app), jobs.warm_lists(app))

    app.executor.submit(text.rebuild, app.store).result()  # everything to make again
    made = sorted(asyncio.run(twice()))  # the second pass does not start while one runs
    assert made[0] == 0 and made[1] == len(text.champions.warm) > 0
    monkeypatch.setattr(text, "_scored", lambda match: pytest.fail("scored in full"))
    head = app.executor.submit(text.search, textquery.parse("warm"), 2).result()
    assert head.total == 6 and [k for k, _, _ in head.results][:1] == ["https://h.example/5/"]


def test_captures_leave_the_index_checkpoint_to_the_text_job_off_the_store_thread(app, monkeypatch):
    """In the daemon a capture's transaction never copies the full-text index's WAL into its
    file (SQLite's automatic checkpoint is off on the store thread's connection); the text
    index job does it in a worker thread, and the file then holds every frame."""
    asyncio.run(warm_search_index(app))
    text = index_of(app.home)
    assert text.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    for n in range(3):
        page = Capture(f"https://c.example/{n}", f"<title>{n}</title><p>checkpoint {n}</p>")
        app.executor.submit(registry.register, app.store, page).result()
    app.executor.submit(text.sync, app.store).result()
    before = text.path.stat().st_size  # the new rows' pages are in the WAL only
    threads, checkpoint, copied = [], text.checkpoint, []
    monkeypatch.setattr(
        text,
        "checkpoint",
        lambda: threads.append(threading.get_ident()) or copied.append(checkpoint()),
    )
    asyncio.run(text_index_once(app))
    assert threads and threads[0] != app.executor.submit(threading.get_ident).result()
    ((frames, done),) = copied
    assert frames > 0 and done == frames and text.path.stat().st_size > before


def test_captures_leave_fts5s_merges_to_the_text_job(app, monkeypatch):
    """In the daemon a capture's transaction never merges FTS5's segments (``automerge`` off,
    in the file); the start merges what earlier captures left, and so does the text job,
    each step in a worker thread (on the index's merge connection, which a capture
    interrupts), never on the store thread, where a capture would wait behind it."""

    def captures(first: int) -> None:
        for n in range(first, first + 6):  # each synced alone: one capture, one transaction
            words = " ".join(f"m{n}x{i}" for i in range(1500))
            page = Capture(f"https://m.example/{n}", f"<title>{n}</title><p>{words}</p>")
            app.executor.submit(registry.register, app.store, page).result()
            app.executor.submit(text.sync, app.store).result()

    def segments(table: str) -> int:
        found = f"SELECT count(DISTINCT segid) FROM {table}_idx"
        return app.executor.submit(lambda: text.db.execute(found).fetchone()[0]).result()

    asyncio.run(warm_search_index(app))
    text = index_of(app.home)
    for table in ("docs", "pairs"):
        config = f"SELECT v FROM {table}_config WHERE k = 'automerge'"
        assert text.db.execute(config).fetchone() == (0,)
    threads, step = [], text._step
    monkeypatch.setattr(text, "_step", lambda p: threads.append(threading.get_ident()) or step(p))
    store_thread = app.executor.submit(threading.get_ident).result()
    captures(0)
    assert segments("docs") >= 6 and segments("pairs") >= 6
    asyncio.run(warm_search_index(app))  # a restart
    assert segments("docs") < 4 and segments("pairs") < 4
    captures(6)
    assert segments("docs") >= 6
    asyncio.run(text_index_once(app))
    assert segments("docs") < 4 and segments("pairs") < 4
    assert len(threads) >= 4 and store_thread not in threads


def test_dead_text_rows_are_read_off_the_store_thread_then_deleted(app, monkeypatch):
    """A version forgotten after its text blob vanished leaves a dead row; the reclaim job
    reads its terms from FTS5 in a worker thread (a scan of the whole index) and deletes
    it on the store thread; the purge's steps run in a worker thread (on the merge
    connection, which a capture interrupts), each step's WAL copied into the file after it."""
    page = Capture("https://d.example/gone", "<title>Gone</title><p>quokkas play xylophones</p>")
    app.executor.submit(registry.register, app.store, page).result()
    text = index_of(app.home)
    app.executor.submit(text.sync, app.store).result()
    (reg_id,) = app.store.ids
    app.store._blob_path(fulltext.text_source(app.store, reg_id)).unlink()
    app.executor.submit(text.forget, app.store, [reg_id]).result()
    assert text.db.execute("SELECT count(*) FROM seen WHERE NOT live").fetchone()[0] == 1
    threads, collect = [], text.collect_dead
    monkeypatch.setattr(
        text, "collect_dead", lambda: threads.append(threading.get_ident()) or collect()
    )
    copies, checkpoint = [], text.checkpoint
    monkeypatch.setattr(
        text, "checkpoint", lambda: copies.append(threading.get_ident()) or checkpoint()
    )
    monkeypatch.setattr(fulltext, "MERGE_PAGES", 1)  # a purge of several steps
    steps, step = [], text._step
    monkeypatch.setattr(text, "_step", lambda p: steps.append(threading.get_ident()) or step(p))
    asyncio.run(jobs.reclaim_once(app))
    store_thread = app.executor.submit(threading.get_ident).result()
    assert threads and threads[0] != store_thread
    assert len(steps) >= 2 and store_thread not in steps
    assert copies and store_thread not in copies  # the WAL copied after each step, off it
    assert text.db.execute("SELECT count(*) FROM docs_docsize").fetchone()[0] == 0
    assert text.db.execute("SELECT count(*) FROM seen").fetchone()[0] == 0


def test_older_versions_have_their_address_kept_in_steps_at_start(app, monkeypatch):
    named = app.executor.submit(archive, app.store).result()  # 7 real pages stored "before"
    steps, scanned = [], []
    keep, find = jobs.keep_addresses, jobs.without_address
    monkeypatch.setattr(jobs, "ADDRESS_STEP", 3)
    monkeypatch.setattr(jobs, "ADDRESS_SCAN", 2)
    monkeypatch.setattr(jobs, "keep_addresses", lambda *a: steps.append(len(a[1])) or keep(*a))
    monkeypatch.setattr(jobs, "without_address", lambda *a: scanned.append(len(a[1])) or find(*a))
    assert asyncio.run(jobs.keep_all_addresses(app)) == len(named)
    assert steps == [3, 3, 1]  # one short store-thread step at a time
    assert sum(scanned) == len(app.store.ids) and max(scanned) == 2  # found 2 versions a step
    assert app.executor.submit(without_address, app.store).result() == []
    rows = {i: app.store.row("extracts", i)["address"] for i in named}
    assert rows == named
    # the daemon starts it
    started = []

    async def record(job, _app, *rest):
        started.append(job.__name__)

    async def run_start():
        for task in jobs.start(app):
            await asyncio.sleep(0)
            task.cancel()

    monkeypatch.setattr(jobs, "once", record)
    monkeypatch.setattr(jobs, "every", lambda seconds, job, _app: record(job, _app))
    monkeypatch.setattr(jobs, "flush_learning", lambda _app: record(print, _app))
    asyncio.run(run_start())
    assert "keep_all_addresses" in started and "keep_visible_texts" in started


def test_older_versions_have_their_visible_text_kept_and_indexed_again_at_start(app, monkeypatch):
    """The start job keeps the visible text of every version stored without one, a few a
    store-thread step, and indexes each step's versions again at once; its pass over every
    row then finds a row the store's write got ahead of (a kill between the two writes, a
    check without the daemon). Run again, it reads nothing."""
    olds = app.executor.submit(
        lambda: [old_version(app.store, name) for name in ("partei", "ordnung", "latin1")]
    ).result()
    text = index_of(app.home)
    app.executor.submit(text.sync, app.store).result()
    behind = app.executor.submit(old_version, app.store, "modabot").result()
    app.executor.submit(text.sync, app.store).result()
    app.executor.submit(provider.keep_all_visible_texts, app.store, [behind]).result()
    steps, resourced = [], []
    keep, resource = jobs.keep_all_visible_texts, text.reindex_sources
    monkeypatch.setattr(jobs, "VISIBLE_STEP", 2)
    monkeypatch.setattr(jobs, "keep_all_visible_texts", lambda *a: steps.append(a[1]) or keep(*a))
    monkeypatch.setattr(text, "reindex_sources", lambda *a: resourced.append(resource(*a)))

    def found(word: str) -> int:
        return app.executor.submit(text.search, textquery.parse(word)).result().total

    assert found("steuerdarling") == 0
    assert asyncio.run(jobs.keep_visible_texts(app)) == 3
    assert steps == [olds[:2], olds[2:]] and resourced == [2, 1]
    assert found("steuerdarling") == 1  # partei's linked headline
    rows = app.executor.submit(
        lambda: {i: fulltext.text_source(app.store, i) for i in [*olds, behind]}
    ).result()
    indexed = dict(text.db.execute("SELECT id, src FROM seen").fetchall())
    assert all(indexed[i] == src for i, src in rows.items())  # "behind" too, by the pass
    steps.clear()
    assert asyncio.run(jobs.keep_visible_texts(app)) == 0 and steps == []


def test_captures_leave_their_list_bits_to_the_text_job(app, monkeypatch):
    """A capture in the daemon writes its champion-list bits to the delta; searches see them at
    once, and the text job (also the start) folds them into the bitmaps on the store thread."""
    monkeypatch.setattr(fulltext, "MIN_ROWS", 3)
    monkeypatch.setattr(champions, "SIZE", 2)

    def capture(n: int) -> None:
        words = " ".join(["warm"] * (1 + n % 3) + ["cold"] * (n % 2))
        page = Capture(f"https://f.example/{n}", f"<title>{n}</title><p>{words} page{n}</p>")
        app.executor.submit(registry.register, app.store, page).result()
        app.executor.submit(text.sync, app.store, 50).result()

    text = index_of(app.home)
    for n in range(6):
        capture(n)
    asyncio.run(warm_search_index(app))
    assert '"warm"' in text.champions.warm and not text.champions.pending
    for n in range(6, 10):
        capture(n)
    assert sorted(text.champions.pending) == [7, 8, 9, 10]  # row numbers start at 1
    head = app.executor.submit(text.search, textquery.parse("warm"), 2).result()
    assert head.total == 10
    asyncio.run(text_index_once(app))
    assert not text.champions.pending
    found = text.db.execute("SELECT chunk, bits FROM hitmap WHERE term = '\"warm\"'").fetchall()
    assert len(champions.Hits(dict(found))) == 10
    capture(10)
    asyncio.run(warm_search_index(app))  # a restart folds too
    assert not text.champions.pending
