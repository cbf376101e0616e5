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
    SKIP_CHUNK,
    FrameDecodeError,
    FrameTooLarge,
    NotAnObject,
    Truncated,
    encode,
    read_frame,
    read_message,
    to_json,
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


class Trickle(io.BytesIO):
    """A pipe that hands out at most ``step`` bytes per read, as stdin may."""

    def __init__(self, data: bytes, step: int) -> None:
        super().__init__(data)
        self.step = step

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            size = self.step
        return super().read(min(size, self.step))


def test_truncated_length():
    with pytest.raises(Truncated) as info:
        read_message(io.BytesIO(b"\x05\x00"))
    assert info.value.code == "bad_request"
    assert "2 of 4 bytes" in info.value.message


def test_truncated_body():
    with pytest.raises(Truncated) as info:
        read_message(io.BytesIO(struct.pack("=I", 100) + b'{"id":1}'))
    assert "8 of 100 bytes" in info.value.message


def test_partial_reads_are_joined_into_the_exact_frame():
    """A pipe returns short reads; the body is every chunk joined, with nothing between them."""
    body = json.dumps({"id": 1, "type": "ping", "params": {"q": "x" * 50}}).encode()
    stream = Trickle(frame(body) + frame(b'{"id":2}'), step=3)
    assert read_frame(stream) == body
    assert read_message(stream) == {"id": 2}


def test_a_frame_of_exactly_the_cap_is_read_and_one_byte_over_is_refused():
    at_cap = frame(b'{"a":"' + b"x" * 992 + b'"}')
    assert len(at_cap) - 4 == 1000
    assert read_message(io.BytesIO(at_cap), cap=1000) == {"a": "x" * 992}
    over = frame(b'{"a":"' + b"x" * 993 + b'"}')
    with pytest.raises(FrameTooLarge) as info:
        read_message(io.BytesIO(over), cap=1000)
    assert "1001 bytes" in info.value.message and "1000-byte cap" in info.value.message


def test_an_oversized_frame_longer_than_one_skip_chunk_is_skipped_exactly():
    """Skipping reads in chunks; each chunk asks only for what is left of the frame, so the
    next frame is never eaten, whether reads are whole or short."""
    big = frame(b"x" * (SKIP_CHUNK + 10))
    for stream in (io.BytesIO(big + frame(b'{"id":1}')), Trickle(big + frame(b'{"id":1}'), 4096)):
        with pytest.raises(FrameTooLarge):
            read_message(stream, cap=1000)
        assert read_message(stream, cap=1000) == {"id": 1}


def test_over_cap_is_skipped_and_stream_stays_in_step():
    big = frame(b"x" * 5000)
    stream = io.BytesIO(big + frame(b'{"id":1,"type":"ping"}'))
    with pytest.raises(FrameTooLarge) as info:
        read_message(stream, cap=1000)
    assert isinstance(info.value, TooLarge) and info.value.code == "too_large"
    assert read_message(stream, cap=1000) == {"id": 1, "type": "ping"}


def test_over_cap_and_truncated_is_truncated():
    with pytest.raises(Truncated) as info:
        read_frame(io.BytesIO(struct.pack("=I", 5000) + b"x" * 10), cap=1000)
    assert "10 of 5000 bytes" in info.value.message


def test_invalid_utf8():
    with pytest.raises(FrameDecodeError) as info:
        read_message(io.BytesIO(frame(b'{"id":"\xff\xfe"}')))
    assert info.value.code == "bad_request" and "UTF-8" in info.value.message


def test_invalid_json():
    with pytest.raises(FrameDecodeError) as info:
        read_message(io.BytesIO(frame(b'{"id": 1,')))
    assert "JSON" in info.value.message and "Expecting" in info.value.message


def test_deeply_nested_json_is_a_typed_error():
    with pytest.raises(BadRequest):
        read_message(io.BytesIO(frame(b"[" * 100_000)))


@pytest.mark.parametrize("body", [b"[1,2]", b'"text"', b"42", b"null", b"true"])
def test_json_not_an_object(body):
    with pytest.raises(NotAnObject) as info:
        read_message(io.BytesIO(frame(body)))
    assert info.value.message.endswith(f"not {type(json.loads(body)).__name__}")


def test_frames_carry_utf8_not_ascii_escapes():
    """A reply is paged by its byte size: text is written as UTF-8, not 6-byte \\u escapes."""
    assert encode({"q": "é✓"})[4:] == '{"q":"é✓"}'.encode()


def test_a_lone_surrogate_is_written_as_an_escape_in_compact_json():
    assert to_json({"a": [chr(0xD83D), 1]}) == '{"a":["\\ud83d",1]}'
    assert json.loads(encode({"a": chr(0xD83D)})[4:]) == {"a": chr(0xD83D)}


def test_nan_and_infinity_are_refused_not_written():
    for value in (float("nan"), float("inf")):
        with pytest.raises(ValueError):
            to_json({"a": value})


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
