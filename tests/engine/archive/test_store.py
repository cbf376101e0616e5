"""The archive store's own rules (engine/archive/store.py), called directly on a real store on
disk: the indexes of versions, keys and hosts and how each write keeps them, revisits
("sightings"), deletes and their undo, a failed transaction, derived rows and their shards,
links, state, blobs and blob batches, and when the journal is compacted."""

from __future__ import annotations

import os
import time
import zlib
from collections import ChainMap

import pytest

from engine.archive import store as store_module
from engine.archive.model import id_time, seen_entry
from engine.archive.store import (
    LINK_SHARDS,
    SAMPLE_BYTES,
    SHARDS,
    ArchiveStore,
    blob_hash,
    compressible,
    link_id,
    shard_of,
)
from engine.errors import NotFound, StorageError

# IDs are 20 digits of time (model.make_id); these name 2026-01-01 00:00:0N UTC.
T0 = 1767225600.0


def rid(second: int, micro: int = 0) -> str:
    return f"2026010100000{second}{micro:06d}"


def doc(key: str = "a.example/x", host: str = "a.example", ts: float = T0, **more) -> dict:
    return {"url": f"https://{key}", "key": key, "host": host, "ts": ts, **more}


@pytest.fixture
def store(tmp_path):
    with ArchiveStore.open(tmp_path / "home", fsync=False) as opened:
        yield opened


def add(store: ArchiveStore, reg_id: str, **fields) -> None:
    with store.transaction():
        store.add_version(reg_id, doc(**fields))


def revisit(store: ArchiveStore, reg_id: str, revisit_id: str, ts: float, capture_id=None):
    with store.transaction():
        store.add_revisit(reg_id, revisit_id, ts, capture_id)


# -- versions and their indexes -------------------------------------------------------------


def test_ids_stay_in_id_order_whatever_order_versions_are_added_in(store, tmp_path):
    for reg_id in (rid(5), rid(1), rid(9), rid(3)):
        add(store, reg_id, ts=T0 + int(reg_id[13]))
    assert store.ids == [rid(1), rid(3), rid(5), rid(9)]
    assert store.last_id() == rid(9)
    store.close()
    with ArchiveStore.open(tmp_path / "home", fsync=False) as again:  # rebuilt on open
        assert again.ids == [rid(1), rid(3), rid(5), rid(9)]
        assert again.ids_of_host("a.example") == again.ids


def test_keys_and_hosts_index_only_their_own_versions(store):
    add(store, rid(1), key="a.example/x", host="a.example")
    add(store, rid(2), key="a.example/y", host="a.example")
    add(store, rid(3), key="b.example/x", host="b.example:8080")
    assert store.ids_of_key("a.example/y") == [rid(2)]
    assert store.ids_of_host("a.example") == [rid(1), rid(2)]
    assert store.ids_of_host("b.example:8080") == [rid(3)] and store.ids_of_host("b.example") == []
    assert sorted(store.keys()) == ["a.example/x", "a.example/y", "b.example/x"]
    assert store.newest_of_host("a.example") == rid(2) and store.newest_of_host("c.example") is None
    store.ids_of_key("a.example/x").append("x")  # a copy: the index is not handed out
    assert store.ids_of_key("a.example/x") == [rid(1)]


def test_the_latest_of_a_key_is_by_capture_time_and_the_id_breaks_ties(store):
    assert store.latest_of_key("a.example/x") is None
    add(store, rid(1), ts=T0 + 5)
    add(store, rid(2), ts=T0 + 1)  # a WARC import: an older capture under a newer ID
    assert store.latest_of_key("a.example/x") == rid(1)
    add(store, rid(3), ts=T0 + 5)  # the same time: the higher ID
    assert store.latest_of_key("a.example/x") == rid(3)
    assert store.capture_order(rid(2)) == (T0 + 1, rid(2))


def test_a_version_opens_with_its_id_and_an_unknown_one_is_not_found(store):
    add(store, rid(1), title="T")
    assert store.version(rid(1)) == {"id": rid(1), **doc(title="T")}
    assert store.has_version(rid(1)) and store.has_version(int(rid(1)))
    with pytest.raises(NotFound, match="no registration"):
        store.version(rid(2))
    assert not store.has_version(rid(2)) and not store.has_capture(rid(2))


def test_a_new_id_is_later_than_every_stored_one_revisits_included(store):
    assert store.last_id() is None
    add(store, rid(1))
    assert store.last_id() == rid(1)
    revisit(store, rid(1), rid(8), T0 + 8)
    assert store.last_id() == rid(8)
    assert store.new_id(T0) == rid(8, 1)  # a clock behind the archive still moves forward
    assert store.new_id(T0 + 9) == rid(9)


# -- revisits ("seen again") ---------------------------------------------------------------


def test_a_revisit_opens_as_its_versions_record_with_its_own_id_and_time(store):
    add(store, rid(1), title="T")
    revisit(store, rid(1), rid(4), T0 + 4, capture_id="c" * 32)
    record = store.version(rid(4))
    assert record["id"] == rid(4) and record["ts"] == T0 + 4 and record["title"] == "T"
    assert record["revisit_of"] == rid(1) and record["capture_id"] == "c" * 32
    assert "seen" not in record
    assert store.has_capture(rid(4)) and not store.has_version(rid(4))
    assert store.revisit_of(rid(4)) == rid(1) and store.revisit_of(rid(1)) is None
    assert store.content_id(rid(4)) == rid(1) and store.content_id(rid(1)) == rid(1)
    assert store.revisit_count() == 1
    assert store.ids == [rid(1)] and store.ids_of_key("a.example/x") == [rid(1)]


def test_a_revisit_of_an_earlier_time_keeps_it(store):
    add(store, rid(1), ts=T0 + 5)
    revisit(store, rid(1), rid(2), T0 + 3)  # imported: its capture time is not its ID's
    assert store.version(rid(2))["ts"] == T0 + 3
    assert store.last_capture_of(rid(1)) == (rid(1), T0 + 5)
    assert store.capture_order(rid(2)) == (T0 + 3, rid(2))


def test_the_last_capture_of_a_version_is_its_newest_sighting(store):
    add(store, rid(1), ts=T0 + 1)
    assert store.last_capture_of(rid(1)) == (rid(1), T0 + 1)
    revisit(store, rid(1), rid(3), T0 + 3)
    revisit(store, rid(1), rid(2), T0 + 3)  # the same time as rid(3): the higher ID wins
    assert store.last_capture_of(rid(1)) == (rid(3), T0 + 3)
    add(store, rid(5), key="a.example/z", ts=T0 + 6)
    revisit(store, rid(5), rid(6), T0 + 6)  # the same time as its version, a higher ID
    assert store.last_capture_of(rid(5)) == (rid(6), T0 + 6)


def test_captures_of_a_key_are_each_version_then_its_revisits(store):
    add(store, rid(1))
    add(store, rid(4))
    revisit(store, rid(1), rid(2), T0 + 2)
    revisit(store, rid(1), rid(3), T0 + 3)
    revisit(store, rid(4), rid(5), T0 + 5)
    assert store.captures_of_key("a.example/x") == [rid(1), rid(2), rid(3), rid(4), rid(5)]
    assert list(store.seen_of(rid(1))) == [rid(2), rid(3)]
    assert store.seen_of(rid(4))[rid(5)] == {"id": rid(5), "ts": T0 + 5}


def test_forgetting_a_transfer_id_keeps_the_entry_in_its_place(store, tmp_path):
    add(store, rid(1))
    revisit(store, rid(1), rid(2), T0 + 2, capture_id="a" * 32)
    revisit(store, rid(1), rid(3), T0 + 3, capture_id="b" * 32)
    with store.transaction():
        store.forget_capture_id(rid(2))
    seen = store.raw("versions")[rid(1)]["seen"]
    assert seen == [seen_entry(rid(2), T0 + 2), seen_entry(rid(3), T0 + 3, "b" * 32)]
    store.close()
    with ArchiveStore.open(tmp_path / "home", fsync=False) as again:
        assert "capture_id" not in again.version(rid(2))
        assert again.version(rid(3))["capture_id"] == "b" * 32


def test_a_revisit_removed_comes_back_at_its_place(store, tmp_path):
    add(store, rid(1))
    for n in (2, 3, 4):
        revisit(store, rid(1), rid(n), T0 + n)
    with store.transaction():
        held, entry, at = store.remove_revisit(rid(3))
    assert (held, at) == (rid(1), 1) and entry == seen_entry(rid(3), T0 + 3)
    assert not store.has_capture(rid(3)) and list(store.seen_of(rid(1))) == [rid(2), rid(4)]
    with store.transaction():
        store.restore_revisit(held, entry, at)
    assert list(store.seen_of(rid(1))) == [rid(2), rid(3), rid(4)]
    assert store.revisit_of(rid(3)) == rid(1)
    store.close()
    with ArchiveStore.open(tmp_path / "home", fsync=False) as again:
        assert list(again.seen_of(rid(1))) == [rid(2), rid(3), rid(4)]


def test_a_revisit_restored_past_the_end_of_a_shorter_list_is_appended(store):
    add(store, rid(1))
    with store.transaction():
        store.restore_revisit(rid(1), seen_entry(rid(5), T0 + 5), 3)
    assert list(store.seen_of(rid(1))) == [rid(5)] and store.has_capture(rid(5))


def test_a_revisit_cannot_come_back_without_its_version(store):
    with pytest.raises(NotFound, match="is gone"):
        store.restore_revisit(rid(1), seen_entry(rid(2), T0 + 2), 0)


# -- deletes -------------------------------------------------------------------------------


def test_removing_a_version_drops_it_from_every_index(store):
    add(store, rid(1), key="a.example/x")
    add(store, rid(2), key="a.example/x")
    add(store, rid(3), key="a.example/y")
    revisit(store, rid(3), rid(4), T0 + 4)
    with store.transaction():
        store.remove_version(rid(3))
    assert store.ids == [rid(1), rid(2)] and not store.has_capture(rid(4))
    assert "a.example/y" not in set(store.keys()) and store.ids_of_host("a.example") == store.ids
    with store.transaction():
        store.remove_version(rid(1))
    assert store.ids_of_key("a.example/x") == [rid(2)] and "a.example/x" in set(store.keys())
    with store.transaction():
        store.remove_version(rid(2))
    assert list(store.keys()) == [] and store.newest_of_host("a.example") is None
    assert store.ids == [] and store.raw("versions") == {}


def test_a_removed_row_is_returned_and_a_missing_one_is_none(store):
    add(store, rid(1))
    with store.transaction():
        store.update("extracts", rid(1), {"title": "T"})
    with store.transaction():
        assert store.remove_row("extracts", rid(1)) == {"title": "T"}
        assert store.remove_row("extracts", rid(1)) is None
    assert store.row("extracts", rid(1)) is None


# -- transactions and re-keying ------------------------------------------------------------


def test_a_failed_transaction_leaves_no_trace_in_the_indexes_or_the_caches(store):
    add(store, rid(1))
    store.cache["similar"] = "warm"
    with pytest.raises(RuntimeError), store.transaction():
        store.add_version(rid(2), doc(key="a.example/y"))
        revisit(store, rid(1), rid(3), T0 + 3)
        raise RuntimeError("the caller gave up")
    assert store.ids == [rid(1)] and not store.has_capture(rid(3))
    assert list(store.keys()) == ["a.example/x"] and store.last_id() == rid(1)
    assert store.cache == {}


def test_an_inner_failure_leaves_the_rebuild_to_the_outer_transaction(store):
    add(store, rid(1))
    with store.transaction():
        with pytest.raises(RuntimeError), store.transaction():
            store.cache["similar"] = "warm"
            raise RuntimeError("inner")
        assert store.cache == {"similar": "warm"}  # the outer one may still commit


def test_reindex_rebuilds_from_the_records_and_says_so(store):
    add(store, rid(1), key="a.example/old")
    store.cache["similar"] = "warm"
    with store.transaction():  # re-keyed as dust/key profiles do: the records, then reindex
        store.db.table("versions").update({"key": "a.example/new"}, doc_ids=[int(rid(1))])
    assert store.ids_of_key("a.example/old") == [rid(1)]  # until reindex
    store.reindex()
    assert store.ids_of_key("a.example/new") == [rid(1)] and store.ids_of_key("a.example/old") == []
    assert store.cache == {} and store.rekeyed == 1


# -- derived rows, shards, links, state ----------------------------------------------------


def test_derived_rows_live_in_their_hosts_shard(store):
    add(store, rid(1), host="a.example")
    assert store.shard("extracts", rid(1)) == f"extracts@{shard_of('a.example'):02d}"
    assert store.shard("versions", rid(1)) == "versions"
    with store.transaction():
        store.update("extracts", rid(1), {"title": "T", "summary": "S"})
    with store.transaction():
        store.update("extracts", rid(1), {"title": "U"})  # merged into the row
    assert store.row("extracts", rid(1)) == {"title": "U", "summary": "S"}
    assert store.storage.table(store.shard("extracts", rid(1)))[str(int(rid(1)))]["title"] == "U"
    assert isinstance(store.raw("extracts"), ChainMap)
    assert len(store.raw("extracts").maps) == SHARDS and len(store.raw("links").maps) == LINK_SHARDS
    assert store.raw("extracts")[str(int(rid(1)))]["title"] == "U"


def test_a_revisit_shares_its_versions_derived_rows(store):
    add(store, rid(1))
    revisit(store, rid(1), rid(2), T0 + 2)
    with store.transaction():
        store.update("fingerprints", rid(1), {"fp": "f"})
    assert store.row("fingerprints", rid(2)) == {"fp": "f"}
    assert store.row("fingerprints", rid(9)) is None  # no such capture: no row, no error


def test_a_link_id_is_63_bits_of_its_url_and_its_row_is_found_again(store, tmp_path):
    url = "https://a.example/page"
    assert 0 <= link_id(url) < 2**63 and link_id(url) != link_id(url + "2")
    with store.transaction():
        assert store.link_ids([url, url]) == [link_id(url), link_id(url)]
    assert store.link_url(link_id(url)) == url and store.link_id(url) == link_id(url)
    with pytest.raises(NotFound):
        store.link_url(link_id(url + "2"))
    store.close()
    with ArchiveStore.open(tmp_path / "home", fsync=False) as again:
        assert again.link_url(link_id(url)) == url
        shard = f"links@{link_id(url) % LINK_SHARDS:02d}"
        assert again.storage.table(shard)[str(link_id(url))] == {"url": url}


def test_the_links_a_page_references(store):
    add(store, rid(1))
    assert store.refs(rid(1)) == []
    with store.transaction():
        store.update("refs", rid(1), {"links": [3, 1]})
    assert store.refs(rid(1)) == [3, 1]


def test_state_is_replaced_whole_under_its_name(store, tmp_path):
    with store.transaction():
        store.save_state("learning", {"a": 1})
        store.save_state("other", {"b": 2})
    with store.transaction():
        store.save_state("learning", {"c": 3})
    assert store.load_state("learning") == {"c": 3} and store.load_state("other") == {"b": 2}
    assert len(store.raw("state")) == 2 and store.load_state("none") is None
    store.close()
    with ArchiveStore.open(tmp_path / "home", fsync=False) as again:
        assert again.load_state("learning") == {"c": 3}


# -- blobs ---------------------------------------------------------------------------------


def test_a_blob_is_stored_once_under_its_hash_and_read_back_verified(store):
    digest = store.put_blob(b"<p>hi")
    assert digest == blob_hash(b"<p>hi") and store.has_blob(digest)
    path = store.blob_dir / digest[:2] / digest[2:]
    assert zlib.decompress(path.read_bytes()) == b"<p>hi"
    before = path.stat().st_mtime_ns
    os.utime(path, ns=(1, 1))
    assert store.put_blob(b"<p>hi") == digest and path.stat().st_mtime_ns == 1  # not rewritten
    assert before != 1
    assert store.get_blob(digest) == b"<p>hi"
    with pytest.raises(NotFound, match="no blob"):
        store.get_blob(blob_hash(b"other"))


def test_a_blob_that_is_not_its_hash_or_not_zlib_is_a_storage_error(store):
    digest = store.put_blob(b"one")
    path = store.blob_dir / digest[:2] / digest[2:]
    path.write_bytes(zlib.compress(b"two"))
    with pytest.raises(StorageError, match="hash mismatch"):
        store.get_blob(digest)
    path.write_bytes(b"not zlib")
    with pytest.raises(StorageError, match="unreadable"):
        store.get_blob(digest)


def test_a_blob_that_cannot_be_written_is_a_storage_error(store):
    store.blob_dir.mkdir(parents=True)
    (store.blob_dir / blob_hash(b"x")[:2]).write_bytes(b"a file where a folder goes")
    with pytest.raises(StorageError, match="cannot write blob"):
        store.put_blob(b"x")


def test_blob_names_list_every_file_in_the_blob_folders(store):
    assert list(store.blob_names()) == []
    first, second = store.put_blob(b"1"), store.put_blob(b"2")
    (store.blob_dir / "README").write_text("not a folder")
    leftover = store.blob_dir / first[:2] / "ab.tmp"
    leftover.write_bytes(b"")
    names = dict(store.blob_names())
    assert set(names) == {first, second, first[:2] + "ab.tmp"}
    assert names[first] == store.blob_dir / first[:2] / first[2:]


def test_removing_a_blob_file_gives_its_size_and_a_gone_one_zero(store):
    digest = store.put_blob(b"x" * 1000)
    path = store.blob_dir / digest[:2] / digest[2:]
    size = path.stat().st_size
    assert store.remove_blob_file(path) == size > 0 and not path.exists()
    assert store.remove_blob_file(path) == 0


def test_a_blob_file_that_cannot_be_removed_is_a_storage_error(store, monkeypatch):
    digest = store.put_blob(b"x")
    path = store.blob_dir / digest[:2] / digest[2:]

    def refuse(self, missing_ok=False):
        raise PermissionError("read-only")

    monkeypatch.setattr(type(path), "unlink", refuse)
    with pytest.raises(StorageError, match="cannot remove blob"):
        store.remove_blob_file(path)


def test_only_a_large_blob_is_sampled_for_compressibility():
    noise = os.urandom(SAMPLE_BYTES)
    assert compressible(noise)  # at the sample's size: never judged, compressed
    assert not compressible(noise + os.urandom(1))
    assert compressible(b"a" * SAMPLE_BYTES + os.urandom(SAMPLE_BYTES))  # judged on its head
    assert not compressible(os.urandom(SAMPLE_BYTES) + b"a" * SAMPLE_BYTES)


def test_a_batch_writes_each_new_blob_once_and_none_before_commit(store):
    held = store.put_blob(b"held")
    batch = store.blob_batch()
    one = batch.add(b"one")
    assert batch.add(b"one") == one and batch.add(b"held") == held
    assert batch.add(b"two", digest="f" * 64) == "f" * 64  # the caller's hash is trusted
    assert batch.new_bytes == len(b"one") + len(b"two") and batch.added == {one, "f" * 64}
    assert not store.has_blob(one)
    batch.commit()
    assert store.get_blob(one) == b"one" and store.has_blob("f" * 64)


def test_an_incompressible_blob_is_stored_at_level_zero(store):
    noise = os.urandom(SAMPLE_BYTES * 2)
    batch = store.blob_batch()
    digest = batch.add(noise, level=9)
    batch.commit()
    raw = (store.blob_dir / digest[:2] / digest[2:]).read_bytes()
    assert raw[:2] == b"\x78\x01"  # zlib's header for level 0 (stored blocks)
    assert store.get_blob(digest) == noise
    text = b"<p>compressible</p>" * 2000
    batch = store.blob_batch()
    digest = batch.add(text, level=9)
    batch.commit()
    assert (store.blob_dir / digest[:2] / digest[2:]).read_bytes()[:2] == b"\x78\xda"


def test_a_batch_given_up_leaves_no_file(store):
    batch = store.blob_batch()
    digest = batch.add(b"one")
    batch.discard()
    assert not store.has_blob(digest)
    assert [name for name, _ in store.blob_names()] == []


def test_a_batch_that_cannot_write_a_blob_removes_what_it_wrote(store):
    batch = store.blob_batch()
    first = batch.add(b"one")
    store.blob_dir.mkdir(exist_ok=True)
    (store.blob_dir / blob_hash(b"two")[:2]).write_bytes(b"a file where a folder goes")
    with pytest.raises(StorageError, match="cannot write blob"):
        batch.add(b"two")
    assert not store.has_blob(first)
    assert [p for _, p in store.blob_names() if p.name != blob_hash(b"two")[2:]] == []


def test_a_batch_whose_commit_fails_is_a_storage_error(store, monkeypatch):
    batch = store.blob_batch()
    batch.add(b"one")

    def fail(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(StorageError, match="cannot write blobs"):
        batch.commit()


# -- files, opening, compaction ------------------------------------------------------------


def test_a_file_beside_the_archive_is_written_whole_in_new_folders(store):
    path = store.write_file("exports/2026/a.warc", b"data")
    assert path == store.home / "exports/2026/a.warc" and path.read_bytes() == b"data"
    store.write_file("exports/2026/a.warc", b"new")
    assert path.read_bytes() == b"new"


def test_a_home_that_cannot_be_made_is_a_storage_error(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(StorageError, match="cannot create"):
        ArchiveStore.open(tmp_path / "file" / "home")


def test_the_journal_is_long_from_exactly_its_line_or_byte_limit(store, monkeypatch):
    add(store, rid(1))
    add(store, rid(2))
    lines, size = store.storage.journal_lines, store.storage.journal_bytes()
    assert lines == 2 and size > 0
    monkeypatch.setattr(store_module, "COMPACT_BYTES", 10**9)
    monkeypatch.setattr(store_module, "COMPACT_LINES", lines + 1)
    assert not store.journal_is_long()
    monkeypatch.setattr(store_module, "COMPACT_LINES", lines)
    assert store.journal_is_long()
    monkeypatch.setattr(store_module, "COMPACT_LINES", 10**9)
    monkeypatch.setattr(store_module, "COMPACT_BYTES", size)
    assert store.journal_is_long()
    monkeypatch.setattr(store_module, "COMPACT_BYTES", size + 1)
    assert not store.journal_is_long()


def test_a_long_journal_is_compacted_when_idle_and_at_close(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setattr(store_module, "COMPACT_LINES", 2)
    store = ArchiveStore.open(home, fsync=False)
    add(store, rid(1))
    assert not store.maybe_compact() and store.storage.journal_lines == 1
    add(store, rid(2))
    assert store.maybe_compact() and store.storage.journal_lines == 0
    add(store, rid(3))
    add(store, rid(4))
    store.close()  # long: compacted
    reader = ArchiveStore.open(home, readonly=True)
    assert reader.storage.journal_lines == 0 and reader.ids == [rid(1), rid(2), rid(3), rid(4)]
    assert not reader.maybe_compact()  # a reader never compacts
    reader.close()
    store = ArchiveStore.open(home, fsync=False)
    add(store, rid(5))
    store.close()  # short: kept as a journal
    with ArchiveStore.open(home, fsync=False) as again:
        assert again.storage.journal_lines == 1
        again.close(compact=True)
    with ArchiveStore.open(home, readonly=True) as again:
        assert again.storage.journal_lines == 0 and again.readonly


def test_every_table_is_read_whole_for_a_full_scan(store):
    add(store, rid(1))
    with store.transaction():
        store.update("extracts", rid(1), {"title": "T"})
    tables = store.all_tables()
    assert tables["versions"][str(int(rid(1)))]["key"] == "a.example/x"
    assert tables[store.shard("extracts", rid(1))] == {str(int(rid(1))): {"title": "T"}}


def test_a_full_scan_loads_the_tables_still_on_disk(tmp_path):
    """Tables load lazily on first use: a full scan (export, check) of a store just opened
    reads every table on disk, not only those touched since the open."""
    home = tmp_path / "home"
    with ArchiveStore.open(home, fsync=False) as store:
        add(store, rid(1))
        with store.transaction():
            store.update("extracts", rid(1), {"title": "T"})
        shard = store.shard("extracts", rid(1))
        store.close(compact=True)  # every table into its snapshot, none in the journal
    with ArchiveStore.open(home, readonly=True) as reader:
        assert shard not in reader.storage.read()  # not loaded yet
        tables = reader.all_tables()
    assert tables[shard] == {str(int(rid(1))): {"title": "T"}}
    assert tables["versions"][str(int(rid(1)))]["key"] == "a.example/x"


# -- found by mutation testing: rules no test above held --------------------------------------


def same_folder_pair(head: bytes = b"") -> tuple[bytes, bytes]:
    """Two blobs whose hashes start alike: they share a blob folder."""
    seen: dict[str, bytes] = {}
    for n in range(1000):
        data = head + str(n).encode()
        if (prefix := blob_hash(data)[:2]) in seen:
            return seen[prefix], data
        seen[prefix] = data
    raise AssertionError("no pair")


def test_a_new_store_counts_nothing_and_lays_out_its_folders(tmp_path):
    home = tmp_path / "a" / "b" / "home"  # parents made too
    with ArchiveStore.open(home) as store:
        assert store.rekeyed == 0 and store.reclaims == 0 and store.storage.fsync is True
        add(store, rid(1))
        digest = store.put_blob(b"x")
        assert [p.name for p in (home / "db").glob("journal.*.log")] == ["journal.0.log"]
        assert (home / "blobs" / digest[:2] / digest[2:]).is_file()
        store.reindex()
        store.reindex()
        assert store.rekeyed == 2


def test_each_durable_journal_line_is_reported(tmp_path):
    lines = []
    with ArchiveStore.open(
        tmp_path / "home", fsync=False, on_write=lambda: lines.append(1)
    ) as store:
        assert store.storage.fsync is False
        add(store, rid(1))
        add(store, rid(2))
    assert len(lines) == 2


def test_blobs_that_share_a_folder_are_both_written(store):
    first, second = same_folder_pair()
    assert store.get_blob(store.put_blob(first)) == first
    assert store.get_blob(store.put_blob(second)) == second
    batch = store.blob_batch()
    third, fourth = same_folder_pair(b"batch ")
    digests = [batch.add(third), batch.add(fourth)]
    batch.commit()
    assert [store.get_blob(d) for d in digests] == [third, fourth]


def test_a_new_id_without_a_time_is_now(store):
    before = time.time()
    assert id_time(store.new_id()) == pytest.approx(before, abs=5)


def test_a_revisit_has_no_transfer_id_of_its_versions(store):
    with store.transaction():
        store.add_version(rid(1), doc(capture_id="v" * 32))
    revisit(store, rid(1), rid(2), T0 + 2)
    assert "capture_id" not in store.version(rid(2))


def test_a_revisit_written_changes_only_its_own_versions_list(store):
    add(store, rid(1))
    add(store, rid(5))
    revisit(store, rid(1), rid(2), T0 + 2, capture_id="a" * 32)
    revisit(store, rid(5), rid(6), T0 + 6, capture_id="b" * 32)
    with store.transaction():
        store.forget_capture_id(rid(2))
    assert store.raw("versions")[rid(5)]["seen"] == [seen_entry(rid(6), T0 + 6, "b" * 32)]
    with store.transaction():
        held, entry, at = store.remove_revisit(rid(2))
    assert store.raw("versions")[rid(5)]["seen"] == [seen_entry(rid(6), T0 + 6, "b" * 32)]
    with store.transaction():
        store.restore_revisit(held, entry, at)
    assert list(store.seen_of(rid(5))) == [rid(6)] and list(store.seen_of(rid(1))) == [rid(2)]


def test_a_row_updated_leaves_the_other_rows_of_its_shard(store):
    add(store, rid(1))
    add(store, rid(2))  # the same host: the same shard
    with store.transaction():
        store.update("extracts", rid(1), {"title": "one"})
        store.update("extracts", rid(2), {"title": "two"})
    with store.transaction():
        store.update("extracts", rid(1), {"title": "uno"})
    assert store.row("extracts", rid(2)) == {"title": "two"}


def test_the_newest_of_a_host_is_its_highest_id(store):
    for n in (1, 2, 3):
        add(store, rid(n))
    assert store.newest_of_host("a.example") == rid(3)


def test_link_ids_use_all_63_bits():
    ids = [link_id(f"https://a.example/{n}") for n in range(64)]
    assert max(ids) >= 2**62 and max(ids) < 2**63
