"""Register pages (the multi-version server method's registrar; engine/archive/provider.py answers about them).

``register`` parses the page once, fingerprints it, rewrites its links, extracts its
text, stores both copies as content-addressed blobs, and writes every table row
of the registration in ONE journal transaction: after it returns, the
registration survives a crash; before, nothing of it is visible.

>>> import tempfile, pathlib
>>> from engine.archive.store import ArchiveStore
>>> store = ArchiveStore.open(pathlib.Path(tempfile.mkdtemp()))
>>> reg = register(store, Capture("https://e.com/a", b"<title>A</title><a href=b>b</a>"))
>>> store.has_version(reg.id)
True
>>> store.close()
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import NamedTuple
from urllib.parse import unquote

import ada_url
from selectolax.lexbor import LexborHTMLParser

from engine.archive.keys import document_key
from engine.archive.model import (
    Capture,
    RegisterOptions,
    Registration,
    gc_url,
    iso,
    version_url,
)
from engine.archive.resources import (
    PENDING,
    STORED,
    ResourceMap,
    blob_level,
    encode_manifest,
    is_css,
    is_html,
    manifest_entry,
)
from engine.archive.similar import SimilarIndex, SimilarOptions, VersionFeatures, sketch
from engine.archive.store import ArchiveStore, blob_hash
from engine.errors import DecodeError, InvalidInput, InvalidURL, TooLarge
from engine.html.address import declared_address
from engine.html.extract import ParsedPage, extract, parse_page, tab_title
from engine.html.fingerprint import fingerprint_tree
from engine.html.limits import cut_reason, measure
from engine.html.parse import Decoded, decode_html, is_html_type
from engine.html.rewrite import RewriteOptions, css_urls, rewrite_tree
from engine.html.similarity import (
    FingerprintIndex,
    shared_share,
    shingle_similarity,
    shingles,
)
from engine.html.visible import shown_text


@dataclass
class Prepared:
    """Everything computed from a capture before anything is written."""

    url: str
    key: str
    host: str
    original: bytes
    rewritten: bytes
    charset: str
    fingerprint: str
    links: list[str]
    title: str
    extraction: dict | None
    resources: list[dict]
    visible: str = ""  # title line and the page's visible text (search and diff read it)
    note: str | None = None  # why part of the analysis was cut (PageLimits)
    address: str = ""  # the path the page names for itself (liveness: another page is served)

    @property
    def text(self) -> str:
        """Title and main text: what content similarity and full-text search use."""
        return f"{self.title}\n{(self.extraction or {}).get('body', '')}"


# -- validation and preparation --------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")
_IGNORED = frozenset(map(chr, [0x034F, *range(0x180B, 0x1810), *range(0xFE00, 0xFE10)]))
# ``scheme://userinfo@`` (WHATWG authority: up to the first '@' before '/', '?' or '#').
_USERINFO = re.compile(rb"(?i)\b([a-z][a-z0-9+.-]*://)[^\s/?#@\\\"'<>]*@")


def without_credentials(body: bytes) -> bytes:
    """The page with ``user:password@`` cut from every URL in it (never stored, never shown).

    >>> without_credentials(b'<a href="https://alice:s3cret@bank.example/">x</a> @me')
    b'<a href="https://bank.example/">x</a> @me'
    """
    if b"@" not in body or b"://" not in body:
        return body
    return _USERINFO.sub(rb"\1", body)


def host_of(url: str) -> str:
    """``host[:port]`` of a URL: only pages on the same host and port are compared.

    >>> host_of("https://E.com:8443/x"), host_of("http://e.com:80/")
    ('e.com:8443', 'e.com')
    """
    try:
        return ada_url.URL(url).host
    except ValueError as exc:
        raise InvalidURL(f"not a URL: {url!r}") from exc


def _check(capture: Capture, options: RegisterOptions) -> bytes:
    body = capture.html.encode("utf-8") if isinstance(capture.html, str) else capture.html
    if len(body) > options.max_bytes:
        raise TooLarge(f"page of {len(body)} bytes is above the cap of {options.max_bytes}")
    if not is_html_type(capture.content_type):
        raise InvalidInput(f"not an HTML page ({capture.content_type}); only HTML is archived")
    if b"\x00" in body[:4096] and not body.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DecodeError("the page bytes look binary (NUL bytes), not HTML")
    if not capture.url.lower().startswith(("http://", "https://")):
        raise InvalidURL(f"only http(s) pages can be archived: {capture.url!r}")
    for url in (capture.url, capture.final_url):
        _check_visible_host(url)
    return body


def _check_visible_host(url: str | None) -> None:
    """Refuse a host holding characters IDNA maps to nothing (soft hyphen, zero-width
    space/joiners, BOM, variation selectors: UTS #46 "ignored"), raw or percent-encoded:
    ``exa\u00admple.com`` parses as ``example.com``, so its copy would join that
    document while showing another address.

    >>> _check_visible_host("https://exa%C2%ADmple.com/")
    Traceback (most recent call last):
    ...
    engine.errors.InvalidURL: the host of 'https://exa%C2%ADmple.com/' holds an invisible character (U+00AD); refused so it cannot pass for another site
    """
    if not url or "://" not in url:
        return
    authority = re.split(r"[/?#\\]", url.split("://", 1)[1], maxsplit=1)[0]
    host = unquote(authority.rsplit("@", 1)[-1])
    for char in host:
        if unicodedata.category(char) == "Cf" or char in _IGNORED:
            raise InvalidURL(
                f"the host of {url!r} holds an invisible character (U+{ord(char):04X}); "
                "refused so it cannot pass for another site"
            )


def scalar_values(capture: Capture) -> Capture:
    """The capture with lone surrogates in its text replaced by U+FFFD, as WebIDL's
    USVString conversion does (a DOM string may hold them; UTF-8 cannot).

    >>> scalar_values(Capture("https://e.org/", "<p>a" + chr(0xD83D), title=chr(0xDC00))).title
    '\ufffd'
    """
    html = _scalar(capture.html) if isinstance(capture.html, str) else capture.html
    title = _scalar(capture.title) if capture.title is not None else None
    if html is capture.html and title is capture.title:
        return capture
    return replace(capture, html=html, title=title)


def _scalar(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (the same object when it has none)."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def _read_text(text: str, url: str) -> tuple[str, dict | None]:
    """The page's visible text and its extraction (:func:`_extract`), from one parse: the
    visible text is read first, as the extraction changes the tree."""
    page = parse_page(text)
    return shown_text(page.tree), _extract(page, url)


def _extract(text: str | ParsedPage, url: str) -> dict | None:

    try:
        found = extract(text, url)
    except DecodeError:
        return None
    return {
        "title": found.title,
        "summary": found.summary,
        "body": found.body,
        "keywords": [[w, round(s, 4)] for w, s in found.keywords[:20]],
    }


def _decode(capture: Capture, body: bytes) -> Decoded:
    """Text as given (a serialized DOM is text: stored as UTF-8), or bytes sniffed.

    A declared charset is only a hint for bytes; text was decoded by the browser already.
    """
    if isinstance(capture.html, str):
        return Decoded(capture.html, "utf-8", "text")
    return decode_html(body, f"text/html; charset={capture.charset}" if capture.charset else None)


def prepare(
    store: ArchiveStore, capture: Capture, reg_id: str, options: RegisterOptions
) -> Prepared:
    """Validate, decode, parse once, fingerprint, rewrite, extract (no writes)."""
    prep = analyse(capture, reg_id, options)
    prep.key = document_key(store, capture.url)
    return prep


def analyse(capture: Capture, reg_id: str, options: RegisterOptions) -> Prepared:
    """:func:`prepare` without the store (any thread): everything but the archive key.

    A page over ``options.limits`` is kept with a ``note``: not parsed at all past the
    element or depth limit (stored as captured, under a ``<base>``), or not text-extracted.
    """
    capture = scalar_values(capture)
    raw = _check(capture, options)
    body = without_credentials(raw)
    if body is not raw and isinstance(capture.html, str):
        capture = replace(capture, html=body.decode("utf-8"))
    url = capture.final_url or capture.url
    decoded = _decode(capture, body)
    size = measure(decoded.text, options.limits)
    cut = cut_reason(size, options.limits)
    if cut is not None:
        return _unparsed(capture, body, decoded, url, f"not analysed: {cut}")
    tree = LexborHTMLParser(decoded.text)
    fp = fingerprint_tree(tree)
    title_node = tree.css_first("title")
    address = declared_address(tree)  # before the rewrite makes the page's links absolute
    extract = options.extract and size.elements <= options.limits.extract_elements
    # The stored copy names its version by ID_SLOT (filled in by get()), so an unchanged
    # page's re-capture stores the same rewritten blob: content addressing keeps it once.
    resmap = ResourceMap(ID_SLOT, capture.resources)
    sealing = RewriteOptions(options.base, ID_SLOT, resmap, capture.keep_scripts)
    rewritten = rewrite_tree(tree, url, sealing)
    del tree
    seen, extraction = _read_text(decoded.text, url) if extract else ("", None)
    title = capture.title or (title_node.text() if title_node else "")
    title = tab_title(title) or tab_title((extraction or {}).get("title", ""))
    return Prepared(
        url=capture.url,
        key="",
        host=host_of(url),
        original=body,
        rewritten=rewritten.html.encode("utf-8"),
        charset=decoded.charset,
        fingerprint=fp,
        links=rewritten.links,
        title=title,
        extraction=extraction,
        resources=_with_data(resmap.entries, capture.resources),
        visible=f"{title}\n{seen}" if seen else "",
        note=None if extract or not options.extract else _no_text(size, options),
        address=address,
    )


def _no_text(size, options: RegisterOptions) -> str:
    limit = options.limits.extract_elements
    return f"text not extracted: about {size.elements} elements (limit {limit})"


def _unparsed(capture: Capture, body: bytes, decoded: Decoded, url: str, note: str) -> Prepared:
    """A page kept as captured: no fingerprint, no links, no text; resources resolve via <base>."""
    base = '<base href="' + url.replace("&", "&amp;").replace('"', "&quot;") + '">'
    return Prepared(
        url=capture.url,
        key="",
        host=host_of(url),
        original=body,
        rewritten=(base + decoded.text).encode("utf-8"),
        charset=decoded.charset,
        fingerprint="",
        links=[],
        title=tab_title(capture.title or ""),
        extraction=None,
        resources=_with_data(capture.resources, capture.resources),
        note=note,
    )


def _with_data(entries: list[dict], given: list[dict]) -> list[dict]:
    """Manifest entries, with the bytes a host-side fetch brought (stored before the rows)."""
    data = {g["url"]: g["data"] for g in given if g.get("data") is not None}
    kept = [manifest_entry(e) for e in entries]
    return [{**e, "data": data[e["url"]]} if e["url"] in data else e for e in kept]


def _note_nested(store: ArchiveStore, prep: Prepared, options: RegisterOptions, keep: bool) -> None:
    """List what stored stylesheets and frames use, so the manifest names every resource
    the sealed copy will ask for (they are rewritten to it when served)."""
    resmap = ResourceMap(ID_SLOT, prep.resources)
    sealing = RewriteOptions(options.base, ID_SLOT, resmap, keep)
    for entry in list(resmap.entries):
        if not entry.get("blob") or not (is_css(entry["type"]) or is_html(entry["type"])):
            continue
        text = store.get_blob(entry["blob"]).decode("utf-8", "replace")
        if is_css(entry["type"]):
            for url in css_urls(text, entry["url"]):
                resmap.number(url)
        else:
            rewrite_tree(LexborHTMLParser(text), entry["url"], sealing)
    prep.resources = resmap.entries


# -- similarity at registration (bounded) ------------------------------------------


def _fingerprint_of(store: ArchiveStore, reg_id: str) -> str | None:
    row = store.row("fingerprints", reg_id)
    if not row or not row.get("fp"):
        return None
    return store.get_blob(row["fp"]).decode("utf-8")


def _text_of(store: ArchiveStore, reg_id: str) -> str:
    row = store.row("extracts", reg_id)
    return store.get_blob(row["text"]).decode("utf-8") if row and row.get("text") else ""


ID_SLOT = "__PK_VERSION_ID__"  # the version ID in a stored rewritten copy (see prepare)


RECENT_KEPT = 8  # versions kept in memory with their shingles (the next capture's previous one)


def _recent(store: ArchiveStore) -> OrderedDict:
    """reg_id -> (fingerprint, text, shingles) of the latest registrations, newest last."""
    return store.cache.setdefault("recent_versions", OrderedDict())


def _remember(store: ArchiveStore, reg_id: str, fp: str, text: str, exact: _Exact) -> None:
    recent = _recent(store)
    recent[reg_id] = (fp, text, exact.shingles, exact.options.content)
    while len(recent) > RECENT_KEPT:
        recent.popitem(last=False)


def _load(store: ArchiveStore, reg_id: str, content) -> tuple[str, str, set | None]:
    """Fingerprint, text and (when still in memory, of the same width) shingles of a version."""
    kept = _recent(store).get(reg_id)
    if kept is not None:
        return kept[0], kept[1], kept[2] if kept[3] == content else None
    return _fingerprint_of(store, reg_id) or "", _text_of(store, reg_id), None


def _features(store: ArchiveStore, reg_id: str) -> VersionFeatures:
    row = store.row("fingerprints", reg_id) or {}
    return VersionFeatures(reg_id, _sketch_bytes(row), frozenset(store.refs(reg_id)))


def _sketch_bytes(row: dict):
    """The stored sketch in the form engine/archive/similar.py's ``sketch()`` returns."""
    stored = row.get("sketch")
    if stored is None:
        return sketch("")
    if isinstance(stored, dict):  # bytes sketches are stored as {"hex": ...}
        return bytes.fromhex(stored["hex"])
    return stored


def _sketch_json(value) -> dict | list:
    """A sketch as JSON: a list of ints as it is, bytes as {"hex": ...}."""
    if isinstance(value, bytes | bytearray):
        return {"hex": bytes(value).hex()}
    return list(value)


def site_index(store: ArchiveStore, host: str) -> SimilarIndex:
    """The warm sketch index of one host's versions (built on first use, kept current)."""
    indexes = store.cache.setdefault("similar", {})
    if host not in indexes:
        indexes[host] = SimilarIndex(_features(store, i) for i in store.ids_of_host(host))
    return indexes[host]


def _link_set(store: ArchiveStore, links: list[str]) -> frozenset:
    return frozenset(store.link_id(u) for u in links)


def _similar_options(options: RegisterOptions) -> SimilarOptions:
    """Every candidate passing the link filter is compared (no sketch floor, no count cap):
    only the budget stops the exact stage, and then the list says it is incomplete."""
    return SimilarOptions(
        time_budget=options.similar_budget_s,
        min_structural=options.similar_min,
        min_sketch=0,
        clock=options.clock,
    )


class Matches(NamedTuple):
    """What :func:`find_matches` found: ``found`` ([[id, structural, content]] best first; None
    when the page is too big to compare), ``complete`` (every candidate compared) and
    ``last`` (the last candidate compared: where a sweep resumes)."""

    found: list | None
    complete: bool
    last: str = ""


def find_matches(
    store: ArchiveStore,
    target: VersionFeatures,
    host: str,
    prev: str | None,
    options,
    window: tuple[str, str] | None = None,
) -> Matches:
    """Compare ``target`` with every version of its host that passes the link filter, within
    ``options.similar_budget_s`` (measured with ``options.clock``); ``complete`` is False when
    the budget stopped the comparisons early.

    Without ``window`` (a registration) the previous version comes first, then the best
    ranked by sketch. With ``window = (after, upto)`` (the daemon's sweep) only candidates
    with ``after < id <= upto`` are compared, in ID order, so a sweep cut short resumes
    after ``Matches.last``. The link-count test and the sketch ranking are
    ``SimilarIndex.ranked_candidates``; the exact stage runs here so that ONE suffix
    automaton of the new page serves every candidate. ``found`` is None when the page is
    too big to compare at registration: the daemon does it later (:func:`stale_similar`).
    """
    if len(target.fingerprint or "") > options.similar_max_fingerprint:
        return Matches(None, False)
    deadline = options.clock() + options.similar_budget_s  # the automaton's build counts
    try:
        exact = _Exact(store, target, _similar_options(options))
    except TooLarge:  # beyond the automaton's memory cap
        return Matches(None, False)
    index = site_index(store, host)
    ranked = index.ranked_candidates(target, exact.options, keep=max(1, len(index)))
    pool = _pool(prev, [v.id for v in ranked], window)
    by_id, last = {v.id: v for v in ranked}, ""
    for count, other in enumerate(pool):
        if count and options.clock() > deadline:
            exact.complete = False
            break
        exact.compare(other, by_id.get(other), force=other == prev)
        last = other
    _remember(store, target.id, target.fingerprint or "", target.text or "", exact)
    return Matches(sorted(exact.found, key=lambda row: -row[1]), exact.complete, last)


def _pool(prev: str | None, ranked: list[str], window: tuple[str, str] | None) -> list[str]:
    """The candidates in the order they are compared (see :func:`find_matches`)."""
    if window is not None:
        after, upto = window
        return sorted(i for i in ranked if after < i <= upto)
    return ([prev] if prev else []) + [i for i in ranked if i != prev]


class _Exact:
    """The exact stage: one automaton of the new page, compared with candidates one by one."""

    def __init__(self, store: ArchiveStore, target: VersionFeatures, options: SimilarOptions):
        self.store, self.target, self.options = store, target, options
        self.index = FingerprintIndex(target.fingerprint or "", options.similarity)
        self.shingles = shingles(target.text or "", options.content)
        self.found: list = []
        self.complete = True

    def compare(self, other: str, features: VersionFeatures | None, force: bool) -> None:
        """Compare with ``other``; ``force`` keeps it whatever the links and scores say."""
        if not force and features is not None and not self._links_pass(features):
            return
        fp, text, their_shingles = _load(self.store, other, self.options.content)
        if not fp:
            return
        structural = self.index.similarity(fp)
        content = self._content(text, their_shingles)
        keep = structural >= self.options.min_structural or content >= self.options.min_content
        if force or keep:
            self.found.append([other, round(structural, 4), round(content, 4)])

    def _content(self, text: str, their_shingles: set | None) -> float:
        """Content similarity to ``text``; an unchanged text needs no second shingling."""
        if text == self.target.text:
            return 1.0 if self.shingles else 0.0
        if their_shingles is None:
            their_shingles = shingles(text, self.options.content)
        return shingle_similarity(self.shingles, their_shingles)

    def _links_pass(self, other: VersionFeatures) -> bool:
        """Step 2 of the multi-version server method's prefilter (shared links), step 1 ran in the ranking."""
        prefilter, mine = self.options.prefilter, self.target.links
        if len(mine) + len(other.links) <= prefilter.small_total:
            return True
        return shared_share(mine, other.links) >= prefilter.min_shared_share


# -- writing -------------------------------------------------------------------------


def _blobs(
    store: ArchiveStore, prep: Prepared
) -> tuple[str, str, str, str, str | None, str | None]:
    """Store the blobs (original, rewritten, fingerprint, text, visible text, manifest)
    durably; their hashes (None for an empty visible text or manifest)."""
    blobs = store.blob_batch()
    orig, rewritten = blobs.add(prep.original), blobs.add(prep.rewritten)
    fp, text = blobs.add(prep.fingerprint.encode()), blobs.add(prep.text.encode())
    seen = blobs.add(prep.visible.encode()) if prep.visible else None
    manifest = encode_manifest(prep.resources) if prep.resources else None
    manifest_blob = blobs.add(manifest, 6) if manifest else None
    blobs.commit()
    return orig, rewritten, fp, text, seen, manifest_blob


def _write(
    store: ArchiveStore, reg_id: str, prep: Prepared, capture: Capture, extras: dict
) -> list[int]:
    # durable before a row names them
    orig, rewritten, fp_blob, text_blob, seen_blob, manifest = _blobs(store, prep)
    with store.transaction():
        link_ids = store.link_ids(prep.links)
        doc = _version_doc(prep, capture, orig, rewritten, extras)
        store.add_version(reg_id, {**doc, "manifest": manifest} if manifest else doc)
        store.update("refs", reg_id, {"links": link_ids})
        store.update("fingerprints", reg_id, {"fp": fp_blob, **extras["fingerprint"]})
        store.update("extracts", reg_id, _extract_doc(prep, text_blob, seen_blob))
        _list_back(store, reg_id, extras["fingerprint"]["similar"], extras["ts"])
    return link_ids


def _list_back(store: ArchiveStore, reg_id: str, found: list, now: float) -> None:
    """Insert ``reg_id`` into the stored list of every version it found similar (symmetric lists).

    The entry is ``[reg_id, structural, content, computed_at]``; the list stays sorted best
    structural first, never cut (a cut list would claim to be complete). The row's own
    ``compared_upto`` is unchanged: the daemon's sweep still compares that version with
    this one (:func:`stale_similar`).
    """
    for other, structural, content, *_ in found:
        row = store.row("fingerprints", other)
        if row is None or other == reg_id:
            continue
        kept = [e for e in row.get("similar", []) if e[0] != reg_id]
        kept.append([reg_id, structural, content, now])
        kept.sort(key=lambda e: -e[1])
        store.update("fingerprints", other, {"similar": kept})


def _version_doc(prep: Prepared, capture: Capture, orig: str, rewritten: str, extras) -> dict:
    return {
        "url": prep.url,
        "final_url": capture.final_url or prep.url,
        "key": prep.key,
        "host": prep.host,
        "ts": extras["ts"],
        "content_type": (capture.content_type or "text/html").split(";")[0].strip(),
        "charset": prep.charset,
        "last_modified": capture.last_modified,
        "title": prep.title,
        "orig": orig,
        "rewritten": rewritten,
        "size": len(prep.original),
        "source": capture.source,
        "prev": extras["prev"],
        "prev_similarity": extras["prev_similarity"],
        **({"capture_id": capture.capture_id} if capture.capture_id else {}),
        **({"analysis": prep.note} if prep.note else {}),
    }


def _extract_doc(prep: Prepared, text_blob: str, seen_blob: str | None) -> dict:
    """``text`` is the title and MAIN text (liveness, keywords, content similarity);
    ``visible_text`` the title and VISIBLE text, links and headings included (search, diff);
    ``""`` when the page was analysed and shows none, missing when it was not analysed."""
    ext = prep.extraction or {}
    doc = {
        "title": prep.title,
        "summary": ext.get("summary", ""),
        "keywords": ext.get("keywords", []),
        "text": text_blob,
        "address": prep.address,
    }
    if seen_blob or prep.extraction is not None:  # "": the page shows no text (not read again)
        return {**doc, "visible_text": seen_blob or ""}
    return doc


def _previous_similarity(similar: list | None, prev: str | None) -> float | None:
    return next((row[1] for row in similar or () if row[0] == prev), None)


def register(
    store: ArchiveStore, capture: Capture, options: RegisterOptions | None = None
) -> Registration:
    """Register one capture; see the module doc. Raises TooLarge/InvalidInput/DecodeError."""
    options = options or RegisterOptions()
    now = options.now.timestamp() if options.now else time.time()
    reg_id = store.new_id(now)
    return register_analysed(
        store, capture, analyse(capture, reg_id, options), reg_id, now, options
    )


def register_analysed(
    store: ArchiveStore,
    capture: Capture,
    prep: Prepared,
    reg_id: str,
    now: float,
    options: RegisterOptions,
) -> Registration:
    """The store's part of :func:`register`, for a page :func:`analyse` prepared elsewhere
    (the daemon analyses off its store thread)."""
    prep.resources = store_resource_data(store, prep.resources)  # blobs before rows
    _note_nested(store, prep, options, capture.keep_scripts)
    prep.key = document_key(store, capture.url)
    prev = store.latest_of_key(prep.key)
    if prev is not None and unchanged(store.version(prev), prep, capture):
        if options.only_if_different is not None:
            return _skipped(store, prev, prep, 1.0, options)
        return _revisit(store, prev, prep, capture, reg_id, now, options)
    sk = sketch(prep.fingerprint)
    target = VersionFeatures(reg_id, sk, _link_set(store, prep.links), prep.fingerprint, prep.text)
    before = store.newest_of_host(prep.host) or ""
    found, complete, _ = find_matches(store, target, prep.host, prev, options)
    prev_sim = _previous_similarity(found, prev)
    if prev is not None and prev_sim is not None and _skip(options, prev_sim):
        return _skipped(store, prev, prep, prev_sim, options)
    extras = {
        "ts": now,
        "prev": prev,
        "prev_similarity": prev_sim,
        "fingerprint": {
            "sketch": _sketch_json(sk),
            "similar": found or [],
            "computed_at": None if found is None else now,
            "complete": complete,
            # the list holds every version of the host up to this one
            **({"compared_upto": before} if complete else {}),
        },
    }
    link_ids = _write(store, reg_id, prep, capture, extras)
    site_index(store, prep.host).add(VersionFeatures(reg_id, sk, frozenset(link_ids)))
    return _registration(reg_id, prep, now, found or [], prev_sim, options)


def unchanged(doc: dict, prep: Prepared, capture: Capture) -> bool:
    """Is this capture exactly the stored version ``doc`` again? The same original bytes
    (SHA-256), the same manifest (SHA-256 of its encoding: the same resources, each with
    the same bytes) and so the same served copy, under the same URL, final URL, type,
    charset and title.
    Anything else, a single byte or one resource apart, is a new version.

    >>> prep = Prepared("u", "", "", b"<p>a", b"<p>a", "utf-8", "", [], "", None, [])
    >>> capture, digest = Capture("u", b"<p>a"), blob_hash(b"<p>a")
    >>> doc = _version_doc(prep, capture, digest, digest, {"ts": 0, "prev": None, "prev_similarity": None})
    >>> unchanged(doc, prep, capture), unchanged({**doc, "manifest": "f00d"}, prep, capture)
    (True, False)
    """
    if "resources" in doc:  # a manifest kept inline (older versions): not compared
        return False
    manifest = blob_hash(encode_manifest(prep.resources)) if prep.resources else None
    stored = (doc.get("orig"), doc.get("rewritten"), doc.get("manifest"), doc.get("url"))
    fresh = (blob_hash(prep.original), blob_hash(prep.rewritten), manifest, prep.url)
    return stored == fresh and _same_record(doc, prep, capture)


def _same_record(doc: dict, prep: Prepared, capture: Capture) -> bool:
    """The record fields a revisit shares with its version are the capture's own too.
    ``last_modified`` is not one: a browser's ``document.lastModified`` is the current time
    when the server sent no Last-Modified (HTML, "Resource metadata management")."""
    fresh = _version_doc(prep, capture, "", "", {"ts": 0, "prev": None, "prev_similarity": None})
    fields = ("final_url", "content_type", "charset", "title", "analysis")
    return all(doc.get(name) == fresh.get(name) for name in fields)


def _revisit(
    store: ArchiveStore,
    prev: str,
    prep: Prepared,
    capture: Capture,
    reg_id: str,
    now: float,
    options: RegisterOptions,
) -> Registration:
    """Record ``reg_id`` as "seen again" on version ``prev`` (one journal transaction): it
    shares the version's content, derived rows and blobs, like a WARC revisit record with
    the identical-payload-digest profile."""
    with store.transaction():
        store.add_revisit(prev, reg_id, now, capture.capture_id)
    similar = [[prev, 1.0, 1.0], *(store.row("fingerprints", prev) or {}).get("similar", [])]
    reg = _registration(reg_id, prep, now, similar, 1.0, options)
    reg.revisit_of = prev
    return reg


def store_resource_data(store: ArchiveStore, entries: list[dict]) -> list[dict]:
    """Manifest entries with their bytes (``data``, from a host-side fetch) stored as blobs,
    durably; entries without bytes pass as they are.

    >>> import tempfile, pathlib
    >>> s = ArchiveStore.open(pathlib.Path(tempfile.mkdtemp()))
    >>> out = store_resource_data(s, [{"url": "u", "type": "text/css", "size": 2,
    ...                                "status": "pending", "data": b"a{"}])
    >>> out[0]["status"], s.get_blob(out[0]["blob"]); s.close()
    ('stored', b'a{')
    """
    kept, blobs = [], store.blob_batch()
    for entry in entries:
        data = entry.get("data")
        entry = {k: v for k, v in entry.items() if k != "data"}
        if data is not None and entry.get("status") == PENDING:
            level = blob_level(entry.get("type") or "")
            entry.update(blob=blobs.add(data, level), size=len(data), status=STORED)
        kept.append(entry)
    blobs.commit()
    return kept


def _skip(options: RegisterOptions, prev_sim: float) -> bool:
    threshold = options.only_if_different
    return threshold is not None and prev_sim >= threshold


def _skipped(store, prev: str, prep: Prepared, prev_sim: float, options) -> Registration:
    doc = store.version(prev)
    reg = _registration(prev, prep, doc["ts"], [], prev_sim, options)
    reg.skipped, reg.duplicate_of = True, prev
    return reg


def _registration(reg_id, prep: Prepared, ts, similar, prev_sim, options) -> Registration:
    return Registration(
        id=reg_id,
        url=prep.url,
        key=prep.key,
        version_url=version_url(options.base, reg_id, prep.url),
        registered_at=iso(ts),
        similar=[_similar_entry_short(row) for row in similar],
        previous_similarity=prev_sim,
        note=prep.note,
    )


def _similar_entry_short(row: list) -> dict:
    return {"id": row[0], "similarity": row[1], "content_similarity": row[2]}


__all__ = [
    "Capture",
    "RegisterOptions",
    "Registration",
    "gc_url",
    "register",
]
