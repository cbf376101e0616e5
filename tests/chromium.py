"""Debian's Chromium for every browser test: where it is and the flags this machine needs.

See ../shared/docs/browser-testing.md: the real binary (not the /usr/bin wrapper), and
no background networking, since every outside connection fails here.
"""

from __future__ import annotations

CHROMIUM = "/usr/lib/chromium/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
