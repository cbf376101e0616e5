"""host/home.py: the one atomic write (order of fsync and rename, all or nothing) and the one lock."""

from __future__ import annotations

import os

import pytest

from host.home import FileLock, Home, atomic_file, atomic_write


def test_atomic_write_fsyncs_the_file_before_the_rename_and_the_folder_after(tmp_path, monkeypatch):
    calls = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        calls.append("dir" if os.path.isdir(f"/proc/self/fd/{fd}") else "file")
        real_fsync(fd)

    def replace(src, dst):
        calls.append("replace")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    atomic_write(tmp_path / "sub" / "x.json", b"{}")
    assert calls == ["file", "replace", "dir"]
    assert (tmp_path / "sub" / "x.json").read_bytes() == b"{}"
    calls.clear()
    atomic_write(tmp_path / "y", b"1", durable=False)
    assert calls == ["replace"]


def test_a_failed_write_keeps_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "state.json"
    atomic_write(path, b"old")
    with pytest.raises(RuntimeError), atomic_file(path) as out:
        out.write(b"half of the new")
        raise RuntimeError("disk full")
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_the_home_lock_is_exclusive_until_released(tmp_path):
    home = Home(tmp_path)
    first, second = home.lock(), home.lock()
    assert first.acquire() and not second.acquire()
    first.release()
    assert second.acquire()
    second.release()
    assert FileLock(home.daemon_lock).acquire()


def test_the_cli_and_the_daemon_read_one_cache_dir(tmp_path):
    assert Home(tmp_path).cache_dir(None) == tmp_path / "cache"
    assert Home(tmp_path).cache_dir(str(tmp_path / "c")) == tmp_path / "c"
