"""Hostile request ids through the REAL relay (`pagekeeper native` relaying to a real daemon):
a lone surrogate neither kills the relay nor drops the daemon connection (a request in
flight on it is still answered); NaN, Infinity and 1e400 ids are refused, typed, and
never echoed as the invalid JSON ``NaN``/``Infinity``."""

from __future__ import annotations

import json
import struct

import pytest

from tests.host.daemon_fixtures import NativeHost

CHROME = "chrome-extension://iemmkbppohhfaaamfnchoaeokbamlbba/"


def frame(body: bytes) -> bytes:
    return struct.pack("=I", len(body)) + body


def raw_reply(host: NativeHost) -> bytes:
    head = host.proc.stdout.read(4)
    assert len(head) == 4, "the relay closed its stdout"
    return host.proc.stdout.read(struct.unpack("=I", head)[0])


@pytest.fixture
def relay(daemon, home):
    host = NativeHost(home, CHROME)
    assert host.call({"id": 0, "type": "ping"})["ok"]
    yield host
    host.close()


@pytest.mark.parametrize(
    "body",
    [
        rb'{"id":"\ud83d","type":"ping"}',
        rb'{"id":"ok\udc00","type":"versions","params":{"url":"https://e.org/"}}',
    ],
)
def test_a_lone_surrogate_id_is_refused_and_the_relay_lives(relay, body):
    # A request in flight on the same daemon connection must survive the bad one.
    relay.send({"id": "slow", "type": "search", "params": {"pattern": "*"}})
    relay.send_raw(frame(body))
    relay.send({"id": "after", "type": "ping"})
    replies = [json.loads(raw_reply(relay)) for _ in range(3)]
    by_id = {reply["id"]: reply for reply in replies}
    assert set(by_id) == {"slow", None, "after"}, replies
    assert by_id[None]["error"]["code"] == "bad_request"
    assert by_id["slow"]["ok"] and by_id["after"]["ok"]
    assert relay.proc.poll() is None


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-1e999"])
def test_non_finite_ids_are_refused_typed(relay, literal):
    relay.send_raw(frame(b'{"id":' + literal + b',"type":"ping"}'))
    body = raw_reply(relay)
    assert b"NaN" not in body and b"Infinity" not in body
    reply = json.loads(body)
    assert reply["id"] is None and not reply["ok"]
    assert reply["error"]["code"] in ("bad_request", "invalid_input")
    assert relay.call({"id": 5, "type": "ping"})["ok"]  # still serving
