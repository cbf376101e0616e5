"""The daemon's message decoding: a big message's values are counted in the worker process,
so one of millions of small values is refused there instead of stalling the daemon."""

from __future__ import annotations

import json

import pytest
from websockets.sync.client import connect

from engine.errors import TooLarge
from host.daemon.server import BIG_MESSAGE_BYTES, MAX_VALUES, count_values
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
