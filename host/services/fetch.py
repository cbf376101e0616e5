"""Fetch live pages over HTTP(S) with httpx: timeouts, a size cap, <= 10 redirects.

The body is streamed and the cap is checked as bytes arrive (and against
Content-Length up front), so a 200 MB page is refused with ``TooLarge``
without ever being held in memory. Network failures raise ``FetchError``; an
HTTP error status is *not* an exception: liveness needs to see 404 and 410.

>>> got = fetch("http://127.0.0.1:8000/")  # doctest: +SKIP
>>> got.status, got.final_url, got.charset  # doctest: +SKIP
(200, 'http://127.0.0.1:8000/', 'utf-8')
"""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx

from engine import __version__
from engine.errors import FetchError, InvalidInput, InvalidURL, TooLarge
from engine.html.parse import sniff_charset

DEFAULT_MAX_BYTES = 50 * 1024 * 1024


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
        from engine.archive.model import Capture
        from host.daemon.security import strip_credentials

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
    return {
        "timeout": timeout,
        "follow_redirects": True,
        "max_redirects": options.max_redirects,
        "headers": {"User-Agent": options.user_agent, "Accept": "text/html,*/*;q=0.8"},
        "verify": options.verify,
    }


def _check_url(url: str) -> None:
    if not url.lower().startswith(("http://", "https://")):
        raise InvalidURL(f"only http(s) URLs can be fetched: {url!r}")


def _check_length(response: httpx.Response, options: FetchOptions) -> None:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > options.max_bytes:
        raise TooLarge(f"{response.url} declares {declared} bytes (cap {options.max_bytes})")


def _add_chunk(chunks: list, size: int, chunk: bytes, options: FetchOptions, url) -> int:
    size += len(chunk)
    if size > options.max_bytes:
        raise TooLarge(f"{url} is larger than the cap of {options.max_bytes} bytes")
    chunks.append(chunk)
    return size


def _result(response: httpx.Response, body: bytes) -> Fetched:
    content_type = response.headers.get("content-type", "")
    charset, _ = sniff_charset(body, content_type)
    return Fetched(
        status=response.status_code,
        final_url=str(response.url),
        headers=dict(response.headers),
        body=body,
        content_type=content_type.split(";")[0].strip().lower(),
        charset=charset,
        redirects=len(response.history),
    )


def _wrap(exc: Exception, url: str) -> Exception:
    if isinstance(exc, httpx.TooManyRedirects):
        return FetchError(f"too many redirects from {url}")
    if isinstance(exc, httpx.TimeoutException):
        return FetchError(f"timed out fetching {url}")
    if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
        return InvalidURL(f"cannot fetch {url!r}: {exc}")
    return FetchError(f"cannot fetch {url}: {type(exc).__name__}: {exc}")


def fetch(url: str, options: FetchOptions | None = None) -> Fetched:
    """Fetch ``url`` synchronously; raise FetchError, TooLarge or InvalidURL."""
    options = options or FetchOptions()
    _check_url(url)
    try:
        with (
            httpx.Client(**_client_kwargs(options)) as client,
            client.stream(options.method, url) as response,
        ):
            _check_length(response, options)
            chunks, size = [], 0
            for chunk in response.iter_bytes():
                size = _add_chunk(chunks, size, chunk, options, response.url)
            return _result(response, b"".join(chunks))
    except httpx.HTTPError as exc:
        raise _wrap(exc, url) from exc


async def afetch(url: str, options: FetchOptions | None = None) -> Fetched:
    """Fetch ``url`` without blocking the event loop (the daemon's variant of :func:`fetch`)."""
    options = options or FetchOptions()
    _check_url(url)
    try:
        async with (
            httpx.AsyncClient(**_client_kwargs(options)) as client,
            client.stream(options.method, url) as response,
        ):
            _check_length(response, options)
            chunks, size = [], 0
            async for chunk in response.aiter_bytes():
                size = _add_chunk(chunks, size, chunk, options, response.url)
            return _result(response, b"".join(chunks))
    except httpx.HTTPError as exc:
        raise _wrap(exc, url) from exc


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
    options = options or FetchOptions(timeout=5.0, connect_timeout=3.0, max_bytes=2 * 1024 * 1024)
    try:
        return (await afetch(url, options)).status < 400
    except TooLarge:
        return True
    except (FetchError, InvalidURL):
        return False
