"""Protocol handlers by area; each module exports ``HANDLERS = {type: handler}``.

``host/protocol/dispatch.py`` merges them into the one dict. The helpers below read
parameters and raise ``InvalidInput`` naming the bad one, so handlers stay thin.

>>> text({"url": "http://a/"}, "url")
'http://a/'
>>> text({}, "url")
Traceback (most recent call last):
...
engine.errors.InvalidInput: missing parameter 'url'
"""

from __future__ import annotations

from engine.errors import InvalidInput

_MISSING = object()


def text(params: dict, name: str, default=_MISSING, max_length: int = 1 << 26) -> str:
    """A required (or defaulted) string parameter."""
    value = params.get(name, default)
    if value is _MISSING:
        raise InvalidInput(f"missing parameter {name!r}")
    if value is default and default is not _MISSING:
        return value
    if not isinstance(value, str):
        raise InvalidInput(f"parameter {name!r} must be a string")
    if len(value) > max_length:
        raise InvalidInput(f"parameter {name!r} is longer than {max_length} characters")
    return value


def integer(params: dict, name: str, default: int, low: int = 0, high: int = 1 << 31) -> int:
    """An optional integer parameter within [low, high]."""
    value = params.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"parameter {name!r} must be an integer in [{low}, {high}]")
    return value


def flag(params: dict, name: str, default: bool = False) -> bool:
    """An optional boolean parameter."""
    value = params.get(name, default)
    if not isinstance(value, bool):
        raise InvalidInput(f"parameter {name!r} must be true or false")
    return value


def choice(params: dict, name: str, options: tuple[str, ...], default: str) -> str:
    """An optional string parameter from a fixed set."""
    value = params.get(name, default)
    if value not in options:
        raise InvalidInput(f"parameter {name!r} must be one of {', '.join(options)}")
    return value
