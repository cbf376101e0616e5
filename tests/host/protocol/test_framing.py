"""Native-messaging framing on in-memory streams (io.BytesIO), and envelope checks."""

from __future__ import annotations

import asyncio
import io
import json
import struct

import pytest

from engine.errors import BadRequest, TooLarge, UnknownType
from host.native.relay import Relay
from host.protocol.dispatch import handle
from host.protocol.envelope import parse_request
from host.protocol.framing import (
    HEADER,
    FrameDecodeError,
    FrameTooLarge,
    NotAnObject,
    Truncated,
    encode,
    read_frame,
    read_message,
    write_message,
)


def frame(body: bytes) -> bytes:
    return struct.pack("=I", len(body)) + body


def test_round_trip_and_clean_eof():
    buf = io.BytesIO()
    write_message(buf, {"id": "a", "type": "ping", "params": {"q": "é✓"}})
    write_message(buf, {"id": 2, "type": "stats"})
    buf.seek(0)
    assert read_message(buf) == {"id": "a", "type": "ping", "params": {"q": "é✓"}}
    assert read_message(buf)["id"] == 2
    assert read_message(buf) is None


def test_header_is_native_endian_length():
    data = encode({"a": 1})
    assert struct.unpack("=I", data[:4])[0] == len(data) - 4 == len(b'{"a":1}')
    assert HEADER.size == 4


def test_truncated_length():
    with pytest.raises(Truncated) as info:
        read_message(io.BytesIO(b"\x05\x00"))
    assert info.value.code == "bad_request"


def test_truncated_body():
    with pytest.raises(Truncated):
        read_message(io.BytesIO(struct.pack("=I", 100) + b'{"id":1}'))


def test_over_cap_is_skipped_and_stream_stays_in_step():
    big = frame(b"x" * 5000)
    stream = io.BytesIO(big + frame(b'{"id":1,"type":"ping"}'))
    with pytest.raises(FrameTooLarge) as info:
        read_message(stream, cap=1000)
    assert isinstance(info.value, TooLarge) and info.value.code == "too_large"
    assert read_message(stream, cap=1000) == {"id": 1, "type": "ping"}


def test_over_cap_and_truncated_is_truncated():
    with pytest.raises(Truncated):
        read_frame(io.BytesIO(struct.pack("=I", 5000) + b"x" * 10), cap=1000)


def test_invalid_utf8():
    with pytest.raises(FrameDecodeError) as info:
        read_message(io.BytesIO(frame(b'{"id":"\xff\xfe"}')))
    assert info.value.code == "bad_request" and "UTF-8" in info.value.message


def test_invalid_json():
    with pytest.raises(FrameDecodeError) as info:
        read_message(io.BytesIO(frame(b'{"id": 1,')))
    assert "JSON" in info.value.message


def test_deeply_nested_json_is_a_typed_error():
    with pytest.raises(BadRequest):
        read_message(io.BytesIO(frame(b"[" * 100_000)))


@pytest.mark.parametrize("body", [b"[1,2]", b'"text"', b"42", b"null", b"true"])
def test_json_not_an_object(body):
    with pytest.raises(NotAnObject):
        read_message(io.BytesIO(frame(body)))


def test_missing_id():
    msg = read_message(io.BytesIO(frame(b'{"type":"ping"}')))
    with pytest.raises(BadRequest, match="no 'id'"):
        parse_request(msg)


@pytest.mark.parametrize("bad_id", [None, True, "", [1], {"a": 1}, "x" * 201])
def test_unusable_ids(bad_id):
    with pytest.raises(BadRequest):
        parse_request({"id": bad_id, "type": "ping"})


def test_params_must_be_object():
    with pytest.raises(BadRequest, match="params"):
        parse_request({"id": 1, "type": "ping", "params": [1]})


def test_unknown_type_gets_typed_reply():

    msg = read_message(io.BytesIO(frame(json.dumps({"id": 9, "type": "nope"}).encode())))
    reply = asyncio.run(handle(msg, app=None))
    assert reply == {
        "id": 9,
        "ok": False,
        "error": {"code": UnknownType.code, "message": "unknown message type 'nope'"},
    }


def test_missing_id_reply_has_null_id():

    reply = asyncio.run(handle({"type": "ping"}, app=None))
    assert reply["id"] is None and reply["error"]["code"] == "bad_request"


def test_relay_answers_every_bad_frame_on_streams(tmp_path):
    """The native relay itself, on io.BytesIO in and out: each complete bad frame gets one
    typed error (no daemon needed, none started); a truncated frame ends the stream cleanly."""

    frames = [
        frame(b'{"id":"\xff\xfe"}'),  # invalid UTF-8
        frame(b'{"id": 1,'),  # invalid JSON
        frame(b"[1,2]"),  # not an object
        frame(b'{"type":"ping"}'),  # missing id
        frame(b'{"id":7,"type":"ping","params":[1]}'),  # params not an object: id kept
        frame(b"x" * 5000),  # over the cap
        struct.pack("=I", 100) + b'{"id":8',  # truncated body: the stream is over
    ]
    out = io.BytesIO()
    Relay(tmp_path, out, cap=1000, reply_limit=1 << 20).run(io.BytesIO(b"".join(frames)))
    out.seek(0)
    replies = []
    while (reply := read_message(out)) is not None:
        replies.append(reply)
    assert [(r["id"], r["ok"], r["error"]["code"]) for r in replies] == [
        (None, False, "bad_request"),
        (None, False, "bad_request"),
        (None, False, "bad_request"),
        (None, False, "bad_request"),
        (7, False, "bad_request"),
        (None, False, "too_large"),
    ]
    assert not (tmp_path / "daemon.json").exists()


def test_relay_truncated_length_ends_quietly(tmp_path):

    out = io.BytesIO()
    Relay(tmp_path, out, cap=1000, reply_limit=1 << 20).run(io.BytesIO(b"\x05\x00"))
    assert out.getvalue() == b""
