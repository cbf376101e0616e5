"""How the text output (not ``--json``) shows a time: in the user's own zone.

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
