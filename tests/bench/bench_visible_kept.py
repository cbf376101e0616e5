"""Benchmark: the visible text of versions stored before it was kept, read by repeated checks
(a liveness sweep's ``_stored``, a viewer diff's ``body_text``: ``provider.visible_text_of``),
beside the old path (the original page read and parsed at every check) in the same run.

Run: ``.venv/bin/python tests/bench/bench_visible_kept.py [--checks 10]``.

Data: the real saved pages of tests/fixtures/pages, each registered, then its visible text
dropped (row and blob) as a version stored before it was kept. Each page is checked
``--checks`` times both ways, the two ways alternating page by page; CPU time of the thread.
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine.archive import provider  # noqa: E402
from engine.archive.model import Capture  # noqa: E402
from engine.archive.registry import register  # noqa: E402
from engine.archive.store import ArchiveStore  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "pages"


def old_versions(store: ArchiveStore) -> list[str]:
    ids = []
    for n, path in enumerate(sorted(FIXTURES.glob("*.html.gz"))):
        reg = register(
            store, Capture(f"https://bench.example/{n}", gzip.decompress(path.read_bytes()))
        )
        blob = store.row("extracts", reg.id).get("visible_text")
        store.update("extracts", reg.id, {"visible_text": None})
        if blob:
            store._blob_path(blob).unlink()
        ids.append(reg.id)
    return ids


def forget(store: ArchiveStore, reg_id: str) -> None:
    """Back to an old version (between the two ways' runs)."""
    blob = store.row("extracts", reg_id).get("visible_text")
    store.update("extracts", reg_id, {"visible_text": None})
    if blob:
        store._blob_path(blob).unlink()


def checks(store: ArchiveStore, reg_id: str, count: int, old: bool) -> list[float]:
    keep = provider.keep_visible_text
    if old:
        provider.keep_visible_text = lambda *_args: None  # the old path: nothing kept
    try:
        found = []
        for _ in range(count):
            cpu = time.thread_time()
            provider.visible_text_of(store, reg_id)
            found.append((time.thread_time() - cpu) * 1000)
        return found
    finally:
        provider.keep_visible_text = keep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, ArchiveStore.open(Path(tmp)) as store:
        ids = old_versions(store)
        print(f"{len(ids)} real pages, {args.checks} checks each; load {os.getloadavg()}")
        olds, news, firsts = [], [], []
        for reg_id in ids:
            olds += checks(store, reg_id, args.checks, old=True)
            new = checks(store, reg_id, args.checks, old=False)
            firsts.append(new[0])
            news += new[1:]
            forget(store, reg_id)
        print(
            f"old path (parse at every check): median {statistics.median(olds):.2f}, "
            f"mean {statistics.mean(olds):.2f} ms CPU a check"
        )
        print(
            f"kept: first check (parse + keep) median {statistics.median(firsts):.2f} ms CPU; "
            f"later checks median {statistics.median(news):.3f}, mean {statistics.mean(news):.3f}"
            " ms CPU"
        )
        total_old, total_new = sum(olds), sum(firsts) + sum(news)
        print(
            f"{args.checks} checks of every page: {total_old:.0f} -> {total_new:.0f} ms CPU "
            f"(x{total_old / total_new:.1f}); load {os.getloadavg()}"
        )


if __name__ == "__main__":
    main()
