"""Host-side captures fetch the page's resources too: stylesheets (and what they import
and reference), images, fonts, media, icons, with the capture caps, politely.

Politeness: at most ``concurrency`` fetches at once and ``per_host`` per host, each with
its own timeout; at most ``max_resources`` URLs per page. Every fetch goes through
``host.services.fetch.afetch`` (httpx, streamed size cap = the per-resource cap). A resource that
answers non-2xx, times out, is over a cap or fails is kept in the manifest as missing
(``http_404``, ``timeout``, ``too_large``, ``over_page_cap``, ``failed``); the capture
goes on. The result is the manifest plan with the bytes (``data``) of each wanted resource:
``engine.archive.registry.register`` stores them as blobs before the version's rows.

>>> ResourceFetchOptions().per_host
4
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

from engine.archive.resources import PENDING, CaptureLimits, plan
from engine.errors import FetchError, InvalidURL, TooLarge
from engine.html.parse import decode_html
from engine.html.rewrite import css_urls, resource_urls
from host.services.fetch import FetchOptions, afetch


@dataclass(frozen=True)
class ResourceFetchOptions:
    """Caps and politeness of a host-side resource fetch."""

    limits: CaptureLimits = field(default_factory=CaptureLimits)
    concurrency: int = 8
    per_host: int = 4
    timeout: float = 15.0
    max_resources: int = 500
    css_depth: int = 3  # @import chains followed this deep


def _status_of(exc: Exception) -> str:
    if isinstance(exc, TooLarge):
        return "too_large"
    if isinstance(exc, FetchError) and "timed out" in exc.message:
        return "timeout"
    return "failed"


class _Fetcher:
    def __init__(self, options: ResourceFetchOptions) -> None:
        self.options = options
        self.total = asyncio.Semaphore(options.concurrency)
        self.hosts: dict[str, asyncio.Semaphore] = {}
        self.fetch_options = FetchOptions(
            max_bytes=options.limits.resource_bytes,
            timeout=options.timeout,
            connect_timeout=min(5.0, options.timeout),
        )

    def _host(self, url: str) -> asyncio.Semaphore:
        host = urlsplit(url).netloc
        return self.hosts.setdefault(host, asyncio.Semaphore(self.options.per_host))

    async def one(self, url: str) -> dict:
        """``{url, type, size, status?, data?}`` of one resource; never raises."""
        async with self.total, self._host(url):
            try:
                got = await afetch(url, self.fetch_options)
            except (FetchError, InvalidURL, TooLarge) as exc:
                return {"url": url, "type": "", "size": 0, "error": _status_of(exc)}
        entry = {"url": url, "type": got.content_type, "size": len(got.body), "status": got.status}
        return {**entry, "data": got.body} if got.ok else entry


def _nested(entry: dict) -> list[str]:
    """What a fetched stylesheet uses (resolved against its own URL)."""
    if entry.get("data") is None or entry.get("type") != "text/css":
        return []
    return css_urls(entry["data"].decode("utf-8", "replace"), entry["url"])


async def afetch_resources(
    html: str, page_url: str, options: ResourceFetchOptions | None = None
) -> list[dict]:
    """Fetch what the page uses; the manifest plan with ``data`` on the wanted entries."""
    options = options or ResourceFetchOptions()
    fetcher, seen, found = _Fetcher(options), set[str](), []
    wave = resource_urls(html, page_url)
    for _depth in range(options.css_depth + 1):
        wave = [u for u in dict.fromkeys(wave) if u not in seen]
        wave = wave[: max(0, options.max_resources - len(seen))]
        if not wave:
            break
        seen.update(wave)
        results = await asyncio.gather(*(fetcher.one(url) for url in wave))
        found.extend(results)
        wave = [u for entry in results for u in _nested(entry)]
    return _with_data(found, len(html.encode("utf-8")), options.limits)


def _with_data(found: list[dict], html_bytes: int, limits: CaptureLimits) -> list[dict]:
    data = {e["url"]: e.get("data") for e in found}
    entries = plan(found, html_bytes, limits)
    return [
        {**entry, "data": data[entry["url"]]} if entry["status"] == PENDING else entry
        for entry in entries
    ]


def fetch_resources(html: str, page_url: str, options: ResourceFetchOptions | None = None):
    """:func:`afetch_resources` for code without an event loop (the CLI with no daemon)."""
    return asyncio.run(afetch_resources(html, page_url, options))


async def awith_resources(capture, options: ResourceFetchOptions | None = None):
    """The capture with its resources fetched (``capture.resources`` = the plan with bytes)."""
    body = capture.html
    if isinstance(body, bytes):
        hint = f"text/html; charset={capture.charset}" if capture.charset else None
        body = decode_html(body, hint).text
    fetched = await afetch_resources(body, capture.final_url or capture.url, options)
    return replace(capture, resources=fetched)


def with_resources(capture, options: ResourceFetchOptions | None = None):
    """:func:`awith_resources` without an event loop."""
    return asyncio.run(awith_resources(capture, options))
