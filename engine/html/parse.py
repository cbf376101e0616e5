"""Decode page bytes the way a browser would: BOM, then HTTP header, then <meta charset>.

The order follows the WHATWG encoding sniffing algorithm (HTML §13.2.3.2):
a byte order mark wins, then the transport layer's ``charset``, then a
``<meta charset>`` / ``http-equiv`` declaration near the top, then UTF-8
when the bytes are valid UTF-8, else windows-1252 (the WHATWG default for
undeclared legacy pages). Decoding never raises: invalid sequences become
U+FFFD. :func:`looks_binary` tells pages from data no charset turns into text.

>>> decode_html(b'<meta charset="latin-1"><p>caf\\xe9').text[-4:]
'café'
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_META = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
# How far into the page a <meta charset> is looked for: the spec's 1024 bytes miss
# real pages with long heads (measured on the extraction dev set), so 4 KiB.
_META_SCAN = 4096
_HEADER = re.compile(r"""charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.I)
# HTML §13.2.3.2 step: a meta-declared UTF-16 means UTF-8 (the bytes were read as ASCII).
_META_OVERRIDES = {
    "utf-16": "utf-8",
    "utf-16le": "utf-8",
    "utf-16be": "utf-8",
    "x-user-defined": "windows-1252",
    # WHATWG Encoding: these labels all mean windows-1252 in browsers.
    "iso-8859-1": "windows-1252",
    "iso8859-1": "windows-1252",
    "latin1": "windows-1252",
    "latin-1": "windows-1252",
    "ascii": "windows-1252",
    "us-ascii": "windows-1252",
}
# File signatures of common non-page payloads (PNG, JPEG, GIF, PDF, ZIP, gzip, WebP/RIFF).
_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"%PDF", b"PK\x03\x04", b"\x1f\x8b", b"RIFF")
# C0 controls that never occur in text pages (tab, LF, FF, CR and ESC of ISO-2022 excluded).
_CONTROLS = bytes(c for c in range(32) if c not in (9, 10, 12, 13, 27))


@dataclass(frozen=True)
class Decoded:
    """Page text with the encoding that produced it and where that came from."""

    text: str
    charset: str
    source: str  # "bom" | "header" | "meta" | "default"


def known_charset(name: str | None) -> str | None:
    """The Python codec name for a label, or None when Python does not know it.

    >>> known_charset("ISO-8859-1"), known_charset("no-such")
    ('iso8859-1', None)
    """
    if not name:
        return None
    try:
        return codecs.lookup(name.strip().lower()).name
    except LookupError:
        return None


def header_charset(content_type: str | None) -> str | None:
    """The ``charset`` parameter of a Content-Type value.

    >>> header_charset("text/html; charset=UTF-8")
    'utf-8'
    """
    match = _HEADER.search(content_type or "")
    return known_charset(match.group(1)) if match else None


def meta_charset(head: bytes) -> str | None:
    """The charset declared by a <meta> near the top of the page (WHATWG label mapping).

    >>> meta_charset(b'<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">')
    'koi8-r'
    """
    match = _META.search(head[:_META_SCAN])
    if not match:
        return None
    label = match.group(1).decode("ascii", "replace").lower()
    return known_charset(_META_OVERRIDES.get(label, label))


def sniff_charset(body: bytes, content_type: str | None = None) -> tuple[str, str]:
    """(charset, source) for ``body``: BOM, header, meta, else UTF-8.

    >>> sniff_charset(b"\\xef\\xbb\\xbfhi", "text/html; charset=latin-1")
    ('utf-8', 'bom')
    """
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name, "bom"
    for found, source in ((header_charset(content_type), "header"), (meta_charset(body), "meta")):
        if found:
            return found, source
    return "utf-8", "default"


def decode_html(body: bytes | str, content_type: str | None = None) -> Decoded:
    """Decode page bytes; invalid sequences become U+FFFD, never an exception.

    >>> decode_html(b"\\xff<p>x").text, decode_html(b"caf\\xc3\\xa9").charset
    ('ÿ<p>x', 'utf-8')
    """
    if isinstance(body, str):
        return Decoded(body, "utf-8", "text")
    charset, source = sniff_charset(body, content_type)
    raw = body[len(_bom_of(body)) :] if source == "bom" else body
    if source == "default":
        return _undeclared(raw)
    return Decoded(raw.decode(charset, errors="replace"), charset, source)


def _undeclared(raw: bytes) -> Decoded:
    """No BOM, header or meta: UTF-8 if the bytes are valid UTF-8, else windows-1252."""
    try:
        return Decoded(raw.decode("utf-8"), "utf-8", "default")
    except UnicodeDecodeError:
        return Decoded(raw.decode("cp1252", errors="replace"), "cp1252", "default")


def looks_binary(data: bytes) -> bool:
    """True for bytes no charset turns into a page (images, archives, random data).

    >>> looks_binary(b"\\x89PNG" + bytes(100)), looks_binary(b"<p>hi</p>")
    (True, False)
    """
    if _bom_of(data):  # a UTF-16 page is full of NULs, yet text
        return False
    if data.startswith(_MAGIC):
        return True
    head = data[:4096]
    controls = len(head) - len(head.translate(None, _CONTROLS))
    return len(head) >= 32 and controls * 33 > len(head)


def _bom_of(body: bytes) -> bytes:
    return next((bom for bom, _ in _BOMS if body.startswith(bom)), b"")


def is_html_type(content_type: str | None) -> bool:
    """True for HTML/XHTML media types (and a missing type, which browsers sniff).

    >>> is_html_type("text/html; charset=utf-8"), is_html_type("image/png")
    (True, False)
    """
    media = (content_type or "text/html").split(";")[0].strip().lower()
    return media in {"text/html", "application/xhtml+xml", ""}


# A <title> is RCDATA (HTML §13.2.5.2): it ends only at "</title". A saved page with bytes
# missing from its head has none, so the whole rest of the document is the title and the body
# is empty (what browsers show: a blank page).
_TITLE_START = re.compile(r"<title(?:[\t\n\f\r /][^>]*)?>", re.I)
_TITLE_END = re.compile(r"</title", re.I)
_TAG_START = re.compile(r"<[A-Za-z/!]")  # a tag, an end tag or a comment/doctype opens here


def closed_title(text: str) -> str:
    """The page's text with an unterminated <title> ended where its first tag starts, so the
    page's own text is read as the page again, not as its title (used to read text out of a
    page; the stored copy itself is kept as it came).

    >>> closed_title("<title>News - Inte<meta x></head><body><p>Story</p>")
    '<title>News - Inte</title><meta x></head><body><p>Story</p>'
    >>> closed_title("<title>Story</title><p>x")  # a closed title: the text unchanged
    '<title>Story</title><p>x'
    >>> closed_title("<p>no title at all</p>")
    '<p>no title at all</p>'
    """
    start = _TITLE_START.search(text)
    if start is None or _TITLE_END.search(text, start.end()):
        return text
    tag = _TAG_START.search(text, start.end())
    if tag is None:
        return text
    return f"{text[: tag.start()]}</title>{text[tag.start() :]}"
