"""``pagekeeper stop --until-login``: the daemon stays stopped until the next login or boot.

A plain ``stop`` lasts until something needs the daemon: the native host starts it again
for the next failed page load or popup. ``--until-login`` also writes ``<home>/paused.json``,
naming the boot (Linux: ``/proc/sys/kernel/random/boot_id``) and the login session
(``/proc/self/sessionid``, the kernel's audit session, which everything started in one login
inherits: the browser, and the native host the browser starts; ``$XDG_SESSION_ID`` where the
kernel keeps none). While both match, the native host answers ``unavailable`` instead of
starting the daemon. A new boot or login ends the pause by itself; ``pagekeeper serve`` ends
it at once.

>>> import tempfile; home = Path(tempfile.mkdtemp())
>>> paused(home) is None
True
>>> _ = pause(home); paused(home) is not None
True
>>> resume(home), paused(home)
(True, None)
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

PAUSE_FILE = "paused.json"
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
SESSION_ID = Path("/proc/self/sessionid")
UNSET_SESSION = "4294967295"  # the kernel's "no audit session" (AUDIT_SID_UNSET)


def this_login() -> dict:
    """``{"boot", "session"}`` of the running process: the same for every process of a login."""
    return {"boot": _boot(), "session": _session()}


def _boot() -> str:
    try:
        return BOOT_ID.read_text("ascii").strip()
    except OSError:  # no /proc (macOS, Windows): the boot time, to the minute
        return str(round((time.time() - time.monotonic()) / 60))


def _session() -> str | None:
    try:
        value = SESSION_ID.read_text("ascii").strip()
    except OSError:
        value = ""
    if value and value != UNSET_SESSION:
        return value
    return os.environ.get("XDG_SESSION_ID") or None


def pause(home: Path) -> dict:
    """Write the marker for this login; returns it."""
    marker = {**this_login(), "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    path = Path(home) / PAUSE_FILE
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(marker), "utf-8")
    os.replace(tmp, path)
    return marker


def paused(home: Path) -> dict | None:
    """The marker when it was written in this login (boot and session), else ``None``."""
    try:
        marker = json.loads((Path(home) / PAUSE_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    now = this_login()
    same = isinstance(marker, dict) and all(marker.get(k) == now[k] for k in ("boot", "session"))
    return marker if same else None


def resume(home: Path) -> bool:
    """Remove the marker; ``True`` if there was one."""
    try:
        (Path(home) / PAUSE_FILE).unlink()
    except FileNotFoundError:
        return False
    return True
