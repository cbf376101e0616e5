"""A big page is analysed off the store thread: a real daemon keeps answering pings and
store reads while it parses one (generated pages; the full 6M-element and 200k-level
pages are in tests/bench/bench_hostile.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from websockets.sync.client import connect

from tests.conftest import static_site
from tests.host.daemon_fixtures import make_home, pk, start_daemon, stop_daemon, token_of
from tests.slowdown import scaled

HOOK = Path(__file__).resolve().parent / "decode_hook"

# ~500k elements, 6 MB: within the limits, so it is parsed, fingerprinted and rewritten.
BIG = "<title>Big</title>" + "".join(
    f'<div><a href="/p{n % 5000}">item {n}</a></div>' for n in range(250_000)
)
OTHER = {"url": "https://other.example/"}  # a store read
DEEP = "<html><body>" + "<div>" * 200_000 + "deep" + "</div>" * 200_000


def call(ws, type_: str, params: dict, id_: int = 1, timeout: float = 300) -> dict:
    ws.send(json.dumps({"id": id_, "type": type_, "params": params}))
    return json.loads(ws.recv(timeout=timeout))


@pytest.fixture
def held_home(tmp_path, monkeypatch):
    """A daemon's home whose daemon (and analysis process) runs the decode hook
    (decode_hook/sitecustomize.py); the hook's hold files are ``<home>/parse-hold`` (a big
    message's decoding) and ``<home>/analyse-hold`` (a capture's analysis)."""
    path = make_home(tmp_path)
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(HOOK), os.environ.get("PYTHONPATH")]))
    )
    monkeypatch.setenv("PAGEKEEPER_TEST_PARSE_HOLD", str(path / "parse-hold"))
    monkeypatch.setenv("PAGEKEEPER_TEST_ANALYSE_HOLD", str(path / "analyse-hold"))
    yield path
    stop_daemon(path)


@pytest.fixture
def held_daemon(held_home):
    """A running daemon of ``held_home``: its status dict."""
    return start_daemon(held_home)


def analysis_hold(home):
    """Hold the next analysis (the hook waits while the file exists): the hold file and the
    file the hook writes once the analysis is under way."""
    hold = home / "analyse-hold"
    hold.write_text("held")
    return hold, home / "analyse-hold.entered"


def wait_for(ready, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_store_reads_are_answered_while_a_big_page_is_analysed(held_daemon, held_home):
    """The reads are made while the page's analysis is under way (held there by the test
    hook until they are answered), whatever the machine's load."""
    daemon, home = held_daemon, held_home
    url = f"ws://127.0.0.1:{daemon['port']}/ws?token={token_of(home)}"
    done = {}
    hold, entered = analysis_hold(home)

    def archive() -> None:
        with connect(url, max_size=None) as ws:
            done["reply"] = call(ws, "archive_page", {"url": "https://big.example/", "html": BIG})
            done["at"] = time.monotonic()

    worker = threading.Thread(target=archive)
    worker.start()
    try:
        with connect(url) as ws:
            wait_for(entered.exists, scaled(60))  # the big page is in analysis now
            answered = []
            for n in range(5):
                ping = call(ws, "ping", {}, n, timeout=scaled(30))
                read = call(ws, "versions", OTHER, 100 + n, timeout=scaled(30))
                assert ping["ok"] and read["ok"], (ping, read)
                answered.append(time.monotonic())
        assert "reply" not in done  # answered while the analysis was still under way
        assert int(entered.read_text()) != daemon["pid"]  # in the analysis process
    finally:
        hold.unlink()
    worker.join(timeout=300)
    assert done["reply"]["ok"], done["reply"]
    # Parsed, fingerprinted and rewritten (only the text extraction is past its limit).
    assert done["reply"]["result"]["note"].startswith("text not extracted"), done["reply"]
    # Every store read came back before the page's registration did: nothing waited behind it.
    assert max(answered) < done["at"]


def test_store_reads_are_answered_while_a_big_scheduled_page_is_analysed(
    held_daemon, held_home, tmp_path
):
    """A schedule registers by the same off-store path as archive_page."""
    daemon, home = held_daemon, held_home
    (tmp_path / "big.html").write_text(BIG)
    url = f"ws://127.0.0.1:{daemon['port']}/ws?token={token_of(home)}"
    done = {}
    hold, entered = analysis_hold(home)
    with static_site(tmp_path) as site, connect(url) as ws:
        page = f"{site}/big.html"
        assert call(ws, "schedule_add", {"url": page, "every": "daily"})["ok"]

        def run_due() -> None:
            with connect(url) as runner:
                done["reply"] = call(runner, "schedule_run_due", {})
                done["at"] = time.monotonic()

        worker = threading.Thread(target=run_due)
        worker.start()
        try:
            wait_for(entered.exists, scaled(60))  # fetched, and in analysis now
            answered = []
            for n in range(5):
                read = call(ws, "versions", OTHER, 100 + n, timeout=scaled(30))
                assert read["ok"], read
                answered.append(time.monotonic())
            assert "reply" not in done  # answered while the analysis was still under way
        finally:
            hold.unlink()
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


# Sends the big message from its own process and waits for its reply.
SEND_BIG = """
import json, sys
from websockets.sync.client import connect
message = sys.stdin.read()
with connect(sys.argv[1], max_size=None) as ws:
    ws.send(message)
    assert json.loads(ws.recv(timeout=120))["ok"]
"""


def test_a_big_message_is_decoded_off_the_event_loop(held_home):
    """While a 5 MB message's JSON is being parsed (held there by the test hook, for as long
    as the test likes), the daemon answers pings on another connection: the parse runs in
    the analysis process, never on the event loop (which would stall every connection)."""
    state = json.loads(pk(held_home, "serve", "--detach", "--json").stdout)
    hold, entered = held_home / "parse-hold", held_home / "parse-hold.entered"
    hold.write_text("held")
    message = json.dumps({"id": 1, "type": "ping", "params": {"pad": "x" * (5 << 20)}})
    url = f"ws://127.0.0.1:{state['port']}/ws?token={token_of(held_home)}"
    sender = subprocess.Popen(
        [sys.executable, "-c", SEND_BIG, url], stdin=subprocess.PIPE, text=True
    )
    try:
        sender.stdin.write(message)
        sender.stdin.close()
        wait_for(entered.exists, 60)
        with connect(url) as ws:
            for n in range(3):  # far less than the hook's own 120 s limit
                assert call(ws, "ping", {}, n, timeout=30)["ok"]
        assert sender.poll() is None  # its message is still being parsed
        assert int(entered.read_text()) != state["pid"]  # by another process
    finally:
        hold.unlink()
    assert sender.wait(timeout=120) == 0
