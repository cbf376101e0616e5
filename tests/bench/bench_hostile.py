"""Benchmark: hostile pages archived through a real daemon (peak memory, time, ping latency).

Run: ``.venv/bin/python tests/bench/bench_hostile.py``. Each page is sent as one
``archive_page`` over the daemon's websocket; meanwhile a second connection pings every
20 ms. Printed per page: the registration's wall time, the daemon's peak RSS while it
ran (``VmHWM`` after resetting it through ``/proc/<pid>/clear_refs``, Linux), the worst
and median ping round trip, and the ratios to the baseline measured in the same run: a
real 1 MB page (tests/fixtures/pages, the one bench_archive.py registers).

Goals: no page under the 50 MB cap needs more than 1.5 GB or 20 s; a ping is answered
within 100 ms while any of them is archived.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from websockets.sync.client import connect  # noqa: E402

from tests.bench.bench_archive import BIG_PAGE, load  # noqa: E402
from tests.host.daemon_fixtures import make_home, pk, stop_daemon, token_of  # noqa: E402

PAGES = {
    "1M elements, 8 MB": lambda: "<body>" + "<b>x</b>" * 1_000_000,
    "6M elements, 48 MB": lambda: "<body>" + "<p>a</p>" * 6_000_000,
    "200k levels, 2.2 MB": lambda: "<body>" + "<div>" * 200_000 + "x" + "</div>" * 200_000,
    "500k links at the limits, 6 MB": lambda: (
        "<title>Links</title>"
        + "".join(f'<div><a href="/p{n % 5000}">item {n}</a></div>' for n in range(250_000))
    ),
}


def peak_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def reset_peak(pid: int) -> None:
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # resets VmHWM (Linux 4.0+)


def children(pid: int) -> list[int]:
    """The daemon's child processes (its page-analysis worker)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(p) for p in (task / "children").read_text().split()]
    return found


def worker_peak_kb(pid: int) -> int:
    return max((peak_kb(child) for child in children(pid)), default=0)


def pinger(url: str, stop: threading.Event, rounds: list[float]) -> None:
    with connect(url) as ws:
        n = 0
        while not stop.is_set():
            n += 1
            started = time.perf_counter()
            ws.send(json.dumps({"id": n, "type": "ping", "params": {}}))
            ws.recv(timeout=60)
            rounds.append(time.perf_counter() - started)
            time.sleep(0.02)


def pinged(url: str, request: dict) -> tuple[dict, float, list[float]]:
    """Send ``request`` while another connection pings: (reply, seconds, ping round trips)."""
    rounds: list[float] = []
    stop = threading.Event()
    ping = threading.Thread(target=pinger, args=(url, stop, rounds))
    ping.start()
    time.sleep(0.2)
    started = time.perf_counter()
    with connect(url, max_size=None) as ws:
        ws.send(json.dumps(request))
        reply = json.loads(ws.recv(timeout=600))
    seconds = time.perf_counter() - started
    stop.set()
    ping.join()
    return reply, seconds, rounds


def archive(url: str, pid: int, name: str, html: str) -> dict:
    # The same bytes in a ping (ignored params): what receiving and decoding them costs alone.
    _, _, transfer = pinged(url, {"id": 1, "type": "ping", "params": {"pad": html}})
    reset_peak(pid)
    for child in children(pid):
        reset_peak(child)
    base = peak_kb(pid)
    request = {"id": 1, "type": "archive_page", "params": {"url": name, "html": html}}
    reply, seconds, rounds = pinged(url, request)
    result = reply.get("result") or {}
    return {
        "transfer_ping_max_ms": max(transfer) * 1000 if transfer else float("nan"),
        "seconds": seconds,
        "peak_mb": peak_kb(pid) / 1024,
        "worker_mb": worker_peak_kb(pid) / 1024,
        "grew_mb": (peak_kb(pid) - base) / 1024,
        "ping_max_ms": max(rounds) * 1000 if rounds else float("nan"),
        "ping_p50_ms": statistics.median(rounds) * 1000 if rounds else float("nan"),
        "note": result.get("note") if reply.get("ok") else reply.get("error"),
    }


def show(label: str, got: dict, base: dict | None) -> None:
    ratio = (
        f"  (x{got['seconds'] / base['seconds']:.1f} time, x{got['peak_mb'] / base['peak_mb']:.1f}"
        " peak vs the 1 MB page)"
        if base
        else ""
    )
    print(
        f"  {label}: {got['seconds']:.2f} s, daemon peak RSS {got['peak_mb']:.0f} MB "
        f"(+{got['grew_mb']:.0f}), its analysis worker {got['worker_mb']:.0f} MB, ping max {got['ping_max_ms']:.1f} ms / "
        f"median {got['ping_p50_ms']:.1f} ms{ratio}"
    )
    print(
        f"      ping max while the same bytes only arrive (a padded ping): "
        f"{got['transfer_ping_max_ms']:.1f} ms"
    )
    if got["note"]:
        print(f"      note: {got['note']}")


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    home = make_home(tmp)
    state = json.loads(pk(home, "serve", "--detach", "--json").stdout)
    url = f"ws://127.0.0.1:{state['port']}/ws?token={token_of(home)}"
    pid = state["pid"]
    try:
        plain = load(BIG_PAGE).decode("utf-8", "replace")
        archive(url, pid, "https://warm.example/", "<p>warm</p>")  # one-time imports
        print("== hostile pages through a real daemon (goal: <= 1.5 GB, <= 20 s, ping <= 100 ms)")
        base = archive(url, pid, "https://plain.example/", plain)
        show(f"baseline: a real {len(plain.encode()):,}-byte page", base, None)
        worst = {"seconds": 0.0, "peak_mb": 0.0, "worker_mb": 0.0, "ping_max_ms": 0.0}
        for n, (label, build) in enumerate(PAGES.items()):
            got = archive(url, pid, f"https://hostile.example/{n}", build())
            show(label, got, base)
            worst = {key: max(worst[key], got[key]) for key in worst}
        print(
            f"  worst: {worst['seconds']:.2f} s, {worst['peak_mb']:.0f} MB daemon + "
            f"{worst['worker_mb']:.0f} MB worker, ping "
            f"{worst['ping_max_ms']:.1f} ms -> "
            + (
                "within the goals"
                if worst["seconds"] <= 20
                and worst["peak_mb"] <= 1536
                and worst["ping_max_ms"] <= 100
                else "OVER a goal"
            )
        )
    finally:
        stop_daemon(home)
        subprocess.run(["rm", "-rf", str(tmp)], check=False)


if __name__ == "__main__":
    main()
