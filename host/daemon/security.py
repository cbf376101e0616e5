"""The daemon's locks: the token file, Host and Origin checks, signed archive links.

The daemon listens on 127.0.0.1, which every web page in the browser can reach too.
So (see ARCHITECTURE.md, "Host"):

* every websocket and every non-static HTTP request carries the secret token
  (``<home>/token``, mode 0600): ``Authorization: Bearer``, ``?token=``, or the
  HttpOnly ``pk_token`` cookie the daemon sets when the viewer is opened with it;
* ``Host`` must be ``127.0.0.1:<port>`` or ``localhost:<port>`` (DNS rebinding:
  a hostile name that resolves to 127.0.0.1 still sends its own name);
* ``Origin``, when present, must be an extension origin we allow or the
  daemon's own (cross-site websocket hijacking);
* links inside archived copies are signed per target (HMAC of the token), so a
  sandboxed copy can follow its own gc links without ever seeing the token;
* version addresses the CLI prints are signed per version path (:func:`sign_path`,
  :func:`verify_path`), so they open in any browser without the viewer's cookie;
* URL credentials (``user:pass@``) are cut from stored URLs, from what ``nav_error``
  and the archive reads answer, from error messages and from log lines
  (:func:`strip_credentials`, :class:`CredentialFilter`).

>>> check_host("127.0.0.1:47477", 47477)
>>> check_host("evil.example:47477", 47477)
Traceback (most recent call last):
...
engine.errors.Forbidden: Host 'evil.example:47477' is not this daemon
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import re
import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import overload
from urllib.parse import parse_qs, quote, urlsplit

from engine.errors import Forbidden
from host.home import Home

COOKIE = "pk_token"
LOCAL_HOSTS = ("127.0.0.1", "localhost")
SIG_LENGTH = 32
# Firefox names each install's origin by a random UUID (moz-extension://<uuid>): anything else
# under that scheme, the bare scheme included, is not an add-on of this browser.
MOZ_ORIGIN = re.compile(
    r"moz-extension://[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
)
# ``scheme://userinfo@``: the userinfo runs up to the first '@' before any '/', '?' or '#'
# (WHATWG URL's authority), so ``https://medium.com/@user`` is left alone.
# The daemon's version addresses (engine/archive/model.py version_url), and a signed one's end.
VERSION_ADDRESS = re.compile(
    r"(https?://(?:127\.0\.0\.1|localhost):\d+)/v/([A-Za-z0-9_.-]{1,80})/(.*)", re.S
)
SIGNED_END = re.compile(r"\?sig=[0-9a-f]{32}$")
USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^\s/?#@\\\"'<>]*@")


def read_token(home: Path) -> str | None:
    """The token, or ``None`` if the file does not exist yet."""
    try:
        return Home(Path(home)).token.read_text("ascii").strip() or None
    except FileNotFoundError:
        return None


def ensure_token(home: Path) -> str:
    """Read the token, creating it (mode 0600, exclusive create) on first use.

    >>> import tempfile; t = ensure_token(Path(tempfile.mkdtemp()))
    >>> len(t) >= 43
    True
    """
    home = Path(home)
    home.mkdir(parents=True, exist_ok=True)
    path = Home(home).token
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        token = read_token(home)
        if token:
            return token
        raise Forbidden(f"token file {path} is empty") from None
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(secrets.token_urlsafe(32))
    return read_token(home) or ""


def same_token(given: str | None, token: str) -> bool:
    """Constant-time comparison of the whole token: a prefix, or the token with more after it,
    is refused.

    >>> same_token("abc", "abc"), same_token("ab", "abc"), same_token("abcd", "abc")
    (True, False, False)
    """
    if not given:
        return False
    return hmac.compare_digest(given.encode(), token.encode())


def check_host(host: str | None, port: int) -> None:
    """Refuse a ``Host`` header that is not this daemon (blocks DNS rebinding)."""
    allowed = {f"{name}:{port}" for name in LOCAL_HOSTS}
    if (host or "").strip().lower() not in allowed:
        raise Forbidden(f"Host {host!r} is not this daemon")


def allowed_origin(origin: str, port: int, extension_ids: Iterable[str]) -> bool:
    """Our extension's origins, any Firefox add-on origin, and the daemon's own.

    Firefox gives every install a random ``moz-extension://`` UUID, so those
    cannot be listed; the token still guards them.

    >>> allowed_origin("chrome-extension://abc", 1, ["abc"])
    True
    >>> allowed_origin("https://evil.example", 1, ["abc"])
    False
    >>> allowed_origin("moz-extension://", 1, ["abc"])
    False
    """
    origin = origin.strip().lower()
    origin = origin[:-1] if origin.endswith("/") else origin
    own = {f"http://{name}:{port}" for name in LOCAL_HOSTS}
    chrome = {f"chrome-extension://{ext.lower()}" for ext in extension_ids}
    if origin in own or origin in chrome:
        return True
    return MOZ_ORIGIN.fullmatch(origin) is not None


def check_origin(origin: str | None, port: int, extension_ids: Iterable[str]) -> None:
    """No Origin (the CLI, the native relay) passes; a foreign one is refused."""
    if origin is None:
        return
    if not allowed_origin(origin, port, extension_ids):
        raise Forbidden(f"Origin {origin!r} is not allowed")


def cookie_value(cookie_header: str | None, name: str = COOKIE) -> str | None:
    """One cookie's value from a ``Cookie`` header."""
    for part in (cookie_header or "").split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


def query_value(path: str, name: str) -> str | None:
    """One query parameter of a request path."""
    values = parse_qs(urlsplit(path).query).get(name)
    return values[0] if values else None


def presented_token(path: str, headers) -> str | None:
    """The token a request carries: Bearer header, then ``?token=``, then the cookie."""
    auth = headers.get("Authorization") or ""
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    return query_value(path, "token") or cookie_value(headers.get("Cookie"))


def sign(token: str, *parts: str) -> str:
    """A signature that authorizes exactly one archive target: an HMAC-SHA256 of the parts
    joined by a newline (a newline inside a part is escaped first, as ``%0A``, and ``%`` as
    ``%25``), so ("a", "bc") and ("ab", "c") differ.

    >>> sign("t", "gc", "http://a/") == sign("t", "gc", "http://a/")
    True
    >>> sign("t", "gc", "ab", "c") == sign("t", "gc", "a", "bc")
    False
    """
    escaped = (part.replace("%", "%25").replace("\n", "%0A") for part in parts)
    message = "\n".join(escaped).encode("utf-8")
    return hmac.new(token.encode(), message, hashlib.sha256).hexdigest()[:SIG_LENGTH]


def valid_signature(token: str, sig: str | None, *parts: str) -> bool:
    """The whole signature, compared in constant time: a prefix of it is refused.

    >>> s = sign("t", "gc", "x")
    >>> valid_signature("t", s, "gc", "x"), valid_signature("t", s[:-1], "gc", "x")
    (True, False)
    """
    if not sig:
        return False
    return hmac.compare_digest(sig.encode(), sign(token, *parts).encode())


def sign_path(secret: str, path: str) -> str:
    """The signature of one daemon path (``/v/<id>/`` for a version, whatever follows naming
    it only for the reader): ``?sig=`` with it opens that path in any browser, without the
    token. An HMAC-SHA256 keyed by the daemon's secret over ``"path" + "\n" + path``.

    >>> sig = sign_path("secret", "/v/123/")
    >>> len(sig), verify_path("secret", "/v/123/", sig), verify_path("secret", "/v/124/", sig)
    (32, True, False)
    """
    return sign(secret, "path", path)


def verify_path(secret: str, path: str, sig: str | None) -> bool:
    """Whether ``sig`` is exactly :func:`sign_path` of ``path`` (constant time; a prefix of
    the signature, or one with more after it, is refused).

    >>> verify_path("secret", "/v/123/", sign_path("secret", "/v/123/")[:-1])
    False
    """
    return valid_signature(secret, sig, "path", path)


def version_path(version_id: str) -> str:
    """The signed path of a version: the one path that picks its copy.

    >>> version_path("0190")
    '/v/0190/'
    """
    return f"/v/{version_id}/"


def signed_version_url(secret: str, url: str) -> str:
    """A version address (``…/v/<id>/<original URL>``) that opens in any browser: the
    original URL quoted (its ``?`` and ``#`` would end the path) and ``?sig=`` of the
    version's path appended. Other strings, and addresses already signed, come back as they are.

    >>> signed_version_url("s", "http://127.0.0.1:1/v/7/https://a.example/x?q=1").split("?sig=")[0]
    'http://127.0.0.1:1/v/7/https://a.example/x%3Fq=1'
    >>> signed_version_url("s", "https://a.example/v/")
    'https://a.example/v/'
    """
    found = VERSION_ADDRESS.match(url)
    if not found or SIGNED_END.search(url):
        return url
    base, version_id, original = found.groups()
    shown = quote(original, safe=":/@!$&'()*+,;=-._~%[]")
    return (
        f"{base}{version_path(version_id)}{shown}?sig={sign_path(secret, version_path(version_id))}"
    )


def sign_version_urls(value, secret: str):
    """:func:`signed_version_url` over every string of a JSON-like value (a CLI result).

    >>> sign_version_urls({"a": ["x"]}, "s")
    {'a': ['x']}
    """
    if isinstance(value, str):
        return signed_version_url(secret, value)
    if isinstance(value, dict):
        return {key: sign_version_urls(item, secret) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [sign_version_urls(item, secret) for item in value]
    return value


def has_version_url(value) -> bool:
    """Whether a JSON-like value holds a version address anywhere."""
    if isinstance(value, str):
        return VERSION_ADDRESS.match(value) is not None
    if isinstance(value, dict):
        return any(has_version_url(item) for item in value.values())
    if isinstance(value, list | tuple):
        return any(has_version_url(item) for item in value)
    return False


def session_cookie(token: str) -> str:
    """``Set-Cookie`` value: HttpOnly (no script reads it), SameSite=Strict (no other site sends it)."""
    return f"{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"


@overload
def strip_credentials(text: str) -> str: ...
@overload
def strip_credentials(text: None) -> None: ...
def strip_credentials(text: str | None) -> str | None:
    """Cut ``user:password@`` out of every URL in ``text`` (never echoed anywhere).

    Works on a bare URL, on a version URL that embeds one, and on a message quoting one.

    >>> strip_credentials("see /v/1/https://alice:s3cret@bank.example/a?b")
    'see /v/1/https://bank.example/a?b'
    >>> strip_credentials("https://medium.com/@user")
    'https://medium.com/@user'
    """
    if not text or "@" not in text:
        return text
    return USERINFO.sub(r"\1", text)


def strip_credentials_deep(value):
    """:func:`strip_credentials` over every string of a JSON-like value (a reply's result).

    >>> strip_credentials_deep({"a": ["http://u:p@h.example/"]})
    {'a': ['http://h.example/']}
    """
    if isinstance(value, str):
        return strip_credentials(value)
    if isinstance(value, dict):
        return {key: strip_credentials_deep(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [strip_credentials_deep(item) for item in value]
    return value


class CredentialFilter(logging.Filter):
    """A log handler filter: the formatted message and traceback lose URL credentials.

    >>> record = logging.LogRecord("x", 20, "f", 1, "fetch %s", ("http://u:p@h/",), None)
    >>> CredentialFilter().filter(record), record.getMessage()
    (True, 'fetch http://h/')
    """

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = strip_credentials(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        record.exc_text = strip_credentials(record.exc_text)
        return True
