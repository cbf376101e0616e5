"""Benchmark: the host's half of "Archive this page": capture_begin, every capture_part (base64,
out of order, as the daemon hands them over), capture_commit, on real files in a fresh home.

Run: ``.venv/bin/python tests/bench/bench_capture_host.py``. Two pages of random bytes labelled
image/png: 100 resources of 50 KiB (5 MB, the issue's capture-time page; median of 3) and 300
resources / 150 MB (the issue's large page: 296 of 400 KiB, four of 9 MiB in two 8 MiB parts;
once). Prints wall and CPU time (time.process_time) and the load. Baseline in the same run, for
the 5 MB page: the same bytes stored the way the host did before blob batches, each part and
then each blob written durably on its own (temp file, fsync, rename, fsync of the folder): the
I/O the handlers replaced, without their protocol work.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine.archive.storage import write_atomic  # noqa: E402
from host.daemon.app import App, Config  # noqa: E402
from tests.host.handlers.test_capture import big_page, digest, send_page  # noqa: E402

RUNS = 3


def timed(fn) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def through_handlers(count: int, small: int, large: int) -> tuple[float, float, dict]:
    home = Path(tempfile.mkdtemp(prefix="pk-bench-host-"))
    app = App(home, Config(port=47999))
    sizes, piece = big_page(count, small, large, 8 << 20)
    try:
        wall, cpu, (_, done) = timed(lambda: send_page(app, sizes, piece, "https://big.test/"))
    finally:
        app.store.close()
        shutil.rmtree(home, ignore_errors=True)
    return wall, cpu, done["resources"]


def one_file_at_a_time(count: int, size: int) -> tuple[float, float]:
    """The baseline: each part, then each blob, written durably one after another."""
    home = Path(tempfile.mkdtemp(prefix="pk-bench-host-base-"))
    sizes, piece = big_page(count, size, size, 8 << 20)

    def run() -> None:
        for n, length in enumerate(sizes):
            data = piece(n, 0, length)
            (home / "parts" / str(n)).mkdir(parents=True)
            write_atomic(home / "parts" / str(n) / "0", data)
            name = digest(data)
            (home / "blobs" / name[:2]).mkdir(parents=True, exist_ok=True)
            write_atomic(home / "blobs" / name[:2] / name[2:], zlib.compress(data, 1))

    try:
        wall, cpu, _ = timed(run)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return wall, cpu


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> int:
    small = [through_handlers(100, 50 << 10, 50 << 10) for _ in range(RUNS)]
    base = [one_file_at_a_time(100, 50 << 10) for _ in range(RUNS)]
    wall, cpu = statistics.median(r[0] for r in small), statistics.median(r[1] for r in small)
    base_wall = statistics.median(r[0] for r in base)
    base_cpu = statistics.median(r[1] for r in base)
    print(
        f"100 resources / 5 MB, host handlers: wall {wall:.3f} s, CPU {cpu:.3f} s (median of "
        f"{RUNS}; {small[0][2]['stored']} stored)  | baseline, one durable file at a time: "
        f"wall {base_wall:.3f} s, CPU {base_cpu:.3f} s (ours / baseline = {wall / base_wall:.2f})"
        f"  load {load()}"
    )
    wall, cpu, got = through_handlers(300, 400 << 10, 9 << 20)
    print(
        f"300 resources / {got['bytes_total'] / 1e6:.0f} MB, host handlers: wall {wall:.2f} s, "
        f"CPU {cpu:.2f} s; stored {got['stored']}, missing {got['missing']}  load {load()}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
