"""Tags and notes on real saved pages in a real store, and how delete/undo carry them."""

from __future__ import annotations

import pytest

from engine.archive import labels, trash
from engine.archive.model import Capture
from engine.archive.provider import search, versions
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from engine.errors import InvalidInput
from tests.engine.archive.pages import page


@pytest.fixture
def store(tmp_path):
    with ArchiveStore.open(tmp_path / "home") as opened:
        yield opened


def add(store, name: str):
    return register(store, Capture(*page(name)))


@pytest.mark.parametrize(
    "bad", ["", "   ", "a\x00b", "tab\there", "new\nline", "\u200bzw", "x" * 65, "+", "-x"]
)
def test_bad_tags_are_typed(bad):
    with pytest.raises(InvalidInput):
        labels.clean_tag(bad)


def test_tags_are_normalized_and_filter_search(store):
    a, b = add(store, "partei"), add(store, "latin1")
    assert labels.set_tags(store, a.key, ["Politik", "  Lübeck  news "], []) == [
        "lübeck news",
        "politik",
    ]
    labels.set_tags(store, b.key, ["politik"], [])
    assert {r["id"] for r in search(store, "*", tag="POLITIK")} == {a.id, b.id}
    assert [r["id"] for r in search(store, "*", tag="lübeck news")] == [a.id]
    assert search(store, "*", tag="none") == []
    assert labels.all_tags(store) == [
        {"tag": "politik", "documents": 2},
        {"tag": "lübeck news", "documents": 1},
    ]
    assert labels.set_tags(store, a.key, [], ["politik", "lübeck news"]) == []
    assert not any(row["key"] == a.key for row in store.raw("tags").values())  # no empty rows


def test_notes_belong_to_a_version_and_survive_a_reopen(tmp_path):
    home = tmp_path / "home"
    with ArchiveStore.open(home) as store:
        first = add(store, "partei")
        second = add(store, "partei")
        labels.set_note(store, first.id, "  the version before the edit\n(see v2)  ")
    with ArchiveStore.open(home) as store:
        notes = {v["id"]: v["note"] for v in versions(store, first.url)}
        assert notes == {first.id: "the version before the edit\n(see v2)", second.id: ""}
        labels.set_note(store, first.id, "")
        assert store.row("notes", first.id) is None
    with pytest.raises(InvalidInput):
        labels.clean_note("bell\x07")


def test_delete_and_undo_carry_tags_and_notes(store):
    reg = add(store, "partei")
    labels.set_tags(store, reg.key, ["keep"], [])
    labels.set_note(store, reg.id, "why I kept it")
    undo = trash.delete(store, reg.url)["undo"]
    assert labels.tags_of(store, reg.key) == [] and labels.note_of(store, reg.id) == ""
    trash.restore(store, undo)
    assert labels.tags_of(store, reg.key) == ["keep"]
    assert labels.note_of(store, reg.id) == "why I kept it"
