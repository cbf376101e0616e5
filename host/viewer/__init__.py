"""The local archive viewer: static ES modules served by the daemon under ``/viewer/``.

The daemon serves the files of :data:`STATIC_DIR`; the viewer talks to the
daemon over ``/ws`` with the token it was opened with (``/viewer/?token=…``).

>>> (STATIC_DIR / "index.html").is_file()
True
"""

from __future__ import annotations

from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parent / "static"
