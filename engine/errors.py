"""The one exception tree of PageKeeper, with stable string codes.

Every error the engine or the host raises on purpose is a ``PageKeeperError``.
Its ``code`` is part of the public contract (CLI JSON, native-messaging
protocol): codes are append-only, never renamed or reused.

=================  ==================  ==============================================
class              code                meaning
=================  ==================  ==============================================
PageKeeperError    ``internal``        a bug or an unexpected failure
InvalidInput       ``invalid_input``   the request or its parameters are malformed
InvalidURL         ``invalid_url``     not a URL by the WHATWG URL standard
DecodeError        ``decode_error``    bytes that cannot be decoded as a page
BadRequest         ``bad_request``     a malformed protocol message or frame
UnknownType        ``unknown_type``    a protocol message type with no handler
NotFound           ``not_found``       no such registration, version or document
TooLarge           ``too_large``       input above a configured size cap
StorageError       ``storage``         the archive store could not read or write
Unavailable        ``unavailable``     the daemon or a live server cannot be reached
FetchError         ``fetch_failed``    a live fetch failed (DNS, refused, timeout…)
Forbidden          ``forbidden``       missing or wrong token, foreign Origin or Host
Conflict           ``conflict``        a capture part differs from the one already received
=================  ==================  ==============================================

>>> error_payload(InvalidURL("no scheme"))
{'code': 'invalid_url', 'message': 'no scheme'}
"""

from __future__ import annotations


class PageKeeperError(Exception):
    """Base of every deliberate PageKeeper error."""

    code = "internal"

    def __init__(self, message: str = "", **details: object) -> None:
        super().__init__(message or self.code)
        self.message = message or self.code
        self.details = details


class InvalidInput(PageKeeperError):
    code = "invalid_input"


class InvalidURL(InvalidInput):
    code = "invalid_url"


class DecodeError(InvalidInput):
    code = "decode_error"


class BadRequest(InvalidInput):
    code = "bad_request"


class UnknownType(BadRequest):
    code = "unknown_type"


class NotFound(PageKeeperError):
    code = "not_found"


class TooLarge(PageKeeperError):
    code = "too_large"


class StorageError(PageKeeperError):
    code = "storage"


class Unavailable(PageKeeperError):
    code = "unavailable"


class FetchError(Unavailable):
    code = "fetch_failed"


class Forbidden(PageKeeperError):
    code = "forbidden"


class Conflict(InvalidInput):
    code = "conflict"


def error_payload(exc: BaseException) -> dict:
    """Map any exception to the wire form ``{"code", "message"}``.

    >>> error_payload(ValueError("boom"))
    {'code': 'internal', 'message': 'ValueError: boom'}
    """
    if isinstance(exc, PageKeeperError):
        return {"code": exc.code, "message": exc.message}
    return {"code": "internal", "message": f"{type(exc).__name__}: {exc}"}


def all_codes() -> list[str]:
    """Every stable code, base first, in declaration order."""
    seen, todo = [], [PageKeeperError]
    while todo:
        cls = todo.pop(0)
        seen.append(cls.code)
        todo.extend(cls.__subclasses__())
    return seen
