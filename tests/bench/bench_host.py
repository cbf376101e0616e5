"""Host benchmarks: nav_error round trip, native host cold start, daemon start.

Run: .venv/bin/python tests/bench/bench_host.py [--rounds N]

1. ``nav_error`` through a real ``pagekeeper native`` process → daemon (/ws) → engine, warm:
   p50/p99 (goal p99 <= 20 ms). Baselines in the same run: the engine alone (the same
   Suggester call in-process) and ``ping`` through the same path (transport only),
   alternating with ``nav_error`` so both see the same load.
2. Native host cold start: spawn → first ``ping`` reply, daemon already running (goal <= 300 ms),
   both ``python -m host.native.relay`` (what the installed launcher runs) and ``pagekeeper native``
   (the full CLI), and the single-file binary ``dist/pagekeeper`` when ``make dist`` has built
   it (a one-file binary unpacks itself on every start). Baseline: a bare ``python -c pass``.
3. Daemon start: ``pagekeeper serve --detach`` until it answers, 100k dictionary loaded
   (goal <= 1.5 s). Baseline: ``python -c "import host.cli.entry"``.

The machine is shared: figures are noisy; the load average is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine.urls.suggest import Suggester, SuggestRequest  # noqa: E402

PY = sys.executable
TYPOS = [
    "http://gooogle.com/",
    "https://wikipedai.org/wiki/Python",
    "http://amazon.cmo/",
    "http://www.youtub.com/watch",
    "http://facebok.com/",
    "https://githb.com/user/repo",
    "http://wwwreddit.com/r/python",
    "http://stackoverflowcom/questions",
    "http://bbc.co.ukk/news",
    "https://mozila.org/firefox",
]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def frame(obj) -> bytes:
    body = json.dumps(obj).encode()
    return struct.pack("=I", len(body)) + body


def read_reply(stream) -> dict:
    (length,) = struct.unpack("=I", stream.read(4))
    return json.loads(stream.read(length))


def native(home: Path, argv: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        argv + ["--home", str(home)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT
    )


def round_trips(proc, make, rounds: int) -> list[float]:
    return [one_trip(proc, make(n)) for n in range(rounds)]


def one_trip(proc, obj: dict) -> float:
    """One request through the native host; its round trip in ms."""
    start = time.perf_counter()
    proc.stdin.write(frame(obj))
    proc.stdin.flush()
    reply = read_reply(proc.stdout)
    assert reply.get("ok"), reply
    return (time.perf_counter() - start) * 1000


def bench_nav_error(home: Path, rounds: int) -> None:
    proc = native(home, [PY, "-m", "host.native.relay"])
    nav = lambda n: {  # noqa: E731
        "id": n,
        "type": "nav_error",
        "params": {"url": TYPOS[n % len(TYPOS)], "kind": "dns", "languages": ["en-US"]},
    }
    round_trips(proc, nav, 30)  # warm-up
    # nav_error and ping alternate, so both feel the same bursts of load from the shared
    # machine; a tail both share is the machine's, not the engine's.
    times, pings = [], []
    for n in range(rounds):
        times.append(one_trip(proc, nav(n)))
        pings.append(one_trip(proc, {"id": n, "type": "ping"}))
    proc.stdin.close()
    proc.wait(timeout=30)

    suggester = Suggester.bundled()
    engine = []
    for n in range(rounds):
        start = time.perf_counter()
        suggester.suggest(SuggestRequest(TYPOS[n % len(TYPOS)], "dns", languages=("en-US",)))
        engine.append((time.perf_counter() - start) * 1000)
    p99 = pct(times, 99)
    print(
        f"nav_error via native→daemon→engine: p50 {pct(times, 50):.2f} ms, p99 {p99:.2f} ms "
        f"(goal p99 <= 20 ms: {'met' if p99 <= 20 else 'NOT met'}), n={rounds}"
    )
    print(
        f"  baseline engine alone (in-process suggest): p50 {pct(engine, 50):.2f} ms, p99 {pct(engine, 99):.2f} ms"
    )
    print(
        f"  baseline ping through the same path:        p50 {pct(pings, 50):.2f} ms, p99 {pct(pings, 99):.2f} ms"
    )
    print(
        f"  ratio nav_error/engine p50: {pct(times, 50) / max(pct(engine, 50), 1e-6):.1f}x; "
        f"transport share of p50: {pct(pings, 50) / pct(times, 50):.0%}"
    )
    print(
        f"  rounds over 20 ms: nav_error {sum(t > 20 for t in times)}, "
        f"the ping right after it {sum(t > 20 for t in pings)} (of {rounds} each)"
    )


def cold_start(home: Path, argv: list[str]) -> float:
    start = time.perf_counter()
    proc = native(home, argv)
    proc.stdin.write(frame({"id": 1, "type": "ping"}))
    proc.stdin.flush()
    reply = read_reply(proc.stdout)
    elapsed = (time.perf_counter() - start) * 1000
    assert reply["ok"], reply
    proc.stdin.close()
    proc.wait(timeout=30)
    return elapsed


def bare(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, cwd=ROOT)
    return (time.perf_counter() - start) * 1000


def bench_cold_start(home: Path, runs: int = 10) -> None:
    relay = [cold_start(home, [PY, "-m", "host.native.relay"]) for _ in range(runs)]
    cli = [cold_start(home, [PY, "-m", "host.cli", "native"]) for _ in range(runs)]
    base = [bare([PY, "-c", "pass"]) for _ in range(runs)]
    med = statistics.median(relay)
    print(
        f"native host cold start to first ping reply (python -m host.native.relay, the launcher's): "
        f"median {med:.0f} ms, max {max(relay):.0f} ms (goal <= 300 ms: {'met' if med <= 300 else 'NOT met'})"
    )
    print(f"  via the full CLI (pagekeeper native): median {statistics.median(cli):.0f} ms")
    binary = ROOT / "dist" / ("pagekeeper.exe" if os.name == "nt" else "pagekeeper")
    if binary.is_file():
        frozen = statistics.median(
            [cold_start(home, [str(binary), "chrome-extension://bench/"]) for _ in range(runs)]
        )
        print(
            f"  via the single-file binary (dist/pagekeeper, as a browser starts it): median "
            f"{frozen:.0f} ms (goal <= 300 ms: {'met' if frozen <= 300 else 'NOT met'}); "
            f"{frozen / med:.1f}x the launcher's"
        )
    else:
        print("  single-file binary: not built (make dist), not measured")
    print(
        f"  baseline bare python start: median {statistics.median(base):.0f} ms; "
        f"ratio {med / statistics.median(base):.1f}x"
    )


def daemon_start(home: Path) -> float:
    start = time.perf_counter()
    out = subprocess.run(
        [PY, "-m", "host.cli", "serve", "--detach", "--json", "--home", str(home)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    elapsed = (time.perf_counter() - start) * 1000
    assert json.loads(out.stdout)["running"]
    subprocess.run(
        [PY, "-m", "host.cli", "stop", "--home", str(home)], capture_output=True, cwd=ROOT
    )
    return elapsed


def bench_daemon_start(tmp: Path, runs: int = 3) -> None:
    home = tmp / "start"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"port": 0}))
    first = daemon_start(home)  # builds the dictionary index and caches it in the home
    times = [daemon_start(home) for _ in range(runs)]
    base = [bare([PY, "-c", "import host.cli.entry"]) for _ in range(runs)]
    med = statistics.median(times)
    print(
        f"daemon start (serve --detach until ready; 100k dictionary + store warm): median {med:.0f} ms, "
        f"max {max(times):.0f} ms (goal <= 1500 ms: {'met' if med <= 1500 else 'NOT met'})"
    )
    print(f"  first start in a new home (builds and caches the dictionary index): {first:.0f} ms")
    print(
        f"  baseline python -c 'import host.cli.entry': median {statistics.median(base):.0f} ms; "
        f"ratio {med / statistics.median(base):.1f}x"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=500)
    args = parser.parse_args()
    print(
        f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores"
    )
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        (home / "config.json").write_text(json.dumps({"port": 0}))
        try:
            bench_nav_error(home, args.rounds)
            bench_cold_start(home)
        finally:
            subprocess.run(
                [PY, "-m", "host.cli", "stop", "--home", str(home)], capture_output=True, cwd=ROOT
            )
        bench_daemon_start(Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
