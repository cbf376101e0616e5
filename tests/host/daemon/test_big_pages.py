"""A big page is analysed off the store thread: a real daemon keeps answering pings and
store reads while it parses one (generated pages; the full 6M-element and 200k-level
pages are in tests/bench/bench_hostile.py)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
import time
import timeit

from websockets.sync.client import connect

from tests.conftest import static_site
from tests.host.daemon_fixtures import token_of

# ~500k elements, 6 MB: within the limits, so it is parsed, fingerprinted and rewritten.
BIG = "<title>Big</title>" + "".join(
    f'<div><a href="/p{n % 5000}">item {n}</a></div>' for n in range(250_000)
)
DEEP = "<html><body>" + "<div>" * 200_000 + "deep" + "</div>" * 200_000


def call(ws, type_: str, params: dict, id_: int = 1) -> dict:
    ws.send(json.dumps({"id": id_, "type": type_, "params": params}))
    return json.loads(ws.recv(timeout=300))


def test_store_reads_are_answered_while_a_big_page_is_analysed(daemon, home):
    url = f"ws://127.0.0.1:{daemon['port']}/ws?token={token_of(home)}"
    done = {}

    def archive() -> None:
        with connect(url, max_size=None) as ws:
            done["reply"] = call(ws, "archive_page", {"url": "https://big.example/", "html": BIG})
            done["at"] = time.monotonic()

    worker = threading.Thread(target=archive)
    worker.start()
    with connect(url) as ws:
        time.sleep(0.5)  # the big page is in analysis by now
        answered = []
        for n in range(5):
            ping = call(ws, "ping", {}, n)
            read = call(ws, "versions", {"url": "https://other.example/"}, 100 + n)
            assert ping["ok"] and read["ok"], (ping, read)
            answered.append(time.monotonic())
    worker.join(timeout=300)
    assert done["reply"]["ok"], done["reply"]
    # Parsed, fingerprinted and rewritten (only the text extraction is past its limit).
    assert done["reply"]["result"]["note"].startswith("text not extracted"), done["reply"]
    # Every store read came back before the page's registration did: nothing waited behind it.
    assert max(answered) < done["at"]


def test_store_reads_are_answered_while_a_big_scheduled_page_is_analysed(daemon, home, tmp_path):
    """A schedule registers by the same off-store path as archive_page."""
    (tmp_path / "big.html").write_text(BIG)
    url = f"ws://127.0.0.1:{daemon['port']}/ws?token={token_of(home)}"
    done = {}
    with static_site(tmp_path) as site, connect(url) as ws:
        page = f"{site}/big.html"
        assert call(ws, "schedule_add", {"url": page, "every": "daily"})["ok"]

        def run_due() -> None:
            with connect(url) as runner:
                done["reply"] = call(runner, "schedule_run_due", {})
                done["at"] = time.monotonic()

        worker = threading.Thread(target=run_due)
        worker.start()
        time.sleep(0.5)  # fetched, and in analysis by now
        answered = []
        for n in range(5):
            read = call(ws, "versions", {"url": "https://other.example/"}, 100 + n)
            assert read["ok"], read
            answered.append(time.monotonic())
        worker.join(timeout=300)
    assert done["reply"]["ok"], done["reply"]
    [run] = done["reply"]["result"]["done"]
    assert run["url"] == page and run["id"] and not run["skipped"], run
    # Every store read came back before the scheduled registration did.
    assert max(answered) < done["at"]


def test_a_page_nested_200k_levels_is_kept_with_a_note(daemon, home):
    url = f"ws://127.0.0.1:{daemon['port']}/ws?token={token_of(home)}"
    with connect(url, max_size=None) as ws:
        reply = call(ws, "archive_page", {"url": "https://deep.example/", "html": DEEP})
    assert reply["ok"], reply
    assert reply["result"]["note"] == "not analysed: nested more than 4096 levels deep"


def ping_rounds(url: str, stop: threading.Event, rounds: list[float]) -> None:
    """Ping back to back until ``stop``, noting each round trip."""
    with connect(url) as ws:
        for n in itertools.count():
            if stop.is_set():
                return
            started = time.perf_counter()
            assert call(ws, "ping", {}, n)["ok"]
            rounds.append(time.perf_counter() - started)


# Sends the big message twice from its own process: a sender in this process would
# stall the pinger thread on the GIL while it masks 20 MB.
SEND_BIG = """
import json, sys
from websockets.sync.client import connect
message = sys.stdin.read()
with connect(sys.argv[1], max_size=None) as ws:
    for _ in range(2):
        ws.send(message)
        assert json.loads(ws.recv(timeout=120))["ok"]
"""


def test_a_big_message_is_decoded_off_the_event_loop(daemon, home):
    """A 15 MB message's JSON is parsed in the worker process: pings on another connection
    are answered in much less than parsing it takes (measured here, on the same bytes).
    Numbers make parsing slow (~40 ms per MB), far above receiving the same bytes."""
    message = json.dumps({"id": 1, "type": "ping", "params": {"pad": [0.5] * 3_000_000}})
    decode_s = min(timeit.repeat(lambda: json.loads(message), number=1, repeat=3))
    url = f"ws://127.0.0.1:{daemon['port']}/ws?token={token_of(home)}"
    stop, rounds = threading.Event(), []
    pinger = threading.Thread(target=ping_rounds, args=(url, stop, rounds))
    pinger.start()
    time.sleep(0.2)
    sent = subprocess.run(
        [sys.executable, "-c", SEND_BIG, url], input=message, text=True, timeout=120, check=False
    )
    stop.set()
    pinger.join(timeout=30)
    assert sent.returncode == 0
    assert len(rounds) > 10, rounds
    assert max(rounds) < decode_s / 2, (max(rounds), decode_s)
