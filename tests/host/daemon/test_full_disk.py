"""A real daemon writing to a real tmpfs home filled to the last byte.

Every write while the disk is full fails with a typed ``storage`` error; once space
is back, writes succeed again, and after a restart every acknowledged version is
readable (a failed append must never leave a fragment in front of the next line).
"""

from __future__ import annotations

import errno
import itertools
import json
import os
import shutil
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
    """A 16 MB tmpfs (real ENOSPC; room for the versions written once space is back, whatever the search index took meanwhile); skipped when this user may not mount."""
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)],
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


def hold(folder: Path, pages: int) -> list[Path]:
    """Take ``pages`` pages of the file system, one file each, to give back later."""
    held = [folder / str(n) for n in range(pages)]
    for path in held:
        path.write_bytes(b"\0" * PAGE_SIZE)
    return held


def release(held: list[Path], mount: Path, room: int) -> None:
    """Give back held pages until ``room`` pages are free."""
    while free_pages(mount) < room:
        assert held, f"nothing left to give back for a room of {room} pages"
        held.pop().unlink()


def blob_pages(home: Path) -> int:
    """The pages the stored blobs hold (the search index's own files grow apart from them)."""
    blobs = (blob for blob in (home / "blobs").rglob("*") if blob.is_file())
    return sum(-(-blob.stat().st_size // PAGE_SIZE) for blob in blobs)


URL = "https://full.example/page"
CAPTURES = itertools.count(1)


def new_page(html: Path) -> Path:
    """Write a page unlike every earlier one: an unchanged page is only a sighting of its
    version (a WARC revisit, a few bytes), so its journal line would fit in one page."""
    capture = next(CAPTURES)
    html.write_text(PAGE.replace("the same words", f"capture {capture}: the same words", 1))
    return html


def add(home: Path, html: Path) -> subprocess.CompletedProcess:
    return pk(home, "archive", "add", URL, "--html", str(html), "--json", check=False)


STEP = 3  # pages given back before each try: several tries end inside one journal line


def test_full_disk_under_a_running_daemon_loses_no_acknowledged_version(tmpfs, tmp_path):
    home = make_home(tmpfs)
    html = tmp_path / "page.html"
    reserve = tmpfs / "reserve"
    reserve.mkdir()
    acked, errors = [], []
    try:
        pk(home, "serve", "--detach", "--json")
        for _ in range(2):
            acked.append(json.loads(add(home, new_page(html)).stdout)["id"])
        journal = next((home / "db").glob("journal.*.log"))
        blobs_before, journal_before = blob_pages(home), journal.stat().st_size
        acked.append(json.loads(add(home, new_page(html)).stdout)["id"])
        line_pages = (journal.stat().st_size - journal_before) // PAGE_SIZE
        blobs = blob_pages(home) - blobs_before
        assert line_pages >= 3 * STEP, "a version's journal line must span several steps"
        limit = blobs + line_pages + 40  # the room a try may be given at most
        # Held back beyond the limit: what the daemon's other files (the search index's WAL,
        # its log) take between tries is given back too, so each try starts with its room.
        held = hold(reserve, limit + 96)
        filler = fill(tmpfs)
        # The same new page is tried while the room grows a few pages at a time: tries fail
        # writing its blobs, then half-way through its journal line (after some of its bytes
        # reached the file), until one fits. The blobs' size is only a starting point.
        room, page = max(0, blobs - STEP), new_page(html)
        while True:
            release(held, tmpfs, room)
            reply = json.loads(add(home, page).stdout)
            if "error" not in reply:
                break
            errors.append(reply["error"])
            assert room + STEP <= limit, (
                f"no try fit in {room} pages: {len(errors)} failed, last {errors[-1]}"
            )
            room += STEP
        acked.append(reply["id"])
        # Space is back: all of it, not only what the filler took (the filler is as small as
        # whatever the reserve left, and the next versions need more than that).
        filler.unlink()
        shutil.rmtree(reserve)
        for _ in range(3):
            done = add(home, new_page(html))
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
