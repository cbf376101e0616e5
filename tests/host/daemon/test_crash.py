"""kill -9 during 1,000 registrations: every acknowledged one survives, nothing is corrupt.

A child process registers real pages (with compactions mixed in, so kills also
land mid-compaction) and prints each registration ID only after ``register``
returned. The parent SIGKILLs it at random points, several rounds, then reopens
the archive and reads every acknowledged registration back, both copies.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.archive.provider import get, versions
from engine.archive.store import ArchiveStore
from engine.html.rewrite import absolute

ROOT = Path(__file__).resolve().parents[3]
TOTAL = 1000

CHILD = r"""
import gzip, os, sys
from pathlib import Path
from engine.archive.model import Capture, RegisterOptions
from engine.archive.registry import register
from engine.archive.store import ArchiveStore

home, start = Path(sys.argv[1]), int(sys.argv[2])
body = gzip.decompress(Path(sys.argv[3]).read_bytes())
store = ArchiveStore.open(home)
os.write(1, b"open\n")
for n in range(start, 10**9):
    page = body.replace(b"</body>", b"<p>capture %d</p></body>" % n)
    url = "https://die-partei.net/luebeck/page-%d" % (n % 37)
    reg = register(store, Capture(url, page), RegisterOptions(extract=n % 3 == 0, similar_budget_s=0.002))
    os.write(1, ("%s %d\n" % (reg.id, n)).encode())
    if n % 97 == 0:
        store.compact()
"""


def _child(home: Path, start: int) -> subprocess.Popen:
    page = ROOT / "tests" / "fixtures" / "pages" / "b18b2a048ce0dd08.html.gz"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(home), str(start), str(page)],
        stdout=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )


def _round(home: Path, start: int, kill_after: int, rng: random.Random) -> list[tuple[str, int]]:
    proc = _child(home, start)
    acked = []
    try:
        assert proc.stdout.readline() == b"open\n"
        while len(acked) < kill_after:
            line = proc.stdout.readline()
            assert line, "child died on its own"
            reg_id, n = line.split()
            acked.append((reg_id.decode(), int(n)))
        time.sleep(rng.random() * 0.01)  # land anywhere inside the next registration
    finally:
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate()
    # Lines the child wrote before dying were acknowledged too.
    for line in rest.splitlines():
        if line.strip():
            reg_id, n = line.split()
            acked.append((reg_id.decode(), int(n)))
    return acked


@pytest.mark.slow
def test_kill_minus_nine_never_loses_an_acknowledged_registration(tmp_path):
    rng = random.Random(int(os.environ.get("PK_CRASH_SEED", "4")))
    home, acked, rounds = tmp_path / "home", [], 0
    while len(acked) < TOTAL:
        want = min(TOTAL - len(acked), rng.randint(60, 260))
        acked += _round(home, len(acked) + rounds * 1000, want, rng)
        rounds += 1
    assert rounds >= 4
    with ArchiveStore.open(home) as store:  # a writer: also proves the lock was released
        _check_all(store, acked)


def _check_all(store: ArchiveStore, acked: list[tuple[str, int]]) -> None:
    ids = set(store.ids)
    missing = [reg_id for reg_id, _ in acked if reg_id not in ids]
    assert not missing, f"{len(missing)} acknowledged registrations lost"
    assert len(ids) >= len(acked)  # at most the unacknowledged last one extra per round
    for reg_id, n in acked:
        original = get(store, reg_id, original=True).body
        assert b"<p>capture %d</p>" % n in original
        rewritten = get(store, reg_id).body.decode("utf-8")
        assert f"capture {n}" in rewritten and "/gc?url=" in rewritten
        assert store.refs(reg_id), "link rows missing"
        assert store.row("fingerprints", reg_id)["fp"]
    url = store.version(acked[0][0])["url"]
    assert all(v["key"] == absolute("", url) or v["key"] for v in versions(store, url))
