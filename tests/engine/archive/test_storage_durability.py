"""Durability of the journaled storage under injected faults, and the order of its syscalls.

Failed writes and fsyncs are injected by patching ``os.write``/``os.fsync``/``os.truncate``
for the journal's file only; the order tests record every ``os.fsync`` and ``os.replace``.
"""

from __future__ import annotations

import errno
import multiprocessing
import os
from pathlib import Path

import pytest

from engine.archive.storage import (
    AtomicBatch,
    JournalStorage,
    encode_line,
    open_tinydb,
    write_atomic,
)
from engine.archive.store import ArchiveStore
from engine.errors import StorageError

REAL_WRITE, REAL_FSYNC, REAL_TRUNCATE = os.write, os.fsync, os.truncate


def fd_path(fd: int) -> str:
    return os.readlink(f"/proc/self/fd/{fd}")


def is_journal(fd: int) -> bool:
    return Path(fd_path(fd)).name.startswith("journal.")


def xs(storage: JournalStorage) -> list:
    return sorted(doc["x"] for doc in open_tinydb(storage).table("t").all())


@pytest.fixture
def written(tmp_path):
    """A writer holding x=1 in table t."""
    storage = JournalStorage(tmp_path)
    open_tinydb(storage).table("t").insert({"x": 1})
    yield storage
    storage.close()


def torn_write(monkeypatch):
    """The journal's next write stores half its bytes, then the disk is full."""
    calls = []

    def write(fd, data):
        if not is_journal(fd):
            return REAL_WRITE(fd, data)
        calls.append(len(data))
        if len(calls) == 1:
            return REAL_WRITE(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", write)
    return calls


def test_a_write_cut_short_is_cut_back_and_the_next_line_starts_clean(
    written, tmp_path, monkeypatch
):
    journal = tmp_path / "journal.0.log"
    before = journal.read_bytes()
    calls = torn_write(monkeypatch)
    with pytest.raises(StorageError, match="cannot write the journal"):
        open_tinydb(written).table("t").insert({"x": 2})
    assert len(calls) == 2  # half written, then ENOSPC: the fragment did reach the file
    monkeypatch.setattr(os, "write", REAL_WRITE)
    assert journal.read_bytes() == before  # cut back to where the append began
    assert xs(written) == [1]  # and undone in memory
    open_tinydb(written).table("t").insert({"x": 3})
    written.close()
    assert journal.read_bytes().count(b"\n") == 2
    reopened = JournalStorage(tmp_path)
    assert xs(reopened) == [1, 3] and reopened.skipped_lines == []
    reopened.close()


def test_a_failed_fsync_stops_every_later_write(written, tmp_path, monkeypatch):
    journal = tmp_path / "journal.0.log"
    before = journal.read_bytes()

    def fsync(fd):
        if is_journal(fd):
            raise OSError(errno.EIO, "Input/output error")
        return REAL_FSYNC(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(StorageError, match="page cache can no longer be trusted"):
        open_tinydb(written).table("t").insert({"x": 2})
    monkeypatch.setattr(os, "fsync", REAL_FSYNC)  # the disk "recovers": writes stay stopped
    with pytest.raises(StorageError, match="page cache"):
        open_tinydb(written).table("t").insert({"x": 3})
    with pytest.raises(StorageError, match="page cache"):
        written.compact()
    assert xs(written) == [1]
    assert journal.read_bytes() == before  # the unacknowledged line is not left behind
    written.close()
    reopened = JournalStorage(tmp_path)  # reopening is the way back
    open_tinydb(reopened).table("t").insert({"x": 4})
    assert xs(reopened) == [1, 4]
    reopened.close()


def test_a_journal_that_cannot_be_cut_back_stops_writes(written, monkeypatch):
    torn_write(monkeypatch)

    def truncate(path, length):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "truncate", truncate)
    with pytest.raises(StorageError, match="cannot write the journal"):
        open_tinydb(written).table("t").insert({"x": 2})
    monkeypatch.setattr(os, "write", REAL_WRITE)
    monkeypatch.setattr(os, "truncate", REAL_TRUNCATE)
    with pytest.raises(StorageError, match="cannot repair the journal"):
        open_tinydb(written).table("t").insert({"x": 3})


def line(x: int) -> bytes:
    return encode_line([["put", "t", str(x), {"x": x}]])


def test_a_fragment_glued_to_the_next_line_gives_that_line_back(tmp_path):
    # What a failed append followed by a good one leaves (older versions did this).
    (tmp_path / "journal.0.log").write_bytes(line(1) + line(2)[:17] + line(3) + line(4))
    storage = JournalStorage(tmp_path)
    assert xs(storage) == [1, 3, 4]
    storage.close()


def test_a_line_with_a_wrong_crc_is_skipped_and_every_later_line_kept(tmp_path):
    good = line(99)
    forged = b"%08x" % ((int(good[:8], 16) + 1) % 2**32) + good[8:]  # valid JSON, wrong CRC
    (tmp_path / "journal.0.log").write_bytes(line(1) + forged + line(3) + line(4))
    storage = JournalStorage(tmp_path)
    assert xs(storage) == [1, 3, 4]  # 99 never applied: only the CRC says it is damaged
    assert storage.skipped_lines == [len(line(1))]
    storage.close()


def test_a_last_line_with_a_wrong_crc_is_a_torn_tail_and_cut(tmp_path):
    good = line(2)
    forged = b"%08x" % ((int(good[:8], 16) + 1) % 2**32) + good[8:]
    (tmp_path / "journal.0.log").write_bytes(line(1) + forged)
    storage = JournalStorage(tmp_path)
    assert xs(storage) == [1]
    storage.close()
    assert (tmp_path / "journal.0.log").read_bytes() == line(1)


@pytest.fixture
def syscalls(monkeypatch):
    """Every os.fsync (as ("fsync", path)) and os.replace (as ("replace", src, dst)), in order."""
    events = []

    def fsync(fd):
        events.append(("fsync", fd_path(fd)))
        return REAL_FSYNC(fd)

    real_replace = os.replace

    def replace(src, dst):
        events.append(("replace", str(src), str(dst)))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    return events


def test_a_blob_is_fsynced_before_its_rename_and_its_directory_after(tmp_path, syscalls):
    store = ArchiveStore.open(tmp_path)
    syscalls.clear()
    digest = store.put_blob(b"a blob")
    path = str(store._blob_path(digest))
    renamed = next(i for i, e in enumerate(syscalls) if e[0] == "replace" and e[2] == path)
    temp = syscalls[renamed][1]
    assert ("fsync", temp) in syscalls[:renamed]  # the bytes, before the name points at them
    assert ("fsync", str(Path(path).parent)) in syscalls[renamed:]  # the name itself
    store.close()


def test_a_journal_line_is_fsynced_before_the_write_returns(tmp_path, syscalls):
    storage = JournalStorage(tmp_path)
    syscalls.clear()
    open_tinydb(storage).table("t").insert({"x": 1})
    assert syscalls == [("fsync", str(tmp_path / "journal.0.log"))]
    storage.close()


def test_compaction_writes_every_snapshot_and_the_journal_before_the_manifest(tmp_path, syscalls):
    storage = JournalStorage(tmp_path)
    db = open_tinydb(storage)
    for name in ("a", "b", "c"):
        db.table(name).insert({"x": name})
    syscalls.clear()
    storage.compact()
    replaced = [Path(e[2]).name for e in syscalls if e[0] == "replace"]
    assert replaced[-1] == "MANIFEST"
    assert sorted(replaced[:-1]) == ["a.1.json", "b.1.json", "c.1.json", "journal.1.log"]
    for index, event in enumerate(syscalls):
        if event[0] == "replace":
            assert ("fsync", event[1]) in syscalls[:index]  # each file durable before its rename
    manifest_at = (
        len(syscalls)
        - 1
        - syscalls[::-1].index(
            next(e for e in syscalls if e[0] == "replace" and e[2].endswith("MANIFEST"))
        )
    )
    assert ("fsync", str(tmp_path)) in syscalls[manifest_at:]  # the switch itself is durable
    storage.close()


def test_a_compaction_that_fails_on_a_full_disk_is_typed_and_leaves_no_files(tmp_path, monkeypatch):
    storage = JournalStorage(tmp_path)
    open_tinydb(storage).table("t").insert({"x": 1})
    before = sorted(p.name for p in tmp_path.iterdir())

    def fsync(fd):
        if fd_path(fd).endswith(".tmp") and "MANIFEST" in fd_path(fd):
            raise OSError(errno.ENOSPC, "No space left on device")
        return REAL_FSYNC(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(StorageError, match="cannot compact"):
        storage.compact()
    monkeypatch.setattr(os, "fsync", REAL_FSYNC)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    open_tinydb(storage).table("t").insert({"x": 2})  # still writing to generation 0
    storage.close()
    reopened = JournalStorage(tmp_path)
    assert xs(reopened) == [1, 2] and reopened.gen == 0
    reopened.close()


def test_files_a_crash_mid_compaction_left_are_swept_on_open(tmp_path):
    storage = JournalStorage(tmp_path)
    open_tinydb(storage).table("t").insert({"x": 1})
    storage.compact()  # generation 1
    storage.close()
    leftovers = [".t.2.json.123.456.tmp", "t.2.json", ".MANIFEST.9.9.tmp"]
    for name in leftovers:
        (tmp_path / name).write_bytes(b"{}")
    storage = JournalStorage(tmp_path)
    assert not [name for name in leftovers if (tmp_path / name).exists()]
    assert (tmp_path / "t.1.json").exists() and xs(storage) == [1]
    storage.close()


def test_a_blob_batch_makes_each_blob_durable_before_its_name_and_each_folder_after(
    tmp_path, syscalls
):
    store = ArchiveStore.open(tmp_path)
    syscalls.clear()
    batch = store.blob_batch()
    digests = [batch.add(b"blob %d" % n) for n in range(40)]
    assert not any(store.has_blob(d) for d in digests)  # nothing under its name before commit
    batch.commit()
    for digest in digests:
        path = str(store._blob_path(digest))
        renamed = next(i for i, e in enumerate(syscalls) if e[0] == "replace" and e[2] == path)
        assert ("fsync", syscalls[renamed][1]) in syscalls[:renamed]  # the bytes first
        assert ("fsync", str(Path(path).parent)) in syscalls[renamed:]  # then the name
    assert [store.get_blob(d) for d in digests] == [b"blob %d" % n for n in range(40)]
    folders = [e[1] for e in syscalls if e[0] == "fsync" and Path(e[1]).parent == store.blob_dir]
    assert len(folders) == len(set(folders))  # one fsync per folder, not one per blob
    store.close()


def test_a_blob_batch_whose_fsync_fails_leaves_no_blob_and_no_temporary_file(tmp_path, monkeypatch):
    store = ArchiveStore.open(tmp_path)
    batch = store.blob_batch()
    digests = [batch.add(b"blob %d" % n) for n in range(5)]

    def fsync(fd):
        if fd_path(fd).endswith(".tmp"):
            raise OSError(errno.EIO, "I/O error")
        return REAL_FSYNC(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(StorageError, match="cannot write blobs"):
        batch.commit()
    monkeypatch.setattr(os, "fsync", REAL_FSYNC)
    assert not any(store.has_blob(d) for d in digests)
    assert [name for name, _ in store.blob_names()] == []
    store.close()


def _batch_in_child(path: Path) -> None:
    batch = AtomicBatch()
    for n in range(40):
        batch.add(path / f"child-{n}", b"x")
    batch.commit()


def test_a_forked_child_commits_a_batch_with_its_own_fsync_threads(tmp_path):
    """The fsync threads live once per process; a forked child has none of its parent's
    running, so it must start its own (else its batch waits forever)."""
    batch = AtomicBatch()
    for n in range(40):  # enough files to start every fsync thread in this process
        batch.add(tmp_path / f"parent-{n}", b"x")
    batch.commit()
    child = multiprocessing.get_context("fork").Process(target=_batch_in_child, args=(tmp_path,))
    child.start()
    child.join(30)
    if child.exitcode is None:
        child.kill()
    assert child.exitcode == 0
    assert all((tmp_path / f"child-{n}").read_bytes() == b"x" for n in range(40))


def test_a_transaction_whose_line_cannot_be_written_is_undone_in_memory(written, monkeypatch):
    def write(fd, data):
        if is_journal(fd):
            raise OSError(errno.ENOSPC, "No space left on device")
        return REAL_WRITE(fd, data)

    table = open_tinydb(written).table("t")
    monkeypatch.setattr(os, "write", write)
    with pytest.raises(StorageError, match="cannot write the journal"), written.transaction():
        table.insert({"x": 2})
        table.update({"x": 5}, doc_ids=[1])
    monkeypatch.setattr(os, "write", REAL_WRITE)
    assert xs(written) == [1]
    table.insert({"x": 3})  # the transaction left no state behind
    assert xs(written) == [1, 3]


def test_a_batch_whose_rename_fails_keeps_the_first_error_and_leaves_no_temporary_file(
    tmp_path, monkeypatch
):
    """A rename that fails after others succeeded: the files already renamed have no
    temporary file left, and discarding must not stop on them."""
    batch = AtomicBatch()
    for name in "abc":
        batch.add(tmp_path / name, name.encode())
    real_replace, renamed = os.replace, []

    def replace(src, dst):
        if len(renamed) == 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        renamed.append(dst)
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError) as info:
        batch.commit()
    assert info.value.errno == errno.ENOSPC
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]


def test_an_atomic_file_is_flushed_before_its_fsync(tmp_path, monkeypatch):
    """The bytes still in the file object's buffer are not on the disk: the fsync must see
    the whole file."""
    sizes = []

    def fsync(fd):
        sizes.append(os.fstat(fd).st_size)
        return REAL_FSYNC(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    write_atomic(tmp_path / "x", b"x" * 100)
    assert sizes[0] == 100


def test_a_batch_file_that_cannot_be_written_raises_and_leaves_no_temporary_file(tmp_path):
    batch = AtomicBatch()
    with pytest.raises(TypeError):
        batch.add(tmp_path / "a", "text, not bytes")  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == [] and batch.temps == []


def test_a_torn_tail_is_cut_fsynced_and_the_next_write_starts_at_the_cut(tmp_path, monkeypatch):
    storage = JournalStorage(tmp_path)
    open_tinydb(storage).table("t").insert({"x": 1})
    storage.close()
    journal = tmp_path / "journal.0.log"
    good = journal.stat().st_size
    with open(journal, "ab") as handle:
        handle.write(encode_line([["put", "t", "2", {"x": 2}]])[:-7])  # a crash mid-write
    synced = []

    def fsync(fd):
        if is_journal(fd):
            synced.append(os.fstat(fd).st_size)
        return REAL_FSYNC(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    storage = JournalStorage(tmp_path)
    assert synced == [good]  # the cut is made durable before anything is written after it
    assert storage.journal_bytes() == good  # a failed write would rewind to here
    open_tinydb(storage).table("t").insert({"x": 3})
    storage.close()
    storage = JournalStorage(tmp_path)
    assert xs(storage) == [1, 3] and storage.skipped_lines == []
    storage.close()


def test_a_batch_of_one_file_is_fsynced_before_its_rename_and_its_folder_after(tmp_path, syscalls):
    """One file takes the batch's path without its thread pool: the same order holds."""
    batch = AtomicBatch()
    batch.add(tmp_path / "a", b"1")
    batch.commit()
    renamed = next(i for i, e in enumerate(syscalls) if e[0] == "replace")
    assert syscalls[renamed][2] == str(tmp_path / "a")
    assert syscalls[:renamed] == [("fsync", syscalls[renamed][1])]
    assert syscalls[renamed + 1 :] == [("fsync", str(tmp_path))]
