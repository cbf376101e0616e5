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
from engine.archive.model import Capture
from engine.archive.provider import visible_text_of
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
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
from engine.archive import provider, storage, store as store_module
from engine.archive.store import ArchiveStore

home, reg_id, point = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
store = ArchiveStore.open(home)

def die():
    os.kill(os.getpid(), signal.SIGKILL)

if point == "blob":  # half the blob written under its temporary name
    def torn(path, data, durable=True):
        with storage.atomic_file(path, durable) as handle:
            handle.write(data[: len(data) // 2])
            handle.flush()
            die()
    store_module.write_atomic = torn
elif point == "between":  # the blob durable, no row names it yet
    store.transaction = lambda: die()
elif point == "journal":  # half the journal line written
    def torn_line(handle, data):
        os.write(handle.fileno(), data[: len(data) // 2])
        die()
    storage._write_all = torn_line
provider.visible_text_of(store, reg_id)
die()  # "after": the write done
"""


@pytest.mark.parametrize("point", ["blob", "between", "journal", "after"])
def test_a_kill_in_the_middle_of_keeping_the_visible_text_loses_nothing(tmp_path, point):
    """SIGKILLed while it keeps an old version's visible text (half its blob written, the
    blob written and no row yet, half the journal line written, or after): opened again,
    the version has no visible text (as before) or its whole one; every version reads
    whole; the check then answers the same text; a reclaim leaves no unreferenced blob."""
    home = tmp_path / "home"
    with ArchiveStore.open(tmp_path / "twin") as twin:  # the text, read in another archive
        expected = visible_text_of(twin, old_version(twin))
    with ArchiveStore.open(home) as store:
        reg_id, other = old_version(store), old_version(store, "latin1")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(home), reg_id, point],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == -signal.SIGKILL, done.stderr
    with ArchiveStore.open(home) as store:
        blob = store.row("extracts", reg_id).get("visible_text")
        if point in ("blob", "between", "journal"):
            assert not blob, point  # the row as it was
        else:
            assert store.get_blob(blob).decode() == expected
        for version in (reg_id, other):
            provider.get(store, version)
            store.get_blob(store.row("extracts", version)["text"])
        assert visible_text_of(store, reg_id) == expected
        trash.purge(store, now=10**10, grace_s=0)
        assert {n for n, _ in store.blob_names()} == trash.referenced_blobs(store)
