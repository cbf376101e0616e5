"""Import a page saved by SingleFile (one HTML file with every resource inlined).

SingleFile writes the page's URL and save time in a comment near the top
(``<!--\\n Page saved with SingleFile \\n url: https://… \\n saved date: … \\n-->``).
Each base64 ``data:`` URI of the file becomes a content-addressed blob and a manifest
entry named ``urn:sha256:<hex>``; the page keeps that reference in its place, so a logo
inlined in every saved page is stored once. (The stored original is therefore the file
with those references instead of the inlined bytes; ``archive get --single-file`` puts
them back.)

>>> cap, when = read_singlefile(b'<!--\\n Page saved with SingleFile \\n url: https://e.com/a '
...     b'\\n saved date: Tue Nov 24 2026 10:00:00 GMT+0000 \\n--><img src="data:image/png;base64,UE5H">')
>>> cap.url, cap.resources[0]["data"], cap.html.count("urn:sha256:"), when.year
('https://e.com/a', b'PNG', 1, 2026)
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from datetime import UTC, datetime

from engine.archive.model import Capture
from engine.errors import InvalidInput
from host.daemon.security import strip_credentials

MARK = re.compile(rb"Page saved with SingleFile\s+url:\s*(\S+)(?:\s+saved date:\s*([^\n]+))?")
DATA_URI = re.compile(r"data:([\w.+-]+/[\w.+-]+)((?:;[\w.-]+=[\w.\"-]+)*);base64,([A-Za-z0-9+/=]+)")
DATE_FORMS = ("%a %b %d %Y %H:%M:%S",)


def looks_like_singlefile(head: bytes) -> bool:
    """Is this the start of an HTML file (SingleFile's or any saved page)?

    >>> looks_like_singlefile(b"\\xef\\xbb\\xbf <!DOCTYPE html>"), looks_like_singlefile(b"WARC/1.1")
    (True, False)
    """
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<")


def _saved_date(text: str | None) -> datetime:
    for form in DATE_FORMS:
        try:
            return datetime.strptime((text or "")[:24].strip(), form).replace(tzinfo=UTC)
        except ValueError:
            continue
    return datetime.now(UTC)


def read_singlefile(data: bytes):
    """(Capture, saved time) of a SingleFile page; InvalidInput without its URL comment."""
    mark = MARK.search(data[:16384])
    if mark is None:
        raise InvalidInput("not a SingleFile page: no 'Page saved with SingleFile' comment")
    url = strip_credentials(mark.group(1).decode("utf-8", "replace"))
    found: dict[str, dict] = {}

    def blob_ref(match: re.Match) -> str:
        try:
            raw = base64.b64decode(match.group(3), validate=True)
        except (binascii.Error, ValueError):
            return match.group(0)
        ref = f"urn:sha256:{hashlib.sha256(raw).hexdigest()}"
        found.setdefault(
            ref,
            {
                "url": ref,
                "type": match.group(1).lower(),
                "size": len(raw),
                "status": "pending",
                "data": raw,
            },
        )
        return ref

    html = DATA_URI.sub(blob_ref, data.decode("utf-8", "replace"))
    when = _saved_date((mark.group(2) or b"").decode("utf-8", "replace"))
    capture = Capture(url=url, html=html, resources=list(found.values()), source="file")
    return capture, when
