"""Ranked full-text search over a real store and a real SQLite FTS5 file: ranking, phrases,
prefixes, exclusions, CJK, deletion and undo, restart, rebuild, and the CLI's typed errors."""

from __future__ import annotations

import gzip
import json
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.archive import provider, textquery, trash
from engine.archive.model import Capture
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from host.cli.entry import main
from host.handlers.archive import keep_text_index
from host.handlers.collection import archive_delete, archive_reclaim
from host.handlers.viewer import search_page
from host.home import Home
from host.services import champions, fulltext, threshold
from host.services.fulltext import FullTextIndex
from tests.engine.archive.test_visible_kept import old_version

PAGES = {
    "https://a.example/rivers": (
        "Rivers of Europe",
        "The Danube and the Rhine carry barges. Rivers flood in spring.",
    ),
    "https://b.example/diary": (
        "A garden diary",
        "Rain all week. The river behind the garden rose; the meadow is wet.",
    ),
    "https://c.example/tokyo": ("天気", "東京都の天気予報です。明日は晴れ。"),
    "https://d.example/archives": (
        "Archival practice",
        "An archivist keeps archives; the archive of letters grew.",
    ),
}


def html(title: str, body: str) -> bytes:
    return f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1><p>{body}</p><p>{body}</p></article></body></html>".encode()


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home"
    with ArchiveStore.open(home) as store:
        for url, (title, body) in PAGES.items():
            register(store, Capture(url, html(title, body)))
    return home


def urls(store, home, text: str) -> list[str]:
    _, ranking = fulltext.ranked(store, home, text)
    return [store.raw("versions")[best]["url"] for _key, best, _rank in ranking.results]


def test_ranking_phrases_prefixes_exclusions_and_cjk(home):
    with ArchiveStore.open(home, readonly=True) as store:
        assert urls(store, home, "river")[0] == "https://b.example/diary"  # the word itself
        assert urls(store, home, "rivers") == ["https://a.example/rivers"]  # title + text
        assert urls(store, home, "river*")[0] == "https://a.example/rivers"  # title weighs more
        assert urls(store, home, '"the meadow is wet"') == ["https://b.example/diary"]
        assert urls(store, home, '"meadow the"') == []
        assert urls(store, home, "archiv*") == ["https://d.example/archives"]
        assert urls(store, home, "river* -garden") == ["https://a.example/rivers"]
        assert urls(store, home, "天気") == ["https://c.example/tokyo"]
        assert urls(store, home, "天気予報") == ["https://c.example/tokyo"]
        assert urls(store, home, "予報 晴れ") == ["https://c.example/tokyo"]
        assert urls(store, home, "大阪") == []


def test_deleted_versions_are_never_found_and_undo_brings_them_back(home):
    with ArchiveStore.open(home) as store:
        assert urls(store, home, "danube") == ["https://a.example/rivers"]
        undo = trash.delete(store, "https://a.example/rivers")["undo"]
        assert urls(store, home, "danube") == []
        trash.restore(store, undo)
        assert urls(store, home, "danube") == ["https://a.example/rivers"]
        trash.delete_now(store, "https://a.example/rivers")
        assert urls(store, home, "danube rhine") == []


def test_the_index_survives_a_restart_and_rebuilds(home):
    with ArchiveStore.open(home, readonly=True) as store:
        fulltext.index_of(home).sync(store)
    path = Home(home).fulltext
    assert path.exists()
    reopened = FullTextIndex(path)  # a new process would open the file like this
    assert reopened.count() == len(PAGES)
    with ArchiveStore.open(home, readonly=True) as store:
        added = []
        reopened._add = lambda s, reg_id: added.append(reg_id)
        reopened.sync(store)
        assert added == []  # nothing re-read after a restart
        reopened.close()
        fulltext._OPEN.pop(str(path)).close()
        path.write_bytes(b"not a database")  # damaged: derived data, so started afresh
        fresh = FullTextIndex(path)
        assert fresh.count() == 0
        assert fresh.rebuild(store) == len(PAGES)
        query, _ = fulltext.ranked(store, home, "garden")
        found = [store.raw("versions")[best]["url"] for _, best, _ in fresh.search(query).results]
        assert found == ["https://b.example/diary"]


def test_the_first_catch_up_after_a_start_checks_the_rows_in_steps(home, monkeypatch):
    """A process opening the index checks every row against the store (versions it lost
    while the index was closed leave it) in steps of ``RECONCILE_ROWS`` rows, one a sync
    with a limit (the daemon's start job, a capture: each a short hold of the store
    thread), the whole pass in a search's sync; the rows left are those of a rebuild."""
    for n in range(6):
        with ArchiveStore.open(home) as store:
            register(store, Capture(f"https://r.example/{n}", html(f"Reed {n}", "reed beds")))
    with ArchiveStore.open(home) as store:
        fulltext.index_of(home).sync(store)
        fulltext._OPEN.pop(str(Home(home).fulltext)).close()
        for url in ("https://a.example/rivers", "https://r.example/2", "https://r.example/5"):
            trash.delete_now(store, url)  # with the index closed
    monkeypatch.setattr(fulltext, "RECONCILE_ROWS", 3)

    def opened() -> tuple[FullTextIndex, list]:
        index, checked = FullTextIndex(Home(home).fulltext), []
        check = index._check_rows
        index._check_rows = lambda s: checked.append(index.checking) or check(s)
        return index, checked

    def ranked(index) -> list[tuple[str, float]]:
        return [(k, r) for k, _b, r in index.search(textquery.parse("reed")).results]

    index, checked = opened()
    with ArchiveStore.open(home) as store:
        done = [index.sync(store, limit=50) for _ in range(3)]
        assert done == [False, False, False] and checked == [-1, 3, 6]  # 3 rows a sync
        register(store, Capture("https://r.example/new", html("Reed new", "reed beds")))
        assert index.sync(store, limit=50) is True  # the pass's last step; the capture indexed
        assert index.count() == len(PAGES) + 6 - 3 + 1 == len(store.ids)
        assert set(index.known) == set(store.ids) and index.checking is None
        fresh = FullTextIndex(home / "fresh.sqlite3")
        fresh.rebuild(store)
        assert ranked(index) == ranked(fresh) and len(ranked(index)) == 5  # 0, 1, 3, 4, new
        index.close()
        index, checked = opened()  # a restart, then a search's sync: the whole pass at once
        assert index.sync(store) is True and len(checked) == 3 and index.checking is None
        assert ranked(index) == ranked(fresh)


def test_a_capture_does_not_wait_for_the_index_another_thread_opens(home):
    """Opening the index reads every row (~200 ms CPU at 100k versions); the daemon's start
    job does it in a worker thread, and a capture arriving meanwhile leaves its row to the
    start job's catch-up instead of waiting for the open on the store thread."""
    path = str(Home(home).fulltext)
    fulltext._OPEN.pop(path, None)
    opening = fulltext._OPENING.setdefault(path, threading.Lock())
    held, release = threading.Event(), threading.Event()

    def opener() -> None:
        with opening:  # as index_of holds it while it reads the rows
            held.set()
            release.wait(10)

    thread = threading.Thread(target=opener)
    thread.start()
    assert held.wait(10)
    with ArchiveStore.open(home) as store:
        app = SimpleNamespace(home=home, store=store)
        capture = threading.Thread(target=keep_text_index, args=(app,))
        capture.start()
        capture.join(5)
        finished = not capture.is_alive()
        release.set()
        thread.join()
        capture.join()
        assert finished and path not in fulltext._OPEN  # returned at once, opened nothing
        index = fulltext.index_of(home)
        assert index.sync(store) and index.count() == len(PAGES)  # the catch-up indexes it


def test_cli_text_search_ranks_with_snippets_and_types_bad_queries(home, capsys):
    assert main(["archive", "search", "--text", "garden river", "--home", str(home), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["url"] for r in rows] == ["https://b.example/diary"]
    marked = [rows[0]["snippet_text"][a:b].lower() for a, b in rows[0]["snippet_marks"]]
    assert {"garden", "river"} <= set(marked)
    assert "<mark>" in rows[0]["snippet"]
    code = main(["archive", "search", "--text", '"unbalanced', "--home", str(home), "--json"])
    error = json.loads(capsys.readouterr().out)
    assert (
        code == 2
        and error["error"]["code"] == "invalid_input"
        and "quote" in error["error"]["message"]
    )
    assert (
        main(
            ["archive", "search", "*d.example*", "--text", "archive", "--home", str(home), "--json"]
        )
        == 0
    )
    assert [r["url"] for r in json.loads(capsys.readouterr().out)] == ["https://d.example/archives"]
    assert (
        main(
            ["archive", "search", "*a.example*", "--text", "archive", "--home", str(home), "--json"]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out) == []


def test_a_deleted_version_leaves_the_index_file(home):
    """FTS5 'delete' takes the row out of the index; the reclaim's merge takes its words out of
    the file itself (no dead row kept until a rebuild)."""
    path = Home(home).fulltext
    gone = "https://q.example/quokkas"
    with ArchiveStore.open(home) as store:
        register(store, Capture(gone, html("Quokka notes", "Quokkas play xylophones.")))
        index = fulltext.index_of(home)
        index.sync(store)
        # words whose first letter no other word has are stored whole (FTS5 shares prefixes)
        assert terms(index, "quokkas") == 1 and "quokkas" in on_disk(index, path)
        assert "xylophones" in on_disk(index, path) and "Quokka notes" in on_disk(index, path)
        app = SimpleNamespace(store=store)
        archive_delete({"ref": gone, "undo": False}, app)
        assert terms(index, "quokkas") == 0 and terms(index, "xylophones") == 0  # at once
        assert "quokkas" in on_disk(index, path)  # still in a segment: the merge takes it out
        assert index.count() == len(PAGES)
        assert urls(store, home, "garden") == ["https://b.example/diary"]  # the others stay
        archive_reclaim({}, app)
        left = on_disk(index, path)
        assert "quokkas" not in left and "xylophones" not in left and "Quokka notes" not in left
        assert urls(store, home, "garden") == ["https://b.example/diary"]


def test_secure_delete_zeroes_the_pages_the_purge_frees(home):
    """The purge's merge frees the pages of the old segments; with ``secure_delete`` they are
    zeroed, else they keep the deleted version's words on the freelist. The deleted page has
    hundreds of random words (FTS5 stores each term after the prefix it shares with the one
    before, so their last eight letters are looked for) and is indexed between other pages,
    so its segment pages are freed by the merge and not reused (the freelist shows it)."""
    path = Home(home).fulltext
    rnd = random.Random(16)
    secret = ["".join(rnd.choice("bcdfghjklmnpqrstvwxz") for _ in range(14)) for _ in range(300)]
    gone = "https://s.example/secret"
    with ArchiveStore.open(home) as store:
        index = fulltext.index_of(home)
        index.sync(store)
        register(store, Capture(gone, html("Secret", " ".join(secret))))
        index.sync(store)
        for n in range(12):  # later segments, so the secret one is merged away, not appended to
            register(store, Capture(f"https://e.example/{n}", html(f"Page {n}", "rivers " * 40)))
            index.sync(store)
        index.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert all(word[-8:] in on_disk(index, path) for word in secret)
        app = SimpleNamespace(store=store)
        archive_delete({"ref": gone, "undo": False}, app)
        archive_reclaim({}, app)
        assert index.db.execute("PRAGMA freelist_count").fetchone()[0] > 0  # freed, not reused
        left = on_disk(index, path)
        assert [w for w in secret if w[-8:] in left] == []
        assert urls(store, home, "rivers")  # the others stay


def test_a_row_whose_text_blob_is_gone_is_removed_all_the_same(home):
    """A version deleted after its text blob vanished (a damaged or edited archive): its row
    leaves FTS5 all the same, with the body terms FTS5 holds for it, at the next purge; the
    index is then what a rebuild from the remaining versions makes (same terms, document
    counts and token totals), and the words leave the file."""
    path = Home(home).fulltext
    gone = "https://q.example/quokkas"
    with ArchiveStore.open(home) as store:
        register(
            store, Capture(gone, html("Quokka notes", "Quokkas play xylophones in 東京 語学. " * 3))
        )
        index = fulltext.index_of(home)
        index.sync(store)
        (reg_id,) = [i for i, v in store.raw("versions").items() if v["url"] == gone]
        store._blob_path(fulltext.text_source(store, reg_id)).unlink()
        app = SimpleNamespace(store=store)
        archive_delete({"ref": gone, "undo": False}, app)
        assert index.search(textquery.parse("quokkas"), 10).total == 0  # no sync in between
        assert urls(store, home, "quokkas") == [] and terms(index, "quokkas") == 1  # dead
        archive_reclaim({}, app)
        assert terms(index, "quokkas") == 0 and terms(index, "xylophones") == 0
        left = on_disk(index, path)
        assert "quokkas" not in left and "xylophones" not in left and "Quokka notes" not in left
        fresh = FullTextIndex(path.with_name("fresh.sqlite3"))
        assert fresh.rebuild(store) == len(PAGES)
        assert vocabulary(index) == vocabulary(fresh)
        assert vocabulary(index, "pairs") == vocabulary(fresh, "pairs")
        assert champions.averages(index.db) == champions.averages(fresh.db)
        assert urls(store, home, "garden") == ["https://b.example/diary"]
        fresh.close()


def test_a_dead_row_is_deleted_with_its_body_terms_only(tmp_path):
    """A dead row whose title holds more words than its body: the body given to FTS5's
    'delete' is made of the body's own terms (the title's are given as the title), so the
    token totals come out as a rebuild's."""
    index, fresh = FullTextIndex(tmp_path / "a.sqlite3"), FullTextIndex(tmp_path / "b.sqlite3")
    for ftx in (index, fresh):
        with ftx._batch():
            ftx.add_row(
                "kept", "k1", "Rivers", "the rhine and the danube", "https://r.example/", None
            )
    with index._batch():
        n = index.add_row("dead", "k2", "one two three four five six", "seven", "", None)
        index.db.execute("UPDATE seen SET live = 0 WHERE n = ?", (n,))
    found = index.collect_dead()
    index.db.execute("UPDATE seen SET live = 1 WHERE n = ?", (n,))  # restored meanwhile
    assert index.delete_dead(found) == 0 and index.search(textquery.parse("seven")).total == 1
    index.db.execute("UPDATE seen SET live = 0 WHERE n = ?", (n,))
    assert index.delete_dead(index.collect_dead()) == 1
    index.purge()
    assert vocabulary(index) == vocabulary(fresh)
    assert vocabulary(index, "pairs") == vocabulary(fresh, "pairs")
    assert champions.averages(index.db) == champions.averages(fresh.db)


def vocabulary(index, table: str = "docs") -> list[tuple]:
    """Each term of ``table`` (docs, pairs) with its rows and count; and its totals record."""
    index.db.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.v{table} USING fts5vocab(main, {table}, row)"
    )
    found = index.db.execute(f"SELECT term, doc, cnt FROM temp.v{table} ORDER BY term").fetchall()
    return found + index.db.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchall()


def terms(index, word: str) -> int:
    index.db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, docs, row)")
    found = index.db.execute("SELECT doc FROM temp.v WHERE term = ?", (word,)).fetchone()
    return found[0] if found else 0


def on_disk(index, path) -> str:
    """The index file's bytes (and its WAL's) as text, for a word search."""
    index.db.execute("PRAGMA wal_checkpoint(PASSIVE)")
    wal = path.with_name(path.name + "-wal")
    data = path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    return data.decode("latin-1")


def test_a_frequent_word_ranks_from_its_champion_list_exactly_as_fts5(tmp_path, monkeypatch):
    """A term in most rows (word, prefix, phrase) is answered from its champion list: the head it returns is the
    head of the full BM25 ranking (same documents, same order, same scores), also after new
    rows entered the list, rows left it and the average length moved; an excluded word
    filters it; a head it cannot certify falls back to scoring every match."""
    monkeypatch.setattr(champions, "SIZE", 6)
    monkeypatch.setattr(fulltext, "MIN_ROWS", 10)
    index = FullTextIndex(tmp_path / "f.sqlite3")
    words = ["flood", "meadow", "barge", "lock", "weir", "silt", "reed", "heron"]

    values: dict[int, tuple[str, str, str]] = {}

    def add(n: int, extra: int = 0) -> None:
        body = " ".join(words[(n * k) % 8] for k in range(3 + n % 17)) + " river" * (1 + n % 5)
        body += " river" * extra
        row = (f"page {n}", body, f"https://e.example/{n}")
        values[index.add_row(f"{n:020d}", f"doc{n // 2}", row[0], body, row[2], None)] = row

    with index._batch():
        for n in range(60):
            add(n)
    index._load_known()
    for text in ("river", "riv*", '"river river"'):  # a word, a prefix, a phrase
        check(index, text, want=4)
    with index._batch():  # longer rows move the average; some enter the list on the way in
        for n in range(60, 90):
            add(n * 7, extra=9 * (n % 10 == 0))
    index._load_known()
    assert index.champions.tiers['"river"'][1] != champions.averages(index.db)[1]
    entered = "SELECT count(*) FROM champ WHERE term = ?"
    for term in ('"river"', '"riv" *', '"river river"'):
        assert index.db.execute(entered, (term,)).fetchone()[0] == 6 + 3  # the new top rows
    for text in ("river", "riv*", '"river river"'):
        check(index, text, want=4)
    check(index, "river -heron", want=3)
    last = max(values)
    with index._batch():  # listed rows and the last one leave FTS5; its number comes again
        for n in {n for (n,) in index.db.execute("SELECT n FROM champ LIMIT 3")} | {last}:
            index._delete_row(n, *values.pop(n))
        index.add_row("again", "doc-again", "", "heron weir", "", None)
    index._load_known()
    assert index.db.execute("SELECT max(n) FROM seen").fetchone()[0] == last  # reused
    check(index, "river", want=2)
    check(index, "riv*", want=2)
    full = index.search(textquery.parse("river"), want=10_000)  # more than the list certifies
    assert len(full.results) == full.total


def test_a_search_makes_the_list_it_wants_unless_deferred(tmp_path, monkeypatch):
    """A frequent term's first search is scored in full; its list is made after it (in the
    CLI) or by ``build_lists`` (the daemon, ``deferred``); a rare term wants none."""
    index = filled(tmp_path, monkeypatch, size=5)
    add_rows(index, [f"weir {'reed ' * n}" + ("heron" if n < 3 else "") for n in range(30)], 0)
    index.deferred = True
    weir, heron = textquery.parse("weir"), textquery.parse("heron")
    first, every = index.search(weir, 3), index.search(weir)  # no list: FTS5 scores all
    assert first.total == every.total == 30 and first.results == every.results[: len(first.results)]
    index.search(heron, 3)
    assert list(index.wanted) == [('"weir"',)] and index.champions.tiers == {}
    assert index.build_lists() is True and list(index.champions.tiers) == ['"weir"']
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(index, "_scored_head", lambda *a: pytest.fail("scored in full"))
        head = index.search(weir, 3).results  # from the list
        assert len(head) >= 3 and head == every.results[: len(head)]
    index.deferred = False
    index.search(textquery.parse("reed"), 3)
    assert '"reed"' in index.champions.tiers and index.wanted == {}  # made after the search


def test_at_most_wanted_lists_wait_the_newest_kept(tmp_path, monkeypatch):
    index = filled(tmp_path, monkeypatch, size=5)
    monkeypatch.setattr(fulltext, "WANTED", 2)
    add_rows(index, [f"weir reed heron {'silt ' * n}" for n in range(20)], 0)
    index.deferred = True
    for word in ("weir", "reed", "heron", "reed"):
        index.search(textquery.parse(word), 3)
    assert list(index.wanted) == [('"heron"',), ('"reed"',)]


def check(index, text: str, want: int) -> None:
    query = textquery.parse(text)
    first = index.search(query, want)  # a frequent term's first search makes its list
    every = index.search(query)
    assert first.results == every.results[: len(first.results)]
    head = index.search(query, want)
    assert len(head.results) < every.total  # the champion list answered, not a full scoring
    assert len(head.results) >= want and head.total == every.total
    assert head.results == every.results[: len(head.results)]
    for term in fulltext._phrases(query):  # the stored matches of each term are FTS5's
        fts5 = index.db.execute("SELECT rowid FROM docs WHERE docs MATCH ?", (term,))
        assert set(index.champions.hits(term)) == {n for (n,) in fts5}


def test_the_champion_bound_holds_when_the_average_length_moves(tmp_path, monkeypatch):
    """Short rows lead a word's list; once many long pages arrive, long rows that were left
    out overtake them. The list must not answer then (its bound says so): the search falls
    back to scoring every match, and the order is still FTS5's."""
    monkeypatch.setattr(champions, "SIZE", 25)
    monkeypatch.setattr(fulltext, "MIN_ROWS", 10)
    index = FullTextIndex(tmp_path / "f.sqlite3")
    rows = ["river river reed"] * 20 + [" ".join(["river"] * 4 + ["silt"] * 36)] * 20
    with index._batch():
        for n, body in enumerate(rows):
            index.add_row(f"{n:020d}", f"doc{n}", "", body, "", None)
    index._load_known()
    check(index, "river", want=20)  # builds the list: 20 short rows, then 5 of the long ones
    with index._batch():
        for n in range(200):
            index.add_row(f"{n + 100:020d}", f"long{n}", "", "heron " * 300, "", None)
    index._load_known()
    query = textquery.parse("river")
    every = index.search(query)
    assert int(every.results[0][0][3:]) >= 20  # a long row leads now
    assert index.search(query, 20).results[:20] == every.results[:20]


def test_an_index_of_the_former_layout_is_made_afresh(home):
    """A file written by an older PageKeeper (its seen table without the indexed values) is
    derived data: it is replaced, and the next sync indexes everything again."""
    path = Home(home).fulltext
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as old:
        old.execute("CREATE VIRTUAL TABLE docs USING fts5(title, body, url, content='')")
        old.execute("CREATE TABLE seen (n INTEGER PRIMARY KEY, id TEXT, key TEXT, live INTEGER)")
    index = FullTextIndex(path)
    with ArchiveStore.open(home, readonly=True) as store:
        index.sync(store)
    assert index.count() == len(PAGES)
    assert index.search(textquery.parse("danube")).total == 1
    index.close()


def filled(tmp_path, monkeypatch, size: int) -> FullTextIndex:
    monkeypatch.setattr(champions, "SIZE", size)
    monkeypatch.setattr(fulltext, "MIN_ROWS", 10)
    return FullTextIndex(tmp_path / "f.sqlite3")


def add_rows(index, rows: list[str], start: int) -> dict[int, str]:
    """Each body in a row of its own document; row number -> body."""
    added = {}
    with index._batch():
        for n, body in enumerate(rows, start):
            added[index.add_row(f"{n:020d}", f"doc{n}", "", body, "", None)] = body
    index._load_known()
    return added


def test_two_frequent_words_rank_from_their_conjunction_list_exactly_as_fts5(tmp_path, monkeypatch):
    """A query of two frequent words is answered from its conjunction list, made after its
    first search: the head is the head of FTS5's full ranking, also after new rows came
    (some entering the list, the average length moving), listed rows left FTS5, and with
    an excluded word."""
    index = filled(tmp_path, monkeypatch, size=40)
    rnd = random.Random(5)

    def body() -> str:
        words = ["alpha"] * rnd.randint(1, 4) * (rnd.random() < 0.4)
        words += ["beta"] * rnd.randint(1, 4) * (rnd.random() < 0.4)
        words += ["gamma"] * (rnd.random() < 0.3) + ["pad"] * rnd.randint(2, 30)
        return " ".join(rnd.sample(words, len(words)))

    rows = add_rows(index, [body() for _ in range(300)], 0)
    both = "SELECT count(*) FROM docs WHERE docs MATCH 'alpha AND beta'"
    assert index.db.execute(both).fetchone()[0] >= 10  # frequent: a list
    check(index, "alpha beta", want=5)
    assert '"alpha" AND "beta"' in index.conjunctions.lists
    longer = [body() + " pad" * 3 + " alpha" * rnd.randint(0, 9) for _ in range(30)]
    listed = "SELECT count(*) FROM conjrow"
    rows |= add_rows(index, longer, 300)
    assert index.db.execute(listed).fetchone()[0] > 40  # new rows entered the list
    check(index, "alpha beta", want=5)
    check(index, "alpha beta -gamma", want=3)
    gone = [n for (n,) in index.db.execute("SELECT n FROM conjrow LIMIT 4")]
    with index._batch():
        for n in gone:
            index._delete_row(n, "", rows.pop(n), "")
    index._load_known()
    marks = ",".join(map(str, gone))
    assert index.db.execute(f"SELECT count(*) FROM conjrow WHERE n IN ({marks})").fetchone()[0] == 0
    check(index, "alpha beta", want=3)


def test_the_conjunction_bound_follows_the_terms_idf(tmp_path, monkeypatch):
    """Rows with many "beta" lead "alpha beta" while beta is the rarer word; then beta
    becomes common (its IDF falls) and alpha rarer (its IDF rises), and rows with many
    "alpha", left out of the list, overtake the listed ones. The bound scales with the
    largest IDF ratio, so the list does not answer; the order stays FTS5's."""
    index = filled(tmp_path, monkeypatch, size=30)
    pad = " ".join(["pad"] * 8)
    start = ["alpha alpha alpha " + "beta " * 8 + pad] * 30  # listed
    start += ["alpha " * 8 + "beta " + pad] * 30  # left out
    start += ["alpha " + pad] * 40 + ["pad " + pad] * 200
    add_rows(index, [" ".join(r.split()[:20]).ljust(1) for r in start], 0)
    query = textquery.parse("alpha beta")
    index.search(query, 30)  # the first search makes the list
    later = ["beta " + pad + " pad" * 2] * 700 + ["pad " + pad + " pad" * 2] * 300
    add_rows(index, later, 1000)  # as long as the average: the length term stays put
    every = index.search(query)
    assert every.results[0][0] in {f"doc{n}" for n in range(30, 60)}  # the left-out lead now
    head = index.search(query, 30)
    assert head.results == every.results[: len(head.results)]


def test_the_conjunction_bound_follows_the_average_length(tmp_path, monkeypatch):
    """Short rows lead "alpha beta"; then long pages arrive (holding both words, so the
    IDFs stay put) and long rows that were left out overtake them: the list must not
    answer; the order stays FTS5's."""
    index = filled(tmp_path, monkeypatch, size=25)
    rows = ["alpha beta reed"] * 20 + [" ".join(["alpha", "beta"] * 4 + ["silt"] * 32)] * 20
    add_rows(index, rows, 0)
    query = textquery.parse("alpha beta")
    index.search(query, 20)  # the first search makes the list: 20 short rows, 5 long ones
    add_rows(index, ["alpha beta " + "heron " * 300] * 200, 100)
    every = index.search(query)
    assert 20 <= int(every.results[0][0][3:]) < 40  # a long row leads now
    head = index.search(query, 20)
    assert head.results == every.results[: len(head.results)]


def warm_body(rnd: random.Random, n: int) -> str:
    """Rows where "river" is the most frequent word, "reed" next, "heron" rarer, "silt" rare,
    each a random number of times among padding of its own."""
    words = ["river"] * rnd.randint(1, 5) * (n % 10 < 8) + ["reed"] * rnd.randint(1, 3) * (n % 2)
    words += ["heron"] * (n % 4 == 0) + ["silt"] * (n % 25 == 0) + ["pad"] * rnd.randint(1, 30)
    return " ".join(rnd.sample(words, len(words)))


def assert_answered_from_list(index, text: str, want: int) -> None:
    """The head of ``text`` comes from a list (not every match scored), equals FTS5's full
    ranking, and the list's stored matches are FTS5's."""
    query = textquery.parse(text)
    every = index.search(query)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(index, "_scored", lambda match: pytest.fail("scored in full"))
        head = index.search(query, want)
    assert len(head.results) < every.total and len(head.results) >= want
    assert head.results == every.results[: len(head.results)] and head.total == every.total
    (term,) = fulltext._phrases(query)
    assert set(index.champions.hits(term)) == fts5_rows(index, term)


def fts5_rows(index, term: str) -> set[int]:
    return {n for (n,) in index.db.execute("SELECT rowid FROM docs WHERE docs MATCH ?", (term,))}


def test_warm_lists_of_the_most_frequent_terms_rank_as_fts5_through_captures_and_deletes(
    tmp_path, monkeypatch
):
    """The warm plan takes FTS5's vocabularies from their most frequent end (words, short
    prefixes and pairs of words); each list is read from a snapshot, and rows added and
    removed between the snapshot and the install (a capture, a delete while warming) and
    after it are applied: the first search of a warm term is answered from its list, exactly
    as FTS5 ranks it, and the list survives a restart."""
    index = filled(tmp_path, monkeypatch, size=40)
    rnd = random.Random(7)
    rows = add_rows(index, [warm_body(rnd, n) for n in range(200)], 0)
    monkeypatch.setattr(fulltext, "WARM_LISTS", 4)
    monkeypatch.setattr(fulltext, "WARM_PAIRS", 2)
    plan = index.warm_plan()
    # pad in 200 rows; r* 0.75 x (river 160 + reed 100); river 160; p* 0.75 x 200; then the
    # phrases, on their own budget: "pad pad" in 190, "pad river" in 155 (a column's last
    # token pairs with nothing: "pad_" is no phrase)
    assert plan == ['"pad"', '"r" *', '"river"', '"p" *', '"pad pad"', '"pad river"']
    monkeypatch.setattr(fulltext, "WARM_LISTS", 64)
    monkeypatch.setattr(fulltext, "WARM_PAIRS", 64)
    plan = index.warm_plan()
    assert plan.index('"river"') < plan.index('"reed"') < plan.index('"heron"')
    assert plan.index('"river river"') < plan.index('"reed reed"')
    assert '"silt"' not in plan and '"s" *' not in plan  # in 8 rows: fewer than MIN_ROWS
    assert '"pad silt"' not in plan and not [t for t in plan if t.endswith(' "')]
    for n, term in enumerate(plan):
        generation = index.begin_warm()
        built = index.read_list(term)
        # while each list is read: a capture, and a delete of the list's best row
        rows |= add_rows(index, ["river " * 9 + "reed heron", "heron pad"], 1000 + 2 * n)
        gone = built.kept[0][0] if built else max(rows)
        with index._batch():
            index._delete_row(gone, "", rows.pop(gone), "")
        assert index.install(built, generation) is True
        assert set(index.champions.hits(term)) == fts5_rows(index, term)
        assert gone not in {r for (r,) in index.db.execute("SELECT n FROM champ")}
    assert index.champions.warm == set(plan)
    rows |= add_rows(index, ["river river reed " + "pad " * 3, "reed"], 2000)  # after warming
    index.close()
    index = FullTextIndex(tmp_path / "f.sqlite3")  # a restart
    assert index.champions.warm == set(plan)
    for text in ("river", "reed", "heron", "riv*", "r*", "he*", '"river river"', '"reed pad"'):
        assert_answered_from_list(index, text, want=4)


def test_a_list_read_before_a_rebuild_is_not_installed(tmp_path, monkeypatch):
    index = filled(tmp_path, monkeypatch, size=8)
    add_rows(index, [warm_body(random.Random(3), n) for n in range(60)], 0)
    generation = index.begin_warm()
    built = index.read_list('"river"')
    index._clear()  # the rows are numbered afresh
    assert index.db.execute("SELECT count(*) FROM docs_docsize").fetchone()[0] == 0
    assert index.install(built, generation) is False and index.champions.tiers == {}


def test_a_head_scored_without_a_list_equals_fts5s_full_ranking(tmp_path, monkeypatch):
    """A query no list answers is scored by FTS5, which keeps the best rows; grouped into
    documents (several versions each, identical rows tying at the edge of what was fetched,
    dead rows never found), the head equals the full ranking's, for one term, for two warm
    terms (their matches from the bitmaps) and with an excluded word (its rows from FTS5, or
    from its bitmap); the totals too."""
    index = filled(tmp_path, monkeypatch, size=5)
    rnd = random.Random(11)
    with index._batch():
        for n in range(400):
            body = warm_body(rnd, n // 3) if n % 7 else "river reed pad pad"  # ties
            index.add_row(f"{n:020d}", f"doc{n // 3}", "", body, "", None)
        for n in range(400, 700):  # one document's many versions lead: more rows fetched
            index.add_row(f"{n:020d}", "docbig", "", "river reed river pad", "", None)
    index.db.execute("UPDATE seen SET live = 0 WHERE n % 50 = 1")  # dead: in FTS5, not found
    index._load_known()
    for term in ('"river"', '"reed"'):
        generation = index.begin_warm()
        index.install(index.read_list(term), generation)
    monkeypatch.setattr(index, "_champion_head", lambda *a: None)  # no list answers
    monkeypatch.setattr(index, "_conjunction_head", lambda *a: None)
    for text in ("river", "river reed", "river -heron", "river -reed", "pad", "re*"):
        every = index.search(textquery.parse(text))
        for want in (1, 3, 10, 40, 500):
            head = index.search(textquery.parse(text), want)
            assert head.total == every.total, text
            assert len(head.results) >= min(want, every.total), (text, want)
            assert head.results == every.results[: len(head.results)], (text, want)


def test_warm_lists_are_planned_again_after_a_big_import_or_a_rebuild(tmp_path, monkeypatch):
    index = filled(tmp_path, monkeypatch, size=5)
    rnd = random.Random(5)
    add_rows(index, [warm_body(rnd, n) for n in range(8)], 0)
    assert index.warm_due() is False  # fewer rows than a list needs
    add_rows(index, [warm_body(rnd, n) for n in range(8, 40)], 8)
    assert index.warm_due() is True
    index.warm_plan()
    assert index.warm_due() is False  # planned for these rows
    add_rows(index, [warm_body(rnd, n) for n in range(40, 49)], 40)
    assert index.warm_due() is False  # grown less than WARM_GROWTH
    add_rows(index, [warm_body(rnd, n) for n in range(49, 60)], 49)
    assert index.warm_due() is True  # a big import
    first = index.warm_plan()[0]
    assert index.install(index.read_list(first), index.begin_warm())
    assert first not in index.warm_plan()  # warm already
    monkeypatch.setattr(fulltext, "WARM_RULE", fulltext.WARM_RULE + 1)
    assert index.warm_due() is True  # planned by another rule: every list read again
    assert first in index.warm_plan()
    assert index.warm_due() is False and first not in index.warm_plan()
    index._clear()
    add_rows(index, [warm_body(rnd, n) for n in range(20)], 0)
    assert index.warm_due() is True  # a rebuild


def test_a_file_planned_before_bands_reads_again_only_its_words_that_should_have_them(
    tmp_path, monkeypatch
):
    """A file whose warm lists were planned by rule 2 (before bands) keeps them, but for its
    warm words in at least ``BAND_ROWS`` rows, which are read again (with bands)."""
    index = filled(tmp_path, monkeypatch, size=5)
    add_rows(index, [warm_body(random.Random(5), n) for n in range(60)], 0)
    monkeypatch.setattr(champions, "BAND_ROWS", 10**9)  # planned before bands existed
    for term in index.warm_plan():
        assert index.install(index.read_list(term), index.begin_warm())
    assert index.champions.warm and not index.champions.bands
    index.db.execute("UPDATE meta SET value = 2 WHERE name = 'warmrule'")
    monkeypatch.setattr(champions, "BAND_ROWS", 40)
    assert index.warm_due()
    vocab = "SELECT term FROM temp.instances GROUP BY term HAVING count(DISTINCT doc) >= 40"
    frequent = {f'"{t}"' for (t,) in index.db.execute(vocab)}
    again = index.warm_plan()
    assert set(again) == frequent and len(frequent) == 2  # river and the padding
    for term in again:
        assert index.install(index.read_list(term), index.begin_warm())
    assert set(index.champions.bands) == frequent and not index.warm_due()


def test_a_phrase_ranks_on_its_pairs_bit_for_bit_as_fts5_ranks_it(tmp_path):
    """Each token written joined to the next (host/services/pairs.py): ``pairs`` holds docs's
    rows, column sizes and totals, so a query of phrases ranked on their pairs gets docs's
    ``bm25()`` bit for bit, in every column (title, text, URL), for phrases of two and three
    words, a prefix phrase, folded diacritics and a CJK word; also after rows were deleted
    and a dead row (its text gone) was deleted with its terms. A query with an excluded term
    or a word is ranked on docs."""
    index, rnd = FullTextIndex(tmp_path / "f.sqlite3"), random.Random(5)
    words = ["lower", "meadow", "river", "Méadow", "the", "of", "東京都", "river-mead"]
    values = {}
    with index._batch():
        for n in range(150):
            title, body = (" ".join(rnd.choices(words, k=rnd.randint(0, k))) for k in (4, 40))
            row = (
                textquery.index_text(title),
                textquery.index_text(body),
                f"https://e.example/{n}",
            )
            values[index.add_row(f"{n:020d}", f"doc{n}", row[0], row[1], row[2], None)] = row
    index._load_known()
    queries = ['"lower meadow"', '"meadow river lower"', '"the of"', '"e example"', '"東京都"',
               "river-mea*", '"meadow lower" "of the"', '"lower méadow"']  # fmt: skip
    for text in queries:
        assert_ranked_on_pairs_as_in_docs(index, text)
    with index._batch():
        for n in rnd.sample(sorted(values), 20):
            index._delete_row(n, *values.pop(n))
        index.db.execute("UPDATE seen SET live = 0 WHERE n = ?", (min(values),))
    assert index.delete_dead(index.collect_dead()) == 1
    for text in queries:
        assert_ranked_on_pairs_as_in_docs(index, text)
    blocks = "SELECT block FROM {}_data WHERE id = 1"  # row count and token totals
    assert (
        index.db.execute(blocks.format("pairs")).fetchall()
        == index.db.execute(blocks.format("docs")).fetchall()
    )
    for text in ('"lower meadow" -river', '"lower meadow" river'):
        assert index._source(textquery.parse(text))[0] == "docs"
    for text in ('"lower meadow" -東京都', '"river mead" -the', '"meadow river" -of -東京都'):
        assert_head_on_pairs_as_in_docs(index, text)


def assert_head_on_pairs_as_in_docs(index, text: str) -> None:
    """The head of phrases with excluded terms is ranked on their pairs, the excluded rows
    skipped: it is the head of FTS5's ranking of the whole query (its NOT) on docs."""
    query = textquery.parse(text)
    assert index._head_source(query)[0] == "pairs", text
    every = index.search(query)  # every match, scored by FTS5 on docs
    head = index.search(query, 3)
    assert every.total > 3 and head.total == every.total, text
    assert len(head.results) >= 3 and head.results == every.results[: len(head.results)], text


def assert_ranked_on_pairs_as_in_docs(index, text: str) -> None:
    """Every row ``text`` matches in docs, with its ``bm25()``, is what its pairs give; the
    index's ranking too."""
    query = textquery.parse(text)
    table, expr = index._source(query)
    assert table == "pairs", text
    scored = "SELECT rowid, bm25({0}, 4.0, 1.0, 2.0) FROM {0} WHERE {0} MATCH ? ORDER BY rowid"
    in_docs = index.db.execute(scored.format("docs"), (textquery.to_fts(query),)).fetchall()
    assert in_docs and index.db.execute(scored.format(table), (expr,)).fetchall() == in_docs, text
    assert (
        index.search(query).results == index._scored(("docs", textquery.to_fts(query)))[0].results
    )


def segments(index, table: str) -> int:
    """FTS5's segments of ``table`` (each has rows in its ``_idx`` table)."""
    return index.db.execute(f"SELECT count(DISTINCT segid) FROM {table}_idx").fetchone()[0]


def test_with_merges_deferred_a_capture_never_merges_and_merge_does_later(tmp_path):
    """Eight captures of 3,000 distinct words each, each its own transaction: FTS5 merges
    segments in those transactions by default; with merges deferred each leaves its own
    segment in both tables, and ``merge`` then merges them (found the same)."""
    for deferred in (False, True):
        index = FullTextIndex(tmp_path / f"{deferred}.sqlite3")
        if deferred:
            index.defer_merges()
        for n in range(8):
            add_rows(index, [" ".join(f"w{n}x{i}" for i in range(3000)) + " reed"], n)
        if not deferred:
            assert segments(index, "docs") < 8  # FTS5's automerge, in the captures
            continue
        assert segments(index, "docs") == segments(index, "pairs") == 8
        before = index.search(textquery.parse("reed"), 5)
        assert index.merge(1) is False and index.merge() is True
        assert segments(index, "docs") < 4 and segments(index, "pairs") < 4
        assert index.search(textquery.parse("reed"), 5) == before
        index.close()
        assert FullTextIndex(index.path).db.execute(
            "SELECT v FROM pairs_config WHERE k = 'automerge'"
        ).fetchone() == (0,)  # kept in the file


def test_a_merge_step_writes_a_few_pages_so_a_capture_waits_little(tmp_path):
    """A capture waits for at most one merge step on the store thread: each step writes
    about ``STEP_PAGES`` FTS5 pages per table (at most 32: ~3 ms CPU at 20k versions), the
    WAL frames it adds show it; merging eight large segments takes many steps."""
    index = FullTextIndex(tmp_path / "f.sqlite3")
    index.defer_merges()
    for n in range(8):
        add_rows(index, [" ".join(f"w{n}x{i}" for i in range(20000))], n)
    frames, done = [], False
    while not done:
        index.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        done = index.merge(1)
        frames.append(index.db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1])
    assert len(frames) > 10 and max(frames) <= 6 * fulltext.STEP_PAGES <= 6 * 32, frames
    assert segments(index, "docs") < 4 and segments(index, "pairs") < 4


def merge_work(path: Path) -> FullTextIndex:
    """An index with merges deferred and eight large segments to merge (many steps)."""
    index = FullTextIndex(path)
    index.defer_merges()
    for n in range(8):
        add_rows(index, [" ".join(f"w{n}x{i}" for i in range(20000)) + " reed"], n)
    return index


def test_merge_steps_never_copy_the_wal_once_checkpoints_are_deferred(tmp_path):
    """With ``defer_checkpoints`` (the daemon: it copies the WAL itself, off the store
    thread), the merge connection's commits do not copy the WAL either, opened before the
    call or after: every step's frames stay in it (SQLite's automatic checkpoint would copy
    them, and start the WAL afresh, in the COMMIT that takes it past 1,000 pages)."""
    for opened_first in (False, True):
        index = merge_work(tmp_path / f"f{opened_first}.sqlite3")
        index.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if opened_first:
            index._merger()
        index.defer_checkpoints()
        steps = 0
        while not index.merge(1):
            steps += 1
        frames, _copied = index.checkpoint()
        assert steps > 10 and frames > 1000, (opened_first, steps, frames)


def structure(index) -> bytes:
    """FTS5's structure record of both tables: which segments exist (a merge changes it)."""
    return b"".join(
        index.db.execute(f"SELECT block FROM {t}_data WHERE id = 10").fetchone()[0]
        for t in ("docs", "pairs")
    )


def assert_as_fts5(index, texts=("reed", "w3x17", "w7x19999 reed")) -> None:
    for text in texts:
        query = textquery.parse(text)
        scored = index._scored(("docs", textquery.to_fts(query)))[0].results
        assert scored and index.search(query).results == scored, text
    for table in ("docs", "pairs"):
        index.db.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 0)")


@pytest.mark.parametrize("purge", [False, True])
def test_a_write_interrupts_a_merge_step_under_way_which_is_rolled_back_whole(tmp_path, purge):
    """Merge and purge steps run on a connection of their own (any thread); a write on the
    index's own connection (a capture) does not wait for a step under way, which FTS5
    cannot stop where it likes (a frequent term's list is written whole): the step gives
    way (the write interrupts it), is rolled back whole, and is merged again later; the
    answers are FTS5's throughout. The step is held mid-way (in a progress handler of the
    test's, which then lets it go on) until the write waits, so the write surely arrives
    during it."""
    index = merge_work(tmp_path / "f.sqlite3")
    if purge:
        with index._batch():
            index.db.execute("INSERT OR REPLACE INTO meta VALUES ('unpurged', 1)")
    pages = -fulltext.MERGE_PAGES if purge else fulltext.STEP_PAGES
    before, rows = structure(index), index.count()
    under_way = threading.Event()

    def held() -> bool:
        under_way.set()
        for _ in range(2000):  # until the write waits (10 s at most)
            if index.writing:
                break
            time.sleep(0.005)
        return False

    index._merger().set_progress_handler(held, 1)
    results: list[str] = []
    merging = threading.Thread(target=lambda: results.append(index._step(pages)))
    merging.start()
    assert under_way.wait(10)
    add_rows(index, ["reed written while a step merged"], 100)  # its write: waits for no step
    merging.join()
    assert results == ["interrupted"] and index.count() == rows + 1
    assert segments(index, "docs") == segments(index, "pairs") == 9  # eight, and the write's
    assert index.merger is None  # closed with the step: the next opens another
    assert (index.purge() if purge else index.merge()) is True and structure(index) != before
    assert segments(index, "docs") < (2 if purge else 4) > segments(index, "pairs")
    assert not index.db.execute(fulltext._UNPURGED).fetchone()
    assert_as_fts5(index)


def test_a_write_interrupts_again_a_step_whose_statement_cleared_the_interrupt(
    tmp_path, monkeypatch
):
    """SQLite clears an interrupt that comes between two statements when the next begins: a
    write that finds the step still under way interrupts it again (``RESEND_S``). Here the
    write comes while the step is between its BEGIN and its merge (each page slowed by a
    progress handler of the test's, so the merge outlasts the first interrupts)."""
    index = merge_work(tmp_path / "f.sqlite3")
    between, go, merge_step = threading.Event(), threading.Event(), fulltext._merge_step

    def held(db, pages):
        between.set()
        go.wait(10)
        return merge_step(db, pages)

    monkeypatch.setattr(fulltext, "_merge_step", held)
    index._merger().set_progress_handler(lambda: time.sleep(0.0001), 1)
    results: list[str] = []
    merging = threading.Thread(target=lambda: results.append(index._step(fulltext.STEP_PAGES)))
    merging.start()
    assert between.wait(10)
    writing = threading.Thread(target=lambda: add_rows(index, ["reed"], 100))
    writing.start()
    while not index.writing:  # its first interrupt is sent between two statements
        time.sleep(0.001)
    go.set()
    merging.join()
    writing.join()
    assert results == ["interrupted"] and segments(index, "docs") == 9


def test_an_interrupt_left_over_from_a_step_stops_no_merge_for_good(tmp_path):
    """An interrupt that came as a step ended (it committed first) stays set on the merge
    connection; it stops at most the next step (rolled back with the connection closed,
    the file's lock free), and merging then goes on."""
    index = merge_work(tmp_path / "f.sqlite3")
    assert index._step(fulltext.STEP_PAGES) == "merged"  # the connection and FTS5's reader open
    index.merger.interrupt()  # no step under way
    assert index.merge() is True
    assert segments(index, "docs") < 4 and segments(index, "pairs") < 4
    index._merger().interrupt()
    assert index._step(fulltext.STEP_PAGES) in ("idle", "interrupted")
    add_rows(index, ["reed"], 100)  # the file's lock is free
    assert_as_fts5(index)


def test_a_step_stopped_by_an_interrupt_no_write_counted_gives_way_and_is_no_error(
    tmp_path, monkeypatch
):
    """SQLite's own "interrupted" (one left over from a step that ended first: it stops the
    next statement of this connection) is a give-way like a write's: the step is rolled
    back and reports "interrupted", never an error, and merging goes on. SQLite's
    interrupt is put in by a progress handler that aborts the step's first statement once."""
    index = merge_work(tmp_path / "f.sqlite3")
    opened, aborted = index._merger, []

    def interrupted_once():
        db = opened()

        def handler() -> int:
            if aborted:
                return 0
            aborted.append(index.interrupts)  # no write has counted an interrupt
            return 1

        db.set_progress_handler(handler, 1)
        return db

    monkeypatch.setattr(index, "_merger", interrupted_once)
    assert index._step(fulltext.STEP_PAGES) == "interrupted"
    assert aborted == [index.interrupts]
    monkeypatch.undo()
    assert index.merge() is True
    assert segments(index, "docs") < 4 and segments(index, "pairs") < 4
    assert_as_fts5(index)


def page_words(count: int) -> list[str]:
    """Rows of 40 words of a real saved page's text each (tags and scripts dropped)."""
    page = Path(__file__).resolve().parents[2] / "fixtures" / "pages" / "228917f19c2a4451.html.gz"
    html = gzip.decompress(page.read_bytes()).decode("utf-8", "replace")
    text = re.sub(r"(?s)<(script|style)\b.*?</\1>|<[^>]+>", " ", html)
    words = re.findall(r"\w+", text)
    return [" ".join(words[(i * 40) % len(words) :][:40]) for i in range(count)]


def slowed_merges(index, monkeypatch, pause_s: float = 0.0002) -> list[str]:
    """Every merge step slowed (a progress handler of the test's on each merge connection:
    the connection is closed after an interrupt) so it outlasts the gap between two writes;
    each step's result, in order."""
    opened, merge_in, results = index._merger, index._merge_in, []

    def slowed():
        db = opened()
        db.set_progress_handler(lambda: time.sleep(pause_s), 50)
        return db

    def noted(db, pages, interrupts):
        results.append(merge_in(db, pages, interrupts))
        return results[-1]

    monkeypatch.setattr(index, "_merger", slowed)
    monkeypatch.setattr(index, "_merge_in", noted)
    return results


def test_a_stream_of_writes_closer_than_a_step_never_starves_the_merge(tmp_path, monkeypatch):
    """Writes closer together than a merge step lasts (an import of many pages, real page
    text) would interrupt every step, and the eight large segments would never merge: after
    ``GIVE_WAY`` interrupted steps in a row the next runs whole (the write that comes
    meanwhile waits for it), so steps complete while the writes go on, and at most
    ``GIVE_WAY`` are interrupted in a row (no write merges: FTS5's crisis merge is off)."""
    index = merge_work(tmp_path / "f.sqlite3")
    with index._batch():  # no level merged in a write (FTS5's crisis merge, at 16 segments)
        for table in ("docs", "pairs"):
            index.db.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('crisismerge', 1999)")
    results = slowed_merges(index, monkeypatch)
    stop, written = threading.Event(), []

    def writes() -> None:
        for n, body in enumerate(page_words(100_000)):
            if stop.is_set():
                return
            written.extend(add_rows(index, [body], 1000 + n))
            time.sleep(0.001)

    writer = threading.Thread(target=writes)
    writer.start()
    while len(written) < 3:  # the stream is under way
        time.sleep(0.001)
    assert fulltext.GIVE_WAY < 10
    index.merge(20)
    stop.set()
    writer.join()
    runs = "".join({"interrupted": "i", "merged": "m"}.get(r, "d") for r in results)
    assert "m" in runs and "i" * (fulltext.GIVE_WAY + 1) not in runs, runs
    assert "i" * fulltext.GIVE_WAY in runs, runs  # the writes did interrupt the steps
    assert index.count() == 8 + len(written)
    monkeypatch.undo()
    assert index.merge() is True
    assert_as_fts5(index)


@pytest.mark.parametrize("gave_way", [fulltext.GIVE_WAY - 1, fulltext.GIVE_WAY])
def test_a_step_runs_whole_only_after_give_way_interrupted_steps_in_a_row(
    tmp_path, monkeypatch, gave_way
):
    """A step after ``GIVE_WAY - 1`` interrupted ones still gives way to a write; the one
    after ``GIVE_WAY`` runs whole, the write waiting for it (it lands after the step's
    commit); a completed step starts the count afresh. The step is held (in a progress
    handler of the test's as its BEGIN ends, then before its merge) until the write waits,
    so the write surely comes during it; the write's interrupt lands where SQLite drops it
    (no statement of the step looks at it again) and is not sent again during the step, as
    when the write's thread waits for a core longer than the step lasts: the step gives way
    all the same."""
    monkeypatch.setattr(fulltext, "RESEND_S", 60.0)  # the step's end wakes the write
    index = merge_work(tmp_path / "f.sqlite3")
    rows, under_way, merge_step = index.count(), threading.Event(), fulltext._merge_step

    def until_a_write_waits() -> bool:
        under_way.set()
        for _ in range(2000):
            if index.writing:
                break
            time.sleep(0.005)
        return False

    def held(db, pages):
        until_a_write_waits()
        return merge_step(db, pages)

    monkeypatch.setattr(fulltext, "_merge_step", held)
    if gave_way < fulltext.GIVE_WAY:  # (not in a whole step: a Python call per instruction)
        index._merger().set_progress_handler(until_a_write_waits, 1)
    index.gave_way = gave_way
    results: list[str] = []
    merging = threading.Thread(target=lambda: results.append(index._step(fulltext.STEP_PAGES)))
    merging.start()
    assert under_way.wait(10)
    add_rows(index, ["reed written while a step merged"], 100)
    merging.join()
    assert index.count() == rows + 1
    if gave_way < fulltext.GIVE_WAY:
        assert results == ["interrupted"] and index.gave_way == gave_way + 1
        assert segments(index, "docs") == 9  # eight, and the write's
    else:
        assert results == ["merged"] and index.gave_way == 0
        assert segments(index, "docs") == 10  # and the merge's output, under way
    monkeypatch.undo()
    assert index.merge() is True
    assert_as_fts5(index)


def test_an_interrupt_stops_a_merge_step_inside_one_frequent_terms_list(tmp_path):
    """FTS5 checks a ``'merge'``'s page budget only where a term ends, so one frequent term's
    merged doclist is written whole, however many pages it takes; ``sqlite3_interrupt``
    stops the step inside that write all the same (FTS5 reads and writes each page with a
    statement of its own, and SQLite looks at the interrupt as each runs). An index of one
    term in 100,000 rows, four segments: a step writes about four times ``STEP_PAGES``
    pages of that one term; interrupted a quarter, half or three quarters of the way, it
    stops within one more tick of a progress handler (10 VM instructions) and is rolled back
    whole."""
    index = FullTextIndex(tmp_path / "f.sqlite3")
    index.defer_merges()
    for segment in range(4):
        with index._batch():
            index.db.executemany(
                "INSERT INTO docs (rowid, title, body, url) VALUES (?, '', 'reed', '')",
                ((segment * 25_000 + n,) for n in range(1, 25_001)),
            )
    assert segments(index, "docs") == 4
    index.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = structure(index)

    def step(at: int | None, keep: bool) -> tuple[str, int, int]:
        db = fulltext._connection(index.path)
        ticks, sent = [0], [0]

        def tick() -> bool:
            ticks[0] += 1
            if ticks[0] == at:
                db.interrupt()
                sent[0] = ticks[0]
            return False

        db.set_progress_handler(tick, 10)
        try:
            db.execute("BEGIN IMMEDIATE")
            done = fulltext._merge_step(db, fulltext.STEP_PAGES)
            db.execute("COMMIT" if keep else "ROLLBACK")
        except sqlite3.OperationalError as exc:
            done = str(exc)
        finally:
            db.close()
        return done, ticks[0], ticks[0] - sent[0]

    whole = step(None, keep=False)[1]
    for fraction in (0.25, 0.5, 0.75):
        done, ticks, after = step(int(whole * fraction), keep=True)
        assert done == "interrupted" and after <= 1, (fraction, whole, done, ticks, after)
        assert structure(index) == before and segments(index, "docs") == 4
    done, ticks, _ = step(None, keep=True)
    assert done == "merged" and segments(index, "docs") == 1, (done, ticks)
    (segid,) = index.db.execute("SELECT segid FROM docs_idx").fetchone()
    written = index.db.execute(  # a leaf page's id: its segment's id << 37, then its number
        "SELECT count(*) FROM docs_data WHERE id >> 37 = ?", (segid,)
    ).fetchone()[0]
    assert written > 2 * fulltext.STEP_PAGES, written  # one term: no budget check stopped it
    index.db.execute("INSERT INTO docs (docs, rank) VALUES ('integrity-check', 0)")
    assert index.db.execute("SELECT count(*) FROM docs WHERE docs MATCH 'reed'").fetchone() == (
        100_000,
    )


def test_no_merge_step_begins_while_a_write_waits(tmp_path):
    """A merge step that begins while a write on the index's connection waits for the file's
    lock would take it first and be stopped at once, again and again, while the write's
    busy handler sleeps longer each time: a step waits for the writes to end instead."""
    index = merge_work(tmp_path / "f.sqlite3")
    index._writing(1)  # a write waiting
    results: list[str] = []
    merging = threading.Thread(target=lambda: results.append(index._step(fulltext.STEP_PAGES)))
    merging.start()
    merging.join(0.5)
    assert merging.is_alive() and not results and not index.merger.in_transaction
    index._writing(-1)
    merging.join()
    assert results == ["merged"]


def failing_step(index, monkeypatch, message: str, asked: bool = False):
    """``_merge_step`` merges, then fails with ``message``: after a write asked the step
    to give way (the interrupt count moved) when ``asked``."""
    merge_step = fulltext._merge_step

    def failing(db, pages):
        merge_step(db, pages)
        if asked:
            with index.writes:
                index.interrupts += 1
        raise sqlite3.OperationalError(message)

    monkeypatch.setattr(fulltext, "_merge_step", failing)


def test_a_merge_step_that_fails_on_its_own_raises_and_is_rolled_back(tmp_path, monkeypatch):
    """A failure no write caused (a disk error) is raised, never taken for a give-way and
    tried again in silence; the step's merge is rolled back with its connection."""
    index = merge_work(tmp_path / "f.sqlite3")
    before = structure(index)
    failing_step(index, monkeypatch, "disk I/O error")
    with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
        index._step(fulltext.STEP_PAGES)
    assert index.merger is None and structure(index) == before


def test_a_merge_step_that_fails_after_a_write_asked_it_to_give_way_was_interrupted(
    tmp_path, monkeypatch
):
    """An interrupt may surface as another error (FTS5 opening its table): a failure after a
    write asked the step to give way is its interruption, rolled back."""
    index = merge_work(tmp_path / "f.sqlite3")
    before = structure(index)
    failing_step(index, monkeypatch, "vtable constructor failed", asked=True)
    assert index._step(fulltext.STEP_PAGES) == "interrupted"
    assert index.merger is None and structure(index) == before


def test_a_kill_in_the_middle_of_a_merge_step_loses_nothing(tmp_path):
    """A process SIGKILLed in the middle of a merge step (its pages partly written to the
    WAL): opened again, the file holds the segments it had before the step, every row, and
    the answers are FTS5's; merging then completes."""
    index = merge_work(tmp_path / "f.sqlite3")
    before, rows = structure(index), index.count()
    index.close()
    child = f"""
import os, signal, sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[3])!r})
from host.services import fulltext
index = fulltext.FullTextIndex({str(index.path)!r})
calls = []
def killed():
    calls.append(1)
    if len(calls) == 20:  # inside the step (about 44 calls)
        print(index.merger.in_transaction, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    return False
index._merger().set_progress_handler(killed, 64)
index.merge(1)
"""
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True)
    assert done.returncode == -signal.SIGKILL and done.stdout.split() == ["True"], done.stderr
    index = FullTextIndex(tmp_path / "f.sqlite3")
    assert structure(index) == before and index.count() == rows
    assert_as_fts5(index)
    assert index.merge() is True and structure(index) != before
    assert_as_fts5(index)


def chunk_rows(index, term: str) -> set[int]:
    """The rows set in the bitmap chunks of ``term`` as the file holds them (no delta)."""
    found = index.db.execute("SELECT chunk, bits FROM hitmap WHERE term = ?", (term,))
    return set(champions.Hits(dict(found.fetchall())))


def warmed(tmp_path, monkeypatch) -> tuple[FullTextIndex, dict[int, str], list[str]]:
    """An index of 200 rows with the warm lists of its most frequent terms, folded."""
    index = filled(tmp_path, monkeypatch, size=40)
    rows = add_rows(index, [warm_body(random.Random(11), n) for n in range(200)], 0)
    plan = index.warm_plan()
    for term in plan:
        assert index.install(index.read_list(term), index.begin_warm())
    assert index.fold() and not index.champions.pending
    return index, rows, plan


def assert_lists_hold_fts5s_rows(index, plan: list[str]) -> None:
    for term in plan:
        assert set(index.champions.hits(term)) == fts5_rows(index, term), term
    for text in ("river", "reed", "riv*", "r*", '"pad river"'):
        assert_answered_from_list(index, text, want=4)


def test_a_capture_writes_one_delta_row_that_searches_add_and_a_fold_sets(tmp_path, monkeypatch):
    """A capture does not rewrite a bitmap chunk per warm term it holds: it writes one row of
    the delta, which every search adds to the chunks (the matches, the IDF, the head are
    FTS5's); ``fold`` then sets those bits in the chunks, a bounded number of chunks a step;
    a row deleted before the fold leaves both."""
    index, rows, plan = warmed(tmp_path, monkeypatch)
    chunks = index.db.execute("SELECT term, chunk, bits FROM hitmap").fetchall()
    rows |= add_rows(index, [warm_body(random.Random(12), n) for n in range(5000, 5030)], 5000)
    assert index.db.execute("SELECT term, chunk, bits FROM hitmap").fetchall() == chunks
    assert index.db.execute("SELECT count(*) FROM hitdelta").fetchone()[0] == 30
    assert chunk_rows(index, '"river"') != fts5_rows(index, '"river"')  # the new rows: delta
    assert_lists_hold_fts5s_rows(index, plan)
    gone = max(rows)  # deleted before the fold: out of the delta as well
    with index._batch():
        index._delete_row(gone, "", rows.pop(gone), "")
    assert gone not in index.champions.pending and gone not in index.champions.delta['"river"']
    assert_lists_hold_fts5s_rows(index, plan)
    monkeypatch.setattr(champions, "FOLD_WRITES", 5)
    first = min(index.champions.pending)
    held = len(index.champions.pending[first])
    assert held > 5
    writes, chunk_set = [], index.champions._set
    monkeypatch.setattr(index.champions, "_set", lambda *a: writes.append(a) or chunk_set(*a))
    assert index.fold(1) is False  # a step: five chunks, the rest of its row left for the next
    assert len(writes) == 5 and len(index.champions.pending[first]) == held - 5
    assert_lists_hold_fts5s_rows(index, plan)  # half folded: the union is still whole
    assert index.fold() is True
    assert index.db.execute("SELECT count(*) FROM hitdelta").fetchone()[0] == 0
    for term in plan:
        assert chunk_rows(index, term) == fts5_rows(index, term), term
    assert_lists_hold_fts5s_rows(index, plan)


def test_a_kill_between_a_capture_and_the_fold_loses_no_row(tmp_path, monkeypatch):
    """A process captures rows into a warmed index and is SIGKILLed before any fold: opened
    again, the delta is read back from the file, every list holds FTS5's rows and ranks as
    FTS5 does; a fold afterwards sets them in the chunks."""
    index, rows, plan = warmed(tmp_path, monkeypatch)
    index.close()
    child = f"""
import os, random, signal, sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[3])!r})
from host.services import champions, fulltext, threshold
from tests.host.services.test_fulltext import add_rows, warm_body
champions.SIZE, fulltext.MIN_ROWS = 40, 10
index = fulltext.FullTextIndex({str(index.path)!r})
for n in range(5000, 5040):  # each capture its own transaction, as in the daemon
    add_rows(index, [warm_body(random.Random(n), n)], n)
print(len(index.champions.pending), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True)
    assert done.returncode == -signal.SIGKILL and done.stdout.split() == ["40"], done.stderr
    index = FullTextIndex(tmp_path / "f.sqlite3")
    assert index.count() == 240 and len(index.champions.pending) == 40
    assert chunk_rows(index, '"river"') != fts5_rows(index, '"river"')
    assert_lists_hold_fts5s_rows(index, plan)
    assert index.fold() is True
    for term in plan:
        assert chunk_rows(index, term) == fts5_rows(index, term), term


def test_the_cli_alone_folds_and_merges_an_index_the_daemon_left(
    home, tmp_path, monkeypatch, capsys
):
    """The daemon stores ``automerge`` 0 in the index file and leaves the fold and the merges
    to its text job; with no daemon, each ``archive add`` of the CLI tidies the index after
    its capture (the delta folded, a bounded merge), so segments do not pile up (FTS5 alone
    would keep one per capture until its crisis merge at 16) and no bit waits."""
    monkeypatch.setattr(fulltext, "MIN_ROWS", 2)
    index = fulltext.index_of(home)
    with ArchiveStore.open(home, readonly=True) as store:
        index.sync(store)
    index.defer_merges()  # what a daemon leaves in the file

    def add(n: int) -> None:
        page = tmp_path / f"{n}.html"
        page.write_bytes(html(f"T{n}", " ".join(f"c{n}x{i}" for i in range(1500)) + " rivers"))
        url = f"https://cli.example/{n}"
        assert main(["archive", "add", url, "--html", str(page), "--home", str(home)]) == 0

    add(0)
    assert main(["archive", "search", "--text", "rivers", "--home", str(home), "--json"]) == 0
    assert '"rivers"' in index.champions.tiers  # made by the CLI's search: captures pend bits
    for n in range(1, 13):
        add(n)
    capsys.readouterr()
    assert segments(index, "docs") < 8 and segments(index, "pairs") < 8  # 14 captures
    assert not index.champions.pending
    assert chunk_rows(index, '"rivers"') == fts5_rows(index, '"rivers"')


def test_a_catch_up_of_many_versions_folds_past_pending_rows(home, monkeypatch):
    """A sync that indexes more than ``PENDING_ROWS`` versions at once (an import, a start)
    folds their bits into the bitmaps before it returns: the delta stays small, so what a
    search adds to each bitmap stays cheap; fewer wait in it."""
    monkeypatch.setattr(fulltext, "MIN_ROWS", 2)
    monkeypatch.setattr(fulltext, "PENDING_ROWS", 3)
    index = fulltext.index_of(home)
    with ArchiveStore.open(home) as store:
        index.sync(store)
        index.search(textquery.parse("the"), 1)  # the CLI makes the list at once
        assert '"the"' in index.champions.tiers
        for pages, left in ((3, 3), (6, 0)):
            for n in range(pages):
                register(store, Capture(f"https://m.example/{left}{n}", html("T", "the reed")))
            index.sync(store)
            assert len(index.champions.pending) == left
        assert chunk_rows(index, '"the"') == fts5_rows(index, '"the"')


def test_a_phrase_with_words_ranks_on_pairs_when_its_words_fill_more_rows(tmp_path, monkeypatch):
    """A phrase with plain words is ranked on ``pairs`` (each word as the prefix of its pairs,
    ``"heron_" *``) once the rows holding the phrase's words outnumber the words' rows
    ``PAIRS_RATIO`` times: the head and total are FTS5's ranking of the whole query on docs
    (every column, words at a column's end, a longer word sharing the prefix, several
    versions per document, dead rows, an excluded word); else it stays on docs."""
    index = filled(tmp_path, monkeypatch, size=5)
    rnd = random.Random(17)
    words = ["lower", "meadow", "pad", "pad", "herons"]
    with index._batch():
        for n in range(360):
            body = rnd.choices(words, k=rnd.randint(2, 30)) + ["lower", "meadow"] * (n % 3 > 0)
            body += ["heron"] * rnd.randint(1, 3) * (n % 5 == 0) + ["silt"] * (n % 7 == 0)
            rnd.shuffle(body)
            title = "heron" if n % 15 == 0 else "lower meadow" * (n % 4 == 0)
            url = f"https://e.example/{n}" + "/heron" * (n % 10 == 0)
            index.add_row(f"{n:020d}", f"doc{n // 2}", title, " ".join(body), url, None)
    index.db.execute("UPDATE seen SET live = 0 WHERE n % 37 = 3")  # dead: in FTS5, not found
    index._load_known()
    for term in ('"lower"', '"meadow"', '"heron"', '"pad"'):
        assert index.install(index.read_list(term), index.begin_warm())
    for text in ('"lower meadow" heron', 'heron "lower meadow"', '"lower meadow" heron -silt'):
        query = textquery.parse(text)
        table, expr = index._head_source(query)
        assert table == "pairs" and "heron" in expr and "silt" not in expr, text
        every = index.search(query)  # every match scored by FTS5 on docs
        assert every.total > 10, text
        for want in (1, 3, 10, 40):
            head = index.search(query, want)
            assert head.total == every.total, (text, want)
            assert len(head.results) >= min(want, every.total), (text, want)
            assert head.results == every.results[: len(head.results)], (text, want)
    assert index._head_source(textquery.parse('"lower meadow" pad'))[0] == "docs"  # pad: more rows
    monkeypatch.setattr(fulltext, "PAIRS_RATIO", 100.0)
    assert index._head_source(textquery.parse('"lower meadow" heron'))[0] == "docs"


def test_several_frequent_terms_rank_from_their_own_lists_exactly_as_fts5(tmp_path, monkeypatch):
    """Two frequent words, or a frequent phrase with a frequent word (plus an excluded word),
    each with a list and no list of the whole query, one leading the score, are answered
    from the terms' own lists (the threshold algorithm; not tried when no term leads): head
    and total are FTS5's full ranking of the query, also
    after new rows moved the average length and entered the lists (their bits still in the
    delta), after listed rows left FTS5, and with dead rows; FTS5 scores only listed rows."""
    index = filled(tmp_path, monkeypatch, size=40)
    rnd = random.Random(5)
    words = ["lower", "meadow", "pad", "reed", "reed", "reed"]
    values: dict[int, tuple[str, str, str]] = {}

    def add(count: int, first: int, longer: int = 0) -> None:
        with index._batch():
            for n in range(first, first + count):
                body = rnd.choices(words, k=rnd.randint(2, 40 + longer))
                body += ["lower", "meadow"] * rnd.randint(0, 3) + ["heron"] * (n % 3 == 0)
                body += ["silt"] * (n % 4 == 0) + ["weir"] * (n % 5 == 0)
                title = "lower meadow heron" if n % 11 == 0 else ""
                url = f"https://e.example/{n}" + "/heron" * (n % 10 == 0)
                row = (title, " ".join(body), url)
                values[index.add_row(f"{n:020d}", f"doc{n // 2}", *row, None)] = row
        index._load_known()

    add(400, 0)
    index.db.execute("UPDATE seen SET live = 0 WHERE n % 41 = 3")  # dead: in FTS5, not found
    index._load_known()
    for term in ('"lower"', '"heron"', '"pad"', '"lower meadow"', '"silt"'):
        assert index.install(index.read_list(term), index.begin_warm())
    monkeypatch.setattr(threshold, "DOMINANT", 2.0)  # here silt (idf ~1.1) leads heron (~0.4)
    assert index._threshold_head(textquery.parse("heron pad"), 1) is None  # few matches a row
    for ratio in ("WORDS_RATIO", "PHRASE_RATIO"):  # ~2 a listed row: scoring all costs less
        monkeypatch.setattr(threshold, ratio, 0.25)
    texts = ("heron pad", '"lower meadow" heron', 'heron "lower meadow" -silt', "pad heron -weir")
    texts += ("silt heron", '"lower meadow" silt heron')
    scorings = threshold_answers(index, texts, monkeypatch)
    add(120, 400, longer=6)  # longer rows: the average moves, some enter the lists
    assert index.champions.pending
    scorings += threshold_answers(index, texts, monkeypatch)
    listed = [n for (n,) in index.db.execute("SELECT n FROM champ WHERE term = '\"heron\"'")]
    with index._batch():
        for n in listed[:10]:
            index._delete_row(n, *values.pop(n))
    index._load_known()
    scorings += threshold_answers(index, texts, monkeypatch)
    assert 0 < max(scorings) <= 2 * 40  # FTS5 scored only some listed rows (2 lists of 40)
    alike = textquery.parse("lower pad")  # both in nearly every row: no term leads the score
    assert index._threshold_head(alike, 1) is None and index.search(alike, 1).results
    index.deferred, index.wanted = True, {}
    index.search(textquery.parse("heron pad"), 1)  # answered from the terms' lists, and then
    assert list(index.wanted) == [('"heron"', '"pad"')]  # its conjunction list is made
    assert index.build_lists() and index._conjunction_head(textquery.parse("heron pad"), 1)


def watched_search(index, query, want: int, scorer: str, monkeypatch):
    """``index.search(query, want)`` (no list asked for), and what it scored: whether FTS5
    scored every match (its full ranking was called), and the rows each call of
    ``threshold.<scorer>`` had FTS5 score."""
    full, rows = list[int](), list[int]()
    with monkeypatch.context() as patch:
        patch.setattr(index, "_want", lambda *a: None)
        head_of, spied = index._scored_head, getattr(threshold, scorer)
        patch.setattr(index, "_scored_head", lambda *a: full.append(1) or head_of(*a))
        patch.setattr(threshold, scorer, lambda *a: rows.append(len(a[3])) or spied(*a))
        head = index.search(query, want)
    return head, bool(full), rows


def threshold_answers(index, texts, monkeypatch) -> list[int]:
    """Each query's head from the terms' lists equals FTS5's full ranking (on docs), for
    several page sizes, at least one answered without a full scoring; the most rows FTS5
    scored for a query's terms alone."""
    scored = []
    for text in texts:
        query = textquery.parse(text)
        every = index.search(query)
        answered = 0
        for want in (1, 5, 20):
            head, full, alone = watched_search(index, query, want, "counts_alone", monkeypatch)
            answered += not full
            scored.append(sum(alone))
            assert head.total == every.total, (text, want)
            assert len(head.results) >= min(want, every.total), (text, want)
            assert head.results == every.results[: len(head.results)], (text, want)
        assert answered, text
    return scored


def test_two_frequent_words_alike_rank_from_their_bands_exactly_as_fts5(tmp_path, monkeypatch):
    """Two frequent words with IDFs alike (neither leads the score), each with a list and
    bands, are answered band by band (and a word whose excluded word leaves its list too
    few): FTS5 scores only the rows in some list or band, and
    head and total are FTS5's full ranking of the query, also with an excluded word, after
    new rows (some high in a band, their bits in the delta, then folded) moved the average
    length, after banded rows left FTS5, and with dead rows."""
    index = filled(tmp_path, monkeypatch, size=10)
    monkeypatch.setattr(champions, "BAND_ROWS", 100)
    monkeypatch.setattr(threshold, "WORDS_RATIO", 0.5)
    rnd = random.Random(7)
    values: dict[int, tuple[str, str, str]] = {}

    def add(count: int, first: int, most: int = 4, pad: int = 60, fixed=None) -> None:
        with index._batch():
            for n in range(first, first + count):
                alpha, beta = fixed or (rnd.randint(1, most), rnd.randint(1, most))
                body = ["alpha"] * alpha * (bool(fixed) or rnd.random() < 0.45)
                body += ["beta"] * beta * (bool(fixed) or rnd.random() < 0.45)
                body += ["gamma"] * (n % 9 == 0) + ["pad"] * rnd.randint(3, pad)
                row = ("", " ".join(rnd.sample(body, len(body))), f"https://e.example/{n}")
                values[index.add_row(f"{n:020d}", f"doc{n // 2}", *row, None)] = row
        index._load_known()

    add(700, 0)
    index.db.execute("UPDATE seen SET live = 0 WHERE n % 53 = 3")  # dead: in FTS5, not found
    index._load_known()
    for term in ('"beta"', '"gamma"', '"pad"'):
        assert index.install(index.read_list(term), index.begin_warm())
    generation = index.begin_warm()
    built = index.read_list('"alpha"')
    add(60, 700, pad=22, fixed=(3, 1))  # captured while alpha's list is read: in its bands
    assert index.install(built, generation)
    assert len(index.champions.bands['"alpha"']) == len(champions.BAND_SHARES)
    assert '"gamma"' not in index.champions.bands  # in fewer than BAND_ROWS rows
    texts = ("alpha beta", "beta alpha", "alpha beta -gamma", "alpha -beta")
    scored = banded_answers(index, texts, monkeypatch)
    add(150, 760, most=4, pad=130)  # longer rows: the average moves, new rows fall in bands
    assert any("\t" in t for terms in index.champions.pending.values() for t in terms)
    scored += banded_answers(index, texts, monkeypatch)
    index.fold()
    assert not index.champions.pending
    index.close()
    index = FullTextIndex(index.path)  # a restart: the bands come from the file
    scored += banded_answers(index, texts, monkeypatch)
    assert index.install(index.read_list('"beta"'), index.begin_warm())  # read again
    scored += banded_answers(index, texts, monkeypatch)
    banded = [n for n in index.champions._bitmap(champions.band_name('"alpha"', 1)) if n in values]
    with index._batch():
        for n in banded[:15]:
            index._delete_row(n, *values.pop(n))
    index._load_known()
    scored += banded_answers(index, texts, monkeypatch)
    both = index.db.execute("SELECT count(*) FROM docs WHERE docs MATCH 'alpha AND beta'")
    assert 0 < max(scored) < both.fetchone()[0]  # FTS5 scored some of the matches only


def banded_answers(index, texts, monkeypatch) -> list[int]:
    """Each query's head from the words' bands equals FTS5's full ranking (on docs), for
    several page sizes, the first two answered without a full scoring; how many rows FTS5
    scored for each."""
    scored = []
    for text in texts:
        query = textquery.parse(text)
        every = index.search(query)
        for want in (1, 5, 20, 40):
            head, full, rows = watched_search(index, query, want, "together", monkeypatch)
            scored.append(sum(rows))
            assert not full or want > 5, (text, want)
            assert head.total == every.total, (text, want)
            assert len(head.results) >= min(want, every.total), (text, want)
            assert head.results == every.results[: len(head.results)], (text, want)
    return scored


def test_a_version_indexed_before_its_visible_text_was_kept_is_indexed_again_with_it(
    tmp_path, monkeypatch
):
    """Versions indexed by their main text (stored before the visible text was kept) are
    found by their visible text once it is kept: ``resource`` (a step's versions) and
    ``reindex_sources_pass`` (every row, in steps) index each again, once; the index then equals
    one made afresh (terms, counts and totals), and a write that fails midway is rolled
    back whole and done at the next run."""
    home = tmp_path / "home"
    monkeypatch.setattr(fulltext, "RECONCILE_ROWS", 2)
    with ArchiveStore.open(home) as store:
        olds = [old_version(store, name) for name in ("partei", "ordnung", "latin1")]
        register(
            store, Capture("https://a.example/rivers", html(*PAGES["https://a.example/rivers"]))
        )
        index = FullTextIndex(tmp_path / "index.sqlite3")
        index.sync(store)
        assert index.search(textquery.parse("steuerdarling")).total == 0  # a linked headline
        assert provider.keep_all_visible_texts(store, olds[:2]) == olds[:2]
        assert index.reindex_sources(store, olds) == 2
        assert index.search(textquery.parse("steuerdarling")).total == 1
        assert index.reindex_sources(store, olds) == 0  # once
        provider.visible_text_of(store, olds[2])  # kept by a check: the pass finds it
        failing = index._add
        monkeypatch.setattr(index, "_add", lambda *a: (_ for _ in ()).throw(OSError("disk")))
        with pytest.raises(OSError):
            index.reindex_sources_pass(store)
        monkeypatch.setattr(index, "_add", failing)
        assert index.count() == 4 and sorted(index.known) == store.ids  # as the file holds
        assert len(index.rows.by_n) == 4
        after, steps = -1, 0
        while after is not None:
            after, steps = index.reindex_sources_pass(store, after), steps + 1
        assert steps >= 2 and index.reindex_sources(store, olds) == 0
        fresh = FullTextIndex(tmp_path / "fresh.sqlite3")
        fresh.sync(store)
        for table in ("docs", "pairs"):
            assert vocabulary(index, table) == vocabulary(fresh, table)
        assert champions.averages(index.db) == champions.averages(fresh.db)
        assert sorted(index.known.items()) == sorted(fresh.known.items())


def test_a_results_snippet_comes_from_the_version_it_opens(tmp_path, capsys):
    """The older version ranks best (it says "forty years" three times); the result opens the
    newest capture (a revisit of the version that says "forty-one years"), so the snippet shows
    that version's words; a word only an older version holds gives that version's snippet."""
    home = tmp_path / "home"
    url = "https://e.example/anniversary"
    old = "The bakery has served the town for forty years. Forty years of bread, forty years."
    new = "The bakery has served the town for forty-one years, the mayor said at the party."
    with ArchiveStore.open(home) as store:
        first = register(store, Capture(url, html("The bakery", old))).id
        latest = register(store, Capture(url, html("The bakery", new))).id
        seen_again = register(store, Capture(url, html("The bakery", new))).id  # a revisit
        assert store.version(seen_again)["revisit_of"] == latest
    assert first != latest
    assert main(["archive", "search", "--text", "forty years", "--home", str(home), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["id"] == seen_again and row["match_id"] == first  # ranked by the older
    assert "forty-one" in row["snippet_text"] and "bread" not in row["snippet_text"]
    assert main(["archive", "search", "--text", "bread", "--home", str(home), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert "bread" in row["snippet_text"]  # only the older version says it
    with ArchiveStore.open(home) as store:  # the viewer's search page, the same rule
        app = SimpleNamespace(home=home, store=store, base_url="http://127.0.0.1:1")
        (shown,) = search_page({"text": "forty years", "sort": "relevance"}, app)["results"]
    assert "forty-one" in shown["snippet_text"] and "bread" not in shown["snippet_text"]
