"""Benchmark: the suggester's latency in this tree beside another tree's, in one run.

Run: ``.venv/bin/python tests/bench/bench_suggest_ab.py --base DIR [--rounds 3] [--seed 2026]``,
where DIR holds the other tree's ``engine``, ``host`` and ``tests`` (``git archive COMMIT
engine host tests | tar -x -C DIR``).

Each round starts one fresh process per tree, the two trees in turn (the order swapped
every round, so neither always runs first at a given load): each builds the bundled
dictionary's suggester, warms it as the daemon does, and answers the bench's typo cases
of ``--seed`` (bench_suggest.py ``build_cases``, 120 a kind) once, timing each request in
CPU (``thread_time``) and wall time. It prints each run's p50/p99 and, per tree, the
minimum and median over the rounds; and a digest of every answer (URL, step, score,
reason), which must be the same in both trees when a change claims identical outputs.

``--shipped`` (no ``--base``): this tree's pure modules beside this tree as the CLI and the
daemon run it (host/compiled.py ``use_compiled``: the compiled copy of ``make
suggest-compiled``, refused when it is not built from this tree's sources).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import hashlib, json, sys, time
sys.path.insert(0, "tests/bench")
SHIPPED = len(sys.argv) > 2
if SHIPPED:  # as the CLI and the daemon choose, before the engine's first import
    from host.compiled import use_compiled
    assert not use_compiled(), use_compiled()
import bench_suggest as b
from engine.urls.dictionary import DomainDictionary
from engine.urls.suggest import Suggester, SuggestRequest
from host.services.navigation import settle_heap

suggester = Suggester(DomainDictionary.bundled()).warm()
settle_heap()
if SHIPPED:
    from host.compiled import running
    assert running()["build"] == "compiled"
cpu, wall, digest = [], [], hashlib.sha256()
for _kind, _source, url in b.build_cases(b.bundled_domains(), 120, int(sys.argv[1])):
    started, clock = time.thread_time(), time.perf_counter()
    found = suggester.suggest(SuggestRequest(url, "dns"))
    cpu.append(time.thread_time() - started)
    wall.append(time.perf_counter() - clock)
    for s in found:
        digest.update(f"{url}|{s.url}|{s.step}|{s.score!r}|{s.reason}\n".encode())
print(json.dumps({"cpu": cpu, "wall": wall, "digest": digest.hexdigest()}))
"""


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile in milliseconds (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def run_in(tree: Path, child: str, *args: str) -> dict:
    """The last line ``child`` prints, as JSON, run in a fresh process on ``tree``'s code."""
    done = subprocess.run(
        [sys.executable, "-c", child, *args],
        cwd=tree, capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONPATH": str(tree)},
    )  # fmt: skip
    return json.loads(done.stdout.splitlines()[-1])


def run(tree: Path, seed: int, shipped: bool = False) -> dict:
    return run_in(tree, CHILD, str(seed), *(["shipped"] if shipped else []))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, help="the other tree")
    parser.add_argument("--shipped", action="store_true", help="pure beside compiled, this tree")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    if args.shipped == (args.base is not None):
        parser.error("one of --base DIR or --shipped")
    trees = (
        {"pure": ROOT, "shipped": ROOT}
        if args.shipped
        else {"base": args.base.resolve(), "this": ROOT}
    )
    figures: dict[str, list[tuple[float, ...]]] = {name: [] for name in trees}
    digests: dict[str, set[str]] = {name: set() for name in trees}
    for n in range(args.rounds):
        for name in list(trees)[:: 1 if n % 2 == 0 else -1]:
            load = os.getloadavg()[0]
            found = run(trees[name], args.seed, name == "shipped")
            row = (
                pct(found["cpu"], 0.5), pct(found["cpu"], 0.99),
                pct(found["wall"], 0.5), pct(found["wall"], 0.99), pct(found["cpu"], 0.95),
            )  # fmt: skip
            figures[name].append(row)
            digests[name].add(found["digest"])
            print(
                f"round {n + 1} {name}: CPU p50 {row[0]:.3f} p95 {row[4]:.3f} p99 {row[1]:.3f} ms, wall p50 "
                f"{row[2]:.3f} p99 {row[3]:.3f} ms ({len(found['cpu'])} requests, load {load:.1f})"
            )
    for name, rows in figures.items():
        p50s, p99s, p95s = [r[0] for r in rows], [r[1] for r in rows], [r[4] for r in rows]
        print(
            f"{name}: CPU p50 min {min(p50s):.3f} median {statistics.median(p50s):.3f}; CPU p95 "
            f"median {statistics.median(p95s):.3f}; CPU p99 "
            f"min {min(p99s):.3f} median {statistics.median(p99s):.3f} ms; answers "
            f"{'/'.join(d[:12] for d in sorted(digests[name]))}"
        )
    first, second = list(trees)
    same = digests[first] == digests[second] and len(digests[second]) == 1
    print(f"answers identical in both trees: {same}; load {os.getloadavg()}")


if __name__ == "__main__":
    main()
