"""host/home.py: the one atomic write (order of fsync and rename, all or nothing) and the one lock."""

from __future__ import annotations

import ast
import os
from pathlib import Path

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


# The names of the files and folders a home holds: only host/home.py may spell them (the
# token file and the pending folder are left out: "token" and "pending" are protocol fields).
HOME_NAMES = (
    "config.json",
    "daemon.json",
    "daemon.lock",
    "learning.json",
    "paused.json",
    "daemon.log",
    "daemon.out",
    "native.log",
    "fulltext.sqlite3",
    "logs",
    "cache",
    "blobs",
    "db",
    "bin",
)


def _spelled_names(path) -> set[str]:
    """The string literals of a module that name a file of the home (docstrings aside)."""
    tree = ast.parse(path.read_text("utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    # a reply's field read by its key (``result["blobs"]``, a count) names no file
    keys = {id(node.slice) for node in ast.walk(tree) if isinstance(node, ast.Subscript)}
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and id(node) not in docstrings | keys
        and node.value in HOME_NAMES
    }


def test_only_home_names_the_files_of_the_home_folder():
    host = Path(__file__).resolve().parents[2] / "host"
    spelled = {
        str(path.relative_to(host)): names
        for path in sorted(host.rglob("*.py"))
        if path.name != "home.py" and (names := _spelled_names(path))
    }
    assert spelled == {}


def test_a_home_name_is_spelled_in_a_path_but_not_as_a_reply_field(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('n = result["blobs"]\np = home / "blobs"\nq = Path("db")\n')
    assert _spelled_names(module) == {"blobs", "db"}
    module.write_text('n = result["blobs"] + stats["db"]\n')
    assert _spelled_names(module) == set()


def test_every_path_of_the_layout_is_inside_the_home():
    home = Home(Path("/h"))
    paths = [
        getattr(home, name) for name, value in vars(Home).items() if isinstance(value, property)
    ]
    paths += [home.cache_dir(None), home.dictionary_index(None, "d")]
    assert len(paths) == len({p.as_posix() for p in paths}) >= 15
    assert all(p.is_relative_to(Path("/h")) for p in paths)
