"""A real daemon writing to a real tmpfs home filled to the last byte.

Every write while the disk is full fails with a typed ``storage`` error; once space
is back, writes succeed again, and after a restart every acknowledged version is
readable (a failed append must never leave a fragment in front of the next line).
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.host.daemon_fixtures import make_home, pk, stop_daemon

# Thousands of links make each version's journal line larger than a write buffer.
LINKS = "".join(
    f'<a href="https://other.example/article/{n}">article {n}</a> ' for n in range(3000)
)
PAGE = f"<html><head><title>Full disk</title></head><body><p>{'the same words ' * 40}</p>{LINKS}"


@pytest.fixture
def tmpfs(tmp_path):
    """A 4 MB tmpfs (real ENOSPC); skipped when this user may not mount."""
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


PAGE_SIZE = 4096  # tmpfs hands out whole pages


def fill(path: Path) -> Path:
    """Fill the file system holding ``path`` to the last byte the file system will give."""
    filler = path / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        size = 1 << 20
        while size:
            try:
                os.write(fd, b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
                size //= 2
    finally:
        os.close(fd)
    return filler


def free_pages(path: Path) -> int:
    return os.statvfs(path).f_bavail


URL = "https://full.example/page"


def add(home: Path, html: Path) -> subprocess.CompletedProcess:
    return pk(home, "archive", "add", URL, "--html", str(html), "--json", check=False)


def test_full_disk_under_a_running_daemon_loses_no_acknowledged_version(tmpfs, tmp_path):
    home = make_home(tmpfs)
    html = tmp_path / "page.html"
    html.write_text(PAGE)
    reserve = tmpfs / "reserve"
    reserve.mkdir()
    acked, errors = [], []
    try:
        pk(home, "serve", "--detach", "--json")
        for _ in range(2):
            acked.append(json.loads(add(home, html).stdout)["id"])
        journal = next((home / "db").glob("journal.*.log"))
        before, journal_before = free_pages(tmpfs), journal.stat().st_size
        acked.append(json.loads(add(home, html).stdout)["id"])
        line_pages = (journal.stat().st_size - journal_before) // PAGE_SIZE
        blob_pages = before - free_pages(tmpfs) - line_pages
        for n in range(60):
            (reserve / str(n)).write_bytes(b"\0" * PAGE_SIZE)
        filler = fill(tmpfs)
        # Each try gets room for its blobs and part of its journal line: the append fails
        # half-way, after some of its bytes reached the file.
        for n in range(4):
            for page in range(blob_pages + line_pages // 2):
                (reserve / str(n * 15 + page)).unlink(missing_ok=True)
            reply = json.loads(add(home, html).stdout)
            if "error" in reply:
                errors.append(reply["error"])
            else:  # the room freed by an earlier failed line was enough
                acked.append(reply["id"])
        filler.unlink()
        for _ in range(3):
            done = add(home, html)
            assert done.returncode == 0, done.stderr
            acked.append(json.loads(done.stdout)["id"])
    finally:
        stop_daemon(home)
    assert {error["code"] for error in errors} == {"storage"}, errors
    assert any("journal" in error["message"] for error in errors), errors
    done = pk(home, "archive", "versions", URL, "--json", check=False)  # reopened by the CLI
    assert done.returncode == 0, done.stderr
    # Every acknowledged version is there, and no write the user was told failed came back.
    assert sorted(v["id"] for v in json.loads(done.stdout)) == sorted(acked)
    for reg_id in acked:
        done = pk(home, "archive", "get", reg_id, check=False)
        assert done.returncode == 0 and "same words" in done.stdout, done.stderr
