"""10,000 random frames into a real `pagekeeper native` process (relaying to a real daemon).

No crash; every complete frame gets exactly one typed error; the host still answers ping.
"""

from __future__ import annotations

import json
import os
import random
import signal
import struct
import subprocess
import sys
import threading
import time

from engine.errors import all_codes
from host.protocol.framing import DEFAULT_REQUEST_CAP, REPLY_LIMIT
from tests.host.daemon_fixtures import ROOT, SHARED_CACHE, NativeHost

FRAMES = 10_000
CAP = 4096


def _frame(body: bytes) -> bytes:
    return struct.pack("=I", len(body)) + body


def random_frame(rng: random.Random, n: int) -> tuple[bytes, str | None]:
    """One hostile frame and the id its reply must carry (None: answered with id null)."""
    kind = rng.randrange(9)
    if kind == 0:
        return _frame(rng.randbytes(rng.randrange(0, 300))), None
    if kind == 1:
        return _frame(b"\xff\xfe" + rng.randbytes(rng.randrange(0, 50))), None
    if kind == 2:
        value = rng.choice([[1, 2], "s", 3.5, None, True, [], [{"id": 1}]])
        return _frame(json.dumps(value).encode()), None
    if kind == 3:
        return _frame(json.dumps({"type": "ping", "params": {}}).encode()), None
    if kind == 4:
        return _frame(json.dumps({"id": None, "type": "ping"}).encode()), None
    if kind == 5:
        return _frame(b"x" * (CAP + 1 + rng.randrange(5000))), None
    rid = f"f{n}"
    if kind == 6:
        kind_name = "".join(rng.choice("abcdefgh_") for _ in range(rng.randrange(1, 12)))
        return _frame(json.dumps({"id": rid, "type": "zz" + kind_name}).encode()), rid
    if kind == 7:
        params = {"url": rng.choice([1, None, [], {}, True])}
        return _frame(json.dumps({"id": rid, "type": "versions", "params": params}).encode()), rid
    return _frame(json.dumps({"id": rid, "type": "ping", "params": [1]}).encode()), rid


def test_ten_thousand_random_frames(home):
    (home / "config.json").write_text(
        json.dumps({"port": 0, "cache_dir": str(SHARED_CACHE), "request_cap": CAP})
    )
    rng = random.Random(20261121)
    frames = [random_frame(rng, n) for n in range(FRAMES)]
    host = NativeHost(home, "chrome-extension://iemmkbppohhfaaamfnchoaeokbamlbba/")

    def write_all():
        for data, _ in frames:
            host.send_raw(data)

    writer = threading.Thread(target=write_all, daemon=True)
    writer.start()
    codes = set(all_codes())
    expected_ids = [rid for _, rid in frames if rid is not None]
    seen_ids, null_ids = [], 0
    for _ in range(FRAMES):
        reply = host.recv()
        assert reply["ok"] is False, reply
        assert reply["error"]["code"] in codes, reply
        assert reply["error"]["message"]
        if reply["id"] is None:
            null_ids += 1
        else:
            seen_ids.append(reply["id"])
    writer.join(timeout=30)
    assert sorted(seen_ids) == sorted(expected_ids)
    assert null_ids == FRAMES - len(expected_ids)
    pong = host.call({"id": "last", "type": "ping"})
    assert pong == {"id": "last", "ok": True, "result": {"version": "0.1.0", "protocol": 1}}
    assert host.close() == 0


def test_truncated_stream_ends_cleanly(home):
    host = NativeHost(home)
    assert host.call({"id": 1, "type": "ping"})["ok"]
    host.send_raw(struct.pack("=I", 50) + b'{"id": 2')  # the browser died mid-frame
    assert host.close() == 0


def test_big_reply_is_paged_under_the_browser_limit(home):
    (home / "config.json").write_text(
        json.dumps({"port": 0, "cache_dir": str(SHARED_CACHE), "reply_limit": 4096})
    )
    host = NativeHost(home)
    # emoji, astral-plane letters, CJK, accents and JSON escapes: 1 to 6 bytes a character
    html = "<title>big</title><p>" + 'é✓ 😀🎉 𝔘𝔫𝔦 漢字 "q"\\ \t' * 1500 + "</p>"
    reg = host.call(
        {"id": 1, "type": "archive_page", "params": {"url": "https://e.example/", "html": html}}
    )
    assert reg["ok"], reg
    host.send({"id": 2, "type": "get", "params": {"id": reg["result"]["id"], "original": True}})
    pages, sizes = [], []
    while not pages or len(pages) < pages[0]["pages"]:
        length = struct.unpack("=I", host.proc.stdout.read(4))[0]
        sizes.append(4 + length)  # the whole frame, header included, as split_pages counts it
        pages.append(json.loads(host.proc.stdout.read(length)))
    assert max(sizes) <= 4096, sorted(sizes)[-3:]
    assert pages[0]["pages"] > 1 and all("ok" not in p and p["id"] == 2 for p in pages)
    assert [p["page"] for p in pages] == list(range(len(pages)))
    reply = json.loads("".join(p["chunk"] for p in pages))
    assert reply["ok"] and reply["result"]["html"] == html
    assert host.close() == 0


def test_relay_survives_a_daemon_crash(home):

    host = NativeHost(home)
    assert host.call({"id": 1, "type": "ping"})["ok"]
    first = json.loads((home / "daemon.json").read_text())["pid"]
    os.kill(first, signal.SIGKILL)
    time.sleep(0.3)
    replies = [host.call({"id": n, "type": "ping"}) for n in (2, 3)]
    assert replies[-1]["ok"], replies  # reconnected, to a daemon started afresh
    assert all(r["ok"] or r["error"]["code"] == "unavailable" for r in replies)
    assert json.loads((home / "daemon.json").read_text())["pid"] != first
    assert host.close() == 0


def padded_ping(rid: str, size: int) -> bytes:
    """A ``ping`` frame whose body is exactly ``size`` bytes (the padding is an ignored param)."""
    empty = json.dumps({"id": rid, "type": "ping", "params": {"pad": ""}}).encode()
    body = json.dumps({"id": rid, "type": "ping", "params": {"pad": "x" * (size - len(empty))}})
    assert len(body) == size
    return _frame(body.encode())


def test_default_limits_64_mib_requests_and_1_mib_replies(home):
    """Default config: a request of exactly 64 MiB is relayed and answered, one byte more is
    ``too_large`` (and the stream goes on); a reply over 1 MiB comes paged, each frame <= 1 MiB."""

    assert (DEFAULT_REQUEST_CAP, REPLY_LIMIT) == (64 * 1024 * 1024, 1024 * 1024)
    host = NativeHost(home)
    host.send_raw(padded_ping("at-cap", DEFAULT_REQUEST_CAP))
    assert host.recv() == {
        "id": "at-cap",
        "ok": True,
        "result": {"version": "0.1.0", "protocol": 1},
    }
    host.send_raw(padded_ping("over", DEFAULT_REQUEST_CAP + 1))
    refused = host.recv()
    assert refused["id"] is None and refused["error"]["code"] == "too_large", refused
    assert host.call({"id": "after", "type": "ping"})["ok"]

    html = "<title>big</title><p>" + "paged reply text " * 100_000 + "</p>"  # ~1.7 MB
    reg = host.call(
        {"id": 1, "type": "archive_page", "params": {"url": "https://b.example/", "html": html}}
    )
    assert reg["ok"], reg
    host.send({"id": 2, "type": "get", "params": {"id": reg["result"]["id"], "original": True}})
    pages, sizes = [], []
    while not pages or len(pages) < pages[0]["pages"]:
        head = host.proc.stdout.read(4)
        (length,) = struct.unpack("=I", head)
        sizes.append(length)
        pages.append(json.loads(host.proc.stdout.read(length)))
    assert len(pages) >= 2 and max(sizes) <= REPLY_LIMIT
    assert [p["page"] for p in pages] == list(range(len(pages)))
    assert json.loads("".join(p["chunk"] for p in pages))["result"]["html"] == html
    assert host.close() == 0


def test_ping_and_get_token_through_the_native_host(home):
    host = NativeHost(home, "/path/to/com.pagekeeper.host.json", "pagekeeper@pagekeeper.app")
    assert host.call({"id": 1, "type": "ping"})["result"] == {"version": "0.1.0", "protocol": 1}
    got = host.call({"id": 2, "type": "get_token"})["result"]
    assert got["token"] == (home / "token").read_text().strip()
    assert got["url"] == json.loads((home / "daemon.json").read_text())["url"]
    assert host.close() == 0
    assert "pagekeeper@pagekeeper.app" in (home / "logs" / "native.log").read_text()


def test_stray_output_never_reaches_the_frame_stream():
    """After take_stdout, a print from any library goes to stderr; only frames reach fd 1."""

    code = (
        "import os, sys\n"
        "from host.native.relay import take_stdout\n"
        "out = take_stdout()\n"
        "print('stray print'); sys.stdout.flush(); os.write(1, b'stray fd write\\n')\n"
        "out.write(b'FRAME')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"FRAME"
    assert b"stray print" in done.stderr and b"stray fd write" in done.stderr
