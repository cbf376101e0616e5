"""Deleting from the archive: a soft delete kept in the ``trash`` table, undo, then a reclaim.

A version's unchanged re-captures ("seen again", its ``seen`` list) are part of its row:
deleting the version deletes them with it (they are counted as versions); deleting one
revisit takes only its entry off the list, and frees nothing (its version keeps the
content). A delete moves every row of the deleted versions (``versions``, ``refs``,
``fingerprints``, ``extracts``, ``liveness``, ``notes``), the entries other
versions' similar lists hold for them, and, when a whole document goes, its
schedules and tags, into ONE ``trash`` row, in ONE journal transaction: a crash
leaves the old archive or the new one. :func:`restore` puts them back (one
transaction too) until the entry expires (10 minutes by default). :func:`expire`
drops expired entries; :func:`reclaim` then removes every blob file that no row
references, recomputing the references from the tables each time (trash rows
included), so a blob is never gone while a version, or a deletion that may still
be undone, points at it. Blob files go only after the rows that named them.

>>> import tempfile, pathlib
>>> from engine.archive.store import SHARDED, ArchiveStore
>>> store = ArchiveStore.open(pathlib.Path(tempfile.mkdtemp()))
>>> stray = store.put_blob(b"named by no version")
>>> reclaim(store, ReclaimOptions(grace_s=0))
{'blobs': 1, 'freed_bytes': 27}
>>> store.close()
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from engine.archive import provider
from engine.archive.keys import document_key
from engine.archive.model import is_reg_id, iso
from engine.archive.resources import manifest_of, version_blob_refs
from engine.archive.store import SHARDED, ArchiveStore
from engine.errors import InvalidInput, NotFound

UNDO_S = 600.0  # how long a deletion can be undone
PER_VERSION = ("refs", "fingerprints", "extracts", "liveness", "notes")  # rows keyed by version ID
PER_DOCUMENT = ("tags", "alerts")  # rows keyed by document key (engine/archive/labels.py)
_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True)
class DeleteOptions:
    """``undo_s``: how long the deletion stays undoable (0: it expires at once)."""

    undo_s: float = UNDO_S
    now: float | None = None
    document: bool = False  # an ID or version URL names its whole document


@dataclass(frozen=True)
class ReclaimOptions:
    """``grace_s``: leave blob files younger than this (a capture in another thread may have
    written its blobs and not yet its rows); tests and ``archive delete`` pass 0."""

    grace_s: float = 60.0
    now: float | None = None


def row_blob_refs(table: str, doc: dict, manifest=None) -> set[str]:
    """The blobs any row names: a version's by :func:`version_blob_refs`, and in every row
    every value that is a blob name (64 hex digits, nested lists and dicts included), so
    a field added later (a visible-text blob, say) is never reclaimed from under its row.
    ``manifest(digest)`` reads a manifest blob: the resources of every version row, a
    trashed one included, are named by their version's ``manifest``.

    >>> sorted(row_blob_refs("extracts", {"text": "a" * 64, "visible_text": "b" * 64}))[1][:4]
    'bbbb'
    >>> row_blob_refs("refs", {"links": [1]})
    set()
    """
    found = version_blob_refs(doc) if table == "versions" else set()
    _hex_values(doc, found, manifest)
    return found


def _hex_values(value, found: set[str], manifest=None) -> None:
    if isinstance(value, str):
        if _is_digest(value):
            found.add(value)
    elif isinstance(value, dict):
        named = value.get("manifest")
        if manifest is not None and isinstance(named, str) and _is_digest(named):
            found |= {e["blob"] for e in manifest(named) if e.get("blob")}
        for item in value.values():
            _hex_values(item, found, manifest)
    elif isinstance(value, list | tuple):
        for item in value:
            _hex_values(item, found, manifest)


# -- which versions -------------------------------------------------------------------------


def targets(store: ArchiveStore, ref: str, document: bool = False) -> list[str]:
    """The version IDs a reference names: an ID or version URL names one version (its
    whole document with ``document``), any other URL its whole document. NotFound when
    nothing is stored under it.

    >>> import tempfile, pathlib
    >>> targets(ArchiveStore.open(pathlib.Path(tempfile.mkdtemp())), "https://a.example/")
    Traceback (most recent call last):
    ...
    engine.errors.NotFound: nothing archived under 'https://a.example/'
    """

    ref = ref.strip()
    if not ref:
        raise InvalidInput("give a registration ID, a version URL or a URL")
    if (is_reg_id(ref) or "/v/" in ref) and not document:
        return [provider.resolve_id(store, ref)]
    ids = store.ids_of_key(provider.lookup_key(store, ref))
    if not ids:
        raise NotFound(f"nothing archived under {ref!r}")
    return ids


# -- delete ----------------------------------------------------------------------------------


def delete(store: ArchiveStore, ref: str, options: DeleteOptions | None = None) -> dict:
    """Move the versions ``ref`` names into the trash (one transaction); the summary.

    ``{"deleted": {"documents", "versions"}, "freed_bytes": 0, "undo", "expires_at"}``:
    ``documents`` counts the documents left with no version. Nothing is freed until the
    entry expires and :func:`reclaim` runs (``purge`` does both now).
    """
    options = options or DeleteOptions()
    now = time.time() if options.now is None else options.now
    ids = targets(store, ref, options.document)
    revisits = [i for i in ids if store.revisit_of(i) not in (None, *ids)]
    ids = [i for i in ids if store.revisit_of(i) is None]
    with store.transaction():
        entry = _detach(store, ids, ref, now, options.undo_s)
        _detach_revisits(store, revisits, entry)
        trash_id = store.db.table("trash").insert(entry)
    store.reindex()
    summary = entry["summary"]
    return {
        **summary,
        "freed_bytes": 0,
        "undo": str(trash_id),
        "expires_at": iso(entry["expires_at"]),
    }


def _detach(store: ArchiveStore, ids: list[str], ref: str, now: float, undo_s: float) -> dict:
    gone = set(ids)
    keys = {store.raw("versions")[i]["key"] for i in ids}
    emptied = [k for k in keys if set(store.ids_of_key(k)) <= gone]
    entry: dict[str, Any] = {
        "ref": ref,
        "deleted_at": now,
        "expires_at": now + undo_s,
        "lists": _unlist(store, ids, gone),
        "prev": _relink(store, ids, gone),
        "documents": {k: _document_rows(store, k) for k in emptied},
        "rows": [],
        "summary": {"deleted": {"documents": len(emptied), "versions": _captures(store, ids)}},
    }
    for reg_id in ids:
        entry["rows"] += _version_rows(store, reg_id)
    return entry


def _version_rows(store: ArchiveStore, reg_id: str) -> list:
    rows = []
    for one in [reg_id, *store.seen_of(reg_id)]:  # its revisits go with it
        rows += _own_rows(store, one)
    rows.append(["versions", reg_id, dict(store.raw("versions")[reg_id])])
    store.remove_version(reg_id)
    return rows


def _own_rows(store: ArchiveStore, reg_id: str) -> list:
    """The per-version rows keyed by ``reg_id`` itself, removed: a revisit has only its
    own note and liveness rows (it shares its version's sharded, derived ones)."""
    rows, revisit = [], store.revisit_of(reg_id) is not None
    for table in (t for t in PER_VERSION if not (revisit and t in SHARDED)):
        doc = store.remove_row(table, reg_id)
        if doc is not None:
            rows.append([table, reg_id, doc])
    return rows


def _detach_revisits(store: ArchiveStore, revisits: list[str], entry: dict) -> None:
    """Take single revisits off their versions' lists (what to put back on undo)."""
    entry["seen"] = []
    for revisit_id in revisits:
        entry["rows"] += _own_rows(store, revisit_id)
        entry["seen"].append(list(store.remove_revisit(revisit_id)))
    entry["summary"]["deleted"]["versions"] += len(revisits)


def _captures(store: ArchiveStore, ids: list[str]) -> int:
    """How many captures ``ids`` hold: each version and its revisits."""
    return sum(1 + len(store.seen_of(i)) for i in ids)


def _unlist(store: ArchiveStore, ids: list[str], gone: set[str]) -> list:
    """Drop the deleted versions from the similar lists of the same hosts' versions (the
    only ones that can list them); what was dropped, to put back on undo."""
    dropped = []
    hosts = {store.raw("versions")[i]["host"] for i in ids}
    for other in (o for h in hosts for o in store.ids_of_host(h) if o not in gone):
        row = store.row("fingerprints", other) or {}
        kept = [e for e in row.get("similar", []) if e[0] not in gone]
        if len(kept) != len(row.get("similar", [])):
            dropped += [[other, e, at] for at, e in enumerate(row["similar"]) if e[0] in gone]
            store.update("fingerprints", other, {"similar": kept})
    return dropped


def _relink(store: ArchiveStore, ids: list[str], gone: set[str]) -> list:
    """A surviving version whose ``prev`` was deleted points to the deleted one's ``prev``."""
    versions, changed = store.raw("versions"), []
    keys = {versions[i]["key"] for i in ids}
    for other in (o for k in keys for o in store.ids_of_key(k) if o not in gone):
        doc = versions[other]
        if doc.get("prev") in gone:
            changed.append([other, doc.get("prev"), doc.get("prev_similarity")])
            prev = doc["prev"]
            while prev in gone:
                prev = versions[prev].get("prev")
            store.update("versions", other, {"prev": prev, "prev_similarity": None})
    return changed


def _document_rows(store: ArchiveStore, key: str) -> dict:
    """A whole document goes: its schedules and its per-document rows go with it."""

    found: dict[str, Any] = {"schedules": [], **{t: None for t in PER_DOCUMENT}}
    for doc_id, row in list(store.raw("schedules").items()):
        if document_key(store, row["url"]) == key:
            found["schedules"].append(row)
            store.db.table("schedules").remove(doc_ids=[int(doc_id)])
    for table in PER_DOCUMENT:
        for doc_id, row in list(store.raw(table).items()):
            if row.get("key") == key:
                found[table] = row
                store.db.table(table).remove(doc_ids=[int(doc_id)])
    return found


# -- undo ------------------------------------------------------------------------------------


def trash_entry(store: ArchiveStore, trash_id: str) -> dict:
    """One trash entry; NotFound when it expired, was undone, or never was. A ``trash_id``
    that is no undo number (a whole number, as ``archive_delete`` gives) is a bad input,
    InvalidInput, as a ref that is no ID is (a well-formed one not stored: NotFound)."""
    if not re.fullmatch(r"[0-9]+", str(trash_id).strip()):
        raise InvalidInput(
            f"{trash_id!r} is no undo number: give the number a deletion with --undo printed"
        )
    entry = store.raw("trash").get(str(trash_id).strip())
    if entry is None:
        raise NotFound(f"no deletion {trash_id!r} to undo (undone already, or expired)")
    return entry


def restore(store: ArchiveStore, trash_id: str) -> dict:
    """Undo a deletion (one transaction): ``{"restored": {"documents", "versions"}}``."""
    entry = trash_entry(store, trash_id)
    with store.transaction():
        for reg_id, doc in _rows_of(entry, "versions"):
            if store.has_version(reg_id):
                raise InvalidInput(f"version {reg_id} exists again; cannot undo")
            store.add_version(reg_id, doc)
        for table, reg_id, doc in entry["rows"]:
            if table != "versions":
                store.update(table, reg_id, doc)
        _restore_links(store, entry)
        for reg_id, seen, at in entry.get("seen", ()):
            store.restore_revisit(reg_id, seen, at)
        for rows in entry["documents"].values():
            _restore_document(store, rows)
        store.db.table("trash").remove(doc_ids=[int(trash_id)])
    store.reindex()
    return {"restored": entry["summary"]["deleted"]}


def _rows_of(entry: dict, table: str) -> list:
    return [(reg_id, doc) for name, reg_id, doc in entry["rows"] if name == table]


def _restore_links(store: ArchiveStore, entry: dict) -> None:
    for other, item, at in entry["lists"]:  # in list order, so each goes back to its place
        row = store.row("fingerprints", other)
        if row is not None:
            kept = [e for e in row.get("similar", []) if e[0] != item[0]]
            kept.insert(min(at, len(kept)), item)
            store.update("fingerprints", other, {"similar": kept})
    for other, prev, similarity in entry["prev"]:
        if store.has_version(other):
            store.update("versions", other, {"prev": prev, "prev_similarity": similarity})


def _restore_document(store: ArchiveStore, rows: dict) -> None:
    known = {row["url"] for row in store.raw("schedules").values()}
    for row in rows["schedules"]:
        if row["url"] not in known:
            store.db.table("schedules").insert(row)
    for table in PER_DOCUMENT:
        if rows.get(table) is not None:
            store.db.table(table).insert(rows[table])


def pending(store: ArchiveStore) -> list[dict]:
    """Deletions that can still be undone, newest first: what each took and until when.

    >>> import tempfile, pathlib
    >>> pending(ArchiveStore.open(pathlib.Path(tempfile.mkdtemp())))
    []
    """
    found = []
    for trash_id, entry in store.raw("trash").items():
        first: dict = next((doc for _name, _id, doc in _rows_of_all(entry)), {})
        found.append({
            "undo": trash_id,
            "url": first.get("url", entry["ref"]),
            "title": first.get("title", ""),
            "deleted_at": iso(entry["deleted_at"]),
            "expires_at": iso(entry["expires_at"]),
            **entry["summary"],
        })  # fmt: skip
    return sorted(found, key=lambda e: (e["deleted_at"], int(e["undo"])), reverse=True)


def _rows_of_all(entry: dict):
    return ((name, reg_id, doc) for name, reg_id, doc in entry["rows"] if name == "versions")


# -- expiry and reclaim ----------------------------------------------------------------------


def expire(store: ArchiveStore, now: float | None = None) -> int:
    """Drop the trash entries whose undo window is over (one transaction); how many."""
    now = time.time() if now is None else now
    due = [int(k) for k, e in store.raw("trash").items() if e["expires_at"] <= now]
    if due:
        store.db.table("trash").remove(doc_ids=due)
    return len(due)


def referenced_blobs(store: ArchiveStore) -> set[str]:
    """Every blob some row names, recomputed from EVERY table (shards, trash entries and
    tables other modules add included): a blob is kept while anything stored names it, the
    resources a version's manifest blob lists too. A manifest that cannot be read raises
    (StorageError, NotFound): then nothing is reclaimed, since what it names is unknown."""
    found: set[str] = set()

    def manifest(digest: str) -> list[dict]:
        return manifest_of(store, {"manifest": digest})

    for name, rows in store.all_tables().items():
        base = name.split("@", 1)[0]
        for doc in rows.values():
            found |= row_blob_refs(base, doc, manifest)
    return found


def reclaim(store: ArchiveStore, options: ReclaimOptions | None = None) -> dict:
    """Remove every blob file no row references (and temp files a crash left);
    ``{"blobs": n, "freed_bytes": b}``. Safe to kill at any point: it removes only files
    nothing names, and the next run finishes the job."""
    options = options or ReclaimOptions()
    now = time.time() if options.now is None else options.now
    keep, count, freed = referenced_blobs(store), 0, 0
    for name, path in store.blob_names():
        if (name in keep and _is_digest(name)) or _young(path, now, options.grace_s):
            continue
        size = store.remove_blob_file(path)
        count, freed = count + 1, freed + size
    store.reclaims += bool(count)
    return {"blobs": count, "freed_bytes": freed}


def _is_digest(name: str) -> bool:
    return len(name) == 64 and set(name) <= _HEX


def _young(path, now: float, grace_s: float) -> bool:
    if grace_s <= 0:
        return False
    try:
        return now - path.stat().st_mtime < grace_s
    except OSError:
        return True


def purge(store: ArchiveStore, now: float | None = None, grace_s: float = 60.0) -> dict:
    """Expire what is due, then reclaim: ``{"expired", "blobs", "freed_bytes"}``."""
    expired = expire(store, now)
    return {"expired": expired, **reclaim(store, ReclaimOptions(grace_s=grace_s, now=now))}


def delete_now(store: ArchiveStore, ref: str, options: DeleteOptions | None = None) -> dict:
    """Delete without undo: trash (expiring at once), expire, reclaim. A kill between the
    steps leaves an expired entry the next :func:`purge` finishes."""
    options = options or DeleteOptions()
    now = options.now
    result = delete(store, ref, DeleteOptions(undo_s=0, now=now, document=options.document))
    trash_id = result.pop("undo")
    result.pop("expires_at")
    store.db.table("trash").remove(doc_ids=[int(trash_id)])
    result["freed_bytes"] = reclaim(store, ReclaimOptions(grace_s=0, now=now))["freed_bytes"]
    return result
