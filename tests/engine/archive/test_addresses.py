"""The address a stored page names for itself, kept on its extracts row (engine/archive/addresses.py):
read from an older copy's original page once, kept by the migration in steps, each step one
transaction that a failure leaves whole or absent. Real saved pages (tests/fixtures/pages)."""

from __future__ import annotations

import pytest

from engine.archive.addresses import (
    address_of,
    keep_addresses,
    keep_all_addresses,
    without_address,
)
from engine.archive.model import Capture
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from engine.html.address import declared_address
from tests.engine.archive.pages import PAGES, page


def older(store: ArchiveStore, reg_id: str) -> dict:
    """Make a version look stored before the address was kept: its row without the field."""
    row = {k: v for k, v in store.row("extracts", reg_id).items() if k != "address"}
    with store.transaction():
        store.remove_row("extracts", reg_id)
        store.update("extracts", reg_id, row)
    return row


def archive(store: ArchiveStore) -> dict[str, str]:
    """Every fixture page registered and made older: version ID -> the address its page names."""
    named = {}
    for name in PAGES:
        url, html = page(name)
        reg = register(store, Capture(url, html))
        older(store, reg.id)
        named[reg.id] = declared_address(html)
    return named


def blob_reads(store: ArchiveStore) -> list[str]:
    reads, get = [], store.get_blob
    store.get_blob = lambda digest: reads.append(digest) or get(digest)
    return reads


def test_an_older_copy_has_its_address_read_from_its_page_once_and_kept(tmp_path):
    store = ArchiveStore.open(tmp_path)
    named = archive(store)
    reg_id = next(i for i, a in named.items() if a)  # a page naming an address
    orig = store.version(reg_id)["orig"]
    reads = blob_reads(store)
    assert address_of(store, reg_id) == named[reg_id]
    assert orig in reads  # read from the original page …
    assert store.row("extracts", reg_id)["address"] == named[reg_id]  # … and kept
    reads.clear()
    assert address_of(store, reg_id) == named[reg_id]
    assert reads == []  # the next check parses nothing
    store.close()
    with ArchiveStore.open(tmp_path) as store:  # kept in the journal, not in memory only
        assert store.row("extracts", reg_id)["address"] == named[reg_id]


def test_a_page_naming_no_address_is_kept_as_none_and_read_once(tmp_path):
    store = ArchiveStore.open(tmp_path)
    named = archive(store)
    reg_id = next(i for i, a in named.items() if not a)
    assert address_of(store, reg_id) == ""
    reads = blob_reads(store)
    assert address_of(store, reg_id) == "" and reads == []
    store.close()


def test_a_read_only_store_answers_without_writing(tmp_path):
    with ArchiveStore.open(tmp_path) as store:
        named = archive(store)
    with ArchiveStore.open(tmp_path, readonly=True) as store:
        for reg_id, address in named.items():
            assert address_of(store, reg_id) == address
        assert len(without_address(store)) == len(named)


def test_the_migration_keeps_every_older_address_in_steps_and_nothing_else_changes(tmp_path):
    store = ArchiveStore.open(tmp_path)
    named = archive(store)
    rows = {i: dict(store.row("extracts", i)) for i in named}
    pending = without_address(store)
    assert pending == sorted(named)  # every older version, oldest first
    assert keep_addresses(store, pending[:3]) == 3
    assert without_address(store) == pending[3:]
    assert keep_addresses(store, pending[:4]) == 1  # those kept already are not read again
    assert keep_all_addresses(store, step=2) == len(named) - 4
    assert keep_all_addresses(store) == 0 and without_address(store) == []
    for reg_id, address in named.items():
        assert store.row("extracts", reg_id) == {**rows[reg_id], "address": address}
    store.close()


def test_a_step_that_fails_midway_keeps_none_of_its_versions_and_the_next_run_finishes(
    tmp_path,
):
    store = ArchiveStore.open(tmp_path)
    named = archive(store)
    pending = without_address(store)
    assert keep_addresses(store, pending[:2]) == 2
    update, calls = store.update, []

    def failing(table, reg_id, fields):  # a fault on the second write of the step
        calls.append(reg_id)
        if len(calls) == 2:
            raise OSError("disk gone")
        update(table, reg_id, fields)

    store.update = failing
    with pytest.raises(OSError):
        keep_addresses(store, pending[2:5])
    store.update = update
    # the step's first write was undone with the rest: only the first step's versions are kept
    assert without_address(store) == pending[2:]
    store.close()
    store = ArchiveStore.open(tmp_path)
    assert without_address(store) == pending[2:]
    assert keep_all_addresses(store, step=3) == len(named) - 2
    assert {i: store.row("extracts", i)["address"] for i in named} == named
    store.close()
