"""A version's resources: the manifest, the capture caps, and where a sealed copy finds them.

A capture announces what the page uses (stylesheets, images, fonts, media, frames) as
``{url, type, size, sha256?, status?, error?}``; :func:`plan` decides, in announcement
order, which are wanted and which are already missing (reported failed, over the
per-resource cap, or past the per-page cap: what fits is kept). Each stored resource is a
content-addressed blob (SHA-256 of its bytes), so a site's CSS and logo are stored once
however many versions and pages use them. The version names its manifest
``[{url, blob, type, size, status}]`` (``status``: ``"stored"`` or why it is missing), itself a
blob (``manifest``), so re-captures of an unchanged page share it; versions written before
kept it inline (``resources``), and :func:`manifest_of` reads both.

>>> entries = plan([{"url": "https://e.com/a.css", "type": "text/css", "size": 10},
...                 {"url": "https://e.com/b.png", "type": "image/png", "size": 99, "status": 404}],
...                html_bytes=5, limits=CaptureLimits(page_bytes=100))
>>> [(e["url"][-5:], e["status"]) for e in entries]
[('a.css', 'pending'), ('b.png', 'http_404')]
>>> sorted(version_blob_refs({"orig": "o", "rewritten": "r", "resources": [{"blob": "b"}, {"blob": None}]}))
['b', 'o', 'r']
>>> sorted(version_blob_refs({"orig": "o", "rewritten": "r", "manifest": "m"}, [{"blob": "b"}]))
['b', 'm', 'o', 'r']
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from engine.errors import StorageError
from engine.lru import LRU

STORED = "stored"
PENDING = "pending"  # wanted, bytes not in yet (never in a committed manifest)
NOT_RECEIVED = "not_received"
TOO_LARGE = "too_large"
OVER_PAGE_CAP = "over_page_cap"
TRUNCATED = "truncated"
DIGEST_MISMATCH = "digest_mismatch"
FAILED = "failed"
TIMEOUT = "timeout"
MIB = 1024 * 1024


@dataclass(frozen=True)
class CaptureLimits:
    """Caps of one capture: raw bytes per transfer part, per resource, per page."""

    part_bytes: int = 8 * MIB
    resource_bytes: int = 20 * MIB
    page_bytes: int = 200 * MIB

    def to_dict(self) -> dict:
        return {
            "part_bytes": self.part_bytes,
            "resource_bytes": self.resource_bytes,
            "page_bytes": self.page_bytes,
        }


def part_count(size: int, part_bytes: int) -> int:
    """How many parts a resource of ``size`` bytes is sent in (at least one).

    >>> part_count(0, 8), part_count(8, 8), part_count(9, 8)
    (1, 1, 2)
    """
    return max(1, -(-size // part_bytes))


def part_length(index: int, size: int, part_bytes: int) -> int:
    """The exact byte length of part ``index`` of a ``size``-byte resource.

    >>> part_length(0, 9, 8), part_length(1, 9, 8)
    (8, 1)
    """
    return max(0, min(part_bytes, size - index * part_bytes))


def reported_status(entry: dict) -> str | None:
    """The missing-status a capture reported for a resource, or None when it loaded: an HTTP
    error status first, then the error text (a timeout, a cap, anything else).

    >>> reported_status({"status": 404, "error": "HTTP 404"}), reported_status({"error": "timeout"})
    ('http_404', 'timeout')
    >>> reported_status({"status": 200, "error": "over the per-resource cap"})
    'too_large'
    >>> reported_status({"status": 200}), reported_status({"status": "ok"})
    (None, None)
    """
    status = entry.get("status")
    if isinstance(status, int) and not isinstance(status, bool) and not 200 <= status < 300:
        return f"http_{status}"
    error = str(entry.get("error") or "").lower()
    if error:
        if "timeout" in error or "timed out" in error:
            return TIMEOUT
        return TOO_LARGE if "cap" in error or "too large" in error or error == TOO_LARGE else FAILED
    if isinstance(status, str) and status not in ("ok", STORED, ""):
        return status if status.startswith("http_") or status == TIMEOUT else FAILED
    return None


def plan(resources: list[dict], html_bytes: int, limits: CaptureLimits) -> list[dict]:
    """Manifest entries (``url, type, size, sha256, status``) in announcement order, one
    per URL; ``status`` is ``pending`` for the wanted ones, else why they are missing.
    The page total counts the HTML first, then each wanted resource while it fits."""
    entries, seen, total = [], set(), html_bytes
    for item in resources:
        url = item["url"]
        if url in seen:
            continue
        seen.add(url)
        size = int(item.get("size") or 0)
        status = reported_status(item)
        if status is None and size > limits.resource_bytes:
            status = TOO_LARGE
        if status is None and total + size > limits.page_bytes:
            status = OVER_PAGE_CAP
        if status is None:
            total += size
        entries.append(_entry(item, size, status or PENDING))
    return entries


def _entry(item: dict, size: int, status: str) -> dict:
    return {
        "url": item["url"],
        "blob": None,
        "type": str(item.get("type") or ""),
        "size": size,
        "sha256": item.get("sha256"),
        "status": status,
    }


def manifest_entry(entry: dict) -> dict:
    """The stored form of an entry: ``{url, blob, type, size, status}``."""
    return {k: entry.get(k) for k in ("url", "blob", "type", "size", "status")}


def summary(manifest: list[dict]) -> dict:
    """Counts of a manifest: stored, missing, bytes of the stored ones.

    >>> summary([{"status": "stored", "size": 3}, {"status": "http_404", "size": 0}])
    {'stored': 1, 'missing': 1, 'bytes_total': 3}
    """
    stored = [e for e in manifest if e["status"] == STORED]
    total = sum(e["size"] for e in stored)
    return {"stored": len(stored), "missing": len(manifest) - len(stored), "bytes_total": total}


TEXT_TYPES = ("text/", "image/svg", "application/javascript", "application/json")


def blob_level(content_type: str) -> int:
    """zlib effort for a resource's blob: text compresses well, anything else gets a quick
    pass (the store keeps bytes that do not compress as they are: ``BlobBatch.add``).

    >>> blob_level("text/css; charset=utf-8"), blob_level("image/png")
    (6, 1)
    """
    kind = (content_type or "").split(";")[0].strip().lower()
    return 6 if kind.startswith(TEXT_TYPES) else 1


def encode_manifest(entries: list[dict]) -> bytes:
    """A manifest as the blob a version names (``manifest``): canonical JSON of the stored
    entries, so an unchanged page's re-captures share one blob.

    >>> encode_manifest([{"url": "u", "blob": None, "type": "", "size": 0, "status": "x", "n": 1}])
    b'[{"blob":null,"size":0,"status":"x","type":"","url":"u"}]'
    """
    stored = [manifest_entry(entry) for entry in entries]
    return json.dumps(stored, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


MANIFEST_CACHE = 256  # manifests kept parsed per store (each resource request reads one)


def manifest_of(store, version_doc: dict) -> list[dict]:
    """A version's manifest: from its ``manifest`` blob, or kept inline as ``resources``
    (archives written before manifests were blobs). Read-only: it may be shared."""
    digest = version_doc.get("manifest")
    if not digest:
        return version_doc.get("resources") or []
    cache = store.cache.setdefault("manifests", LRU(MANIFEST_CACHE))
    if digest in cache:
        return cache.get(digest)
    try:
        manifest = json.loads(store.get_blob(digest))
    except ValueError as exc:
        raise StorageError(f"manifest {digest} is not JSON: {exc}") from exc
    cache.put(digest, manifest)
    return manifest


def version_blob_refs(version_doc: dict, manifest: list[dict] | None = None) -> set[str]:
    """Every blob a version document names: its original and rewritten HTML, its manifest
    blob and each stored resource of the manifest (``manifest``: the blob's entries, read by
    the caller; else the inline ``resources``). A blob no version names can be reclaimed
    (the fingerprint and text blobs belong to the ``fingerprints``/``extracts`` rows)."""
    named = [version_doc.get("orig"), version_doc.get("rewritten"), version_doc.get("manifest")]
    entries = manifest if manifest is not None else version_doc.get("resources") or ()
    named += [entry.get("blob") for entry in entries]
    return {blob for blob in named if blob}


def resource_path(reg_id: str, number: int | str) -> str:
    """The daemon path of a version's resource ``number`` (root-relative: any port serves it).

    >>> resource_path("20260101000000000000", 3)
    '/v/20260101000000000000/r/3'
    """
    return f"/v/{reg_id}/r/{number}"


def without_fragment(url: str) -> tuple[str, str]:
    """(URL, ``#fragment`` or ``""``): a sprite ``icons.svg#home`` is the resource ``icons.svg``.

    >>> without_fragment("https://e.com/i.svg#home")
    ('https://e.com/i.svg', '#home')
    """
    at = url.find("#")
    return (url, "") if at < 0 else (url[:at], url[at:])


class ResourceMap:
    """URL -> the version's resource number, growing as the HTML references new URLs.

    A URL the page references but the capture did not announce gets a ``not_received``
    entry, so the sealed copy points every resource at the daemon and the manifest lists
    what is missing.

    >>> m = ResourceMap("1", [{"url": "https://e.com/a.css", "blob": "x", "type": "text/css",
    ...                        "size": 1, "status": "stored"}])
    >>> m.path("https://e.com/a.css"), m.path("https://e.com/b.png#x"), m.entries[1]["status"]
    ('/v/1/r/0', '/v/1/r/1#x', 'not_received')
    """

    def __init__(self, reg_id: str, manifest: list[dict], grow: bool = True) -> None:
        self.reg_id, self.grow = reg_id, grow
        self.entries = [dict(e) for e in manifest]
        self.index = {e["url"]: n for n, e in enumerate(self.entries)}

    def number(self, url: str) -> int | str:
        """The entry number of ``url``; a stored manifest (``grow=False``) answers ``"missing"``
        for a URL it does not list, a path the daemon answers 404 for."""
        if url not in self.index:
            if not self.grow:
                return "missing"
            self.index[url] = len(self.entries)
            self.entries.append(
                {"url": url, "blob": None, "type": "", "size": 0, "status": NOT_RECEIVED}
            )
        return self.index[url]

    def path(self, url: str) -> str:
        bare, fragment = without_fragment(url)
        return resource_path(self.reg_id, self.number(bare)) + fragment

    def frame_path(self, url: str) -> str | None:
        """The path of a captured frame's stored HTML, or None (the frame stays a link)."""
        found = self.index.get(without_fragment(url)[0])
        if found is None or not is_html(self.entries[found]["type"]):
            return None
        return resource_path(self.reg_id, found)


def is_html(content_type: str) -> bool:
    """Is this an HTML document type?

    >>> is_html("text/html; charset=utf-8"), is_html("image/png")
    (True, False)
    """
    return (content_type or "").split(";")[0].strip().lower() in (
        "text/html",
        "application/xhtml+xml",
    )


def is_css(content_type: str) -> bool:
    """Is this a stylesheet type?

    >>> is_css("text/css"), is_css("text/plain")
    (True, False)
    """
    return (content_type or "").split(";")[0].strip().lower() == "text/css"
