"""Answer questions about registered pages: versions, copies, similar pages, search, gc.

The reading half of the multi-version server method (its "provider"); the writing half,
registration, is engine/archive/registry.py.

>>> import tempfile, pathlib
>>> from engine.archive.store import ArchiveStore
>>> from engine.archive.model import Capture
>>> from engine.archive.registry import register
>>> store = ArchiveStore.open(pathlib.Path(tempfile.mkdtemp()))
>>> reg = register(store, Capture("https://e.com/a", b"<title>A</title><a href=b>b</a>"))
>>> [v["id"] for v in versions(store, "https://E.com/a")] == [reg.id]
True
>>> store.close()
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser

from engine.archive import labels
from engine.archive.keys import document_key
from engine.archive.model import (
    RegisterOptions,
    id_time,
    is_reg_id,
    iso,
    version_url,
)
from engine.archive.registry import (
    ID_SLOT,
    _fingerprint_of,
    _sketch_bytes,
    _text_of,
    find_matches,
)
from engine.archive.resources import (
    ResourceMap,
    is_css,
    is_html,
    manifest_of,
)
from engine.archive.search import SearchOptions, stored_text
from engine.archive.search import search as run
from engine.archive.similar import VersionFeatures
from engine.archive.store import ArchiveStore
from engine.errors import DecodeError, InvalidInput, InvalidURL, NotFound
from engine.html.rewrite import RewriteOptions, absolute, css_rewrite, rewrite_tree
from engine.html.visible import visible_text
from engine.urls.parse import parse_url


def visible_text_of(store: ArchiveStore, reg_id: str, recompute: bool = True) -> str:
    """The title line and visible text of a version (links, headings and menus included):
    what full-text search and the diff between versions read; ``text`` stays the main text.

    A version stored before visible text was kept has none (the extracts row's
    ``visible_text`` is missing or None): with ``recompute`` it is read from the original
    page ONCE and kept with the version (:func:`keep_visible_text`), so the next sweep or
    diff reads the stored text; else the stored main text stands in (cheap, for bulk
    indexing). A page that shows no text is kept as ``""``, so it is not read again
    either; the main text stands in for it.

    >>> import tempfile, pathlib
    >>> from engine.archive.model import Capture
    >>> from engine.archive.registry import register
    >>> store = ArchiveStore.open(pathlib.Path(tempfile.mkdtemp()))
    >>> reg = register(store, Capture("https://e.com/a", b"<title>A</title><a href=b>Big</a>"))
    >>> visible_text_of(store, reg.id)
    'A\\nBig'
    >>> store.close()
    """
    reg_id = store.content_id(reg_id)  # a revisit reads (and keeps) its version's
    row = store.row("extracts", reg_id) or {}
    if row.get("visible_text") is None and recompute and store.has_version(reg_id):
        seen = read_visible_text(store, reg_id)
        if row:
            keep_visible_text(store, reg_id, seen)
        if seen:
            return seen
    return stored_text(store, reg_id)


def read_visible_text(store: ArchiveStore, reg_id: str) -> str:
    """A version's title line and visible text read from its original page ("" when the
    page shows no text or cannot be decoded)."""
    content = get(store, reg_id, original=True)
    try:
        seen = visible_text(content.body)
    except DecodeError:
        seen = ""
    return f"{content.record.get('title') or ''}\n{seen}" if seen else ""


def keep_visible_text(store: ArchiveStore, reg_id: str, seen: str) -> None:
    """Keep a version's visible text, read from its original, as registration keeps it: the
    blob written durably first, then the extracts row names it (one journal transaction),
    so a crash between leaves an unreferenced blob (reclaim removes it) and never a row
    naming a missing blob; an empty text is kept as ``""`` (no blob); a read-only store
    keeps nothing.

    >>> import tempfile, pathlib
    >>> from engine.archive.model import Capture
    >>> from engine.archive.registry import register
    >>> store = ArchiveStore.open(pathlib.Path(tempfile.mkdtemp()))
    >>> reg = register(store, Capture("https://e.com/a", b"<title>A</title><p>Old words"))
    >>> keep_visible_text(store, reg.id, "A\\nKept words")
    >>> visible_text_of(store, reg.id)
    'A\\nKept words'
    >>> store.close()
    """
    keep_visible_texts(store, {reg_id: seen})


def keep_visible_texts(store: ArchiveStore, texts: dict[str, str]) -> None:
    """:func:`keep_visible_text` for several versions: every blob written durably first (one
    batch, fsynced together), then one journal transaction names them all."""
    if store.readonly or not texts:
        return
    blobs = store.blob_batch()
    digests = {reg_id: blobs.add(seen.encode()) if seen else "" for reg_id, seen in texts.items()}
    blobs.commit()
    with store.transaction():
        for reg_id, digest in digests.items():
            store.update("extracts", reg_id, {"visible_text": digest})


def without_visible_text(store: ArchiveStore, reg_ids: list[str]) -> list[str]:
    """The versions of ``reg_ids`` whose extracts row has no visible text kept (not even an
    empty one), stored before it was kept; not those registration left unanalysed (a page
    over its limits, noted ``analysis``): a bulk pass does not parse what registration
    would not (their first check still reads theirs)."""
    return [
        reg_id
        for reg_id in reg_ids
        if (row := store.row("extracts", reg_id)) is not None
        and row.get("visible_text") is None
        and not store.version(reg_id).get("analysis")
    ]


def keep_all_visible_texts(store: ArchiveStore, reg_ids: list[str]) -> list[str]:
    """One step of the migration that keeps every older version's visible text: those of
    ``reg_ids`` still without one (not deleted meanwhile) read from their original and kept
    (:func:`keep_visible_texts`: a crash loses at most this step, and the next run reads
    those versions again); the versions kept."""
    todo = without_visible_text(store, reg_ids)
    keep_visible_texts(store, {reg_id: read_visible_text(store, reg_id) for reg_id in todo})
    return todo


def resolve_id(store: ArchiveStore, ref: str) -> str:
    """A registration ID from an ID or a version URL (``…/v/{id}/…``). What the error tree
    says a bad ``ref`` is: a well-formed ID that is not stored is ``not_found``; a ref that is
    no ID at all is invalid input (:func:`not_a_version`), as every command taking a URL or
    an ID answers it (:func:`ref_key`).

    >>> from engine.archive.store import ArchiveStore; import tempfile
    >>> resolve_id(ArchiveStore.open(tempfile.mkdtemp()), "20990101000000000000")
    Traceback (most recent call last):
    ...
    engine.errors.NotFound: no registration '20990101000000000000'
    """
    ref = ref.strip()
    reg_id = ref.split("/v/", 1)[1].split("/", 1)[0] if "/v/" in ref else ref
    if not is_reg_id(reg_id):
        raise not_a_version(ref, reg_id)
    if not store.has_capture(reg_id):
        raise NotFound(f"no registration {reg_id!r}")
    return reg_id


def not_a_version(ref: str, reg_id: str) -> InvalidInput:
    """The error for a ref that names no version: ``invalid_url`` when it is no URL either
    (the words :func:`ref_key` uses), ``invalid_input`` for a version URL with a malformed
    ID or a page's own URL.

    >>> not_a_version("12345", "12345").code, not_a_version("http://a.example/", "").code
    ('invalid_url', 'invalid_input')
    """
    if "/v/" in ref:
        return InvalidInput(f"{ref!r}: {reg_id!r} is not a registration ID (20 digits)")
    try:
        parse_url(ref)
    except InvalidURL as exc:
        return neither_id_nor_url(ref, exc)
    return InvalidInput(
        f"{ref!r} is a page's URL, not one of its versions: give a registration ID (20 digits)"
        " or a version URL (…/v/<id>/…)"
    )


def neither_id_nor_url(ref: str, exc: InvalidURL) -> InvalidURL:
    """A ref that is no registration ID, no version URL and no URL (a cut-off ID, a typo)."""
    return InvalidURL(
        f"{ref!r} is neither a registration ID (20 digits), a version URL nor a URL ({exc})"
    )


def describe(store: ArchiveStore, reg_id: str, base: str) -> dict:
    """The public view of one version record."""
    doc = store.version(reg_id)
    return {
        "id": reg_id,
        "url": doc["url"],
        "key": doc["key"],
        "title": doc.get("title", ""),
        "registered_at": iso(doc["ts"]),
        "version_url": version_url(base, reg_id, doc["url"]),
        "content_type": doc["content_type"],
        "charset": doc["charset"],
        "last_modified": doc.get("last_modified"),
        "size": doc["size"],
        "revisit_of": doc.get("revisit_of"),  # "seen again, unchanged": shares that version
    }


def lookup_key(store: ArchiveStore, url_or_id: str) -> str:
    """The document key for a URL, a registration ID or a version URL."""
    if is_reg_id(url_or_id.strip()) or "/v/" in url_or_id:
        return store.version(resolve_id(store, url_or_id))["key"]
    return ref_key(store, url_or_id.strip())


def ref_key(store: ArchiveStore, ref: str) -> str:
    """The document key of ``ref``, taken as a URL since it is no ID. A ref that is no URL
    either (a cut-off ID, a typo) says what was expected, still as ``invalid_url``.

    >>> from engine.archive.store import ArchiveStore; import tempfile
    >>> ref_key(ArchiveStore.open(tempfile.mkdtemp()), "2026112602")
    Traceback (most recent call last):
    ...
    engine.errors.InvalidURL: '2026112602' is neither a registration ID (20 digits), a version URL nor a URL (no scheme: a relative reference needs a base URL)
    """
    try:
        return document_key(store, ref)
    except InvalidURL as exc:
        raise neither_id_nor_url(ref, exc) from None


def versions(store: ArchiveStore, url_or_id: str, base: str | None = None) -> list[dict]:
    """Every capture of the document, newest CAPTURE first (``ts``, the ID breaks ties):
    each version, and each unchanged re-capture ("seen again") with ``revisit_of`` naming
    the version whose content it shares.

    A WARC import registers an older capture under a newer ID, so ID order is not time
    order. ``similarity_to_previous`` is to the capture before it in this order: 1.0
    between captures of the same content, the stored ``prev_similarity`` when the stored
    ``prev`` is that version, else the value from either one's similar list, else None.
    """
    base = base or RegisterOptions().base
    orders = _captures_in_order(store, lookup_key(store, url_or_id))
    ids = [reg_id for _ts, reg_id in orders]
    places = _places(orders)
    found = []
    for at in range(len(ids) - 1, -1, -1):
        entry = describe(store, ids[at], base) | places[ids[at]]
        before = ids[at - 1] if at else None
        entry["similarity_to_previous"] = _similarity_between(store, ids[at], before)
        entry["note"] = labels.note_of(store, ids[at])
        found.append(entry)
    return found


def _captures_in_order(store: ArchiveStore, key: str) -> list[tuple[float, str]]:
    """A document's captures as ``(time, ID)``, oldest first (:meth:`ArchiveStore.capture_order`)."""
    return sorted(map(store.capture_order, store.captures_of_key(key)))


def _places(orders: list[tuple[float, str]]) -> dict[str, dict]:
    """Each capture's place among ``orders`` (one document's, :func:`_captures_in_order`):
    ``number`` (1 = the oldest) ``of`` how many, and ``same_second``: another capture has the
    same time to the second, so its time alone (as every list, header and banner shows it)
    cannot tell them apart and its number is shown beside it.

    >>> _places([(10.2, "a"), (10.9, "b"), (12.0, "c")])["b"]
    {'number': 2, 'of': 3, 'same_second': True}
    """
    seconds = [int(ts) for ts, _reg_id in orders]
    return {
        reg_id: {"number": at + 1, "of": len(orders), "same_second": seconds.count(second) > 1}
        for at, ((_ts, reg_id), second) in enumerate(zip(orders, seconds, strict=True))
    }


def place_of(store: ArchiveStore, reg_id: str) -> dict:
    """One capture's place among its document's captures (:func:`_places`)."""
    orders = _captures_in_order(store, store.version(reg_id)["key"])
    return _places(orders).get(reg_id, {"number": None, "of": len(orders), "same_second": False})


def place_text(place: dict) -> str:
    """``"#3 of 5"`` for a capture that shares its second with another, else ``""``.

    >>> place_text({"number": 3, "of": 5, "same_second": True}), place_text({"number": 1, "of": 2, "same_second": False})
    ('#3 of 5', '')
    """
    return f"#{place['number']} of {place['of']}" if place.get("same_second") else ""


def _similarity_between(store: ArchiveStore, reg_id: str, before: str | None) -> float | None:
    if before is None:
        return None
    reg_id, before = store.content_id(reg_id), store.content_id(before)
    if reg_id == before:
        return 1.0
    doc = store.version(reg_id)
    if doc.get("prev") == before:
        return doc.get("prev_similarity")
    for one, other in ((reg_id, before), (before, reg_id)):
        for entry in (store.row("fingerprints", one) or {}).get("similar", []):
            if entry[0] == other:
                return entry[1]
    return None


def keywords(store: ArchiveStore, url_or_id: str) -> dict:
    """Title, summary and weighted keywords of the newest version of a URL (or of one version)."""
    ref = url_or_id.strip()
    if is_reg_id(ref) or "/v/" in ref:
        reg_id: str | None = resolve_id(store, ref)
    else:
        reg_id = store.latest_of_key(lookup_key(store, ref))
    if reg_id is None:
        raise NotFound(f"no registration of {ref}")
    row = store.row("extracts", reg_id) or {}
    fields = ("title", "summary", "keywords")
    return {"id": reg_id, "url": store.version(reg_id)["url"], **{k: row.get(k) for k in fields}}


def similar(store: ArchiveStore, ref: str, base: str | None = None) -> dict:
    """The pages similar to a version, with structural and content similarity.

    Other versions of the same document (its key) are left out: they are its versions, listed
    as such, and one unchanged would head the list at 1.0. The stored list keeps them (the
    similarity to the previous version is read from it).

    ``complete`` is False while some candidate of the site is still to be compared (the
    registration's budget ran out, or newer versions arrived): the daemon's background
    sweep (:func:`refresh_similar`) finishes the list, so a later request gets it whole.
    """
    base = base or RegisterOptions().base
    reg_id = resolve_id(store, ref)
    row = store.row("fingerprints", reg_id) or {}
    pages = []
    key = store.version(reg_id)["key"]
    for other, sim, content, *_ in row.get("similar", []):
        if store.has_version(other) and store.version(other)["key"] != key:
            entry = describe(store, other, base)
            entry.update(similarity=sim, content_similarity=content)
            pages.append(entry)
    computed = row.get("computed_at")
    return {
        "id": reg_id,
        "computed_at": iso(computed) if computed else None,
        "complete": bool(computed) and not _stale_ids(store, [store.content_id(reg_id)]),
        "similar": pages,
    }


def refresh_similar(store: ArchiveStore, ref: str, options: RegisterOptions | None = None) -> dict:
    """One step of the sweep that completes a version's similar list (the daemon's job).

    Compares the version with the candidates registered after ``compared_upto`` (all of
    them for a list never completed), in ID order, within ``options.similar_budget_s``;
    a sweep the budget cuts short is saved (``sweep: {after, upto}``) and the next call
    resumes it, so every list completes however large its site.
    """
    options = options or RegisterOptions(similar_budget_s=1.0, similar_max_fingerprint=10**9)
    reg_id = store.content_id(resolve_id(store, ref))  # a revisit's list is its version's
    doc, row = store.version(reg_id), store.row("fingerprints", reg_id) or {}
    target = VersionFeatures(
        reg_id,
        _sketch_bytes(row),
        frozenset(store.refs(reg_id)),
        _fingerprint_of(store, reg_id) or "",
        _text_of(store, reg_id),
    )
    after, upto = _sweep_window(store, doc["host"], row)
    found, complete, last = find_matches(
        store, target, doc["host"], doc.get("prev"), options, (after, upto)
    )
    with store.transaction():
        store.update("fingerprints", reg_id, _swept(row, found, complete, after, last, upto))
    return similar(store, reg_id, options.base)


def _sweep_window(store: ArchiveStore, host: str, row: dict) -> tuple[str, str]:
    """(after, upto): the IDs the next sweep step compares, ``after < id <= upto``."""
    if row.get("sweep"):
        return row["sweep"]["after"], row["sweep"]["upto"]
    ids = store.ids_of_host(host)
    upto = ids[-1] if ids else ""
    if row.get("complete", True) and row.get("compared_upto") is not None:
        return row["compared_upto"], upto
    return "", upto


def _swept(row: dict, found: list | None, complete: bool, after: str, last: str, upto: str):
    """The fingerprint row's new fields after one sweep step (its list merged)."""
    if found is None:  # too big to compare at all: nothing more will ever be found
        return {"similar": [], "computed_at": time.time(), "complete": True, "sweep": None}
    done_to = upto if complete else last
    kept = [e for e in row.get("similar", []) if not after < e[0] <= done_to]
    merged = sorted(kept + found, key=lambda e: -e[1])
    fields = {"similar": merged, "computed_at": time.time(), "complete": complete}
    if complete:
        return {**fields, "compared_upto": upto, "sweep": None}
    return {**fields, "sweep": {"after": last, "upto": upto}}


def stale_similar(store: ArchiveStore, limit: int = 100) -> list[str]:
    """IDs (newest first) whose similar list is not complete: cut short by a budget, or
    older than a newer version of the same host. The daemon refreshes them in the
    background with :func:`refresh_similar`.
    """
    return _stale_ids(store, reversed(store.ids), limit)


def _stale_ids(store: ArchiveStore, ids, limit: int = 100) -> list[str]:
    stale: list[str] = []
    for reg_id in ids:
        newest = store.newest_of_host(store.version(reg_id)["host"]) or reg_id
        row = store.row("fingerprints", reg_id) or {}
        if _list_stale(row, reg_id, newest, store):
            stale.append(reg_id)
            if len(stale) >= limit:
                break
    return stale


def _list_stale(row: dict, reg_id: str, newest: str, store: ArchiveStore) -> bool:
    if not row.get("complete", True) or row.get("computed_at") is None:
        return True
    if newest == reg_id:
        return False
    upto = row.get("compared_upto")
    if upto is not None:
        return upto < newest
    return row["computed_at"] < store.version(newest)["ts"]  # a list from before sweeps


@dataclass
class Content:
    """A stored copy: bytes plus how to serve them."""

    id: str
    body: bytes
    content_type: str
    charset: str
    original: bool
    record: dict


def get(store: ArchiveStore, ref: str, original: bool = False) -> Content:
    """The rewritten (default) or byte-identical original copy of a version."""
    reg_id = resolve_id(store, ref)
    doc = store.version(reg_id)
    body = store.get_blob(doc["orig"] if original else doc["rewritten"])
    if not original:
        body = body.replace(ID_SLOT.encode(), reg_id.encode())
    charset = doc["charset"] if original else "utf-8"
    return Content(reg_id, body, doc["content_type"], charset, original, doc)


# The banner floats over the copy (position: fixed) instead of pushing it down: the copy is laid
# out exactly as captured, and "Hide" (a label toggling a checkbox: a sealed copy runs no script)
# takes the banner away. Its own styles sit in a declarative shadow root, out of the page's reach.
BANNER_STYLE = (
    "#hide{position:absolute;opacity:0;width:1px;height:1px;margin:0}"
    "#hide:checked+.bar{display:none}"
    ".bar{display:flex;gap:12px;align-items:baseline;background:#fff3c4;color:#222;"
    "font:14px/1.4 sans-serif;padding:6px 10px;border-bottom:1px solid #c9a700;"
    "box-shadow:0 1px 4px rgb(0 0 0/20%)}"
    ".text{flex:1;overflow-wrap:anywhere}a{color:#0645ad}"
    "label{cursor:pointer;color:#222;border:1px solid #c9a700;border-radius:4px;padding:0 8px}"
    "#hide:focus-visible+.bar label{outline:2px solid #0645ad;outline-offset:1px}"
)


def banner_html(registered_at: float, url: str, place: str = "") -> str:
    """The banner of a served rewritten copy (the multi-version server method's indication 403),
    floating over the top of the copy until the user hides it. ``place`` (``"#3 of 5"``, from
    :func:`place_text`) follows the time when another capture shares its second.

    >>> "registered on 1970-01-01 00:00:00 UTC," in banner_html(0, "https://e.com/")
    True
    >>> "registered on 1970-01-01 00:00:00 UTC (#2 of 2)," in banner_html(0, "https://e.com/", "#2 of 2")
    True
    """
    stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(registered_at))
    if place:
        stamp = f"{stamp} ({place})"
    safe = url.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
    return (
        '<div id="pagekeeper-banner" style="all:initial;position:fixed;top:0;left:0;right:0;'
        'z-index:2147483647;display:block"><template shadowrootmode="open">'
        f'<style>{BANNER_STYLE}</style><input type="checkbox" id="hide" aria-label="Hide this notice">'
        f'<div class="bar" role="note"><span class="text">PageKeeper: registered on {stamp}, links'
        f' rewritten. Original: <a href="{safe}">{safe}</a></span>'
        '<label for="hide" id="hide-label">Hide</label></div></template></div>'
    )


def with_banner(html: bytes, registered_at: float, url: str, place: str = "") -> bytes:
    """Insert the banner right after <body> (or at the start when there is none)."""
    banner = banner_html(registered_at, url, place).encode("utf-8")
    lower = html[:200_000].lower()
    at = lower.find(b"<body")
    if at >= 0:
        end = html.find(b">", at)
        if end >= 0:
            return html[: end + 1] + banner + html[end + 1 :]
    return banner + html


def served_copy(store: ArchiveStore, ref: str) -> Content:
    """The rewritten copy with the banner, as the daemon serves it under /v/{id}/."""
    content = get(store, ref)
    doc = content.record
    place = place_text(place_of(store, content.id))
    content.body = with_banner(content.body, doc["ts"], doc["url"], place)
    return content


def served_resource(
    store: ArchiveStore, ref: str, number: int, original: bool = False, base: str | None = None
) -> Content:
    """Resource ``number`` of a version's manifest: its bytes as captured, except that a
    stylesheet's ``url()``/``@import`` and a frame's resources point at the version's own
    resources (``original`` keeps them as captured). NotFound when missing."""
    reg_id = resolve_id(store, ref)
    doc = store.version(reg_id)
    manifest = manifest_of(store, doc)
    if not 0 <= number < len(manifest) or not manifest[number].get("blob"):
        raise NotFound(f"resource {number} of {reg_id} was not captured")
    entry = manifest[number]
    body = store.get_blob(entry["blob"])
    if not original and (is_css(entry["type"]) or is_html(entry["type"])):
        body = _sealed_text(reg_id, manifest, entry, body, base or RegisterOptions().base)
    return Content(reg_id, body, entry["type"] or "application/octet-stream", "", original, entry)


def _sealed_text(reg_id: str, manifest: list, entry: dict, body: bytes, base: str) -> bytes:
    """A stored stylesheet or frame with its resource URLs pointed at the version's resources.
    Bytes outside the URLs are kept as they were (undecodable ones too: surrogateescape)."""
    resmap = ResourceMap(reg_id, manifest, grow=False)
    if is_css(entry["type"]):
        text = body.decode("utf-8", "surrogateescape")
        fixed = css_rewrite(text, lambda url: _mapped(resmap, url, entry["url"]))
        return fixed.encode("utf-8", "surrogateescape")
    tree = LexborHTMLParser(body.decode("utf-8", "replace"))
    options = RewriteOptions(base, reg_id, resmap)
    return rewrite_tree(tree, entry["url"], options).html.encode("utf-8")


def _mapped(resmap: ResourceMap, url: str, base: str) -> str | None:
    resolved = absolute(url, base)
    return resmap.path(resolved) if resolved else None


def resolve_open(
    store: ArchiveStore, url_or_id: str, reachable: bool, base: str | None = None
) -> dict:
    """``open``: redirect to the live page if reachable, else the stored copy of the version.

    ``url_or_id`` is a registration ID, a version URL, or an original URL (its newest version).
    """
    base = base or RegisterOptions().base
    ref = url_or_id.strip()
    is_version = is_reg_id(ref) or "/v/" in ref
    reg_id = resolve_id(store, ref) if is_version else nearest_version(store, ref)
    entry = describe(store, reg_id, base)
    if reachable:
        return {"action": "live", "location": entry["url"], "banner": False, **entry}
    return {"action": "stored", "location": entry["version_url"], "banner": True, **entry}


def nearest_version(store: ArchiveStore, url: str, ref_id: str | None = None) -> str:
    """The version of ``url`` captured nearest in time to the referring page (the newest
    capture when there is no referrer); capture times, not IDs, since imports reorder them."""
    key = ref_key(store, url)
    newest = store.latest_of_key(key)
    if newest is None:
        raise NotFound(f"no stored copy of {url}")
    if not ref_id or not is_reg_id(ref_id):
        return newest
    docs = store.raw("versions")
    when = docs[ref_id]["ts"] if ref_id in docs else id_time(ref_id)
    return min(store.ids_of_key(key), key=lambda i: (abs(docs[i]["ts"] - when), i))


def resolve_gc(
    store: ArchiveStore, url: str, ref_id: str | None, reachable: bool, base: str | None = None
) -> dict:
    """``gc?url=X[&id=R]``: live if reachable, else the stored version of X nearest to R."""
    base = base or RegisterOptions().base
    if reachable:
        return {"action": "live", "location": url, "url": url}
    try:
        reg_id = nearest_version(store, url, ref_id)
    except NotFound:
        return {"action": "missing", "url": url, "location": None}
    entry = describe(store, reg_id, base)
    return {"action": "stored", "location": entry["version_url"], "banner": True, **entry}


def search(
    store: ArchiveStore,
    pattern: str = "*",
    case_sensitive: bool = False,
    sort: str = "time",
    text: str | None = None,
    base: str | None = None,
    tag: str | None = None,
) -> list[dict]:
    """URL wildcard (``*``, ``?``) and full-text search; see engine/archive/search.py."""

    if sort not in ("url", "time"):
        raise InvalidInput(f"sort must be 'url' or 'time', not {sort!r}")
    options = SearchOptions(
        pattern or "*", case_sensitive, sort, text, base or RegisterOptions().base, tag
    )
    return run(store, options)
