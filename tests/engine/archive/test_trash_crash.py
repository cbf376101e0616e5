"""kill -9 at random points of delete, undo and reclaim: nothing referenced is lost, every
version is whole or gone, and the next reclaim leaves no unreferenced blob.

The parent builds an archive of real pages (documents sharing blobs included), then
runs a child that deletes them one by one (a soft delete and undo first for every
third, then a delete without undo, which expires the entry and reclaims at once) and
prints each reference after its delete returned. The parent SIGKILLs the child at a
random moment, reopens the archive, and checks it, over several bounded rounds.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from engine.archive import trash
from engine.archive.model import Capture, RegisterOptions
from engine.archive.provider import get
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from tests.engine.archive.pages import page

ROOT = Path(__file__).resolve().parents[3]
ROUNDS, BUDGET_S = 10, 40.0
T0 = datetime(2026, 1, 1, tzinfo=UTC)

CHILD = r"""
import os, sys
from pathlib import Path
from engine.archive import trash
from engine.archive.store import ArchiveStore

home, refs = Path(sys.argv[1]), sys.argv[2:]
store = ArchiveStore.open(home)
os.write(1, b"open\n")
for n, ref in enumerate(refs):
    if n % 3 == 0:
        trash.restore(store, trash.delete(store, ref)["undo"])
    trash.delete_now(store, ref)
    os.write(1, ("%s\n" % ref).encode())
    if n % 4 == 3:
        store.compact()
"""


def _build(home: Path) -> list[str]:
    """Twelve documents: two versions each, and pairs that share their original's blob."""
    names = ["partei", "latin1", "ordnung", "peptalks", "erfurt", "modabot"]
    with ArchiveStore.open(home, fsync=False) as store:
        for n in range(12):
            url, body = page(names[n % len(names)])
            url = f"{url}?copy={n // len(names)}"  # same bytes under two URLs: shared blobs
            for v in range(2):
                extra = b"<p>version %d</p></body>" % v
                capture = Capture(url, body.replace(b"</body>", extra, 1))
                register(store, capture, RegisterOptions(now=T0 + timedelta(minutes=n * 10 + v)))
        refs = [store.ids_of_key(k)[0] for k in list(store.keys())[:4]]  # single versions
        return refs + [store.raw("versions")[i]["url"] for i in store.ids[-16:][::2]]


def _check(home: Path, refs: list[str], acked: set[str]) -> set[str]:
    """Every version whole or gone; every referenced blob readable; the acked deletes gone."""
    with ArchiveStore.open(home) as store:
        for reg_id in store.ids:
            doc = store.version(reg_id)
            fp, text = (
                store.row("fingerprints", reg_id)["fp"],
                store.row("extracts", reg_id)["text"],
            )
            for name in (doc["orig"], doc["rewritten"], fp, text):
                store.get_blob(name)  # NotFound: a blob lost while a version names it
            get(store, reg_id)
        for table in ("fingerprints@", "extracts@", "refs@"):
            for shard in range(64):
                rows = store.storage.table(f"{table}{shard:02d}")
                assert set(rows) <= set(store.ids), "a row outlived its version"
        gone = {ref for ref in refs if not _present(store, ref)}
        assert acked <= gone, "an acknowledged delete came back"
        trash.purge(store, now=time.time() + 3600, grace_s=0)
        assert {n for n, _ in store.blob_names()} == trash.referenced_blobs(store)
        return gone


def _present(store: ArchiveStore, ref: str) -> bool:
    try:
        trash.targets(store, ref)
    except Exception:
        return False
    return True


def _round(home: Path, refs: list[str], rng: random.Random) -> set[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(home), *refs], stdout=subprocess.PIPE, env=env, cwd=ROOT
    )
    try:
        assert proc.stdout.readline() == b"open\n"
        time.sleep(rng.random() * 1.2)
    finally:
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate()
    return {line.decode() for line in rest.splitlines() if line.strip()}


def test_kill_anywhere_in_delete_and_reclaim(tmp_path):
    home, rng = tmp_path / "home", random.Random(16)
    refs, acked, started = _build(home), set(), time.monotonic()
    for _ in range(ROUNDS):
        todo = [r for r in refs if r not in acked]
        if not todo or time.monotonic() - started > BUDGET_S:
            break
        acked |= _round(home, todo, rng)
        acked |= _check(home, refs, acked)  # committed before the kill, not yet printed
    assert acked, "no delete finished in any round: the kills came too early"
