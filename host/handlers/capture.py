"""Capture handlers: a page and every resource it uses, sent in bounded parts.

``capture_begin`` (page + resource manifest) -> ``capture_part`` (any order) ->
``capture_commit``; ``capture_status`` tells what is missing (parts are kept on disk, so
this survives a restart), ``capture_abort`` drops it; ``version_resources`` lists a stored
version's manifest, paged. See host/PROTOCOL.md. Commit stores the blobs first (each
fsynced), then registers the version with its manifest in one journal transaction.

>>> sorted(HANDLERS)
['capture_abort', 'capture_begin', 'capture_commit', 'capture_part', 'capture_status', 'version_resources']
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import replace

from engine.archive import provider
from engine.archive.model import Capture
from engine.archive.resources import (
    DIGEST_MISMATCH,
    NOT_RECEIVED,
    PENDING,
    STORED,
    TRUNCATED,
    blob_level,
    manifest_of,
    plan,
    summary,
)
from engine.archive.store import blob_hash
from engine.errors import InvalidInput
from host.daemon.security import sign_path, strip_credentials, version_path
from host.handlers import flag, integer, text
from host.handlers.archive import _options, register_capture
from host.services.pending_captures import PendingCapture

URL_MAX = 8192
MAX_RESOURCES = 20_000
HEX64 = re.compile(r"^[0-9a-f]{64}$")
HAVE = "have"  # the store already holds the declared digest: no bytes needed
INLINE = "inline"  # a frame: its HTML came with capture_begin


def _resource(item) -> dict:
    if not isinstance(item, dict):
        raise InvalidInput("each resource must be an object")
    size = item.get("size", 0)
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise InvalidInput("a resource's 'size' must be a non-negative integer")
    digest = item.get("sha256")
    if digest is not None and not (isinstance(digest, str) and HEX64.match(digest.lower())):
        raise InvalidInput("a resource's 'sha256' must be 64 hex digits")
    return {
        "url": strip_credentials(text(item, "url", max_length=URL_MAX)),
        "type": text(item, "type", "", max_length=200),
        "size": size,
        "sha256": digest.lower() if digest else None,
        "status": item.get("status"),
        "error": text(item, "error", None, max_length=500),
    }


def _frames(params: dict) -> list[dict]:
    frames = params.get("frames") or []
    if not isinstance(frames, list) or not all(isinstance(f, dict) for f in frames):
        raise InvalidInput("parameter 'frames' must be a list of {url, html}")
    return [
        {
            "url": strip_credentials(text(f, "url", max_length=URL_MAX)),
            "html": text(f, "html"),
        }
        for f in frames
    ]


def _resources(params: dict) -> list[dict]:
    items = params.get("resources", [])
    if not isinstance(items, list) or len(items) > MAX_RESOURCES:
        raise InvalidInput(f"parameter 'resources' must be a list of at most {MAX_RESOURCES}")
    return [_resource(item) for item in items]


def _page(params: dict, frames: list[dict]) -> dict:
    options = params.get("options") or {}
    if not isinstance(options, dict):
        raise InvalidInput("parameter 'options' must be an object")
    return {
        "url": strip_credentials(text(params, "url", max_length=URL_MAX)),
        "html": text(params, "html"),
        "final_url": strip_credentials(text(params, "final_url", None, max_length=URL_MAX)),
        "title": text(params, "title", None, max_length=4096),
        "content_type": text(params, "content_type", "text/html", max_length=200),
        "charset": text(params, "charset", None, max_length=64),
        "last_modified": text(params, "last_modified", None, max_length=200),
        "keep_scripts": flag(options, "keep_scripts"),
        "frames": frames,
    }


def _limits(app, params: dict):
    """The host's caps (config), lowered by the extension's own settings when it sends them
    (``options.resource_bytes``, ``options.page_bytes``): the stricter one applies."""
    limits = app.config.capture_limits()
    options = params.get("options") or {}
    asked = {}
    for name in ("resource_bytes", "page_bytes"):
        value = options.get(name) if isinstance(options, dict) else None
        if value is not None:
            asked[name] = min(getattr(limits, name), integer(options, name, 0, 1, 1 << 40))
    return replace(limits, **asked)


def _plan(limits, app, page: dict, frames: list[dict], resources: list[dict]) -> list[dict]:
    """The capture's manifest plan: frames first (their HTML is here), then resources."""
    framed = [
        {"url": f["url"], "type": "text/html", "size": len(f["html"].encode())} for f in frames
    ]
    html_bytes = len(page["html"].encode())
    entries = plan(framed + resources, html_bytes, limits)
    frame_urls = {f["url"] for f in frames}
    for entry in entries:
        if entry["status"] != PENDING:
            continue
        if entry["url"] in frame_urls:
            entry["status"] = INLINE
        elif entry["sha256"] and app.store.has_blob(entry["sha256"]):
            entry["status"], entry["blob"] = HAVE, entry["sha256"]
    return entries


def capture_begin(params: dict, app) -> dict:
    """Announce a page and its resources; answers which URLs' bytes to send."""
    frames = _frames(params)
    page = _page(params, frames)
    limits = _limits(app, params)
    entries = _plan(limits, app, page, frames, _resources(params))
    capture = PendingCapture.create(app.home, page, entries, limits)
    return {
        "capture_id": capture.id,
        "need": [e["url"] for e in entries if e["status"] == PENDING],
        "limits": capture.limits.to_dict(),
        "skipped": {e["url"]: e["status"] for e in entries if e["status"] not in _KEPT},
    }


_KEPT = frozenset({PENDING, HAVE, INLINE})


def _data(params: dict) -> bytes:
    try:
        return base64.b64decode(text(params, "data"), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidInput(f"parameter 'data' is not base64: {exc}") from exc


def capture_part(params: dict, app) -> dict:
    """One part of one resource (any order; an identical duplicate is ignored)."""
    capture = PendingCapture.load(app.home, params.get("capture_id"))
    return capture.put_part(
        text(params, "url", max_length=URL_MAX),
        integer(params, "index", 0),
        integer(params, "count", 1, 1),
        _data(params),
    )


def capture_status(params: dict, app) -> dict:
    """What is still missing: ``{url: [part indices]}``."""
    capture = PendingCapture.load(app.home, params.get("capture_id"))
    capture.touch()
    return {"capture_id": capture.id, "missing": capture.missing()}


def capture_abort(params: dict, app) -> dict:
    """Drop a pending capture and its parts."""
    capture = PendingCapture.load(app.home, params.get("capture_id"))
    capture.drop()
    return {"capture_id": capture.id, "aborted": True}


def _stored(blobs, entry: dict, data: bytes) -> dict:
    if len(data) != entry["size"]:
        return {**entry, "status": TRUNCATED}
    digest = blob_hash(data)
    if entry["sha256"] and entry["sha256"] != digest:
        return {**entry, "status": DIGEST_MISMATCH}
    blobs.add(data, blob_level(entry["type"]), digest)  # durable (blobs.commit) before any row
    return {**entry, "blob": digest, "status": STORED}


def _store_entry(app, blobs, capture: PendingCapture, entry: dict, frames: dict) -> dict:
    status = entry["status"]
    if status == HAVE:  # unless a reclaim removed it since capture_begin
        return {**entry, "status": STORED if app.store.has_blob(entry["blob"]) else NOT_RECEIVED}
    if status == INLINE:
        return _stored(blobs, entry, frames[entry["url"]].encode("utf-8"))
    if status != PENDING:
        return entry
    data = capture.assemble(entry)
    return {**entry, "status": NOT_RECEIVED} if data is None else _stored(blobs, entry, data)


def _already_committed(app, capture_id: str) -> str | None:
    """The version a previous commit of this capture registered (a crash before the pending
    directory was removed, or a repeated request), so it is never registered twice."""
    store = app.store
    for reg_id in reversed(store.ids[-200:]):
        if store.version(reg_id).get("capture_id") == capture_id:
            return reg_id
        for revisit_id, seen in store.seen_of(reg_id).items():
            if seen.get("capture_id") == capture_id:
                return revisit_id
    return None


def capture_commit(params: dict, app) -> dict:
    """Store the received resources (blobs first), then register the version with its
    manifest in one transaction; answers as ``archive_page`` plus ``resources``."""
    capture = PendingCapture.load(app.home, params.get("capture_id"))
    done = _already_committed(app, capture.id)
    if done is not None:
        capture.drop()
        _forget_transfer(app, capture, done)
        return _committed_reply(app, done, {"bytes_new": 0})
    page = capture.page
    frames = {f["url"]: f["html"] for f in page["frames"]}
    blobs = app.store.blob_batch()
    try:
        manifest = [_store_entry(app, blobs, capture, e, frames) for e in capture.record["plan"]]
        blobs.commit()  # every resource durable before the version's transaction names it
    except BaseException:
        blobs.discard()  # no temporary file left for the reclaim
        raise
    result = register_capture(
        app,
        Capture(
            url=page["url"],
            html=page["html"],
            final_url=page["final_url"],
            content_type=page["content_type"],
            charset=page["charset"],
            last_modified=page["last_modified"],
            title=page["title"],
            resources=manifest,
            keep_scripts=page["keep_scripts"],
            capture_id=capture.id,
        ),
        _options(app),
    )
    capture.drop()
    _forget_transfer(app, capture, result["id"])
    result["resources"] = {**_resource_counts(app, result["id"]), "bytes_new": blobs.new_bytes}
    return result


def _forget_transfer(app, capture, reg_id: str) -> None:
    """A revisit keeps its transfer's ID only while the transfer could be committed again."""
    if app.store.revisit_of(reg_id) and not capture.path.exists():
        with app.store.transaction():
            app.store.forget_capture_id(reg_id)


def _resource_counts(app, reg_id: str) -> dict:
    return summary(manifest_of(app.store, app.store.version(reg_id)))


def _committed_reply(app, reg_id: str, counts: dict) -> dict:
    entry = provider.describe(app.store, reg_id, app.base_url)
    entry["versions"] = len(app.store.captures_of_key(entry["key"]))
    return {**entry, "resources": {**_resource_counts(app, reg_id), **counts}}


def version_resources(params: dict, app) -> dict:
    """A version's manifest, paged: each resource's size and status, and its signed path."""
    reg_id = provider.resolve_id(app.store, text(params, "id", max_length=URL_MAX))
    manifest = manifest_of(app.store, app.store.version(reg_id))
    offset, limit = integer(params, "offset", 0), integer(params, "limit", 200, 1, 1000)
    sig = sign_path(app.token, version_path(reg_id))  # what the /v/<id>/ route checks
    page = [
        {
            **{k: entry.get(k) for k in ("url", "type", "size", "status", "blob")},
            "n": n,
            "path": f"/v/{reg_id}/r/{n}?sig={sig}" if entry.get("blob") else None,
        }
        for n, entry in enumerate(manifest[offset : offset + limit], start=offset)
    ]
    return {
        "id": reg_id,
        "total": len(manifest),
        "offset": offset,
        **summary(manifest),
        "resources": page,
    }


HANDLERS = {
    "capture_begin": capture_begin,
    "capture_part": capture_part,
    "capture_status": capture_status,
    "capture_commit": capture_commit,
    "capture_abort": capture_abort,
    "version_resources": version_resources,
}
