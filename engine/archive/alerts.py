"""Alerts: a page the user cares about changed or is gone, noted for the viewer's "changes
since your last visit" and the extension's notifications. Nothing leaves the machine.

Who is alerted: per document (``alerts`` rows ``{key, on}``), else the archive's default
(state ``alerts``: ``tagged`` — pages with a tag —, ``all`` or ``off``; ``tagged`` unless
set). What: a liveness check whose state becomes ``changed`` or ``gone`` (not one that
stays so), and a scheduled re-capture whose new version differs from the one before
(similarity below ``CHANGED_BELOW``). Each is one ``alert_log`` row ``{key, id, url,
title, kind, at, detail}``; the log keeps the newest ``KEEP`` rows.

>>> import tempfile, pathlib
>>> from engine.archive.store import ArchiveStore
>>> store = ArchiveStore.open(pathlib.Path(tempfile.mkdtemp()))
>>> default_mode(store), since_last_visit(store)["alerts"]
('tagged', [])
"""

from __future__ import annotations

import time

from engine.archive import labels
from engine.archive.model import iso
from engine.archive.store import ArchiveStore
from engine.errors import InvalidInput

MODES = ("tagged", "all", "off")
CHANGED_BELOW = 0.95
KEEP = 1000


def default_mode(store: ArchiveStore) -> str:
    return (store.load_state("alerts") or {}).get("default", "tagged")


def set_default(store: ArchiveStore, mode: str) -> str:
    if mode not in MODES:
        raise InvalidInput(f"alerts must be one of {', '.join(MODES)}")
    store.save_state("alerts", {**(store.load_state("alerts") or {}), "default": mode})
    return mode


def _row(store: ArchiveStore, key: str) -> tuple[int | None, dict | None]:
    for doc_id, row in store.raw("alerts").items():
        if row["key"] == key:
            return int(doc_id), row
    return None, None


def set_document(store: ArchiveStore, key: str, on: bool | None) -> None:
    """Alerts on or off for one document; ``None`` follows the archive's default again."""
    doc_id, _row_now = _row(store, key)
    table = store.db.table("alerts")
    if on is None:
        if doc_id is not None:
            table.remove(doc_ids=[doc_id])
    elif doc_id is None:
        table.insert({"key": key, "on": on})
    else:
        table.update({"on": on}, doc_ids=[doc_id])


def document_choice(store: ArchiveStore, key: str) -> bool | None:
    """A document's own choice (True/False), or None when it follows the default.

    >>> import tempfile, pathlib
    >>> document_choice(ArchiveStore.open(pathlib.Path(tempfile.mkdtemp())), "a.example/")
    """
    row = _row(store, key)[1]
    return None if row is None else bool(row["on"])


def wanted(store: ArchiveStore, key: str) -> bool:
    """Whether changes of this document are alerted (its own choice, else the default)."""
    _doc_id, row = _row(store, key)
    if row is not None:
        return bool(row["on"])
    mode = default_mode(store)
    return mode == "all" or (mode == "tagged" and bool(labels.tags_of(store, key)))


def note(
    store: ArchiveStore, reg_id: str, kind: str, detail: str = "", now: float | None = None
) -> bool:
    """Log an alert for a version's document when its alerts are on; True if logged."""
    doc = store.raw("versions").get(reg_id)
    if doc is None or not wanted(store, doc["key"]):
        return False
    table = store.db.table("alert_log")
    table.insert({
        "key": doc["key"], "id": reg_id, "url": doc["url"], "title": doc.get("title") or "",
        "kind": kind, "at": time.time() if now is None else now, "detail": detail,
    })  # fmt: skip
    rows = store.raw("alert_log")
    if len(rows) > KEEP:
        oldest = sorted(rows, key=lambda k: rows[k]["at"])[: len(rows) - KEEP]
        table.remove(doc_ids=[int(k) for k in oldest])
    return True


def after_check(store: ArchiveStore, reg_id: str, before: dict | None, after: dict) -> bool:
    """A liveness check's verdict: alert when the page BECAME changed or gone.

    An ``unreachable`` check judged nothing, so the state before it is the last judged one
    (``judged``): gone, unreachable, gone again is one alert.
    """
    before = before or {}
    state, was = after.get("state"), before.get("judged", before.get("state"))
    if state in ("changed", "gone") and state != was:
        return note(store, reg_id, state, after.get("reason") or "")
    return False


def after_capture(store: ArchiveStore, reg_id: str, similarity: float | None) -> bool:
    """A scheduled re-capture: alert when the new version differs from the one before."""
    if similarity is None or similarity >= CHANGED_BELOW:
        return False
    return note(store, reg_id, "changed", f"similarity {similarity:.2f} to the version before")


def since_last_visit(store: ArchiveStore, since: float | None = None) -> dict:
    """The alerts after ``since`` (default: the last visit the viewer marked), newest first."""
    seen = (store.load_state("alerts") or {}).get("seen_at", 0.0) if since is None else since
    rows = [
        r for r in store.raw("alert_log").values() if r["at"] > seen and store.has_version(r["id"])
    ]
    rows.sort(key=lambda r: r["at"], reverse=True)
    return {
        "seen_at": iso(seen) if seen else None,
        "default": default_mode(store),
        "alerts": [{**r, "at": iso(r["at"]), "ts": r["at"]} for r in rows],
    }


def mark_seen(store: ArchiveStore, at: float | None = None) -> float:
    """The viewer was visited: later alerts are the next "since your last visit"."""
    at = time.time() if at is None else at
    store.save_state("alerts", {**(store.load_state("alerts") or {}), "seen_at": at})
    return at
