"""WHATWG URL parsing through ada-url (891/891 on the WPT URL suite).

:func:`parse_url` is the public entry: it returns the components of the URL
class of the URL Standard (https://url.spec.whatwg.org/#url-class) or raises
:class:`~engine.errors.InvalidURL` with a reason a person can act on.
:func:`ada_split` is the fast path for the normalizer: one parse, the href and
the component offsets, no attribute look-ups.

>>> parse_url("HTTP://Example.COM:80/a/../b?q#f").href
'http://example.com/b?q#f'
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from ada_url._ada_wrapper import ffi, lib

from engine.errors import InvalidURL, TooLarge

# Longest URL we accept (characters). Chrome displays up to 2 MiB, but real
# page URLs stay far below 8 KiB (Apache's request-line limit is 8190 bytes);
# 32 KiB leaves room for long query strings while keeping a 100 KB blob from
# becoming an archive key. Longer input raises TooLarge (code "too_large").
MAX_URL_LENGTH = 32 * 1024

# ada reports an omitted component offset (and an omitted port) as UINT32_MAX.
OMITTED = 0xFFFFFFFF

COMPONENTS = (
    "href",
    "protocol",
    "username",
    "password",
    "host",
    "hostname",
    "port",
    "pathname",
    "search",
    "hash",
)

HOST_TYPES = ("domain", "ipv4", "ipv6")
SPECIAL_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21, "file": None}

_get_href = lib.ada_get_href
_get_components = lib.ada_get_components
_unpack = ffi.unpack


@dataclass(frozen=True, slots=True)
class URLParts:
    """The WHATWG components of a parsed URL (as ``new URL(...)`` exposes them).

    >>> parse_url("https://u:p@[::1]:8080/x?y#z").host
    '[::1]:8080'
    """

    href: str
    protocol: str
    username: str
    password: str
    host: str
    hostname: str
    port: str
    pathname: str
    search: str
    hash: str
    host_type: str = "domain"

    def to_dict(self) -> dict:
        """The ten WHATWG components (no ``host_type``), as the CLI prints them."""
        data = asdict(self)
        data.pop("host_type")
        return data


def check_text(text: object, max_length: int = MAX_URL_LENGTH) -> bytes:
    """Encode a candidate URL to UTF-8, rejecting what no parser should see.

    >>> check_text("http://a/")
    b'http://a/'
    """
    if not isinstance(text, str):
        raise InvalidURL(f"a URL must be text, not {type(text).__name__}")
    if len(text) > max_length:
        raise TooLarge(f"URL of {len(text)} characters exceeds the cap of {max_length}")
    try:
        return text.encode()
    except UnicodeEncodeError as exc:
        # A lone surrogate (U+D800..U+DFFF) is not a Unicode scalar value.
        raise InvalidURL(f"lone surrogate (or bytes not UTF-8) at character {exc.start}") from None


def ada_split(data: bytes, base: bytes | None = None) -> tuple[str, tuple, int] | None:
    """Parse once with ada: ``(href, offsets, host_type)``, or None if invalid.

    ``offsets`` is ada's ``url_components``: protocol_end, username_end,
    host_start, host_end, port (the number), pathname_start, search_start,
    hash_start; an omitted one is ``OMITTED``.

    >>> ada_split(b"http://a/b")[0]
    'http://a/b'
    """
    if base is None:
        handle = lib.ada_parse(data, len(data))
    else:
        handle = lib.ada_parse_with_base(data, len(data), base, len(base))
    try:
        if not lib.ada_is_valid(handle):
            return None
        raw = _get_href(handle)
        href = _unpack(raw.data, raw.length).decode()
        c = _get_components(handle)  # points into the handle: copy before freeing
        comps = (
            *(c.protocol_end, c.username_end, c.host_start, c.host_end, c.port),
            *(c.pathname_start, c.search_start, c.hash_start),
        )
        return href, comps, lib.ada_get_host_type(handle)
    finally:
        lib.ada_free(handle)


_parse, _is_valid, _free = lib.ada_parse, lib.ada_is_valid, lib.ada_free


def ada_slices(data: bytes) -> tuple | None:
    """The normalizer's fast path: one parse, then the serialized URL cut into
    ``(scheme, "//userinfo@", host, ":port", path, query, fragment)`` (query and
    fragment None when absent), or None if ``data`` is not a URL.

    >>> ada_slices(b"HTTP://u@Ex.com:8/p?q#")
    ('http', '//u@', 'ex.com', ':8', '/p', 'q', '')
    """
    handle = _parse(data, len(data))
    try:
        if not _is_valid(handle):
            return None
        raw = _get_href(handle)
        href = _unpack(raw.data, raw.length).decode()
        c = _get_components(handle)  # points into the handle: read before freeing
        pe, hs, he, ps, ss, fs = (
            c.protocol_end,
            c.host_start,
            c.host_end,
            c.pathname_start,
            c.search_start,
            c.hash_start,
        )
    finally:
        _free(handle)
    if fs == OMITTED:
        fragment, query_end = None, len(href)
    else:
        fragment, query_end = href[fs + 1 :], fs
    if ss == OMITTED:
        query, path = None, href[ps:query_end]
    else:
        query, path = href[ss + 1 : query_end], href[ps:ss]
    if hs < he and href[hs] == "@":
        hs += 1
    return href[: pe - 1], href[pe:hs], href[hs:he], href[he:ps], path, query, fragment


# http(s) URLs that the WHATWG parser would only lowercase and complete: an
# ASCII host whose last label starts with a letter (so not an IPv4 number, see
# "ends in a number checker"), no "xn--" label (ada validates punycode), no
# userinfo, a port without leading zero, and path/query/fragment made only
# of characters that no percent-encode set touches. Dot segments are checked
# apart. tests/engine/urls/test_parse.py checks this agrees with ada.
# Groups: scheme, host, port, path, query, fragment. Every quantifier is
# possessive ("*+", "?+", Python 3.11): what follows each part can never start
# inside it, so giving characters back could not find another match, and the
# regex engine skips saving backtrack points (about a quarter of its time).
_FAST = re.compile(
    r"([Hh][Tt][Tt][Pp][Ss]?)://"
    r"((?:[A-Za-z0-9-]++\.)*+[A-Za-z][A-Za-z0-9-]*+)"
    r"(?::([1-9][0-9]{0,3}+))?+"
    r"(/[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*+)?+"
    r"(?:\?([A-Za-z0-9\-._~!$&()*+,;=:@/?%]*+))?+"
    r"(?:#([A-Za-z0-9\-._~!$&'()*+,;=:@/?%#]*+))?+"
)
DEFAULT_PORT = {"http": "80", "https": "443"}
LOWER_SCHEME = {"http": "http", "https": "https"}
fast_match = _FAST.fullmatch


def fast_slices(text: str) -> tuple | None:
    """:func:`ada_slices` without ada, for input already in (almost) WHATWG
    form; None means "ask ada". (``normalize._normalize`` inlines this.)

    >>> fast_slices("HTTPS://Example.com:443?a=1")
    ('https', '//', 'example.com', '', '/', 'a=1', None)
    """
    match = fast_match(text)
    if match is None:
        return None
    scheme, host, port, path, query, fragment = match.groups()
    if path is None:
        path = "/"
    elif "/." in path or ("%2" in path and ("%2e" in path or "%2E" in path)):
        return None  # possible dot segments: let ada resolve them
    host = host.lower()
    if "xn--" in host:
        return None  # ada checks punycode labels
    scheme = LOWER_SCHEME.get(scheme) or scheme.lower()
    port = "" if port is None or port == DEFAULT_PORT[scheme] else ":" + port
    return scheme, "//", host, port, path, query, fragment


def parse_url(text: str, base: str | None = None) -> URLParts:
    """Parse ``text`` (against ``base``) per the WHATWG URL Standard.

    >>> parse_url("/c?d", "http://example.com/a/b").href
    'http://example.com/c?d'
    """
    data = check_text(text)
    base_data = None if base is None else check_text(base)
    split = ada_split(data, base_data)
    if split is None:
        raise InvalidURL(explain_failure(text, base))
    return parts_from_split(*split)


def parts_from_split(href: str, comps: tuple, host_type: int) -> URLParts:
    """Slice the components out of ada's href using its offsets.

    >>> parts_from_split(*ada_split(b"http://a:1/p?q#h")).port
    '1'
    """
    pe, ue, hs, he, port_number, ps, ss, fs = comps
    end = len(href)
    path_end = ss if ss != OMITTED else (fs if fs != OMITTED else end)
    search = href[ss : fs if fs != OMITTED else end] if ss != OMITTED else ""
    has_auth = href.startswith("//", pe)
    username = href[pe + 2 : ue] if has_auth else ""
    password = href[ue + 1 : hs] if has_auth and ue < hs and href[ue] == ":" else ""
    host_from = hs + 1 if hs < he and href[hs] == "@" else hs
    hostname = href[host_from:he]
    port = "" if port_number == OMITTED else str(port_number)
    return URLParts(
        href=href,
        protocol=href[:pe],
        username=username,
        password=password,
        host=hostname + (":" + port if port else ""),
        hostname=hostname,
        port=port,
        pathname=href[ps:path_end],
        search="" if search == "?" else search,
        hash="" if fs == OMITTED or fs == end - 1 else href[fs:],
        host_type=HOST_TYPES[host_type],
    )


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_AUTHORITY = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[/\\]*([^/\\?#]*)")
_NUMERIC_HOST = re.compile(r"[0-9a-fA-FxX.]+")


def explain_failure(text: str, base: str | None = None) -> str:
    """Say why a string is not a URL (ada only answers yes or no).

    >>> explain_failure("example.com/a")
    'no scheme: a relative reference needs a base URL'
    """
    stripped = text.strip("".join(map(chr, range(33))))
    if not stripped:
        return "empty URL"
    if base is None and not _SCHEME.match(stripped):
        return "no scheme: a relative reference needs a base URL"
    match = _AUTHORITY.match(stripped)
    authority = match.group(1).rpartition("@")[2] if match else ""
    if not authority:
        return "not a valid URL by the WHATWG URL Standard"
    return explain_host(authority)


def explain_host(authority: str) -> str:
    """Name the faulty part of an authority that failed to parse.

    >>> explain_host("1.2.3.256"), explain_host("example.com:99999")
    ('invalid IPv4 address: 1.2.3.256', 'invalid port: 99999 (above 65535)')
    """
    if authority.startswith("["):
        host, bracket, rest = authority.partition("]")
        host, port = host + bracket, rest[1:] if rest.startswith(":") else rest
        if not bracket or rest[:1] not in ("", ":"):
            return f"invalid IPv6 address: {authority}"
    else:
        host, colon, port = authority.rpartition(":")
        host, port = (host, port) if colon else (authority, "")
    problem = explain_port(port)
    if problem:
        return problem
    if any(c.isspace() for c in host):
        return f"invalid host (contains whitespace): {host!r}"
    if host.startswith("["):
        return f"invalid IPv6 address: {host}"
    if _NUMERIC_HOST.fullmatch(host) and host.rstrip(".").rsplit(".", 1)[-1][:1].isdigit():
        return f"invalid IPv4 address: {host}"
    return f"invalid host: {host!r}"


def explain_port(port: str) -> str | None:
    """What is wrong with a port, or None.

    >>> explain_port("8x"), explain_port("80")
    ("invalid port: '8x'", None)
    """
    if port and not (port.isascii() and port.isdigit()):
        return f"invalid port: {port!r}"
    if port and int(port) > 65535:
        return f"invalid port: {port} (above 65535)"
    return None
