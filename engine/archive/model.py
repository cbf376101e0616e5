"""The archive's vocabulary: captures in, registrations and versions out, and their options.

>>> Capture(url="https://example.com/", html=b"<p>hi").content_type
'text/html'
>>> version_url("http://127.0.0.1:47477", "20260101120000000000", "https://example.com/a?b")
'http://127.0.0.1:47477/v/20260101120000000000/https://example.com/a?b'
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from urllib.parse import quote

from engine.html.limits import PageLimits

DEFAULT_BASE = "http://127.0.0.1:47477"
DEFAULT_MAX_BYTES = 50 * 1024 * 1024


@dataclass
class Capture:
    """A page to register: the URL plus the bytes as the user saw them (or as fetched)."""

    url: str
    html: bytes | str
    final_url: str | None = None
    content_type: str = "text/html"
    charset: str | None = None
    last_modified: str | None = None
    title: str | None = None
    source: str = "extension"  # "extension" | "fetch" | "file" | "crawl" | "schedule"
    # The manifest of what the page uses, blobs already stored (engine/archive/resources.py):
    # [{url, blob, type, size, status}]; URLs the HTML uses beyond it are listed as not_received.
    resources: list = field(default_factory=list)
    keep_scripts: bool = False
    capture_id: str | None = None  # the transfer that brought it (a repeated commit finds it)


@dataclass(frozen=True)
class RegisterOptions:
    """How to register: the archive's base URL, caps and the similarity budget."""

    base: str = DEFAULT_BASE
    max_bytes: int = DEFAULT_MAX_BYTES
    similar_budget_s: float = 0.005  # exact similarity at registration; the daemon refreshes later
    similar_min: float = 0.3  # keep pages at least this similar in the list
    similar_max_fingerprint: int = 150_000  # bigger pages get their similar list from the daemon
    only_if_different: float | None = None  # skip when similarity to the last version >= this
    extract: bool = True
    now: datetime | None = None  # registration time (tests); default: the clock
    limits: PageLimits = field(default_factory=PageLimits)  # how much of a page is analysed
    clock: Callable[[], float] = time.perf_counter  # what the similarity budget is measured with


@dataclass
class Registration:
    """What ``archive add`` answers (the CLI contract's fields plus a few more)."""

    id: str
    url: str
    key: str
    version_url: str
    registered_at: str
    similar: list = field(default_factory=list)
    skipped: bool = False
    duplicate_of: str | None = None
    previous_similarity: float | None = None
    note: str | None = None  # set when the page's analysis was cut (engine.html.limits)
    revisit_of: str | None = None  # an unchanged re-capture: the version whose content it shares

    def to_dict(self) -> dict:
        return asdict(self)


def version_url(base: str, reg_id: str, url: str) -> str:
    """``{base}/v/{id}/{original-url}`` (the multi-version server method's registered version URL, Wayback-style)."""
    return f"{base.rstrip('/')}/v/{reg_id}/{url}"


def gc_url(base: str, url: str, reg_id: str | None = None) -> str:
    """``{base}/gc?url=<quoted absolute url>[&id=<registration id>]``.

    >>> gc_url("http://h", "https://e.com/a?b=1", "2026")
    'http://h/gc?url=https%3A%2F%2Fe.com%2Fa%3Fb%3D1&id=2026'
    """
    address = f"{base.rstrip('/')}/gc?url={_quoted(url)}"
    return f"{address}&id={reg_id}" if reg_id else address


@lru_cache(maxsize=65536)
def _quoted(url: str) -> str:
    # Sites repeat their navigation links on every page: quote each URL once.
    return quote(url, safe="")


def iso(ts: float) -> str:
    """UTC ISO-8601 with seconds, e.g. '2026-11-21T17:00:00Z'.

    >>> iso(0)
    '1970-01-01T00:00:00Z'
    """
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def id_time(reg_id: str) -> float:
    """The POSIX time encoded in a registration ID (YYYYMMDDHHMMSS + microseconds).

    >>> id_time("19700101000001500000")
    1.5
    """
    stamp = datetime.strptime(reg_id[:14], "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    return stamp.timestamp() + int(reg_id[14:20]) / 1e6


def make_id(ts: float, last: str | None) -> str:
    """A time-ordered, unique 20-digit ID for ``ts``; strictly greater than ``last``.

    >>> make_id(1.5, None)
    '19700101000001500000'
    >>> make_id(1.5, "19700101000001500000")
    '19700101000001500001'
    """
    micros = round(ts * 1e6)
    if last is not None and micros <= round(id_time(last) * 1e6):
        micros = round(id_time(last) * 1e6) + 1
    stamp = datetime.fromtimestamp(micros // 1_000_000, UTC).strftime("%Y%m%d%H%M%S")
    return f"{stamp}{micros % 1_000_000:06d}"


def seen_entry(reg_id: str, ts: float, capture_id: str | None = None) -> int | dict:
    """How a "seen again" capture is kept in its version's ``seen`` list: its ID as a bare
    integer when the ID's own time is its capture time (to the microsecond), else a small
    dict with ``ts``; the dict also carries the transfer's ``capture_id`` when one came.

    >>> seen_entry("19700101000001500000", 1.5)
    19700101000001500000
    >>> seen_entry("19700101000001500001", 1.5, "c1")
    {'id': 19700101000001500001, 'ts': 1.5, 'capture_id': 'c1'}
    """
    same_time = abs(id_time(reg_id) - ts) < 1e-6
    if same_time and not capture_id:
        return int(reg_id)
    entry: dict = {"id": int(reg_id)} if same_time else {"id": int(reg_id), "ts": ts}
    return {**entry, "capture_id": capture_id} if capture_id else entry


def seen_fields(entry: int | dict) -> dict:
    """``{"id", "ts"[, "capture_id"]}`` of a ``seen`` list entry (see :func:`seen_entry`).

    >>> seen_fields(19700101000001500000)
    {'id': '19700101000001500000', 'ts': 1.5}
    """
    entry = {"id": entry} if isinstance(entry, int) else entry
    reg_id = f"{entry['id']:020d}"
    return {"id": reg_id, "ts": entry.get("ts", id_time(reg_id)), **_extra(entry)}


def _extra(entry: dict) -> dict:
    return {k: v for k, v in entry.items() if k not in ("id", "ts")}


def is_reg_id(text: str) -> bool:
    """True for a 20-digit registration ID."""
    return len(text) == 20 and text.isdigit()
