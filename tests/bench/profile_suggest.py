"""Where the suggester's slowest requests spend their time: the slowest 1 % of a seed's typo
cases, by kind, and cProfile's top functions over them (the profile a latency pass starts from).

Run: ``.venv/bin/python tests/bench/profile_suggest.py [--seed 11] [--share 0.01] [--repeat 5]
[--top 25]``.

The bundled dictionary's suggester is built and warmed as the daemon does; every case of
``--seed`` (bench_suggest.py ``build_cases``, 120 a kind; 11 is a tuning seed) is answered
once, timed in CPU (``thread_time``). The slowest ``--share`` are listed with their kind and
CPU ms, then answered ``--repeat`` times more under cProfile (warm) for the top functions by
own time and by cumulative time. The load is printed beside the figures.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

import bench_suggest as bench  # noqa: E402

from engine.urls.dictionary import DomainDictionary  # noqa: E402
from engine.urls.suggest import Suggester, SuggestRequest  # noqa: E402
from host.services.navigation import settle_heap  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--share", type=float, default=0.01)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    suggester = Suggester(DomainDictionary.bundled()).warm()
    settle_heap()
    cases = bench.build_cases(bench.bundled_domains(), 120, args.seed)
    timed = []
    for kind, _source, url in cases:
        started = time.thread_time()
        suggester.suggest(SuggestRequest(url, "dns"))
        timed.append((time.thread_time() - started, kind, url))
    timed.sort(reverse=True)
    slow = timed[: max(1, int(len(timed) * args.share))]
    cpu = sorted(t for t, _, _ in timed)
    print(f"{len(timed)} cases (seed {args.seed}), load {os.getloadavg()[0]:.2f}: CPU p50 "
          f"{cpu[len(cpu) // 2] * 1000:.3f} ms, p99 {cpu[int(0.99 * len(cpu))] * 1000:.3f} ms")  # fmt: skip
    print("slowest by kind:", dict(Counter(kind for _, kind, _ in slow).most_common()))
    for seconds, kind, url in slow:
        print(f"  {seconds * 1000:7.3f} ms  {kind:18} {url}")
    profile = cProfile.Profile()
    for _ in range(args.repeat):
        for _, _, url in slow:
            profile.runcall(suggester.suggest, SuggestRequest(url, "dns"))
    stats = pstats.Stats(profile)
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumulative").print_stats(args.top)
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
