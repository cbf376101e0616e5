"""Fetch live pages over HTTP(S) with httpx: timeouts, a size cap, <= 10 redirects.

The body is streamed and the cap is checked as bytes arrive (and against
Content-Length up front), so a 200 MB page is refused with ``TooLarge``
without ever being held in memory. The body is decoded here, not by httpx:
every ``Content-Encoding`` layer (gzip, deflate, br, stacked) inflates at most
64 KB per step and counts against the cap, so a 7 KB ``gzip, gzip`` bomb stops
at the cap instead of growing to gigabytes. Redirects are followed here too
(httpx would read and decode a redirect's body whole). Network failures raise
``FetchError``; an HTTP error status is *not* an exception: liveness needs to
see 404 and 410.

>>> got = fetch("http://127.0.0.1:8000/")  # doctest: +SKIP
>>> got.status, got.final_url, got.charset  # doctest: +SKIP
(200, 'http://127.0.0.1:8000/', 'utf-8')
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field

import brotli
import httpx

from engine import __version__
from engine.archive.model import Capture
from engine.errors import FetchError, InvalidInput, InvalidURL, TooLarge
from engine.html.parse import sniff_charset
from engine.liveness import UNREACHABLE_REASONS
from engine.urls.parse import parse_url
from host.daemon.security import strip_credentials

DEFAULT_MAX_BYTES = 50 * 1024 * 1024
STEP = 64 * 1024  # the most one decoding step may produce
MAX_ENCODINGS = 4  # Content-Encoding layers decoded; more is refused
ACCEPT_ENCODING = "gzip, deflate, br"  # what the decoders below read


@dataclass(frozen=True)
class FetchOptions:
    """How to fetch: caps and timeouts (seconds)."""

    max_bytes: int = DEFAULT_MAX_BYTES
    timeout: float = 15.0
    connect_timeout: float = 5.0
    max_redirects: int = 10
    user_agent: str = f"PageKeeper/{__version__} (personal archive)"
    method: str = "GET"
    verify: bool = True
    # Refuse every hop (redirects too) whose host is or resolves to a loopback, private,
    # link-local or reserved address: for fetches the user did not ask for.
    public_only: bool = False


@dataclass(frozen=True)
class Fetched:
    """A fetched response: status, the URL after redirects, headers and the body bytes."""

    status: int
    final_url: str
    headers: dict = field(default_factory=dict)
    body: bytes = b""
    content_type: str = ""
    charset: str = "utf-8"
    redirects: int = 0

    @property
    def ok(self) -> bool:
        """2xx status."""
        return 200 <= self.status < 300

    def capture(self, url: str, source: str):
        """This response as the archive's input (``engine.archive.model.Capture``) for ``url``;
        a non-2xx answer is ``InvalidInput``: there is nothing to archive. URL credentials
        (``user:pass@``) are not kept: the fetch used them, the archive never shows them.

        >>> Fetched(200, "https://e.org/b", body=b"<p>x").capture("https://e.org/a", "crawl").final_url
        'https://e.org/b'
        """

        if not self.ok:
            raise InvalidInput(f"{url} answered HTTP {self.status}; nothing to archive")

        return Capture(
            url=strip_credentials(url),
            html=self.body,
            final_url=strip_credentials(self.final_url),
            content_type=self.content_type or "text/html",
            charset=self.charset,
            last_modified=self.headers.get("last-modified"),
            source=source,
        )


def _client_kwargs(options: FetchOptions) -> dict:
    timeout = httpx.Timeout(options.timeout, connect=options.connect_timeout)
    headers = {
        "User-Agent": options.user_agent,
        "Accept": "text/html,*/*;q=0.8",
        "Accept-Encoding": ACCEPT_ENCODING,
    }
    return {
        "timeout": timeout,
        "follow_redirects": False,
        "headers": headers,
        "verify": options.verify,
    }


class _ZlibLayer:
    """One gzip or deflate layer, inflating at most ``STEP`` bytes per step."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self.inflater: zlib._Decompress | None = None

    def _start(self, data: bytes) -> zlib._Decompress:
        if self.encoding != "deflate":
            return zlib.decompressobj(zlib.MAX_WBITS | 16)
        # RFC 9110 says zlib format; some servers send raw deflate (as browsers accept).
        zlib_header = len(data) > 1 and data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0
        return zlib.decompressobj(zlib.MAX_WBITS if zlib_header else -zlib.MAX_WBITS)

    def push(self, data: bytes) -> Iterator[bytes]:
        if self.inflater is None:
            self.inflater = self._start(data)
        inflater = self.inflater
        while not inflater.eof:
            out = inflater.decompress(data, STEP)
            data = inflater.unconsumed_tail
            if out:
                yield out
            if not data and len(out) < STEP:
                return


class _BrotliLayer:
    """One br layer (RFC 7932), producing at most ``STEP`` bytes per step."""

    def __init__(self) -> None:
        self.decompressor = brotli.Decompressor()

    def push(self, data: bytes) -> Iterator[bytes]:
        if self.decompressor.is_finished():
            return
        yield self.decompressor.process(data, output_buffer_limit=STEP)
        while not self.decompressor.can_accept_more_data():
            yield self.decompressor.process(b"", output_buffer_limit=STEP)


class BoundedBody:
    """Collects a body as it arrives, decoding its ``Content-Encoding`` layers within ``max_bytes``.

    Every layer's output counts against the cap, so no layer ever holds more than
    ``max_bytes`` plus one step, whatever the ratio.

    >>> body = BoundedBody("gzip, gzip", 10_000, "u")
    >>> import gzip; body.feed(gzip.compress(gzip.compress(b"x" * 5000))); len(body.finish())
    5000
    >>> body = BoundedBody("gzip", 10_000, "u"); body.feed(gzip.compress(b"x" * 20_000))
    Traceback (most recent call last):
    ...
    engine.errors.TooLarge: u is larger than the cap of 10000 bytes (decoded)
    """

    def __init__(self, content_encoding: str, max_bytes: int, url: str) -> None:
        self.max_bytes, self.url = max_bytes, url
        self.chunks: list[bytes] = []
        self.layers = _layers(content_encoding, url)
        self.sizes = [0] * (len(self.layers) + 1)

    def feed(self, raw: bytes) -> None:
        self._pipe(0, raw)

    def _pipe(self, index: int, data: bytes) -> None:
        if not data:
            return
        self.sizes[index] += len(data)
        if self.sizes[index] > self.max_bytes:
            what = "decoded" if index else "raw"
            raise TooLarge(
                f"{self.url} is larger than the cap of {self.max_bytes} bytes ({what})",
                limit=self.max_bytes,
            )
        if index == len(self.layers):
            self.chunks.append(data)
            return
        try:
            for out in self.layers[index].push(data):
                self._pipe(index + 1, out)
        except (zlib.error, brotli.error) as exc:
            raise FetchError(
                f"cannot decode the body of {self.url}: {exc}", kind="decode"
            ) from None

    def finish(self) -> bytes:
        return b"".join(self.chunks)


def _layers(content_encoding: str, url: str) -> list[_ZlibLayer | _BrotliLayer]:
    """The decoders for a Content-Encoding header, outermost first (the reverse of the header).

    Unknown tokens pass the body through unchanged, as httpx does."""
    names = [name.strip().lower() for name in content_encoding.split(",") if name.strip()]
    layers: list[_ZlibLayer | _BrotliLayer] = []
    for name in reversed(names):
        if name in ("gzip", "x-gzip", "deflate"):
            layers.append(_ZlibLayer(name))
        elif name == "br":
            layers.append(_BrotliLayer())
    if len(layers) > MAX_ENCODINGS:
        raise FetchError(
            f"{url} is encoded {len(layers)} times ({content_encoding!r}); refused", kind="decode"
        )
    return layers


def http_url(url: str, done: str):
    """``url`` parsed; a text that is no URL at all is ``InvalidURL`` naming it as typed, the
    reason after (the parser's own message names no input).

    >>> http_url("notaurl", "crawled")
    Traceback (most recent call last):
    ...
    engine.errors.InvalidURL: only http(s) URLs can be crawled, not 'notaurl' (no scheme: a relative reference needs a base URL)
    """
    try:
        return parse_url(url)
    except InvalidURL as exc:
        raise InvalidURL(f"only http(s) URLs can be {done}, not {url!r} ({exc.message})") from exc


def _check_url(url: str) -> None:
    if not url.lower().startswith(("http://", "https://")):
        raise InvalidURL(f"only http(s) URLs can be fetched: {url!r}")


def _check_length(response: httpx.Response, options: FetchOptions) -> None:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > options.max_bytes:
        raise TooLarge(
            f"{response.url} declares {declared} bytes (cap {options.max_bytes})",
            limit=options.max_bytes,
        )


def _body(response: httpx.Response, options: FetchOptions) -> BoundedBody:
    _check_length(response, options)
    return BoundedBody(
        response.headers.get("content-encoding", ""), options.max_bytes, str(response.url)
    )


def _result(response: httpx.Response, body: bytes, redirects: int) -> Fetched:
    content_type = response.headers.get("content-type", "")
    charset, _ = sniff_charset(body, content_type)
    return Fetched(
        status=response.status_code,
        final_url=str(response.url),
        headers=dict(response.headers),
        body=body,
        content_type=content_type.split(";")[0].strip().lower(),
        charset=charset,
        redirects=redirects,
    )


def _wrap(exc: Exception, url: str) -> Exception:
    if isinstance(exc, httpx.TooManyRedirects):
        return FetchError(f"too many redirects from {url}", kind="redirects")
    if isinstance(exc, httpx.TimeoutException):
        return FetchError(f"timed out fetching {url}", kind="timeout")
    if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
        return InvalidURL(f"cannot fetch {url!r}: {exc}")
    kind = failure_kind(exc)
    # The words liveness uses for the same failure; the library's text only when none fits.
    why = UNREACHABLE_REASONS.get(kind) or f"{type(exc).__name__}: {exc}"
    return FetchError(f"cannot fetch {url}: {why}", kind=kind)


def failure_kind(exc: BaseException) -> str:
    """Why a connection failed, from the OS error under httpx's: dns, refused, reset, timeout, network.

    >>> failure_kind(httpx.ConnectError("x")), failure_kind(ConnectionRefusedError())
    ('network', 'refused')
    """
    seen: BaseException | None = exc
    while seen is not None:
        for kind, types in _OS_FAILURES:
            if isinstance(seen, types):
                return kind
        seen = seen.__cause__ or seen.__context__
    return "network"


_OS_FAILURES = (
    ("dns", socket.gaierror),
    ("refused", ConnectionRefusedError),
    ("reset", ConnectionResetError | ConnectionAbortedError),
    ("timeout", TimeoutError),
)


def _refuse_private(url, addresses: list) -> None:
    for info in addresses:
        address = ipaddress.ip_address(info[4][0].split("%", 1)[0])
        if not address.is_global:
            raise FetchError(f"refused to fetch {url}: {address} is a private or loopback address")


# Names that only a local network answers: one label (completed by the resolver's search
# domains), and the special-use suffixes of RFC 6761 (localhost), RFC 6762 (local), RFC 8375
# (home.arpa) and ICANN's private-use TLD (internal, 2024).
LOCAL_SUFFIXES = ("localhost", "local", "home.arpa", "internal")


def _local_name(host: str) -> bool:
    """True for a name that can only mean a machine of a local network.

    >>> [_local_name(h) for h in ("intranet", "nas.local", "x.home.arpa", "example.org")]
    [True, True, True, False]
    """
    name = host.lower().rstrip(".")
    return "." not in name or any(name == s or name.endswith(f".{s}") for s in LOCAL_SUFFIXES)


def through_proxy(client: httpx.Client | httpx.AsyncClient, url: httpx.URL) -> bool:
    """True when ``client`` sends a request for ``url`` to a proxy: httpx reads HTTP_PROXY,
    HTTPS_PROXY, ALL_PROXY and NO_PROXY from the environment (``trust_env``, its default) into
    per-URL mounts, and sends each request through the transport mounted for its URL."""
    return client._transport_for_url(url) is not client._transport


def _unresolved(url: httpx.URL, exc: OSError, proxied: bool) -> None:
    """A name the local resolver does not know: through a proxy the proxy resolves it, as the
    fetch goes; refused when no proxy is used (nothing to judge) or when the name can only
    mean a local network's machine. A name the local resolver does know is judged by its
    addresses, proxy or not (:func:`_refuse_private`); so is an address typed as such."""
    if not proxied:
        raise FetchError(f"cannot resolve {url.host}: {exc}", kind="dns") from None
    if _local_name(url.host):
        raise FetchError(f"refused to fetch {url}: {url.host} names a local network's machine")


def _check_public(url: httpx.URL, options: FetchOptions, proxied: bool = False) -> None:
    if options.public_only:
        try:
            addresses = socket.getaddrinfo(url.host, url.port or 443, type=socket.SOCK_STREAM)
        except OSError as exc:
            _unresolved(url, exc, proxied)
            return
        _refuse_private(url, addresses)


async def _acheck_public(url: httpx.URL, options: FetchOptions, proxied: bool = False) -> None:
    if options.public_only:
        loop = asyncio.get_running_loop()
        try:
            addresses = await loop.getaddrinfo(url.host, url.port or 443, type=socket.SOCK_STREAM)
        except OSError as exc:
            _unresolved(url, exc, proxied)
            return
        _refuse_private(url, addresses)


def _next_hop(response: httpx.Response, hops: int, url: str, options: FetchOptions):
    """The redirect to follow, or None; the response's body is never read."""
    if not response.has_redirect_location:
        return None
    if hops >= options.max_redirects:
        raise FetchError(f"too many redirects from {url}", kind="redirects")
    return response.next_request


def fetch(url: str, options: FetchOptions | None = None) -> Fetched:
    """Fetch ``url`` synchronously; raise FetchError, TooLarge or InvalidURL."""
    options = options or FetchOptions()
    _check_url(url)
    try:
        with httpx.Client(**_client_kwargs(options)) as client:
            request = client.build_request(options.method, url)
            for hops in range(options.max_redirects + 1):
                _check_public(request.url, options, through_proxy(client, request.url))
                response = client.send(request, stream=True)
                try:
                    request = _next_hop(response, hops, url, options)
                    if request is None:
                        body = _body(response, options)
                        for raw in response.iter_raw():
                            body.feed(raw)
                        return _result(response, body.finish(), hops)
                finally:
                    response.close()
    except httpx.HTTPError as exc:
        raise _wrap(exc, url) from exc
    raise FetchError(f"too many redirects from {url}", kind="redirects")


async def afetch(url: str, options: FetchOptions | None = None) -> Fetched:
    """Fetch ``url`` without blocking the event loop (the daemon's variant of :func:`fetch`)."""
    options = options or FetchOptions()
    _check_url(url)
    try:
        async with httpx.AsyncClient(**_client_kwargs(options)) as client:
            request = client.build_request(options.method, url)
            for hops in range(options.max_redirects + 1):
                await _acheck_public(request.url, options, through_proxy(client, request.url))
                response = await client.send(request, stream=True)
                try:
                    request = _next_hop(response, hops, url, options)
                    if request is None:
                        body = _body(response, options)
                        async for raw in response.aiter_raw():
                            body.feed(raw)
                        return _result(response, body.finish(), hops)
                finally:
                    await response.aclose()
    except httpx.HTTPError as exc:
        raise _wrap(exc, url) from exc
    raise FetchError(f"too many redirects from {url}", kind="redirects")


def reachable(url: str, options: FetchOptions | None = None) -> bool:
    """True when ``url`` answers with a status below 400 (used by ``archive open`` and gc).

    >>> reachable("http://nonexistent.invalid/")  # doctest: +SKIP
    False
    """
    options = options or FetchOptions(timeout=5.0, connect_timeout=3.0, max_bytes=2 * 1024 * 1024)
    try:
        return fetch(url, options).status < 400
    except TooLarge:
        return True  # it answered, with a big page
    except (FetchError, InvalidURL):
        return False


async def areachable(url: str, options: FetchOptions | None = None) -> bool:
    """Async :func:`reachable` for the daemon."""
    status = await astatus(url, options)
    return status is not None and status < 400


async def astatus(url: str, options: FetchOptions | None = None) -> int | None:
    """The HTTP status ``url`` answers with (200 for a page too large to read whole), or
    None when no server answered (DNS, refused, timed out, a refused address)."""
    options = options or FetchOptions(timeout=5.0, connect_timeout=3.0, max_bytes=2 * 1024 * 1024)
    try:
        return (await afetch(url, options)).status
    except TooLarge:
        return 200  # it answered, with a big page
    except (FetchError, InvalidURL):
        return None
