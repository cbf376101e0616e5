"""Registering a revisit ("seen again") is one journal transaction: a kill or a torn write
leaves it whole or absent, never half there, and every capture acknowledged before the kill
is kept.

Two ways in: the journal line of a revisit cut at every byte (what a crash in the middle of
its write leaves), and kill -9 at random moments of a child registering unchanged and
changed captures of real pages, the parent reopening and checking after each kill.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from engine.archive.model import Capture
from engine.archive.provider import get, versions
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from tests.engine.archive.pages import page
from tests.engine.archive.test_registry import at

ROOT = Path(__file__).resolve().parents[3]
ROUNDS, BUDGET_S = 6, 25.0

CHILD = r"""
import os, sys
from pathlib import Path
from engine.archive.model import Capture
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from tests.engine.archive.pages import page

home = Path(sys.argv[1])
url, html = page("partei")
store = ArchiveStore.open(home)
os.write(1, b"open\n")
for n in range(10_000):
    body = html + b"<p>%d</p>" % (n // 3)  # two unchanged re-captures after each change
    reg = register(store, Capture(url, body))
    os.write(1, ("%s %s\n" % (reg.id, reg.revisit_of or "-")).encode())
"""


def _journal(home: Path) -> Path:
    return next((home / "db").glob("journal.*.log"))


def test_a_revisit_torn_at_any_byte_is_whole_or_absent(tmp_path):
    home = tmp_path / "home"
    url, html = page("partei")
    with ArchiveStore.open(home) as store:
        first = register(store, Capture(url, html), at(0))
        store.compact()  # the journal now holds nothing but what follows
        again = register(store, Capture(url, html), at(5))
        assert again.revisit_of == first.id
    line = _journal(home).read_bytes()
    assert line.count(b"\n") == 1  # one transaction, one line
    for cut in range(len(line) + 1):
        _journal(home).write_bytes(line[:cut])  # a reader never repairs: the cut stays
        with ArchiveStore.open(home, readonly=True) as store:
            whole = cut == len(line)  # a line without its newline is a torn one
            assert store.revisit_of(again.id) == (first.id if whole else None), cut
            assert store.raw("versions")[first.id].get("seen", []) == (
                [int(again.id)] if whole else []
            )
            listed = [v["id"] for v in versions(store, url)]
            assert listed == ([again.id, first.id] if whole else [first.id]), cut


def _round(home: Path, rng: random.Random) -> list[tuple[str, str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(home)], stdout=subprocess.PIPE, env=env, cwd=ROOT
    )
    try:
        assert proc.stdout.readline() == b"open\n"
        time.sleep(0.2 + rng.random() * 1.0)
    finally:
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate()
    lines = [line.decode().split() for line in rest.splitlines() if line.strip()]
    return [(reg_id, of) for reg_id, of in lines]


def _check(home: Path, acked: list[tuple[str, str]]) -> int:
    """Every acknowledged capture there as acknowledged; every capture whole; how many."""
    url, _ = page("partei")
    with ArchiveStore.open(home) as store:
        for reg_id, of in acked:
            assert store.has_capture(reg_id), f"acknowledged capture {reg_id} lost"
            assert (store.revisit_of(reg_id) or "-") == of
        listed = versions(store, url)
        assert len({v["id"] for v in listed}) == len(listed)  # no ID twice
        for entry in listed:
            held = entry["revisit_of"] or entry["id"]
            assert store.has_version(held)
            body = get(store, entry["id"], original=True).body
            assert body == get(store, held, original=True).body
        return len(listed)


def test_kill_anywhere_while_registering_revisits(tmp_path):
    home, rng = tmp_path / "home", random.Random(14)
    acked: list[tuple[str, str]] = []
    started, count = time.monotonic(), 0
    for _ in range(ROUNDS):
        if time.monotonic() - started > BUDGET_S:
            break
        new = _round(home, rng)
        acked += new
        before, count = count, _check(home, acked)
        # each acknowledged one, and at most the one in flight when killed (whole)
        assert before + len(new) <= count <= before + len(new) + 1
    assert any(of != "-" for _, of in acked), "no revisit was acknowledged before the kills"
