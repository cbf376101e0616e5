"""The journaled TinyDB storage and the store's blobs, on real files."""

from __future__ import annotations

import gc
import json
import zlib

import pytest
from tinydb.table import Document

import engine.archive.store as store_module
from engine.archive.storage import (
    JournalStorage,
    decode_line,
    encode_line,
    open_tinydb,
    salvage_line,
)
from engine.archive.store import ArchiveStore, blob_hash
from engine.errors import NotFound, StorageError


def test_inserts_updates_removes_survive_reopen(tmp_path):
    storage = JournalStorage(tmp_path)
    table = open_tinydb(storage).table("t")
    a, b = table.insert({"x": 1}), table.insert({"x": 2})
    table.update({"x": 3}, doc_ids=[a])
    table.remove(doc_ids=[b])
    storage.close()
    storage = JournalStorage(tmp_path)
    assert open_tinydb(storage).table("t").all() == [{"x": 3}]
    storage.close()


def test_a_write_appends_one_line_not_the_whole_table(tmp_path):
    storage = JournalStorage(tmp_path)
    table = open_tinydb(storage).table("t")
    table.insert_multiple({"n": i} for i in range(500))
    before = (tmp_path / "journal.0.log").stat().st_size
    table.insert({"n": "last"})
    grown = (tmp_path / "journal.0.log").stat().st_size - before
    assert grown < 100
    storage.close()


def test_transaction_is_one_line(tmp_path):
    storage = JournalStorage(tmp_path)
    db = open_tinydb(storage)
    with storage.transaction():
        db.table("a").insert({"x": 1})
        db.table("b").insert({"y": 2})
    lines = (tmp_path / "journal.0.log").read_bytes().splitlines(keepends=True)
    assert len(lines) == 1 and len(decode_line(lines[0])) == 2
    storage.close()


def test_torn_tail_is_cut_and_earlier_writes_kept(tmp_path):
    storage = JournalStorage(tmp_path)
    open_tinydb(storage).table("t").insert({"x": 1})
    storage.close()
    with open(tmp_path / "journal.0.log", "ab") as handle:
        handle.write(encode_line([["put", "t", "2", {"x": 2}]])[:-7])  # a crash mid-write
    storage = JournalStorage(tmp_path)
    assert open_tinydb(storage).table("t").all() == [{"x": 1}]
    open_tinydb(storage).table("t").insert({"x": 3})
    storage.close()
    storage = JournalStorage(tmp_path, readonly=True)
    assert [d["x"] for d in open_tinydb(storage).table("t").all()] == [1, 3]
    storage.close()


def test_corruption_before_the_tail_skips_that_line_only(tmp_path):
    storage = JournalStorage(tmp_path)
    table = open_tinydb(storage).table("t")
    table.insert({"x": 1})
    table.insert({"x": 2})
    table.insert({"x": 3})
    storage.close()
    data = bytearray((tmp_path / "journal.0.log").read_bytes())
    second = data.index(b"\n") + 1
    data[second + 15] ^= 0x01  # inside the second line
    (tmp_path / "journal.0.log").write_bytes(bytes(data))
    storage = JournalStorage(tmp_path)
    assert [d["x"] for d in open_tinydb(storage).table("t").all()] == [1, 3]
    assert storage.skipped_lines == [second]
    storage.close()


def test_compaction_switches_generation_and_keeps_data(tmp_path):
    storage = JournalStorage(tmp_path)
    db = open_tinydb(storage)
    db.table("a").insert({"x": 1})
    db.table("b").insert({"y": 1})
    storage.compact()
    db.table("a").insert({"x": 2})
    storage.compact()
    manifest = json.loads((tmp_path / "MANIFEST").read_text())
    assert manifest["gen"] == 2
    assert manifest["tables"]["b"] == "b.1.json"  # untouched shard not rewritten
    assert not (tmp_path / "journal.0.log").exists()
    storage.close()
    storage = JournalStorage(tmp_path)
    assert len(open_tinydb(storage).table("a")) == 2
    storage.close()


def test_a_reader_loads_lazily_and_keeps_its_generation_through_one_compaction(tmp_path):
    writer = JournalStorage(tmp_path)
    db = open_tinydb(writer)
    db.table("a").insert({"x": 1})
    db.table("b").insert({"y": 1})
    writer.compact()  # generation 1
    reader = JournalStorage(tmp_path, readonly=True)
    assert not dict.keys(reader.read())  # nothing loaded at open: the CLI's reads stay fast
    db.table("a").insert({"x": 2})
    db.table("b").insert({"y": 2})
    writer.compact()  # generation 2 replaces a.1.json and b.1.json, which stay one generation
    assert len(open_tinydb(reader).table("a")) == 1  # the reader's own generation, consistent
    db.table("b").insert({"y": 3})
    writer.compact()  # generation 3: the files retired by generation 2 go
    assert sorted(p.name for p in tmp_path.glob("*.json")) == ["a.2.json", "b.2.json", "b.3.json"]
    with pytest.raises(StorageError, match="compacted twice"):
        open_tinydb(reader).table("b").all()
    reader.close()
    fresh = JournalStorage(tmp_path, readonly=True)
    assert len(open_tinydb(fresh).table("b")) == 3 and len(open_tinydb(fresh).table("a")) == 2
    fresh.close()
    writer.close()


def test_second_writer_gets_storage_error(tmp_path):
    first = JournalStorage(tmp_path)
    with pytest.raises(StorageError, match="another writer"):
        JournalStorage(tmp_path)
    reader = JournalStorage(tmp_path, readonly=True)  # readers are fine
    reader.close()
    first.close()
    JournalStorage(tmp_path).close()  # lock released on close


def test_blobs_are_compressed_content_addressed_and_deduplicated(tmp_path):
    store = ArchiveStore.open(tmp_path)
    data = b"<p>" + b"hello " * 1000
    digest = store.put_blob(data)
    assert store.put_blob(data) == digest == blob_hash(data)
    path = tmp_path / "blobs" / digest[:2] / digest[2:]
    assert zlib.decompress(path.read_bytes()) == data
    assert path.stat().st_size < len(data) / 10
    assert len(list((tmp_path / "blobs").rglob("*"))) == 2  # one shard dir, one file
    assert store.get_blob(digest) == data
    store.close()


def test_corrupt_blob_is_detected(tmp_path):
    store = ArchiveStore.open(tmp_path)
    digest = store.put_blob(b"abc")
    (tmp_path / "blobs" / digest[:2] / digest[2:]).write_bytes(zlib.compress(b"abd"))
    with pytest.raises(StorageError, match="corrupt"):
        store.get_blob(digest)
    with pytest.raises(NotFound):
        store.get_blob("00" * 32)
    store.close()


def test_state_area_round_trips(tmp_path):
    store = ArchiveStore.open(tmp_path)
    assert store.load_state("suggest") is None
    store.save_state("suggest", {"accepted": ["a"]})
    store.save_state("suggest", {"accepted": ["a", "b"]})
    store.close()
    store = ArchiveStore.open(tmp_path)
    assert store.load_state("suggest") == {"accepted": ["a", "b"]}
    store.close()


def test_failed_transaction_leaves_no_trace_in_memory_or_on_disk(tmp_path):
    storage = JournalStorage(tmp_path)
    table = open_tinydb(storage).table("t")
    first = table.insert({"x": 1})
    with pytest.raises(RuntimeError), storage.transaction():
        table.insert({"x": 2})
        table.update({"x": 99}, doc_ids=[first])
        raise RuntimeError("crash inside registration")
    assert table.all() == [{"x": 1}]
    with pytest.raises(StorageError, match="cannot store"):
        table.insert({"x": b"bytes are not JSON"})
    assert table.all() == [{"x": 1}]
    storage.close()
    storage = JournalStorage(tmp_path)
    assert open_tinydb(storage).table("t").all() == [{"x": 1}]
    storage.close()


def test_store_indexes_rebuilt_after_a_failed_transaction(tmp_path):
    store = ArchiveStore.open(tmp_path)
    doc = {"key": "k", "host": "h", "url": "u", "ts": 0}
    with pytest.raises(RuntimeError), store.transaction():
        store.add_version("20260101000000000000", doc)
        raise RuntimeError("boom")
    assert store.ids == [] and store.ids_of_key("k") == []
    store.close()


def test_tables_load_lazily_with_their_journal_ops(tmp_path):
    storage = JournalStorage(tmp_path)
    db = open_tinydb(storage)
    db.table("big").insert_multiple({"n": i} for i in range(100))
    db.table("small").insert({"x": 1})
    storage.compact()
    db.table("big").insert({"n": 100})  # in the journal, not the snapshot
    storage.close()
    storage = JournalStorage(tmp_path)
    assert "big" not in dict.keys(storage.read())  # not loaded yet
    assert len(open_tinydb(storage).table("big")) == 101
    storage.compact()
    storage.close()
    storage = JournalStorage(tmp_path, readonly=True)
    assert len(open_tinydb(storage).table("big")) == 101
    storage.close()


def test_maybe_compact_only_when_the_journal_is_long(tmp_path, monkeypatch):

    store = ArchiveStore.open(tmp_path)
    store.save_state("a", {"n": 1})
    assert store.maybe_compact() is False
    monkeypatch.setattr(store_module, "COMPACT_LINES", 1)
    assert store.maybe_compact() is True
    assert (tmp_path / "db" / "journal.1.log").stat().st_size == 0
    store.close()
    with ArchiveStore.open(tmp_path, readonly=True) as again:
        assert again.load_state("a") == {"n": 1}


def test_on_write_is_called_once_per_durable_line_only(tmp_path):
    calls = []

    def on_write():  # the line is on disk when we are told
        calls.append(len((tmp_path / "journal.0.log").read_bytes().splitlines()))

    storage = JournalStorage(tmp_path, on_write=on_write)
    table = open_tinydb(storage).table("t")
    table.insert({"x": 1})
    with storage.transaction():
        table.insert({"x": 2})
        table.insert({"x": 3})
    with pytest.raises(RuntimeError), storage.transaction():
        table.insert({"x": 4})
        raise RuntimeError("aborted: nothing written, nobody told")
    with pytest.raises(StorageError):
        table.insert({"x": b"not JSON"})
    assert calls == [1, 2]
    storage.close()


def test_store_passes_on_write_to_its_journal(tmp_path):
    calls = []
    store = ArchiveStore.open(tmp_path, on_write=lambda: calls.append(1))
    store.save_state("x", {"a": 1})
    store.put_blob(b"blobs alone are not a change of the records")
    assert calls == [1]
    store.close()


def test_a_journal_replayed_twice_keeps_every_line(tmp_path):
    """Open measures the good length of the journal as the sum of every good line: a second
    open (after the first cut nothing) still finds every write."""
    storage = JournalStorage(tmp_path)
    table = open_tinydb(storage).table("t")
    for x in range(3):
        table.insert({"x": x})
    size = (tmp_path / "journal.0.log").stat().st_size
    storage.close()
    for _ in range(2):
        storage = JournalStorage(tmp_path)
        assert storage.journal_lines == 3
        assert sorted(d["x"] for d in open_tinydb(storage).table("t").all()) == [0, 1, 2]
        storage.close()
        assert (tmp_path / "journal.0.log").stat().st_size == size


def test_journal_lines_counts_each_line_written_and_replayed(tmp_path):
    storage = JournalStorage(tmp_path)
    assert storage.journal_lines == 0 and storage.journal_bytes() == 0
    table = open_tinydb(storage).table("t")
    table.insert({"x": 1})
    table.insert({"x": 2})
    assert storage.journal_lines == 2
    assert storage.journal_bytes() == (tmp_path / "journal.0.log").stat().st_size > 0
    storage.compact()
    assert storage.journal_lines == 0 and storage.journal_bytes() == 0
    table.insert({"x": 3})
    assert storage.journal_lines == 1
    storage.close()
    reader = JournalStorage(tmp_path, readonly=True)
    assert reader.journal_lines == 1 and reader.journal_bytes() == 0
    reader.close()


def test_a_cleared_table_stays_cleared_after_reopen(tmp_path):
    """``clear`` is journaled and replayed: the rows before it never come back."""
    storage = JournalStorage(tmp_path)
    table = open_tinydb(storage).table("t")
    table.insert_multiple({"x": x} for x in range(3))
    table.truncate()
    table.insert({"x": 9})
    storage.close()
    storage = JournalStorage(tmp_path)
    assert open_tinydb(storage).table("t").all() == [{"x": 9}]
    storage.close()


def test_a_delete_of_a_row_the_table_does_not_hold_replays(tmp_path):
    (tmp_path / "journal.0.log").write_bytes(
        encode_line([["del", "t", "7"]]) + encode_line([["put", "t", "1", {"x": 1}]])
    )
    storage = JournalStorage(tmp_path)
    assert open_tinydb(storage).table("t").all() == [{"x": 1}]
    storage.close()


def test_a_one_byte_torn_fragment_glued_to_a_good_line_gives_the_line_back():
    good = encode_line([["del", "t", "1"]])
    assert salvage_line(good[:1] + good) == [["del", "t", "1"]]


def test_an_update_that_fails_half_way_leaves_the_table_as_it_was(tmp_path):
    storage = JournalStorage(tmp_path)
    table = open_tinydb(storage).table("t")
    table.insert({"x": 1})
    with pytest.raises(ValueError):  # TinyDB refuses a document ID that exists
        table.insert_multiple([{"x": 2}, Document({"x": 3}, doc_id=1)])
    assert table.all() == [{"x": 1}] and "None" not in storage.read()
    storage.close()
    storage = JournalStorage(tmp_path)
    assert open_tinydb(storage).table("t").all() == [{"x": 1}]
    storage.close()


def test_a_reader_never_compacts(tmp_path):
    storage = JournalStorage(tmp_path)
    open_tinydb(storage).table("t").insert({"x": 1})
    storage.close()
    files = sorted(p.name for p in tmp_path.iterdir())
    reader = JournalStorage(tmp_path, readonly=True)
    reader.compact()
    reader.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == files


def test_close_and_compaction_close_the_journals_they_leave_and_release_the_lock(tmp_path):
    storage = JournalStorage(tmp_path)
    open_tinydb(storage).table("t").insert({"x": 1})
    first = storage._journal
    storage.compact()
    assert first.closed and not storage._journal.closed
    second, lock = storage._journal, storage._lock  # held, so only release() can free it
    storage.close()
    assert second.closed and lock.handle is None
    again = JournalStorage(tmp_path)  # the lock went with close(), in this process too
    assert open_tinydb(again).table("t").all() == [{"x": 1}]
    again.close()


def test_an_archive_in_a_folder_that_does_not_exist_yet_is_created(tmp_path):
    storage = JournalStorage(tmp_path / "a" / "b" / "db")
    open_tinydb(storage).table("t").insert({"x": 1})
    storage.close()
    assert (tmp_path / "a" / "b" / "db" / "journal.0.log").exists()


def test_an_archive_that_cannot_be_read_is_a_typed_error_and_leaves_no_lock(tmp_path):
    storage = JournalStorage(tmp_path)
    open_tinydb(storage).table("t").insert({"x": 1})
    storage.compact()
    storage.close()
    (tmp_path / "t.1.json").unlink()  # a snapshot the MANIFEST names is gone
    storage = JournalStorage(tmp_path)  # tables load lazily: the read fails, typed
    with pytest.raises(StorageError, match="cannot read table snapshot"):
        open_tinydb(storage).table("t").all()
    storage.close()
    (tmp_path / "MANIFEST").write_bytes(b'{"gen": 1, "tab')
    failures = []  # kept: a failed open releases its lock itself, not by being collected
    for _ in range(2):  # the second open fails the same way, not on the first one's lock
        with pytest.raises(StorageError, match="corrupt manifest") as info:
            JournalStorage(tmp_path)
        failures.append(info)


def test_an_archive_where_a_file_is_is_a_typed_error(tmp_path):
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(StorageError, match="cannot create the archive"):
        JournalStorage(tmp_path / "file" / "db")


def test_loading_a_snapshot_leaves_the_cyclic_gc_as_it_was(tmp_path):
    storage = JournalStorage(tmp_path)
    open_tinydb(storage).table("t").insert({"x": 1})
    storage.compact()
    storage.close()
    assert gc.isenabled()
    storage = JournalStorage(tmp_path)
    assert open_tinydb(storage).table("t").all() == [{"x": 1}]  # the snapshot is read here
    assert gc.isenabled()
    storage.close()


def test_dropping_a_table_is_journaled_and_survives_reopen(tmp_path):
    """TinyDB's whole-database write (drop_table) becomes clear + puts in the journal."""
    storage = JournalStorage(tmp_path)
    db = open_tinydb(storage)
    db.table("a").insert({"x": 1})
    db.table("b").insert({"y": 2})
    storage.compact()
    storage.close()
    storage = JournalStorage(tmp_path)  # both tables still on disk (lazy)
    db = open_tinydb(storage)
    db.drop_table("a")
    assert db.table("a").all() == [] and db.table("b").all() == [{"y": 2}]
    storage.close()
    storage = JournalStorage(tmp_path)
    db = open_tinydb(storage)
    assert db.table("a").all() == [] and db.table("b").all() == [{"y": 2}]
    storage.close()


def test_a_blind_put_is_durable_whether_its_table_is_loaded_or_still_on_disk(tmp_path):
    storage = JournalStorage(tmp_path)
    storage.put_blind("links", "1", {"to": "a"})
    storage.compact()
    storage.close()
    storage = JournalStorage(tmp_path)  # "links" is still on disk: the put waits for its load
    storage.put_blind("links", "2", {"to": "b"})
    assert storage.journal_lines == 1
    assert storage.table("links") == {"1": {"to": "a"}, "2": {"to": "b"}}
    storage.close()
    storage = JournalStorage(tmp_path)
    assert storage.table("links") == {"1": {"to": "a"}, "2": {"to": "b"}}
    storage.close()


def test_dropping_a_table_known_only_from_the_journal_survives_reopen(tmp_path):
    storage = JournalStorage(tmp_path)
    db = open_tinydb(storage)
    db.table("a").insert({"x": 1})
    db.table("b").insert({"y": 2})
    db.drop_table("a")
    storage.close()
    storage = JournalStorage(tmp_path)
    db = open_tinydb(storage)
    assert db.table("a").all() == [] and db.table("b").all() == [{"y": 2}]
    storage.close()
