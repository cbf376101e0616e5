"""The protocol's message envelope, shared by the daemon and the light native relay.

Request ``{"id", "type", "params"}``; reply ``{"id", "ok": true, "result"}`` or
``{"id", "ok": false, "error": {"code", "message"}}`` (host/PROTOCOL.md).
This module imports nothing heavy: the native relay validates envelopes with
it before anything reaches the daemon.

>>> parse_request({"id": 7, "type": "ping"})
Request(id=7, type='ping', params={})
>>> error_reply(None, BadRequest("no id"))
{'id': None, 'ok': False, 'error': {'code': 'bad_request', 'message': 'no id'}}
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from engine.errors import BadRequest, error_payload
from host.daemon.security import strip_credentials_deep

PROTOCOL_VERSION = 1
MAX_ID_LENGTH = 200
SURROGATE = re.compile("[\ud800-\udfff]")  # unpaired after JSON decoding: not Unicode text


@dataclass
class Request:
    """A validated request envelope."""

    id: str | int | float
    type: str
    params: dict = field(default_factory=dict)


def _valid_id(value: object) -> bool:
    """A non-empty string of Unicode scalar values (a lone surrogate cannot be written
    back as UTF-8), or a finite number (NaN and 1e400 have no JSON form to echo).

    >>> _valid_id(chr(0xD83D)), _valid_id(float("nan")), _valid_id(float("inf")), _valid_id("a")
    (False, False, False, True)
    """
    if isinstance(value, bool):
        return False
    if isinstance(value, str):
        return 0 < len(value) <= MAX_ID_LENGTH and not SURROGATE.search(value)
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int)


def request_id(obj: object) -> str | int | float | None:
    """The id to answer with, if ``obj`` carries a usable one (else ``None``)."""
    if isinstance(obj, dict) and _valid_id(obj.get("id")):
        return obj["id"]
    return None


def parse_request(obj: object) -> Request:
    """Check the envelope; raise ``BadRequest`` naming what is wrong."""
    if not isinstance(obj, dict):
        raise BadRequest(f"a message must be a JSON object, not {type(obj).__name__}")
    if "id" not in obj:
        raise BadRequest("message has no 'id'")
    if not _valid_id(obj["id"]):
        raise BadRequest(
            "'id' must be a non-empty string (<= 200 chars, no lone surrogate) or a finite number"
        )
    kind = obj.get("type")
    if not isinstance(kind, str) or not kind:
        raise BadRequest("message has no 'type' string")
    params = obj.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise BadRequest("'params' must be an object")
    return Request(obj["id"], kind, params)


def ok_reply(req_id: object, result: object) -> dict:
    """A success reply."""
    return {"id": req_id, "ok": True, "result": result}


def error_reply(req_id: object, exc: BaseException) -> dict:
    """An error reply; the one place exceptions become wire errors (a URL quoted in the
    message loses its credentials: the extension may show it)."""
    return {"id": req_id, "ok": False, "error": strip_credentials_deep(error_payload(exc))}
