"""Native-messaging framing: a 4-byte native-endian length, then that many bytes of UTF-8 JSON.

Chrome and Firefox talk to a native host this way on its stdin/stdout
(https://developer.chrome.com/docs/extensions/develop/concepts/native-messaging#native-messaging-host-protocol).
Works on any binary stream, so it is tested with ``io.BytesIO``:

>>> import io
>>> buf = io.BytesIO()
>>> write_message(buf, {"id": 1, "type": "ping"})
>>> _ = buf.seek(0)
>>> read_message(buf)
{'id': 1, 'type': 'ping'}
>>> read_message(buf) is None  # clean end of stream
True

Every failure is a typed ``engine.errors`` exception. A frame over the cap is
skipped (its bytes are read and dropped) so the stream stays in step and the
host can answer ``too_large`` and go on; a truncated frame means the stream
is over (:class:`Truncated`).
"""

from __future__ import annotations

import json
import struct
from typing import IO, Any

from engine.errors import BadRequest, TooLarge

# Chrome: "The maximum size of a single message sent to Chrome from the native
# messaging host is 1 MB"; browser -> host messages may be up to 64 MiB (Chrome)
# and Firefox allows 4 GiB, so the request cap is ours to configure.
REPLY_LIMIT = 1024 * 1024
DEFAULT_REQUEST_CAP = 64 * 1024 * 1024
HEADER = struct.Struct("=I")  # native byte order, standard size (4 bytes)
SKIP_CHUNK = 1 << 20


class Truncated(BadRequest):
    """The stream ended inside a frame (in the length header or in the body)."""


class FrameTooLarge(TooLarge):
    """A frame longer than the configured cap; its body was skipped."""


class FrameDecodeError(BadRequest):
    """A complete frame whose body is not UTF-8 JSON."""


class NotAnObject(BadRequest):
    """A complete frame whose JSON is not an object."""


def _read_exactly(stream: IO[bytes], n: int) -> bytes:
    parts, left = [], n
    while left:
        chunk = stream.read(left)
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _skip(stream: IO[bytes], n: int) -> int:
    """Read and drop ``n`` bytes; return how many were actually there."""
    skipped = 0
    while skipped < n:
        chunk = stream.read(min(SKIP_CHUNK, n - skipped))
        if not chunk:
            break
        skipped += len(chunk)
    return skipped


def read_length(stream: IO[bytes]) -> int | None:
    """The next frame's length, or ``None`` at a clean end of stream."""
    head = _read_exactly(stream, HEADER.size)
    if not head:
        return None
    if len(head) < HEADER.size:
        raise Truncated(f"stream ended inside a length header ({len(head)} of 4 bytes)")
    return HEADER.unpack(head)[0]


def read_frame(stream: IO[bytes], cap: int = DEFAULT_REQUEST_CAP) -> bytes | None:
    """The next frame's raw body, or ``None`` at a clean end of stream.

    >>> import io
    >>> read_frame(io.BytesIO(HEADER.pack(2) + b"{}"))
    b'{}'
    """
    length = read_length(stream)
    if length is None:
        return None
    if length > cap:
        got = _skip(stream, length)
        if got < length:
            raise Truncated(f"stream ended inside an oversized frame ({got} of {length} bytes)")
        raise FrameTooLarge(f"message of {length} bytes is over the {cap}-byte cap")
    body = _read_exactly(stream, length)
    if len(body) < length:
        raise Truncated(f"stream ended inside a frame ({len(body)} of {length} bytes)")
    return body


def decode(body: bytes) -> dict:
    """Parse a frame body: UTF-8 JSON that must be an object.

    >>> decode(b'[1]')
    Traceback (most recent call last):
    ...
    host.protocol.framing.NotAnObject: a message must be a JSON object, not list
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FrameDecodeError(
            f"message is not valid UTF-8 ({exc.reason} at byte {exc.start})"
        ) from None
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise FrameDecodeError(f"message is not valid JSON ({str(exc)[:200]})") from None
    if not isinstance(obj, dict):
        raise NotAnObject(f"a message must be a JSON object, not {type(obj).__name__}")
    return obj


def read_message(stream: IO[bytes], cap: int = DEFAULT_REQUEST_CAP) -> dict | None:
    """Read one framed JSON object; ``None`` at a clean end of stream."""
    body = read_frame(stream, cap)
    return None if body is None else decode(body)


def encode(obj: Any) -> bytes:
    """The frame (header + body) for ``obj``.

    >>> encode({})[4:]
    b'{}'
    """
    return HEADER.pack(len(body := to_json(obj).encode("utf-8"))) + body


def to_json(obj: Any) -> str:
    """Compact JSON that always encodes as UTF-8: a lone surrogate anywhere is written as
    a ``\\ud83d`` escape instead of raising, and NaN/Infinity are refused (not JSON).

    >>> to_json({"a": chr(0xD83D)})
    '{"a":"\\\\ud83d"}'
    """
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(obj, separators=(",", ":"), allow_nan=False)
    return text


def write_frame(stream: IO[bytes], frame: bytes) -> None:
    """Write an encoded frame and flush (the browser waits for whole frames)."""
    stream.write(frame)
    stream.flush()


def write_message(stream: IO[bytes], obj: Any) -> None:
    """Write ``obj`` as one frame and flush."""
    write_frame(stream, encode(obj))
