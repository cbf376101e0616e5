"""Switching off a rule that the WHATWG parse applies by itself.

ada-url always lowercases the scheme, drops the default port, removes dot
segments and so on. When such a rule is off, we keep that one feature as the
input wrote it: the input is split once more with the RFC 3986 appendix B
regex, and a raw component replaces the parsed one only where the two are
the same but for that rule (so an off rule never lets an invalid form in).
``whitespace_strip`` and ``whatwg_lenient`` off mean strict input: text that
needs them is rejected with InvalidURL rather than kept.

>>> from engine.urls.normalize import normalize, NormalizeOptions
>>> normalize("HTTP://example.com:80/a/../b", NormalizeOptions.from_profile("safe", "-scheme_case,-default_port"))
'HTTP://example.com:80/b'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ada_url import idna_to_unicode

from engine.errors import InvalidURL
from engine.urls.parse import SPECIAL_PORTS

# RFC 3986 appendix B, with the scheme made mandatory.
RAW = re.compile(
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*):(?://(?P<auth>[^/?#]*))?"
    r"(?P<path>[^?#]*)(?:\?(?P<query>[^#]*))?(?:#(?P<fragment>.*))?",
    re.DOTALL,
)
C0_SPACE = "".join(map(chr, range(33)))
TAB_NEWLINE = str.maketrans("", "", "\t\n\r")
# WHATWG path percent-encode set, plus non-ASCII (https://url.spec.whatwg.org/#path-percent-encode-set).
PATH_ENCODE = frozenset(map(chr, range(33))) | frozenset('"#<>?`{}\x7f')


@dataclass
class Raw:
    """The input's own components, as written."""

    scheme: str
    has_authority: bool
    userinfo: str | None
    host: str
    port: str | None
    path: str
    query: str | None
    fragment: str | None


def check_strict(url: str, on: frozenset[str]) -> None:
    """Reject input that needs ``whitespace_strip`` or ``whatwg_lenient`` when they are off.

    >>> check_strict("http:\\\\\\\\a/", frozenset({"whitespace_strip"}))
    Traceback (most recent call last):
    engine.errors.InvalidURL: backslash or missing // in a special URL (whatwg_lenient is off)
    """
    if "whitespace_strip" not in on and (
        url != url.strip(C0_SPACE) or url != url.translate(TAB_NEWLINE)
    ):
        raise InvalidURL("outer whitespace, tab or newline (whitespace_strip is off)")
    if "whatwg_lenient" not in on and _needs_leniency(url.strip(C0_SPACE)):
        raise InvalidURL("backslash or missing // in a special URL (whatwg_lenient is off)")


def _needs_leniency(text: str) -> bool:
    scheme, colon, rest = text.partition(":")
    if not colon or scheme.lower() not in SPECIAL_PORTS:
        return False
    before_query = re.split(r"[?#]", rest, maxsplit=1)[0]
    if "\\" in before_query or not rest.startswith("//"):
        return True
    return scheme.lower() != "file" and rest.startswith("///")


def split_raw(url: str, on: frozenset[str]) -> Raw | None:
    """The input's components as written (after the whitespace rule, if on).

    >>> split_raw("HTTP://Ex.com:080/a", frozenset()).port
    '080'
    """
    text = url.strip(C0_SPACE).translate(TAB_NEWLINE) if "whitespace_strip" in on else url
    if "\\" in text and text.partition(":")[0].lower() in SPECIAL_PORTS:
        # WHATWG reads "\\" as "/" in special URLs, up to the query or fragment.
        cut = min((i for i in (text.find("?"), text.find("#")) if i >= 0), default=len(text))
        text = text[:cut].replace("\\", "/") + text[cut:]
    match = RAW.fullmatch(text)
    if match is None:
        return None
    auth = match["auth"]
    userinfo, host, port = _split_authority(auth) if auth is not None else (None, "", None)
    return Raw(
        match["scheme"],
        auth is not None,
        userinfo,
        host,
        port,
        match["path"],
        match["query"],
        match["fragment"],
    )


def _split_authority(auth: str) -> tuple[str | None, str, str | None]:
    userinfo, at, hostport = auth.rpartition("@")
    if hostport.startswith("[") and "]" in hostport:
        host, _, rest = hostport.partition("]")
        host += "]"
        port = rest[1:] if rest.startswith(":") else None
    else:
        host, colon, port = hostport.partition(":")
        port = port if colon else None
    return (userinfo if at else None), host, port


def restore(url: str, parts: tuple, on: frozenset[str]) -> tuple:
    """Put back, in the parsed ``parts``, the features whose rule is off.

    >>> restore("http://EX.com/", ("http", "//", "ex.com", "", "/", None, None), frozenset())[2]
    'EX.com'
    """
    raw = split_raw(url, on)
    if raw is None:
        return parts
    scheme, before_host, host, after_host, path, query, fragment = parts
    host_type = host_kind(host)
    if "scheme_case" not in on and raw.scheme.lower() == scheme:
        scheme = raw.scheme
    before_host = _userinfo(raw, before_host, on)
    host = _host(raw, host, host_type, on)
    after_host = _port(raw, scheme.lower(), after_host, on)
    path, query, fragment = _path_query(raw, scheme.lower(), path, query, fragment, on)
    return scheme, before_host, host, after_host, path, query, fragment


def host_kind(host: str) -> int:
    """ada's HostType of a serialized host: 0 domain, 1 IPv4, 2 IPv6.

    >>> host_kind("127.0.0.1"), host_kind("[::1]"), host_kind("a.example")
    (1, 2, 0)
    """
    if host[:1] == "[":
        return 2
    # A serialized IPv4 host is dotted decimal, and no domain ends in a number.
    return 1 if host.rpartition(".")[2].isdigit() else 0


def _userinfo(raw: Raw, before_host: str, on: frozenset[str]) -> str:
    if "empty_userinfo" not in on and raw.userinfo in ("", ":") and before_host == "//":
        return "//" + raw.userinfo + "@"
    return before_host


def _host(raw: Raw, host: str, host_type: int, on: frozenset[str]) -> str:
    written = raw.host if "host_case" not in on else raw.host.lower()
    if host_type == 1 and "ipv4_numeric" not in on and raw.host:
        return written
    if host_type == 2 and "ipv6_compress" not in on and raw.host:
        return written
    if "idn_punycode" not in on and "xn--" in host and not raw.host.isascii():
        host = idna_to_unicode(host)
    if "host_case" not in on and raw.host.lower() == host:
        return raw.host
    return host


def _port(raw: Raw, scheme: str, after_host: str, on: frozenset[str]) -> str:
    port = raw.port
    if port is None:
        return after_host
    if port == "":
        return after_host if "empty_port" in on else ":"
    if not port.isdigit():
        return after_host
    value, default = int(port), SPECIAL_PORTS.get(scheme)
    parsed = int(after_host[1:]) if after_host else default
    if value != parsed:
        return after_host
    if value == default and "default_port" in on:
        return ""
    return ":" + (str(value) if "port_leading_zero" in on else port)


def _path_query(raw: Raw, scheme: str, path, query, fragment, on: frozenset[str]):
    if "empty_path_slash" not in on and raw.has_authority and raw.path == "" and path == "/":
        path = ""
    encode = "pct_encode" in on
    if "dot_segments" not in on or not encode:
        written = raw.path
        if "dot_segments" in on:
            written = remove_dot_segments(written)
        path = encode_path(written) if encode else written
        if not encode:
            query, fragment = raw.query, raw.fragment
    return path, query, fragment


def encode_path(path: str) -> str:
    """Percent-encode a path with the WHATWG path percent-encode set.

    >>> encode_path("/a b/ü")
    '/a%20b/%C3%BC'
    """
    if path.isascii() and not any(c in PATH_ENCODE for c in path):
        return path
    return "".join(
        c if c.isascii() and c not in PATH_ENCODE else "".join(f"%{b:02X}" for b in c.encode())
        for c in path
    )


DOT = frozenset({".", "%2e"})
DOUBLE_DOT = frozenset({"..", ".%2e", "%2e.", "%2e%2e"})


def remove_dot_segments(path: str) -> str:
    """RFC 3986 5.2.4, with the ``%2e`` spellings WHATWG also treats as dots.

    >>> remove_dot_segments("/a/./b/../%2E%2e/c")
    '/c'
    """
    out: list[str] = []
    segments = path.split("/")
    for i, segment in enumerate(segments):
        lowered = segment.lower()
        last = i == len(segments) - 1
        if lowered in DOT:
            if last:
                out.append("")
        elif lowered in DOUBLE_DOT:
            if len(out) > 1:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(segment)
    return "/".join(out)
