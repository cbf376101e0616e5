"""Step 1 (the URL-rewriting method's substitution list) and the lenient reading of a typed URL.

A failed URL may not even be a valid URL (``http://goo gle.com``), so it is
cut into scheme / host / rest by hand, credentials dropped. The host is then
decoded (percent-escapes, punycode) and rewritten into *variants*, each with a
cost: accents folded (é→e, ü→u or ue, ß→ss), multi-letter look-alikes
(rn→m, vv→w), and connector characters (``, & + _`` and spaces, which the URL-rewriting method
turns into segment breaks) joined with nothing, a hyphen, a dot or "and".

>>> [v.host for v in host_variants("München.de")]
['munchen.de', 'muenchen.de']
>>> [v.host for v in host_variants("terra+world.com")][:3]
['terraworld.com', 'terra-world.com', 'terraandworld.com']
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import unquote

from engine.errors import InvalidURL
from engine.urls.parse import DEFAULT_PORT

MAX_URL_LENGTH = 8192
CONNECTORS = ",&+_ ;"
CONNECTOR_RUN = re.compile(r"\s*[" + re.escape(CONNECTORS) + r"]+\s*")
FOLDS = {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ł": "l", "ı": "i", "þ": "th"}
GERMAN = {"ä": "ae", "ö": "oe", "ü": "ue"}
LOOKALIKE_GROUPS = (("rn", "m"), ("vv", "w"), ("cl", "d"))
DIGIT_LOOKALIKES = str.maketrans("013457", "oleast")
KNOWN_SCHEMES = ("http", "https")
_SCHEME = re.compile(r"^\s*([a-zA-Z][a-zA-Z0-9+.\-;]{0,9})\s*(:+|;)/*\\*/*")
# a name, a colon and a port, then the path or the end: a host and its port typed without a
# scheme (an address bar opens ``localhost:8080/a`` over http), not a scheme of that name
_HOST_PORT = re.compile(r"^\s*[^\s:/?#@\\]+:\d{1,5}(?:[/?#\\]|\s*$)")


@dataclass(frozen=True)
class TypedURL:
    """A typed URL cut leniently: ``scheme://host:port`` + ``rest``; no credentials."""

    scheme: str
    host: str
    port: str
    rest: str
    scheme_typo: bool = False
    had_credentials: bool = False

    def with_host(self, host: str, scheme: str | None = None) -> str:
        """The URL rebuilt around another host (credentials never included).

        >>> read_typed("http://u:p@gogle.com/x").with_host("google.com")
        'http://google.com/x'
        """
        port = f":{self.port}" if self.port else ""
        return f"{scheme or self.scheme}://{host}{port}{self.rest or '/'}"


@dataclass(frozen=True)
class HostVariant:
    """One rewritten reading of the host, with its cost and what was changed."""

    host: str
    cost: float
    change: str = ""


def _scheme_of(text: str) -> tuple[str, str, bool]:
    if _HOST_PORT.match(text):
        return "http", text.strip(), False
    match = _SCHEME.match(text)
    if not match or (match.group(2) != ":" and "/" not in text[match.end(2) : match.end()]):
        scheme = _repair_scheme(match.group(1).lower()) if match else ""
        if match and scheme in KNOWN_SCHEMES:
            # a known scheme, or a typo of one, typed with anything but "://" after it is a
            # scheme typo, as ``http:example.com``, ``http;//example.com`` and
            # ``htp;example.com`` are (no host holds a semicolon: RFC 3986's reg-name may, DNS not)
            return scheme, text[match.end() :], True
        return "http", text.strip().lstrip("/"), False
    raw = match.group(1).lower().rstrip(";")
    fixed = _repair_scheme(raw)
    typo = raw != fixed or match.group(2) != ":" or text[match.end(2) : match.end()] != "//"
    return fixed, text[match.end() :], typo


def _repair_scheme(raw: str) -> str:
    """``htp``/``htps``/``hhtp``/``ttp`` → http(s); other schemes stay as they are."""
    if raw in KNOWN_SCHEMES:
        return raw
    letters = set(raw)
    if letters <= set("htps") and "h" in raw or raw in ("ttp", "ttps", "tp"):
        return "https" if raw.endswith("s") and len(raw) >= 4 else "http"
    return raw


def read_typed(text: str) -> TypedURL:
    """Cut a typed URL into its parts, leniently.

    >>> t = read_typed("htp://user:pw@WWW.Example.com:8080/a?b#c")
    >>> (t.scheme, t.host, t.port, t.rest, t.scheme_typo, t.had_credentials)
    ('http', 'www.example.com', '8080', '/a?b#c', True, True)
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidURL("empty URL")
    if len(text) > MAX_URL_LENGTH:
        raise InvalidURL(f"URL longer than {MAX_URL_LENGTH} characters")
    scheme, after, typo = _scheme_of(text.strip())
    if scheme not in KNOWN_SCHEMES:
        raise InvalidURL(f"not a web URL: scheme {scheme!r}")
    cut = min((i for i in (after.find(c) for c in "/?#\\") if i >= 0), default=len(after))
    authority, rest = after[:cut], after[cut:].replace("\\", "/", 1) if cut < len(after) else ""
    creds, _, hostport = authority.rpartition("@")
    host, port = _split_port(hostport)
    port = _without_default(scheme, port)
    host = decode_host(host)
    if not host.strip(". "):
        raise InvalidURL("URL has no host")
    return TypedURL(scheme, host, port, rest, typo, bool(creds))


def typed_address(text: str) -> TypedURL:
    """A web address as a user typed it (an address bar's rule: the scheme may be left out),
    read leniently; a bare word is ``InvalidURL`` naming it and the form of a network name.

    >>> typed_address("gooogle.com").host
    'gooogle.com'
    >>> typed_address("notaurl")
    Traceback (most recent call last):
    ...
    engine.errors.InvalidURL: 'notaurl' is no web address: no scheme (http://), no domain (a dot) and no port (an address bar searches a word); give the page's address, e.g. http://notaurl/ for a name on your network
    """
    typed = read_typed(text)
    if bare_word(text, typed):
        raise InvalidURL(
            f"{text.strip()!r} is no web address: no scheme (http://), no domain (a dot) and no"
            " port (an address bar searches a word); give the page's address, e.g."
            f" http://{typed.host}/ for a name on your network"
        )
    return typed


def bare_word(text: str, typed: TypedURL) -> bool:
    """Whether a typed "address" is a bare word: typed without ``//`` (no scheme), its host
    one label (no dot) and no port, and not localhost or an IP literal. A browser never loads
    one (its address bar searches a word); a name on the network is written ``http://name/``.

    >>> [bare_word(t, read_typed(t)) for t in ("notaurl", "gooogle.com", "http://intranet/",
    ...     "localhost", "192.168.0.1", "notaurl/x")]
    [True, False, False, False, False, True]
    """
    return (
        "//" not in text
        and "." not in typed.host
        and not typed.port
        and not _HOST_PORT.match(text)  # ``intranet:80``: a port typed, if the default one
        and not is_local(typed.host)
    )


def is_local(host: str) -> bool:
    """An IP literal or localhost: nothing a domain dictionary can repair.

    >>> is_local("192.168.1.1"), is_local("[::1]"), is_local("localhost"), is_local("1.example")
    (True, True, True, False)
    """
    host = host.rstrip(".")
    if host.startswith("[") or host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _split_port(hostport: str) -> tuple[str, str]:
    """The host and the port typed after it (WHATWG URL: the host, then ``:port``); an IPv6
    literal's own colons are inside its brackets, so its port starts after the ``]``.

    >>> _split_port("[::1]:8080"), _split_port("[::1]"), _split_port("example.com:80")
    (('[::1]', '8080'), ('[::1]', ''), ('example.com', '80'))
    """
    if hostport.startswith("["):
        literal, bracket, after = hostport.partition("]")
        if bracket and (after == ":" or after[:1] == ":" and _ascii_digits(after[1:])):
            return literal + bracket, after[1:]
        return hostport, ""
    head, colon, tail = hostport.rpartition(":")
    if colon and (_ascii_digits(tail) or not tail):
        return head, tail
    return hostport, ""


def _ascii_digits(text: str) -> bool:
    """A port's characters: WHATWG URL's port state takes ASCII digits only (``str.isdigit``
    also takes ``²`` and other scripts' digits).

    >>> _ascii_digits("8080"), _ascii_digits("²"), _ascii_digits("٨٠"), _ascii_digits("")
    (True, False, False, False)
    """
    return text.isascii() and text.isdigit()


def _without_default(scheme: str, port: str) -> str:
    """The port as a browser keeps it: its number, and none for the scheme's default port
    (WHATWG URL, port state: "if port is url's scheme's default port, set url's port to
    null"), so ``http://[2001::1]:80/`` is ``http://[2001::1]/``.

    >>> _without_default("http", "80"), _without_default("https", "0443"), _without_default("https", "80")
    ('', '', '80')
    """
    number = str(int(port)) if port else ""
    return "" if number == DEFAULT_PORT[scheme] else number


def decode_host(host: str) -> str:
    """Lower-case, percent-decoded, punycode-decoded host without trailing dots.

    >>> decode_host("XN--mnchen-3ya.DE.")
    'münchen.de'
    """
    host = unquote(host).strip().lower().replace("\u3002", ".").strip(".")
    return ".".join(_decode_label(label) for label in host.split("."))


def _decode_label(label: str) -> str:
    if not label.startswith("xn--"):
        return label
    try:
        return label[4:].encode("ascii").decode("punycode")
    except (UnicodeError, ValueError):
        return label


def fold(text: str, german: bool = False) -> str:
    """Accents off (é→e), ß→ss; with ``german`` ä/ö/ü become ae/oe/ue.

    >>> fold("crème-brûlée"), fold("grüße", german=True)
    ('creme-brulee', 'gruesse')
    """
    if text.isascii():
        return text  # nothing to fold: every folded letter and mark is outside ASCII
    if german:
        text = "".join(GERMAN.get(c, c) for c in text)
    text = "".join(FOLDS.get(c, c) for c in text)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _connector_variants(host: str) -> list[HostVariant]:
    if not any(c in host for c in CONNECTORS):
        return [HostVariant(host, 0.0)]
    pattern = CONNECTOR_RUN
    out = [
        HostVariant(pattern.sub("", host), 0.2, "connector removed"),
        HostVariant(pattern.sub("-", host), 0.2, "connector as hyphen"),
    ]
    if "&" in host or "+" in host:
        out.append(HostVariant(re.sub(r"\s*[&+]\s*", "and", host), 0.3, "'&'/'+' read as 'and'"))
    # as a dot only at a price: "jtexpre,ss.com" must not become a subdomain of ss.com.
    # Before the TLD (google,com) it is the likeliest reading; inside the name a comma
    # (next to '.' on the keyboard) may still be one, a space, '+', '_' or '&' hardly
    out.append(HostVariant(pattern.sub(".", host), _dot_cost(host, pattern), "connector as dot"))
    return out


def _dot_cost(host: str, pattern: re.Pattern) -> float:
    """The cost of reading the connectors of ``host`` as dots.

    >>> _dot_cost("google,com", CONNECTOR_RUN), _dot_cost("a,b.com", CONNECTOR_RUN)
    (0.8, 1.2)
    >>> _dot_cost("terra+world.com", CONNECTOR_RUN)
    1.6
    """
    if "." not in pattern.split(host)[-1]:
        return 0.8
    return 1.2 if set(re.sub(r"[^" + re.escape(CONNECTORS) + "]", "", host)) == {","} else 1.6


def host_variants(host: str) -> list[HostVariant]:
    """The substitution-list readings of ``host``, cheapest first (step 1)."""
    variants = _connector_variants(host.lower())
    out: dict[str, HostVariant] = {}
    for v in variants:
        plain = fold(v.host)
        extra = 0.1 if plain != v.host else 0.0
        _keep(
            out,
            HostVariant(plain, v.cost + extra, _join(v.change, "accents folded" if extra else "")),
        )
        german = fold(v.host, german=True)
        if german != plain:
            _keep(out, HostVariant(german, v.cost + 0.15, _join(v.change, "umlaut as ae/oe/ue")))
    for v in list(out.values()):
        letters = v.host.translate(DIGIT_LOOKALIKES)
        if letters != v.host and re.search(r"[a-z]", v.host):
            changed = sum(a != b for a, b in zip(letters, v.host, strict=True))
            _keep(
                out,
                HostVariant(
                    letters, v.cost + 0.2 * changed, _join(v.change, "digits read as letters")
                ),
            )
        for group, letter in LOOKALIKE_GROUPS:
            if group in v.host:
                swapped = v.host.replace(group, letter)
                _keep(out, HostVariant(swapped, v.cost + 0.3, _join(v.change, f"{group}→{letter}")))
    return sorted(out.values(), key=lambda v: v.cost)


def _keep(out: dict[str, HostVariant], variant: HostVariant) -> None:
    labels = [_ascii_label(label) for label in variant.host.split(".")]
    host = re.sub(r"[^a-z0-9.\-]", "", ".".join(labels)).strip(".-")
    host = re.sub(r"\.{2,}", ".", host)
    if host and (host not in out or out[host].cost > variant.cost):
        out[host] = HostVariant(host, variant.cost, variant.change)


def _ascii_label(label: str) -> str:
    """A label still not ASCII after folding (Thai, Cyrillic…) back to punycode,
    the form the dictionary holds (RFC 3492)."""
    if label.isascii():
        return label
    clean = re.sub(r"[\s,&+_;]", "", label)
    try:
        return "xn--" + clean.encode("punycode").decode("ascii")
    except UnicodeError:
        return label


def ascii_host(host: str) -> str:
    """Non-ASCII labels as punycode: ``ปันสุข24.run`` → ``xn--24-oqizgj5g1b4c.run``."""
    return host if host.isascii() else ".".join(_ascii_label(x) for x in host.split("."))


def _join(*notes: str) -> str:
    return ", ".join(n for n in notes if n)
