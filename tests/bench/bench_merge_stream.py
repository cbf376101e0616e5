"""Benchmark: FTS5's background merging (host/services/fulltext.py, ``merge``) under a steady
stream of writes, as an import of many pages makes: does merging finish, and how long does a
write wait for the index file's lock, for each ``GIVE_WAY`` (merge steps interrupted in a row
after which the next runs whole), beside the old behaviour (every step interrupted, whatever
came before: ``GIVE_WAY`` infinite) in the same run, from the same starting file.

Run: ``.venv/bin/python tests/bench/bench_merge_stream.py [--rows N] [--gaps 2,10,25]``.

Data: the real main texts (and titles) of ../shared/data/extraction-wide, TUNE split only (the
SHA-1 parity of bench_fulltext.py). The index is filled in ``--segments`` transactions with
FTS5's automerge off (as the daemon leaves it), so a level of segments waits for ``merge``;
each fill transaction one segment (FTS5's ``hashsize`` raised while
filling), so the segments are equals on one level, as captures of one size leave them; the
writes are real pages too, one row each in a transaction of its own, ``--gap`` ms apart
(after the last one ends), each timed from asking for the file's lock to its COMMIT.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench_fulltext import pages, version_text  # noqa: E402

from engine.archive import textquery  # noqa: E402
from host.services import fulltext  # noqa: E402
from host.services.fulltext import FullTextIndex  # noqa: E402

NEVER = 10**9  # GIVE_WAY for the old behaviour: no step ever runs whole


def build(path: Path, chosen: list[dict], rows: int, segments: int, chars: int) -> None:
    index = FullTextIndex(path)
    index.defer_merges()
    for table in ("docs", "pairs"):  # each fill transaction one segment: one level of equals
        index.db.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('hashsize', ?)", (1 << 30,))
    per = rows // segments
    for s in range(segments):
        with index._batch():
            for n in range(s * per, (s + 1) * per):
                title, body = version_text(chosen, n)
                body = body[:chars]
                url = f"https://site{n % 997}.example/a/{n}"
                index.add_row(f"v{n}", url, textquery.index_text(title),
                              textquery.index_text(body), url, None)  # fmt: skip
    for table in ("docs", "pairs"):  # back to FTS5's default (1 MiB) for the stream's writes
        index.db.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('hashsize', ?)", (1 << 20,))
    index.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    index.close()


def segment_count(index: FullTextIndex) -> int:
    """FTS5's segments of both tables (each has rows in its ``_idx`` table)."""
    return sum(
        index.db.execute(f"SELECT count(DISTINCT segid) FROM {t}_idx").fetchone()[0]
        for t in ("docs", "pairs")
    )


def stream(
    path: Path,
    chosen: list[dict],
    give_way: int,
    gap_ms: float,
    limit_s: float,
    first: int,
    chars: int,
) -> dict:
    """Merge to the end (or ``limit_s``) in one thread while another writes every
    ``gap_ms``; the figures."""
    fulltext.GIVE_WAY = give_way
    index = FullTextIndex(path)
    index.defer_checkpoints()
    results: list[str] = []
    step_cpu: list[float] = []
    done = threading.Event()
    original = index._merge_in

    def counted(db, pages_, interrupts):
        cpu = time.thread_time()
        try:
            found = original(db, pages_, interrupts)
        except BaseException:
            found = "error"
            raise
        finally:
            results.append(found)
            step_cpu.append((time.thread_time() - cpu) * 1000)
        return found

    index._merge_in = counted  # type: ignore[method-assign]
    began = time.perf_counter()

    def merging() -> None:
        while not index.merge(1) and time.perf_counter() - began < limit_s:
            pass
        done.set()

    merger = threading.Thread(target=merging)
    merger.start()
    waits: list[float] = []
    write_cpu: list[float] = []
    n = first
    while not done.is_set():
        title, body = version_text(chosen, n)
        body = body[:chars]
        url = f"https://stream.example/{n}"
        asked, cpu = time.perf_counter(), time.thread_time()
        with index._batch():
            got = time.perf_counter()
            index.add_row(f"s{n}", url, textquery.index_text(title),
                          textquery.index_text(body), url, None)  # fmt: skip
        waits.append((got - asked) * 1000)
        write_cpu.append((time.thread_time() - cpu) * 1000)
        n += 1
        time.sleep(gap_ms / 1000)
    merger.join()
    took = time.perf_counter() - began
    finished = _idle(index)
    left = segment_count(index)
    index.close()
    merged = [c for r, c in zip(results, step_cpu, strict=True) if r in ("merged", "idle")]
    return {
        "finished": finished,
        "took": took,
        "steps": len(results),
        "interrupted": results.count("interrupted"),
        "longest": max(merged or [0.0]),
        "writes": len(waits),
        "wait50": statistics.median(waits),
        "wait99": sorted(waits)[int(0.99 * (len(waits) - 1))],
        "waitmax": max(waits),
        "cpu50": statistics.median(write_cpu),
        "segments": left,
    }


def _idle(index: FullTextIndex) -> bool:
    """True when no level holds ``usermerge`` segments any more (a step would find nothing)."""
    with index.merging:
        db = index._merger()
        db.execute("BEGIN IMMEDIATE")
        try:
            return fulltext._merge_step(db, fulltext.STEP_PAGES) == "idle"
        finally:
            db.execute("ROLLBACK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument(
        "--chars", type=int, default=300, help="each row's text cut here (long doclists, cheap)"
    )
    parser.add_argument("--segments", type=int, default=8)
    parser.add_argument("--gaps", default="0,2,10", help="ms between writes, comma-separated")
    parser.add_argument("--give-way", default="1,2,4,8", help="values of GIVE_WAY to compare")
    parser.add_argument("--limit", type=float, default=20.0, help="s per run at most")
    args = parser.parse_args()
    chosen = pages("tune")
    with tempfile.TemporaryDirectory() as tmp:
        start = Path(tmp) / "start.sqlite3"
        cpu = time.process_time()
        build(start, chosen, args.rows, args.segments, args.chars)
        print(
            f"built {args.rows} rows ({args.chars} characters) in {args.segments} segments "
            f"({time.process_time() - cpu:.1f} s CPU); load {os.getloadavg()}"
        )
        print(
            "gap  GIVE_WAY  finished  s wall  steps  interrupted  longest step ms CPU  "
            "writes  wait p50/p99/max ms wall  write p50 ms CPU  segments left"
        )
        for gap in (float(g) for g in args.gaps.split(",")):
            for give_way in [NEVER, *(int(v) for v in args.give_way.split(","))]:
                path = Path(tmp) / "run.sqlite3"
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{path}{suffix}").unlink(missing_ok=True)
                shutil.copy(start, path)
                r = stream(path, chosen, give_way, gap, args.limit, args.rows, args.chars)
                name = "old" if give_way == NEVER else str(give_way)
                print(
                    f"{gap:4.0f}  {name:>8}  {str(r['finished']):>8}  {r['took']:6.1f}"
                    f"  {r['steps']:5d}  {r['interrupted']:11d}  {r['longest']:19.1f}"
                    f"  {r['writes']:6d}  {r['wait50']:6.2f}/{r['wait99']:6.2f}/{r['waitmax']:6.2f}"
                    f"  {r['cpu50']:16.2f}  {r['segments']:13d}   load {os.getloadavg()[0]:.2f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
