"""A version stored before visible text was kept: its visible text is read from the original
page once and kept with the version (engine/archive/provider.py, ``visible_text_of``), so a
liveness sweep or a viewer diff does not parse the page again; a kill at any point of that
write leaves the version as it was or with its whole visible text, never a row naming a
missing or partial blob.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine.archive import provider, trash
from engine.archive.model import Capture, RegisterOptions
from engine.archive.provider import visible_text_of
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from engine.html.limits import PageLimits
from tests.engine.archive.pages import page

ROOT = Path(__file__).resolve().parents[3]


def old_version(store: ArchiveStore, name: str = "partei") -> str:
    """A real page registered, its visible text then dropped (row and blob): as stored
    before it was kept."""
    url, body = page(name)
    reg = register(store, Capture(url, body))
    blob = store.row("extracts", reg.id)["visible_text"]
    store.update("extracts", reg.id, {"visible_text": None})
    store._blob_path(blob).unlink()
    return reg.id


def test_the_visible_text_read_from_the_original_is_kept_and_read_back(tmp_path, monkeypatch):
    """The first check of an old version parses its original and keeps the text (the same
    the registration would have kept: title line, links and headings); the next ones read
    it back without parsing (a parse would fail here), from the version's extracts row."""
    with ArchiveStore.open(tmp_path / "home") as store:
        reg_id = old_version(store)
        first = visible_text_of(store, reg_id)
        assert "Steuerdarling" in first  # a linked headline the main text drops
        blob = store.row("extracts", reg_id)["visible_text"]
        assert store.get_blob(blob).decode() == first
        monkeypatch.setattr(provider, "visible_text", lambda _html: pytest.fail("parsed again"))
        assert visible_text_of(store, reg_id) == first
    with ArchiveStore.open(tmp_path / "home") as store:  # durable: kept across a restart
        assert visible_text_of(store, reg_id) == first


def test_a_revisit_keeps_the_visible_text_on_its_version(tmp_path):
    """A revisit ("seen again") shares its version's rows: the text read through it is kept
    on the version, and the version reads it back."""
    with ArchiveStore.open(tmp_path / "home") as store:
        url, body = page("partei")
        first = register(store, Capture(url, body))
        again = register(store, Capture(url, body))
        assert store.revisit_of(again.id) == first.id
        store.update("extracts", first.id, {"visible_text": None})  # as stored before
        seen = visible_text_of(store, again.id)
        assert "Steuerdarling" in seen
        assert store.row("extracts", first.id)["visible_text"]
        assert visible_text_of(store, first.id, recompute=False) == seen


def test_a_read_only_store_keeps_nothing(tmp_path):
    """A read-only store (the CLI beside a daemon) answers from the original and writes
    nothing."""
    with ArchiveStore.open(tmp_path / "home") as store:
        reg_id = old_version(store)
    with ArchiveStore.open(tmp_path / "home", readonly=True) as store:
        assert "Steuerdarling" in visible_text_of(store, reg_id)
        assert not store.row("extracts", reg_id).get("visible_text")


CHILD = r"""
import os, signal, sys
from pathlib import Path
from engine.archive import provider, storage
from engine.archive.store import ArchiveStore

home, action, point, ids = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
store = ArchiveStore.open(home)

def die():
    os.kill(os.getpid(), signal.SIGKILL)

if point == "blob":  # the last blob half written under its temporary name
    added, add = [], storage.AtomicBatch.add
    def torn(self, path, data):
        added.append(path)
        if len(added) < len(ids):
            return add(self, path, data)
        add(self, path, data[: len(data) // 2])
        die()
    storage.AtomicBatch.add = torn
elif point == "commit":  # the blobs written under temporary names, none renamed yet
    storage.AtomicBatch.commit = lambda self: die()
elif point == "between":  # the blobs durable, no row names them yet
    store.transaction = lambda: die()
elif point == "journal":  # half the journal line written
    def torn_line(handle, data):
        os.write(handle.fileno(), data[: len(data) // 2])
        die()
    storage._write_all = torn_line
if action == "check":
    provider.visible_text_of(store, ids[0])
else:  # one step of the migration
    provider.keep_all_visible_texts(store, ids)
die()  # "after": the write done
"""


@pytest.mark.parametrize("action", ["check", "migrate"])
@pytest.mark.parametrize("point", ["blob", "commit", "between", "journal", "after"])
def test_a_kill_in_the_middle_of_keeping_the_visible_text_loses_nothing(tmp_path, point, action):
    """SIGKILLed while it keeps old versions' visible texts, by a check (one version) or by
    a step of the migration (two): half the last blob written, the blobs written and not
    yet renamed, renamed and no row yet, half the journal line written, or after. Opened again, each version has no visible
    text (as before) or its whole one, all of them or none; every version reads whole; the
    check then answers the same text; a reclaim leaves no unreferenced blob."""
    home = tmp_path / "home"
    names = ["partei"] if action == "check" else ["partei", "ordnung"]
    with ArchiveStore.open(tmp_path / "twin") as twin:  # the texts, read in another archive
        expected = [visible_text_of(twin, old_version(twin, name)) for name in names]
    with ArchiveStore.open(home) as store:
        ids, other = [old_version(store, name) for name in names], old_version(store, "latin1")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(home), action, point, *ids],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == -signal.SIGKILL, done.stderr
    with ArchiveStore.open(home) as store:
        blobs = [store.row("extracts", reg_id).get("visible_text") for reg_id in ids]
        if point != "after":
            assert not any(blobs), point  # the rows as they were
        else:
            assert [store.get_blob(blob).decode() for blob in blobs] == expected
        for version in (*ids, other):
            provider.get(store, version)
            store.get_blob(store.row("extracts", version)["text"])
        assert [visible_text_of(store, reg_id) for reg_id in ids] == expected
        trash.purge(store, now=10**10, grace_s=0)
        assert {n for n, _ in store.blob_names()} == trash.referenced_blobs(store)


BLANK = b"<html><head><title>Blank</title></head><body><script>draw()</script></body></html>"


def test_a_page_that_shows_no_text_is_kept_empty_and_never_parsed_again(tmp_path, monkeypatch):
    """Registration keeps an analysed page's empty visible text as "" (no blob); an old
    version's empty text read once is kept the same way. Neither is parsed again at the
    next check (a parse would fail here); the main text stands in, as before."""
    with ArchiveStore.open(tmp_path / "home") as store:
        new = register(store, Capture("https://e.com/blank", BLANK)).id
        assert store.row("extracts", new)["visible_text"] == ""
        old = register(store, Capture("https://e.com/blank2", BLANK)).id
        store.update("extracts", old, {"visible_text": None})  # as stored before
        stand_in = visible_text_of(store, old)
        assert store.row("extracts", old)["visible_text"] == ""
        monkeypatch.setattr(provider, "visible_text", lambda _html: pytest.fail("parsed again"))
        assert visible_text_of(store, new) == visible_text_of(store, old) == stand_in
        assert stand_in == store.get_blob(store.row("extracts", old)["text"]).decode()


def test_the_migration_keeps_each_older_versions_text_once_in_one_step(tmp_path, monkeypatch):
    """A step keeps the texts of the versions of its list still without one: a version kept
    already, one registration left unanalysed (over its limits: no bulk pass parses it), and
    an ID the store does not hold are left; the same step run again
    reads nothing; the texts are those a check would have kept."""
    with ArchiveStore.open(tmp_path / "home") as store:
        olds = [old_version(store, name) for name in ("partei", "ordnung", "latin1")]
        blank = register(store, Capture("https://e.com/blank", BLANK)).id
        store.update("extracts", blank, {"visible_text": None})
        fresh = register(store, Capture(*page("modabot"))).id
        kept_fresh = store.row("extracts", fresh)["visible_text"]
        visible_text_of(store, olds[2])  # a check kept this one already
        over = RegisterOptions(limits=PageLimits(extract_elements=5))
        unanalysed = register(store, Capture(*page("ordnung")), over).id  # over its limits
        assert store.version(unanalysed)["analysis"]
        assert store.row("extracts", unanalysed).get("visible_text") is None
        step = [*olds, blank, fresh, unanalysed, "99999999999999999999"]
        assert provider.without_visible_text(store, step) == [olds[0], olds[1], blank]
        assert provider.keep_all_visible_texts(store, step) == [olds[0], olds[1], blank]
        assert store.row("extracts", fresh)["visible_text"] == kept_fresh
        assert store.row("extracts", blank)["visible_text"] == ""
        monkeypatch.setattr(provider, "visible_text", lambda _html: pytest.fail("parsed again"))
        assert provider.keep_all_visible_texts(store, step) == []
        texts = [visible_text_of(store, reg_id) for reg_id in olds]
    with ArchiveStore.open(tmp_path / "twin") as twin:
        monkeypatch.undo()
        assert texts == [
            visible_text_of(twin, old_version(twin, name))
            for name in ("partei", "ordnung", "latin1")
        ]
