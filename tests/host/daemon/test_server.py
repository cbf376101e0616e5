"""The daemon's message decoding: a big message's values are counted in the worker process,
so one of millions of small values is refused there instead of stalling the daemon."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest
from websockets.datastructures import Headers
from websockets.http11 import Request, Response
from websockets.sync.client import connect

from engine.errors import BadRequest, Forbidden, TooLarge
from host.daemon.server import (
    BIG_MESSAGE_BYTES,
    MAX_VALUES,
    check_websocket,
    count_values,
    process_request,
    single_header,
)
from tests.host.daemon_fixtures import token_of


def test_every_value_and_every_key_is_counted():
    assert count_values([], 10) == 1
    assert count_values({"a": 1, "b": "x"}, 10) == 5  # the object, two keys, two values
    assert count_values([[[]], {"k": None}], 10) == 6


def test_the_limit_itself_is_allowed_and_one_more_is_refused():
    values = list(range(99))  # 100 values with the list
    assert count_values(values, 100) == 100
    with pytest.raises(TooLarge, match="more than 99 JSON values"):
        count_values(values, 99)


def test_keys_alone_can_pass_the_limit():
    with pytest.raises(TooLarge):
        count_values({str(n): None for n in range(50)}, 99)  # 1 + 50 keys + 50 values


def test_deep_nesting_is_counted_without_recursion():
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    assert count_values(deep, 200_000) == 100_001


def send(daemon, home, text: str) -> dict:
    url = f"ws://127.0.0.1:{daemon['port']}/ws?token={token_of(home)}"
    with connect(url, max_size=None) as ws:
        ws.send(text)
        return json.loads(ws.recv(timeout=120))


def ping_with(values: list) -> str:
    return json.dumps({"id": 7, "type": "ping", "params": {"values": values}})


def test_a_big_message_of_too_many_values_is_refused_and_the_daemon_answers_on(daemon, home):
    text = ping_with([0.5] * (MAX_VALUES + 10))
    assert len(text) > BIG_MESSAGE_BYTES  # so it is decoded in the worker process
    reply = send(daemon, home, text)
    assert reply == {
        "id": None,
        "ok": False,
        "error": {
            "code": "too_large",
            "message": f"message holds more than {MAX_VALUES:,} JSON values",
        },
    }
    assert send(daemon, home, ping_with([]))["ok"]


def test_a_big_message_under_the_value_limit_is_handled(daemon, home):
    text = ping_with([0.125] * (MAX_VALUES - 100))
    assert len(text) > BIG_MESSAGE_BYTES
    reply = send(daemon, home, text)
    assert reply["id"] == 7 and reply["ok"], reply


# The gatekeeper's rules in this process (no socket): which requests reach the websocket.

PORT = 47477
EXT = "iemmkbppohhfaaamfnchoaeokbamlbba"
APP = SimpleNamespace(
    token="s3cret-token", config=SimpleNamespace(port=PORT, all_extension_ids=lambda: [EXT])
)


def ws_request(path: str = "/ws", **headers: str) -> Request:
    fields = Headers({"Host": f"127.0.0.1:{PORT}"})
    for name, value in headers.items():
        fields[name.replace("_", "-")] = value
    return Request(path, fields)


def test_a_websocket_needs_the_whole_token_and_an_allowed_origin_or_none():
    check_websocket(APP, ws_request(Authorization="Bearer s3cret-token"))
    check_websocket(APP, ws_request("/ws?token=s3cret-token", Origin=f"chrome-extension://{EXT}"))
    check_websocket(
        APP, ws_request(Cookie="pk_token=s3cret-token", Origin=f"http://localhost:{PORT}")
    )
    for request in (
        ws_request(),
        ws_request(Authorization="Bearer s3cret-toke"),
        ws_request("/ws?token=s3cret-tokenx"),
        ws_request(Cookie="pk_token="),
        ws_request(Authorization="Bearer s3cret-token", Origin="https://evil.example"),
        ws_request(Authorization="Bearer s3cret-token", Origin=f"http://127.0.0.1:{PORT + 1}"),
    ):
        with pytest.raises(Forbidden):
            check_websocket(APP, request)


def test_a_header_the_checks_read_may_be_sent_once():
    request = ws_request()
    assert single_header(request, "Host") == f"127.0.0.1:{PORT}"
    assert single_header(request, "Origin") is None
    request.headers["Host"] = "evil.example"  # a second Host (RFC 9112 §3.2)
    with pytest.raises(BadRequest, match="sent 2 times"):
        single_header(request, "Host")


def gate(request: Request) -> Response | None:
    return asyncio.run(process_request(APP, None, request))


def test_the_gate_lets_a_good_upgrade_through_and_refuses_each_near_miss():
    good = {"Authorization": "Bearer s3cret-token", "Origin": f"chrome-extension://{EXT}"}
    assert gate(ws_request(**good)) is None  # the handshake goes on
    assert gate(ws_request("/ws?x=1", **good)) is None  # the path, not the query, names /ws
    rebound = ws_request(**good)
    del rebound.headers["Host"]
    rebound.headers["Host"] = f"evil.example:{PORT}"  # DNS rebinding: it sends its own name
    assert gate(rebound).status_code == 403
    assert gate(ws_request(Authorization="Bearer nope")).status_code == 403
    for name in ("Host", "Origin", "Authorization", "Cookie"):
        twice = ws_request(**good, Cookie="pk_token=s3cret-token")
        twice.headers[name] = "x"  # a second value: which one would a check read?
        reply = gate(twice)
        assert reply is not None and reply.status_code == 400, name
