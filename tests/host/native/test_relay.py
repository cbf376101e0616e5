"""The relay's paging (host/native/relay.py): every frame it writes fits the browser's limit, whatever
the text costs per character, and the pages join back into the exact reply."""

from __future__ import annotations

import io
import json
import logging
import queue
import struct
import sys
import threading
import time
from pathlib import Path

import pytest

from engine.errors import Unavailable
from host.daemon import client, pause
from host.home import Home
from host.native import relay as relay_module
from host.native.relay import (
    Relay,
    char_cost,
    limits,
    parse_args,
    run,
    split_pages,
)
from host.protocol.framing import DEFAULT_REQUEST_CAP, REPLY_LIMIT, encode

TEXTS = {
    "emoji": "😀🎉👍🏽🇩🇪" * 3000,
    "astral": "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟙𝟚𝟛 𓀀𓁐 " * 1500,
    "cjk": "漢字かなカナ한국어" * 2000,
    "escapes": '"\\\n\t\x01\x1f\u2028' * 2000,
    "ascii": "plain text, nothing to escape " * 800,
    "mixed": 'a"😀é\\𝔘\x00漢 ' * 2500,
}


def reply_text(text: str) -> str:
    return json.dumps({"id": 9, "ok": True, "result": {"html": text}}, ensure_ascii=False)


@pytest.mark.parametrize("limit", [64, 4096, 65536])
@pytest.mark.parametrize("name", sorted(TEXTS))
def test_every_page_frame_fits_the_limit_and_the_pages_join_back(name, limit):
    text = reply_text(TEXTS[name])
    pages = split_pages(9, text, limit)
    sizes = [len(encode(page)) for page in pages]
    assert max(sizes) <= limit, (name, limit, max(sizes))
    assert "".join(p["chunk"] for p in pages) == text
    assert [p["page"] for p in pages] == list(range(len(pages)))
    assert all(p["pages"] == len(pages) and p["id"] == 9 for p in pages)
    # filled, not halved: every page but the last leaves less room than one character needs
    # beyond the widest page numbers' slack
    slack = 6 + 2 * len(str(len(text) + 1))
    assert all(size > limit - slack for size in sizes[:-1]), (name, limit, min(sizes[:-1] or [0]))


def test_character_costs_are_what_the_frame_spends():
    for char in ("a", "é", "✓", "😀", "𝔘", '"', "\\", "\n", "\x01", "\u2028"):
        framed = len(encode({"c": char})) - len(encode({"c": ""}))
        assert char_cost(char) == framed, char


def test_a_limit_with_no_room_for_text_is_an_error():
    with pytest.raises(ValueError, match="no room"):
        split_pages(9, "x" * 100, 40)


def frames(data: bytes) -> list[bytes]:
    out, pos = [], 0
    while pos < len(data):
        (length,) = struct.unpack("=I", data[pos : pos + 4])
        out.append(data[pos : pos + 4 + length])
        pos += 4 + length
    return out


@pytest.mark.parametrize("name", ["emoji", "astral", "mixed"])
def test_the_relay_writes_no_frame_over_its_limit(tmp_path, name):
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    text = reply_text(TEXTS[name])
    relay.write_reply_text(9, text)
    written = frames(out.getvalue())
    assert len(written) > 1 and max(len(f) for f in written) <= 4096
    pages = [json.loads(f[4:]) for f in written]
    assert json.loads("".join(p["chunk"] for p in pages)) == json.loads(text)
    edge = io.BytesIO()  # a body of 4,093 bytes is 4,097 with its header: paged
    Relay(tmp_path, edge, cap=1 << 20, reply_limit=4096).write_reply_text(2, "x" * 4093)
    assert max(len(f) for f in frames(edge.getvalue())) <= 4096
    small = io.BytesIO()
    Relay(tmp_path, small, cap=1 << 20, reply_limit=4096).write_reply_text(1, '{"id":1}')
    assert small.getvalue() == len(b'{"id":1}').to_bytes(4, sys.byteorder) + b'{"id":1}'


# The relay's rules in this process, with a stand-in for the daemon's websocket: what it
# forwards, what it answers itself, and what it does when the daemon is down or goes away.


class FakeDaemon:
    """A websocket stand-in: records what is sent, hands out queued replies to ``receive``."""

    def __init__(self, fail_sends: int = 0) -> None:
        self.sent: list[str] = []
        self.inbox: queue.Queue = queue.Queue()
        self.closed = False
        self.fail_sends = fail_sends

    def send(self, text: str) -> None:
        if self.fail_sends:
            self.fail_sends -= 1
            raise ConnectionError("the socket is gone")
        self.sent.append(text)

    def answer(self, text: str | bytes | Exception | None) -> None:
        self.inbox.put(text)

    def __iter__(self):
        while (item := self.inbox.get(timeout=10)) is not None:
            if isinstance(item, Exception):
                raise item
            yield item

    def close(self) -> None:
        self.closed = True
        self.inbox.put(None)


@pytest.fixture
def daemons(monkeypatch):
    """Every connection the relay opens, in order; the test may queue more to hand out."""
    made: list[FakeDaemon] = []
    ready: list[FakeDaemon] = []
    started: list[Path] = []

    def ensure_daemon(home):
        started.append(home)
        return {"port": 1, "ready": True}

    def connect(home, state):
        made.append(ready.pop(0) if ready else FakeDaemon())
        return made[-1]

    monkeypatch.setattr(client, "ensure_daemon", ensure_daemon)
    monkeypatch.setattr(client, "connect", connect)
    monkeypatch.setattr(client, "running", lambda home: None)
    monkeypatch.setattr(pause, "paused", lambda home: None)
    return made, ready, started


def native(*bodies: bytes) -> io.BytesIO:
    return io.BytesIO(b"".join(len(b).to_bytes(4, sys.byteorder) + b for b in bodies))


def replies(out: io.BytesIO) -> list[dict]:
    return [json.loads(f[4:]) for f in frames(out.getvalue())]


def until(condition, limit: float = 10.0) -> None:
    end = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.005)


def test_a_good_request_is_forwarded_as_it_came_and_its_reply_written_back(tmp_path, daemons):
    made, _, started = daemons
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    body = b'{"id": "a", "type": "ping", "params": {}}'
    relay.handle_frame(body)
    assert started == [tmp_path] and made[0].sent == [body.decode()]  # the bytes, not re-encoded
    assert relay.pending == {'"a"': "a"}
    made[0].answer('{"id":"a","ok":true,"result":"pong"}')
    until(lambda: not relay.pending)
    until(lambda: out.getvalue())
    assert replies(out) == [{"id": "a", "ok": True, "result": "pong"}]
    relay.handle_frame(b'{"id": 2, "type": "ping"}')  # one connection for every request
    assert len(made) == 1 and len(made[0].sent) == 2


def test_a_reply_in_bytes_is_written_as_its_text(tmp_path, daemons):
    made, _, _ = daemons
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    relay.handle_frame(b'{"id": 1, "type": "ping"}')
    made[0].answer('{"id":1,"ok":true,"result":"é"}'.encode())
    until(lambda: out.getvalue())
    assert replies(out) == [{"id": 1, "ok": True, "result": "é"}]


@pytest.mark.parametrize(
    ("body", "req_id"),
    [
        (b"\xff\xfe", None),  # not UTF-8
        (b"[1]", None),  # not an object
        (b'{"id": 3}', 3),  # no type: answered with its id
        (b'{"id": "x", "type": "ping", "params": [1]}', "x"),
        (b'{"type": "ping"}', None),
    ],
)
def test_a_bad_frame_is_answered_by_the_relay_and_never_reaches_the_daemon(
    tmp_path, daemons, body, req_id
):
    made, _, started = daemons
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    relay.handle_frame(body)
    assert not made and not started and not relay.pending
    [reply] = replies(out)
    assert reply["id"] == req_id and reply["ok"] is False
    assert reply["error"]["code"] in ("bad_request", "decode_error")


def test_a_frame_over_the_cap_is_answered_and_the_next_one_is_read(tmp_path, daemons):
    made, _, _ = daemons
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=40, reply_limit=4096)
    exact = b'{"id": 1, "type": "ping", "params": {}}'.ljust(40)
    assert len(exact) == 40
    stream = native(exact + b" ", exact)  # one byte over the cap, then exactly the cap
    threading.Timer(0.2, lambda: made[0].close()).start()
    relay.run(stream)
    first = replies(out)[0]
    assert first["id"] is None and first["error"]["code"] == "too_large"
    assert made[0].sent == [exact.decode()]


def test_a_stream_cut_inside_a_frame_ends_the_relay_without_an_answer(tmp_path, daemons):
    made, _, _ = daemons
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    relay.run(io.BytesIO((50).to_bytes(4, sys.byteorder) + b'{"id": 1'))
    assert not made and out.getvalue() == b""


def test_when_the_daemon_cannot_be_started_the_request_gets_unavailable(
    tmp_path, daemons, monkeypatch
):
    def down(home):
        raise Unavailable("the daemon did not start")

    monkeypatch.setattr(client, "ensure_daemon", down)
    monkeypatch.setattr(relay_module, "DRAIN_TIMEOUT", 30.0)
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    start = time.monotonic()
    relay.run(native(b'{"id": 5, "type": "ping"}', b'{"id": 6, "type": "ping"}'))
    assert time.monotonic() - start < 10  # nothing left pending: drain does not wait
    assert [(r["id"], r["error"]["code"]) for r in replies(out)] == [
        (5, "unavailable"),
        (6, "unavailable"),
    ]
    assert "did not start" in replies(out)[0]["error"]["message"]


def test_a_send_that_fails_reconnects_once_and_sends_again(tmp_path, daemons):
    made, ready, _ = daemons
    ready.append(FakeDaemon(fail_sends=1))
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    relay.handle_frame(b'{"id": 1, "type": "ping"}')
    assert len(made) == 2 and made[0].sent == [] and made[1].sent == ['{"id": 1, "type": "ping"}']
    assert relay.ws is made[1] and relay.pending == {"1": 1} and out.getvalue() == b""


def test_a_send_that_fails_twice_is_answered_unavailable(tmp_path, daemons):
    made, ready, _ = daemons
    ready.extend([FakeDaemon(fail_sends=1), FakeDaemon(fail_sends=1)])
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    relay.handle_frame(b'{"id": 1, "type": "ping"}')
    assert len(made) == 2 and not relay.pending
    [reply] = replies(out)
    assert reply["id"] == 1 and reply["error"]["code"] == "unavailable"
    assert "cannot reach the daemon: the socket is gone" in reply["error"]["message"]


@pytest.mark.parametrize("how", ["closed", "broken"])
def test_a_lost_daemon_fails_every_request_in_flight_and_the_next_reconnects(
    tmp_path, daemons, how
):
    made, _, _ = daemons
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    relay.handle_frame(b'{"id": "a", "type": "ping"}')
    relay.handle_frame(b'{"id": "b", "type": "ping"}')
    made[0].answer('{"id":"a","ok":true,"result":"pong"}')
    made[0].answer(ConnectionError("reset") if how == "broken" else None)
    until(lambda: len(frames(out.getvalue())) == 2)
    assert [(r["id"], r["ok"]) for r in replies(out)] == [("a", True), ("b", False)]
    assert replies(out)[1]["error"] == {
        "code": "unavailable",
        "message": "the daemon connection was lost",
    }
    assert relay.ws is None and not relay.pending
    relay.handle_frame(b'{"id": "c", "type": "ping"}')
    assert len(made) == 2 and made[1].sent == ['{"id": "c", "type": "ping"}']


def test_a_reply_that_is_not_json_is_dropped_and_the_next_one_delivered(tmp_path, daemons):
    made, _, _ = daemons
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    relay.handle_frame(b'{"id": 1, "type": "ping"}')
    made[0].answer("not json")
    made[0].answer('{"id":1,"ok":true,"result":1}')
    until(lambda: out.getvalue())
    assert replies(out) == [{"id": 1, "ok": True, "result": 1}]


def test_drain_waits_for_the_replies_in_flight_then_closes_the_connection(tmp_path, daemons):
    made, _, _ = daemons
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    threading.Timer(0.3, lambda: made[0].answer('{"id":1,"ok":true,"result":1}')).start()
    relay.run(native(b'{"id": 1, "type": "ping"}'))
    assert replies(out) == [{"id": 1, "ok": True, "result": 1}]  # not cut off at end of input
    assert made[0].closed


def test_drain_gives_up_after_its_timeout(tmp_path, daemons, monkeypatch):
    made, _, _ = daemons
    monkeypatch.setattr(relay_module, "DRAIN_TIMEOUT", 0.2)
    relay = Relay(tmp_path, io.BytesIO(), cap=1 << 20, reply_limit=4096)
    start = time.monotonic()
    relay.run(native(b'{"id": 1, "type": "ping"}'))  # never answered
    assert 0.2 <= time.monotonic() - start < 5 and made[0].closed


def test_a_paused_home_starts_no_daemon(tmp_path, daemons, monkeypatch):
    made, _, started = daemons
    monkeypatch.setattr(pause, "paused", lambda home: {"boot": "b", "session": "s"})
    out = io.BytesIO()
    Relay(tmp_path, out, cap=1 << 20, reply_limit=4096).handle_frame(b'{"id": 1, "type": "ping"}')
    [reply] = replies(out)
    assert reply["error"]["code"] == "unavailable" and "--until-login" in reply["error"]["message"]
    assert not started and not made
    # a daemon the user started again (ready) is used, paused or not
    monkeypatch.setattr(client, "running", lambda home: {"port": 1, "ready": True})
    Relay(tmp_path, out, cap=1 << 20, reply_limit=4096).handle_frame(b'{"id": 2, "type": "ping"}')
    assert len(made) == 1
    # one still starting is not: the pause holds
    monkeypatch.setattr(client, "running", lambda home: {"port": 1, "ready": False})
    with pytest.raises(Unavailable):
        Relay(tmp_path, out, cap=1 << 20, reply_limit=4096).refuse_when_paused()


def test_a_reply_of_exactly_the_limit_is_one_frame_and_one_byte_more_is_paged(tmp_path):
    exact, over = io.BytesIO(), io.BytesIO()
    Relay(tmp_path, exact, cap=1 << 20, reply_limit=4096).write_reply_text(1, "x" * 4092)
    Relay(tmp_path, over, cap=1 << 20, reply_limit=4096).write_reply_text(1, "x" * 4093)
    assert exact.getvalue() == (4092).to_bytes(4, sys.byteorder) + b"x" * 4092
    assert len(frames(over.getvalue())) == 2


def test_the_limits_come_from_the_config_or_the_defaults(tmp_path):
    assert limits(tmp_path) == (DEFAULT_REQUEST_CAP, REPLY_LIMIT)
    (tmp_path / "config.json").write_text('{"request_cap": 10}')
    assert limits(tmp_path) == (10, REPLY_LIMIT)
    (tmp_path / "config.json").write_text('{"reply_limit": 20}')
    assert limits(tmp_path) == (DEFAULT_REQUEST_CAP, 20)
    (tmp_path / "config.json").write_text("{not json")
    assert limits(tmp_path) == (DEFAULT_REQUEST_CAP, REPLY_LIMIT)


def test_the_browsers_arguments_are_the_caller_and_unknown_flags_are_ignored():
    args = parse_args(["chrome-extension://abc/", "--parent-window=7"])
    assert args.caller == ["chrome-extension://abc/"] and args.home is None
    args = parse_args(["--home", "h", "/path/manifest.json", "addon@id"])
    assert args.home == "h" and args.caller == ["/path/manifest.json", "addon@id"]


def test_run_relays_until_the_input_ends_and_logs_without_credentials(
    tmp_path, daemons, monkeypatch
):
    made, _, _ = daemons
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])  # as in a fresh process: basicConfig applies
    out = io.BytesIO()
    threading.Timer(0.2, lambda: made[0].answer('{"id":1,"ok":true,"result":1}')).start()
    try:
        stdin = native(b'{"id": 1, "type": "ping"}')
        assert run(tmp_path, ["chrome-extension://abc/"], stdin, out) == 0
        assert replies(out) == [{"id": 1, "ok": True, "result": 1}]
        assert run(tmp_path, [], native(), io.BytesIO()) == 0  # the logs folder is there now
        logging.getLogger("pagekeeper.native").warning("at http://u:pw@h.example/")
    finally:
        for handler in root.handlers:
            handler.close()
    log_text = Home(tmp_path).relay_log.read_text()
    assert "native host started by chrome-extension://abc/" in log_text
    assert "native host done" in log_text
    assert "at http://h.example/" in log_text and "pw@" not in log_text


class SlowOut(io.BytesIO):
    """A browser that reads its stdin slowly: each frame takes a while to be written."""

    def write(self, data) -> int:
        time.sleep(0.2)
        return super().write(data)


def test_the_last_reply_is_written_before_the_relay_ends(tmp_path, daemons):
    made, _, _ = daemons
    out = SlowOut()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    threading.Timer(0.2, lambda: made[0].answer('{"id":1,"ok":true,"result":1}')).start()
    relay.run(native(b'{"id": 1, "type": "ping"}'))  # then the process exits
    assert replies(out) == [{"id": 1, "ok": True, "result": 1}]


def test_a_request_stranded_by_a_lost_daemon_is_answered_before_the_relay_ends(tmp_path, daemons):
    made, _, _ = daemons
    out = SlowOut()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    threading.Timer(0.2, lambda: made[0].close()).start()
    relay.run(native(b'{"id": 1, "type": "ping"}'))
    assert [(r["id"], r["error"]["code"]) for r in replies(out)] == [(1, "unavailable")]


def test_a_paged_reply_carries_its_requests_id_on_every_page(tmp_path, daemons):
    made, _, _ = daemons
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=256)
    relay.handle_frame(b'{"id": "big", "type": "ping"}')
    made[0].answer(json.dumps({"id": "big", "ok": True, "result": "x" * 1000}))
    until(lambda: not relay.pending)
    pages = replies(out)
    assert len(pages) > 1 and {p["id"] for p in pages} == {"big"}


def test_a_reply_for_no_request_in_flight_is_still_written(tmp_path, daemons):
    made, _, _ = daemons
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    relay.handle_frame(b'{"id": 1, "type": "ping"}')
    made[0].answer('{"id":7,"ok":true,"result":7}')  # answered already, or never asked
    made[0].answer('{"id":1,"ok":true,"result":1}')
    until(lambda: not relay.pending)
    assert replies(out) == [{"id": 7, "ok": True, "result": 7}, {"id": 1, "ok": True, "result": 1}]
    assert relay.ws is made[0]  # the connection is kept


def test_a_stream_cut_inside_a_frame_still_waits_for_the_replies_in_flight(tmp_path, daemons):
    made, _, _ = daemons
    out = io.BytesIO()
    relay = Relay(tmp_path, out, cap=1 << 20, reply_limit=4096)
    threading.Timer(0.2, lambda: made[0].answer('{"id":1,"ok":true,"result":1}')).start()
    cut = native(b'{"id": 1, "type": "ping"}').getvalue() + (50).to_bytes(4, sys.byteorder) + b"{"
    relay.run(io.BytesIO(cut))
    assert replies(out) == [{"id": 1, "ok": True, "result": 1}] and made[0].closed
