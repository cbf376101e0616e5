"""How the text output (not ``--json``) shows a time (in the user's own zone) and a size.

The protocol and ``--json`` keep UTC ISO-8601 (``2026-11-26T13:40:12Z``, host/PROTOCOL.md);
people read their own clock, so a render shows the same moment in the local zone (``TZ``),
to the second, with the zone's name.

>>> local_time(None), local_time("not yet")
('never', 'not yet')
>>> local_time("2026-11-26T13:40:12Z") == local_time(1795700412.0)
True
"""

from __future__ import annotations

from datetime import UTC, datetime


def local_time(value: str | float | None, never: str = "never") -> str:
    """A stored time (UTC ISO-8601 or epoch seconds) in the local zone; ``never`` for none,
    and a text that is no time as it is."""
    if value is None:
        return never
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
    else:
        moment = datetime.fromtimestamp(value, UTC)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")


def size(count: int) -> str:
    """Bytes for people (1024-based, as file managers show them).

    >>> size(512), size(5800), size(56000), size(3 * 1024**3)
    ('512 B', '5.7 KB', '55 KB', '3.0 GB')
    """
    value, unit = float(count), "B"
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if value < 1024 or unit == "TB":
            break
        value /= 1024
    if unit == "B":
        return f"{count} B"
    return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
