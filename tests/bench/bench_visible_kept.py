"""Benchmark: the visible text of versions stored before it was kept, read by repeated checks
(a liveness sweep's ``_stored``, a viewer diff's ``body_text``: ``provider.visible_text_of``),
beside the old path (the original page read and parsed at every check) in the same run.

Then the start job that keeps every older version's text and indexes it again
(host/daemon/jobs.py: ``keep_visible_texts``): a step of the migration, and the full-text
index's pass over every row (``reindex_sources_pass``), which the daemon runs at every start.

Run: ``.venv/bin/python tests/bench/bench_visible_kept.py [--checks 10] [--rows 20000]``.

Data: the real saved pages of tests/fixtures/pages, each registered, then its visible text
dropped (row and blob) as a version stored before it was kept. Each page is checked
``--checks`` times both ways, the two ways alternating page by page; CPU time of the thread.
A page that shows no text (an application shell: script and style, an empty mount point) the same way: before, it was parsed at every
check. The pass: ``--rows`` versions written straight into a store (rows and text blobs, no
parsing) and indexed, none of them stale (the pass's cost at every start once the
migration is done), in steps of ``RECONCILE_ROWS``.
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
from engine.archive.model import Capture, make_id  # noqa: E402
from engine.archive.registry import register  # noqa: E402
from engine.archive.store import ArchiveStore  # noqa: E402
from host.daemon.jobs import VISIBLE_STEP  # noqa: E402
from host.services import fulltext  # noqa: E402

BLANK = (  # an application shell: 120 KB of script and style, an empty mount point
    b"<html><head><title>App</title><style>"
    + b".c{color:red}" * 2000
    + b"</style></head><body><div id=root>"
    + b"<div class=slot></div>" * 500
    + b"</div><script>"
    + b"render(state);" * 7000
    + b"</script></body></html>"
)

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
    if old:  # the old path: nothing kept (an empty text was never kept)
        provider.keep_visible_text = lambda *_args: None
    try:
        found = []
        for _ in range(count):
            cpu = time.thread_time()
            provider.visible_text_of(store, reg_id)
            found.append((time.thread_time() - cpu) * 1000)
        return found
    finally:
        provider.keep_visible_text = keep


def blank_checks(store: ArchiveStore, count: int) -> None:
    """A page that shows no text: parsed at every check before, kept as "" now."""
    reg_id = register(store, Capture("https://bench.example/blank", BLANK)).id
    store.update("extracts", reg_id, {"visible_text": None})  # as stored before
    before = checks(store, reg_id, count, old=True)
    now = checks(store, reg_id, count, old=False)
    print(
        f"a page that shows no text, {count} checks: before median {statistics.median(before):.3f}"
        f" ms CPU a check (parsed each time); now first {now[0]:.3f}, later median "
        f"{statistics.median(now[1:]):.3f} ms CPU"
    )


def migration(store: ArchiveStore, ids: list[str]) -> None:
    """The start job's store steps over the real pages (each back to an old version)."""
    for reg_id in ids:
        forget(store, reg_id)
    cpu, wall = [], []
    for at in range(0, len(ids), VISIBLE_STEP):
        started, clock = time.thread_time(), time.perf_counter()
        provider.keep_all_visible_texts(store, ids[at : at + VISIBLE_STEP])
        cpu.append((time.thread_time() - started) * 1000)
        wall.append((time.perf_counter() - clock) * 1000)
    print(
        f"migration: {len(ids)} versions in {len(cpu)} step(s) of up to {VISIBLE_STEP}: "
        f"{sum(cpu) / len(ids):.2f} ms CPU, {sum(wall) / len(ids):.2f} ms wall a version "
        f"(longest step {max(cpu):.1f} ms CPU, {max(wall):.1f} ms wall; blobs fsynced)"
    )


def written(store: ArchiveStore, rows: int) -> list[str]:
    """``rows`` versions straight into the store: a version row and an extracts row naming
    a main text and a visible text blob (40 words each), 1,000 a transaction."""
    ids, last = [], store.last_id()
    for start in range(0, rows, 1000):
        with store.transaction():
            for n in range(start, min(rows, start + 1000)):
                last = make_id(1.7e9 + n, last)
                words = " ".join(f"w{(n * 7 + k) % 5000}" for k in range(40))
                text, seen = store.put_blob(words.encode()), store.put_blob(f"T\n{words}".encode())
                host = f"h{n % 500}.example"
                doc = {"url": f"https://{host}/{n}", "key": f"{host}/{n}", "host": host, "ts": 0}
                store.add_version(last, {**doc, "title": "T"})
                store.update("extracts", last, {"text": text, "visible_text": seen})
                ids.append(last)
    return ids


def index_pass(home: Path, rows: int) -> None:
    """The index's pass over every row with nothing to index again (every start)."""
    with ArchiveStore.open(home / "pass") as store:
        written(store, rows)
        index = fulltext.FullTextIndex(home / "pass.sqlite3")
        index.sync(store)
        cpu, wall, after = [], [], -1
        while after is not None:
            started, clock = time.thread_time(), time.perf_counter()
            after = index.reindex_sources_pass(store, after)
            cpu.append((time.thread_time() - started) * 1000)
            wall.append((time.perf_counter() - clock) * 1000)
        index.close()
    print(
        f"index pass over {rows:,} rows (none stale): {len(cpu)} steps of "
        f"{fulltext.RECONCILE_ROWS:,} rows, {sum(cpu):.0f} ms CPU in all, longest step "
        f"{max(cpu):.1f} ms CPU / {max(wall):.1f} ms wall"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=10)
    parser.add_argument("--rows", type=int, default=20_000)
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
        blank_checks(store, args.checks)
        migration(store, ids)
    with tempfile.TemporaryDirectory() as tmp:
        index_pass(Path(tmp), args.rows)
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()
