"""Viewer handlers: paged search with filters, a document with its timeline, diffs,
liveness report and sweep, WARC export/import, archive statistics.

The viewer (host/viewer/static/) calls these over ``/ws``; the core types
(``versions``, ``similar``, ``check``…) live in the other handler modules.
Search runs over the warm document index of engine/archive/documents.py.

>>> sorted(HANDLERS)[:3]
['archive_stats', 'diff', 'document']
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import io
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from engine.archive import alerts, labels, provider, registry
from engine.archive.documents import MAX_PATTERN, document_index, pattern_regex
from engine.archive.labels import clean_tag, keys_with_tag
from engine.archive.model import RegisterOptions, iso
from engine.archive.resources import manifest_of
from engine.archive.storage import LOCK
from engine.errors import InvalidInput, InvalidURL, NotFound, TooLarge
from engine.html.diff import diff_lines, diff_rows
from engine.liveness import as_stored_now
from host.daemon.changes import CONNECTION_CLOSED
from host.daemon.http_routes import signed_version_path
from host.handlers import choice, flag, integer, text
from host.home import Home
from host.services import fulltext
from host.services.liveness import check_version, sweep_order
from host.services.warc import WarcOptions, export_versions, import_captures, version_record

STATES = ("present", "changed", "gone", "unreachable", "too_large", "unknown", "unchecked")
MAX_PAGE = 500
MAX_EXPORT_VERSIONS = 5000


# -- search_page ---------------------------------------------------------------------


@dataclass(frozen=True)
class SearchQuery:
    """What the viewer's search form sends (see ``search_page``)."""

    pattern: str = "*"
    case_sensitive: bool = False
    sort: str = "time"
    text: str | None = None
    site: str | None = None
    since: float | None = None
    until: float | None = None
    state: str | None = None
    tag: str | None = None

    @classmethod
    def from_params(cls, params: dict) -> SearchQuery:
        state = params.get("state") or None
        if state is not None and state not in STATES:
            raise InvalidInput(f"parameter 'state' must be one of {', '.join(STATES)}")
        return cls(
            pattern=text(params, "pattern", "*", MAX_PATTERN) or "*",
            case_sensitive=flag(params, "case_sensitive"),
            sort=choice(params, "sort", ("time", "url", "relevance"), "time"),
            text=(text(params, "text", None, 1000) or "").strip() or None,
            site=(text(params, "site", None, 300) or "").strip().lower() or None,
            since=day_start(params.get("since"), "since"),
            until=day_start(params.get("until"), "until", end=True),
            state=state,
            tag=_tag_param(params),
        )


def _tag_param(params: dict) -> str | None:

    raw = (text(params, "tag", None, 300) or "").strip()
    return clean_tag(raw) if raw else None


def day_start(value, name: str, end: bool = False) -> float | None:
    """``"2026-11-21"`` (or a full ISO time) as POSIX seconds; ``end`` = that day's end."""
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"parameter {name!r} must be a date like 2026-11-21")
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"parameter {name!r} must be a date like 2026-11-21") from None
    when = when.replace(tzinfo=UTC) if when.tzinfo is None else when
    return when.timestamp() + (86400 - 1e-6 if end and len(value) == 10 else 0)


def _narrowing(index, query: SearchQuery, app) -> tuple[list, list]:
    """Candidate sets from the selective filters, and the tests left for each entry."""
    narrowed, tests = [], []
    if query.site:
        narrowed.append(index.site(query.site))
    if query.since is not None or query.until is not None:
        narrowed.append(index.between(query.since, query.until))
    if query.text:
        narrowed.append(index.keyed(text_matches(app, query.text)))
    if query.tag:
        narrowed.append(index.keyed(keys_with_tag(app.store, query.tag)))
    if query.state == "unchecked":
        checked = set(liveness_states(app))
        tests.append(lambda d: d.key not in checked)
    elif query.state:
        states = liveness_states(app)
        narrowed.append(index.keyed(k for k, c in states.items() if c["state"] == query.state))
    return narrowed, tests


def matching_docs(app, query: SearchQuery) -> list:
    """Every document the query selects, in its sort order."""
    index = document_index(app.store)
    rx = pattern_regex(query.pattern, query.case_sensitive)
    narrowed, tests = _narrowing(index, query, app)
    if _by_relevance(query):
        return _relevance_order(app, index.select(rx, "time", narrowed, tests))
    return index.select(rx, _base_sort(query), narrowed, tests)


def first_docs(app, query: SearchQuery, stop: int) -> tuple[list, int]:
    """The first ``stop`` documents the query selects and how many it selects in all. By
    relevance with the full text alone, only the head is ranked (host/services/fulltext.py)."""
    index = document_index(app.store)
    rx = pattern_regex(query.pattern, query.case_sensitive)
    if _by_relevance(query) and _text_only(query):
        return ranked_head(app, index, query, stop)
    narrowed, tests = _narrowing(index, query, app)
    if _by_relevance(query):
        found = _relevance_order(app, index.select(rx, "time", narrowed, tests))
        return found[:stop], len(found)
    return index.select_first(rx, _base_sort(query), narrowed, tests, stop)


def _by_relevance(query: SearchQuery) -> bool:
    return query.sort == "relevance" and bool(query.text)


def _base_sort(query: SearchQuery) -> str:
    """Relevance without a full text has nothing to rank: newest first."""
    return "time" if query.sort == "relevance" else query.sort


def _text_only(query: SearchQuery) -> bool:
    return query.pattern == "*" and not (
        query.site or query.since or query.until or query.state or query.tag
    )


def _relevance_order(app, docs: list) -> list:
    """``docs`` in the order of the last full-text ranking (:func:`text_matches`)."""
    order = _BEST[id(app.store)][3]
    return sorted(docs, key=lambda d: order[d.key])


def ranked_head(app, index, query: SearchQuery, stop: int) -> tuple[list, int]:
    """The ``stop`` best documents for the full text alone, and how many match."""
    parsed, ranking = fulltext.ranked(app.store, app.home, query.text or "", stop)
    head = [(key, best) for key, best, _rank in ranking.results if key in index.pos]
    _BEST[id(app.store)] = (query.text, parsed, dict(head), {k: i for i, (k, _) in enumerate(head)})
    return [index.entries[index.pos[key]] for key, _best in head[:stop]], ranking.total


def search_page(params: dict, app) -> dict:
    """One page of documents matching a URL pattern, text and filters.

    Params: ``pattern`` (``*`` ``?``), ``case_sensitive``, ``sort`` (time|url|relevance:
    BM25 order with a ``text``, else time),
    ``text``, ``site``, ``since``/``until`` (a date = that UTC day, or an ISO time),
    ``state``, ``tag``, ``offset``, ``limit``.
    Result: ``{"total", "offset", "limit", "took_ms", "results": [...]}``.
    """
    started = time.perf_counter()
    query = SearchQuery.from_params(params)
    offset = integer(params, "offset", 0, 0)
    limit = integer(params, "limit", 50, 1, MAX_PAGE)
    docs, total = first_docs(app, query, offset + limit)
    tags = {row["key"]: row["tags"] for row in app.store.raw("tags").values()}
    page = [
        {**_result(d, check_of(app.store, d.key)), "tags": tags.get(d.key, [])}
        for d in docs[offset : offset + limit]
    ]
    page = snippets(app, query, page)
    took = (time.perf_counter() - started) * 1000
    return {
        "total": total,
        "offset": offset,
        "limit": limit,
        "took_ms": round(took, 2),
        "documents": len(document_index(app.store).entries),  # 0: the archive is empty
        "results": page,
    }


def _result(d, check: dict | None) -> dict:

    return {
        "id": d.id,
        "key": d.key,
        "url": d.url,
        "title": d.title,
        "registered_at": iso(d.ts),
        "versions": d.versions,
        "size": d.size,
        "state": (check or {}).get("state", "unchecked"),
    }


# -- full text --------------------------------------------------------------------------


_BEST: dict[int, tuple] = {}  # id(store) -> (text, parsed, {key: best version}, {key: rank})


def text_matches(app, text: str) -> set[str]:
    """Keys of the documents matching the full-text query ``text`` (host/services/fulltext.py:
    words, "phrases", prefix*, -excluded, CJK); each one's best version is kept for the
    page's snippets (:func:`snippets`)."""

    parsed, ranking = fulltext.ranked(app.store, app.home, text)
    best = {key: reg_id for key, reg_id, _rank in ranking.results}
    order = {key: i for i, (key, _id, _rank) in enumerate(ranking.results)}
    _BEST[id(app.store)] = (text, parsed, best, order)
    return set(best)


def snippets(app, query: SearchQuery, results: list[dict]) -> list[dict]:
    """The page's results with their snippets (marks for the viewer to highlight), when the
    search has a full text: from the version a result opens (:func:`fulltext.result_snippet`)."""

    held = _BEST.get(id(app.store))
    if not query.text or not held or held[0] != query.text:
        return results
    _text, parsed, best, _order = held
    return [
        {**r, **fulltext.result_snippet(app.store, r["id"], best[r["key"]], parsed)}
        if r["key"] in best
        else r
        for r in results
    ]


# -- document ---------------------------------------------------------------------------


def version_paths(app, reg_id: str, url: str) -> dict:
    """Signed same-origin paths of a version's copies (they work in the sandboxed frame)."""

    path = signed_version_path(app, reg_id, url)
    return {"view_url": path, "original_view_url": f"{path}&original=1"}


def _timeline(app, key_ref: str) -> list[dict]:

    rows = provider.versions(app.store, key_ref, app.base_url)
    for row in rows:
        row["similarity_prev"] = row.pop("similarity_to_previous", None)
        row.update(version_paths(app, row["id"], row["url"]))
    return rows


def _similar_of(app, reg_id: str) -> list[dict]:

    return provider.similar(app.store, reg_id, app.base_url)["similar"]


def document(params: dict, app) -> dict:
    """A document by registration ID, version URL or page URL: its timeline,
    the similar pages of one version (``version``, default the newest) and its last check.
    """

    ref = text(params, "id", max_length=8192).strip()
    if not ref:
        raise InvalidInput("missing document ID")
    try:
        key = provider.lookup_key(app.store, ref)
        timeline = _timeline(app, ref)
    except InvalidURL:
        raise NotFound(f"no document has the ID or URL {ref!r}") from None
    if not timeline:
        raise NotFound(f"nothing in the archive for {ref!r}")
    chosen = params.get("version") or timeline[0]["id"]
    if chosen not in {v["id"] for v in timeline}:
        chosen = timeline[0]["id"]
    head = timeline[0]

    return {
        "tags": labels.tags_of(app.store, key),
        "alerts": alerts.wanted(app.store, key),
        "key": key,
        "url": head["url"],
        "title": head.get("title") or "",
        "versions": timeline,
        "selected": chosen,
        "similar": _similar_of(app, chosen),
        "liveness": check_of(app.store, key),
    }


# -- diff ------------------------------------------------------------------------------


def body_text(store, reg_id: str) -> str:
    """The visible text of a version (title line first, headlines and links included), for
    diffs: a new article's title on a home page is a link that main-text extraction drops."""

    return provider.visible_text_of(store, reg_id)


def diff(params: dict, app) -> dict:
    """Side-by-side diff of two versions' visible text (``a`` old, ``b`` new)."""

    store = app.store
    ids = [provider.resolve_id(store, text(params, name, max_length=8192)) for name in ("a", "b")]
    texts = [diff_lines(body_text(store, reg_id)) for reg_id in ids]
    rows, stats = diff_rows(*texts)
    sides = [
        provider.describe(store, reg_id, app.base_url) | provider.place_of(store, reg_id)
        for reg_id in ids
    ]
    return {
        "a": sides[0],
        "b": sides[1],
        "same_document": sides[0]["key"] == sides[1]["key"],
        "identical": texts[0] == texts[1],
        "rows": rows,
        "stats": stats,
    }


# -- liveness -----------------------------------------------------------------------------


def _public_check(stored: dict) -> dict:
    row = as_stored_now(stored)
    when = row.get("checked_at")
    return {
        "state": row.get("state"),
        "match": row.get("match"),
        "decided_by": row.get("decided_by"),  # what decided the state, and its figure
        "figure": row.get("figure"),
        "reason": row.get("reason"),
        "matched": row.get("matched") or [],
        "missing": row.get("missing") or [],
        "checked_at": iso(when) if isinstance(when, int | float) else when,
        "checked_id": row.get("id"),
    }


def liveness_states(app) -> dict[str, dict]:
    """The last check of every checked document: key -> {state, match, checked_at, ...}.

    Checks live in the store's ``liveness`` table, one row per checked version
    (written by ``check``, host/services/liveness.py); a document shows its newest.
    """
    store = app.store
    newest: dict[str, dict] = {}
    for reg_id, row in store.raw("liveness").items():
        if not store.has_version(reg_id):
            continue
        key = store.raw("versions")[reg_id]["key"]
        if key not in newest or row.get("checked_at", 0) > newest[key].get("checked_at", 0):
            newest[key] = row
    return {key: _public_check(row) for key, row in newest.items()}


def check_of(store, key: str) -> dict | None:
    """The newest check of one document (any of its versions), or None."""
    rows = [store.row("liveness", i) for i in store.ids_of_key(key)]
    rows = [r for r in rows if r]
    return _public_check(max(rows, key=lambda r: r.get("checked_at", 0))) if rows else None


def last_check(params: dict, app) -> dict | None:
    """The newest stored check of the document at ``url`` (a sweep, ``check``), or None when it
    was never checked or is not archived (the popup shows it when the tab has no verdict)."""
    try:
        key = provider.lookup_key(app.store, text(params, "url", max_length=8192))
    except InvalidURL:
        return None
    return check_of(app.store, key)


@dataclass
class Sweep:
    """Progress of the one liveness sweep a daemon may run at a time."""

    running: bool = False
    done: int = 0
    total: int = 0
    started_at: float | None = None
    finished_at: float | None = None
    counts: dict = field(default_factory=dict)

    def to_dict(self) -> dict:

        return {
            "running": self.running,
            "done": self.done,
            "total": self.total,
            "started_at": iso(self.started_at) if self.started_at else None,
            "finished_at": iso(self.finished_at) if self.finished_at else None,
            "counts": dict(self.counts),
        }


def sweep_of(app) -> Sweep:
    """The daemon's one liveness sweep (``app.jobs.sweep``), made on first use."""
    if app.jobs.sweep is None:
        app.jobs.sweep = Sweep()
    return app.jobs.sweep


def liveness_report(params: dict, app) -> dict:
    """Counts per state over all documents, the sweep's progress, the latest checks."""
    limit = integer(params, "limit", 50, 1, MAX_PAGE)
    states = liveness_states(app)
    index = document_index(app.store)
    counts = dict.fromkeys(STATES, 0)
    for doc in index.entries:
        counts[states.get(doc.key, {}).get("state", "unchecked")] += 1
    by_key = {d.key: d for d in index.entries}
    recent = sorted(
        (dict(check, key=key) for key, check in states.items() if key in by_key),
        key=lambda c: c.get("checked_at") or "",
        reverse=True,
    )[:limit]
    for row in recent:
        entry = by_key[row["key"]]
        row.update(id=entry.id, url=entry.url, title=entry.title)
    return {
        "counts": counts,
        "total": len(index.entries),
        "sweep": sweep_of(app).to_dict(),
        "recent": recent,
    }


async def liveness_sweep(params: dict, app) -> dict:
    """Start checking every document in the background; progress via ``liveness_report``."""
    if sweep_of(app).running:
        return sweep_of(app).to_dict()
    concurrency = integer(params, "concurrency", 4, 1, 16)
    targets = await app.run(lambda: sweep_order(document_index(app.store).entries))
    app.jobs.sweep = sweep = Sweep(running=True, total=len(targets), started_at=time.time())
    app.changes.note()  # watchers see the sweep start (host/daemon/changes.py)
    app.jobs.start(_run_sweep(app, sweep, targets, concurrency))
    return sweep.to_dict()


async def _run_sweep(app, sweep: Sweep, targets: list[str], concurrency: int) -> None:
    gate = asyncio.Semaphore(concurrency)

    async def one(reg_id: str) -> None:
        async with gate:
            try:
                verdict = await check_version(app, reg_id)
                state = verdict.get("state", "gone")
            except Exception:  # one bad page must not stop the sweep
                state = "error"
            sweep.counts[state] = sweep.counts.get(state, 0) + 1
            sweep.done += 1
            app.changes.note()  # progress, also for a check that stored nothing

    try:
        await asyncio.gather(*(one(t) for t in targets))
    finally:
        sweep.running, sweep.finished_at = False, time.time()
        app.changes.note()


# -- WARC ----------------------------------------------------------------------------------


def export_ids(params: dict, app) -> list[str]:
    """The versions to export: ``ids`` (IDs or version URLs) or every version of a ``search``."""

    if params.get("ids") is not None:
        ids = params["ids"]
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise InvalidInput("parameter 'ids' must be a non-empty list of version IDs")
        return [provider.resolve_id(app.store, i) for i in ids]
    search = params.get("search")
    if not isinstance(search, dict):
        raise InvalidInput("export_warc needs 'ids' or 'search'")
    docs = matching_docs(app, SearchQuery.from_params(search))
    return [i for d in docs for i in app.store.with_revisits(reversed(app.store.ids_of_key(d.key)))]


def export_warc(params: dict, app) -> dict:
    """A WARC (gzipped records) of versions, as base64 for the viewer to download."""

    ids = export_ids(params, app)
    if len(ids) > MAX_EXPORT_VERSIONS:
        raise TooLarge(
            f"{len(ids)} versions match; export at most {MAX_EXPORT_VERSIONS} at once (narrow the search)"
        )
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    filename = f"pagekeeper-{stamp}-{len(ids)}.warc.gz"
    out = io.BytesIO()
    records = export_versions(
        (version_record(app.store, i) for i in ids), out, filename, WarcOptions()
    )
    data = out.getvalue()
    return {
        "filename": filename,
        "versions": len(ids),
        "records": records,
        "bytes": len(data),
        "content_b64": base64.b64encode(data).decode("ascii"),
    }


def import_warc(params: dict, app) -> dict:
    """Register the HTML responses of an uploaded WARC (``content_b64``) as versions."""

    options = WarcOptions()
    raw = text(params, "content_b64", max_length=options.max_import_bytes * 4 // 3 + 4)
    try:
        data = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidInput(f"content_b64 is not base64: {exc}") from exc

    def register(capture, when):
        opts = RegisterOptions(base=app.base_url, now=when)
        return registry.register(app.store, capture, opts)

    def label(reg_id, fields):
        labels.apply_exported(app.store, reg_id, fields)

    summary = import_captures(io.BytesIO(data), register, options, app.store.put_blob, label)
    return {"filename": params.get("filename"), **summary.to_dict()}


# -- stats -----------------------------------------------------------------------------------


def archive_stats(params: dict, app) -> dict:
    """Documents, versions, bytes on disk, and what content addressing saved.

    ``blob_bytes`` is the pages as stored (deduplicated, compressed), ``storage_bytes``
    that plus the records, ``original_bytes`` the pages as captured; ``archive_bytes`` is all
    the archive takes on disk (:func:`archive_files`).
    """
    store = app.store
    index = document_index(store)
    versions = store.raw("versions")
    # a revisit ("seen again") is a capture of its version's bytes, stored once
    logical = sum(doc.get("size", 0) * (1 + len(doc.get("seen", ()))) for doc in versions.values())
    unique = {doc.get("orig"): doc.get("size", 0) for doc in versions.values()}
    blobs, total = _disk_usage(store.home, _stamp(store))
    search, pending = (_walk_size(folder) for folder in archive_files(Home(Path(store.home)))[2:])
    resources = _resource_totals(store)
    return {
        "documents": len(index.entries),
        "versions": len(versions) + store.revisit_count(),
        "original_bytes": logical,
        "dedup_saved_bytes": logical - sum(unique.values()),
        "blob_bytes": blobs,
        "storage_bytes": total,
        "index_bytes": search,
        "pending_bytes": pending,
        "archive_bytes": total + search + pending,
        **resources,
    }


def _resource_totals(store) -> dict:
    """:func:`resource_totals` of every version, counted again only when the versions changed
    (a manifest is a blob: reading every one on each visit of the Archive tab adds up)."""
    ids = store.ids
    first, last = (ids[0], ids[-1]) if ids else (None, None)
    stamp = (len(ids), last, first, store.rekeyed, store.revisit_count())
    held = store.cache.get("resource_totals")
    if held is None or held[0] != stamp:
        captures = store.with_revisits(ids)  # a revisit captured its version's resources again
        totals = resource_totals(manifest_of(store, store.version(i)) for i in captures)
        held = store.cache["resource_totals"] = (stamp, totals)
    return held[1]


def resource_totals(manifests) -> dict:
    """The page resources of every version (each its manifest): bytes as captured, bytes of the distinct blobs,
    and what storing each blob once saved.

    >>> one = [{"blob": "a", "size": 5, "status": "stored"}]
    >>> resource_totals([one, one])
    {'resource_bytes': 10, 'resource_unique_bytes': 5, 'resource_dedup_saved_bytes': 5}
    """
    total, unique = 0, {}
    for manifest in manifests:
        for entry in manifest:
            if entry.get("blob"):
                total += entry.get("size", 0)
                unique[entry["blob"]] = entry.get("size", 0)
    kept = sum(unique.values())
    return {
        "resource_bytes": total,
        "resource_unique_bytes": kept,
        "resource_dedup_saved_bytes": total - kept,
    }


_DISK: dict[str, tuple] = {}


def archive_files(home: Home) -> tuple[Path, Path, Path, Path]:
    """The folders that are the archive: its blobs, its records, the full-text index (its
    SQLite file and journals: rebuilt from the store if lost, but room taken all the same) and
    the captures still receiving their resources. The rest of the home is not the archive: the
    token and config.json (the daemon's), logs, the dictionary cache, launchers, learning.json
    (suggestions' state when there is no archive), daemon.json and the locks."""
    return home.blobs, home.db, home.fulltext.parent, home.pending


def _stamp(store) -> tuple:
    """What changes when the bytes on disk may have: the blobs with the versions, the pending
    deletions and their reclaims; the records with every journal line and every compaction
    (a tag or a note adds a line and no version; a compaction folds the lines into snapshots).
    """
    versions = len(store.ids) + store.revisit_count()
    records = store.storage.gen, store.storage.journal_lines
    return versions, len(store.raw("trash")), store.reclaims, *records


def _disk_usage(home, stamp: tuple | None = None) -> tuple[int, int]:
    """(blob bytes, blob + record bytes) on disk; walked again only after the archive changed."""
    held = _DISK.get(str(home))
    if stamp is not None and held and held[0] == stamp:
        return held[1]
    blobs, db = archive_files(Home(Path(home)))[:2]
    sizes = _walk_size(blobs), _walk_size(db, skip=LOCK)
    _DISK[str(home)] = (stamp, (sizes[0], sum(sizes)))
    return sizes[0], sum(sizes)


def _walk_size(folder: Path, skip: str = "") -> int:
    """The bytes of the files under ``folder`` (0 when it is missing); ``skip`` names a file
    that holds no record (the store's writer lock holds the writer's pid: an archive never
    written has no records). The index and the pending captures are walked on each call: a
    full-text merge changes them with no stamp of :func:`_stamp`, and they are a few files."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and p.name != skip)


# -- live updates --------------------------------------------------------------------------


def viewer_changes(params: dict, app) -> dict:
    """A cheap change stamp: newest version, newest check, the sweep (``viewer_watch`` adds
    ``seq``; the viewer polls this only when the daemon has no ``viewer_watch``).

    ``{"versions", "last_id", "last_key", "checks", "last_check", "last_check_key", "sweep"}``
    """
    store = app.store
    last_id = store.last_id()  # a revisit ("seen again") too: the timeline shows it
    checks = store.raw("liveness")
    newest = max(checks.items(), key=lambda kv: kv[1].get("checked_at", 0), default=None)
    return {
        "versions": len(store.ids) + store.revisit_count(),
        "last_id": last_id,
        "last_key": store.version(last_id)["key"] if last_id else None,
        "checks": len(checks),
        "last_check": newest[1].get("checked_at") if newest else None,
        "last_check_key": _key_of(store, newest[0]) if newest else None,
        "sweep": sweep_of(app).to_dict(),
    }


def _key_of(store, reg_id: str) -> str | None:
    return store.raw("versions")[reg_id]["key"] if store.has_version(reg_id) else None


WATCH_DEFAULT_MS = 25_000
WATCH_MAX_MS = 60_000


def watch_since(params: dict) -> int | None:
    """``since``: absent/null (answer now) or the ``seq`` of the last answer.

    >>> watch_since({"since": 3}), watch_since({})
    (3, None)
    """
    since = params.get("since")
    if since is not None and (isinstance(since, bool) or not isinstance(since, int) or since < 0):
        raise InvalidInput("parameter 'since' must be a non-negative integer (a seq) or null")
    return since


async def viewer_watch(params: dict, app) -> dict:
    """Long-poll for live updates: ``viewer_changes``'s stamp plus ``seq`` and ``changed``,
    answered as soon as the archive (or a sweep) changed after ``since``, else at
    ``timeout_ms`` (default 25 s). Waits on the event loop, never on the store thread.
    """
    since = watch_since(params)
    timeout_ms = integer(params, "timeout_ms", WATCH_DEFAULT_MS, 0, WATCH_MAX_MS)
    if since is not None:
        stops = [e for e in (app.shutdown_event, CONNECTION_CLOSED.get()) if e is not None]
        await app.changes.wait(since, timeout_ms / 1000, *stops)
    stamp = await app.changes.stamp(app, lambda: viewer_changes({}, app))
    return {**stamp, "changed": since is None or stamp["seq"] != since}


HANDLERS = {
    "viewer_changes": viewer_changes,
    "viewer_watch": viewer_watch,
    "search_page": search_page,
    "document": document,
    "diff": diff,
    "liveness_report": liveness_report,
    "liveness_sweep": liveness_sweep,
    "last_check": last_check,
    "export_warc": export_warc,
    "import_warc": import_warc,
    "archive_stats": archive_stats,
}
