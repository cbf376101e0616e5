"""Ranked full-text search over a real store and a real SQLite FTS5 file: ranking, phrases,
prefixes, exclusions, CJK, deletion and undo, restart, rebuild, and the CLI's typed errors."""

from __future__ import annotations

import json

import pytest

from engine.archive import trash
from engine.archive.model import Capture
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from host.cli.entry import main
from host.home import Home
from host.services import fulltext
from host.services.fulltext import FullTextIndex

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
    _, ranked = fulltext.ranked(store, home, text)
    return [store.raw("versions")[best]["url"] for _key, best, _rank in ranked]


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
        found = [store.raw("versions")[best]["url"] for _, best, _ in fresh.search(query)]
        assert found == ["https://b.example/diary"]


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
