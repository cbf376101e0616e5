"""The address each stored version names for itself (engine/html/address.py), kept on its
``extracts`` row so that a liveness check or a sweep never parses the stored page for it.

Registration keeps it at capture. A version stored before that has none: :func:`address_of`
reads it from the original page once and keeps it, and :func:`keep_addresses` (the
migration, in steps over :func:`without_address`) does the same for every such version. Each step is one transaction
that only adds the derived ``address`` field: a crash loses at most the step in flight,
and the next step reads those versions again.

>>> import tempfile, pathlib
>>> from engine.archive.store import ArchiveStore
>>> from engine.archive.model import Capture
>>> from engine.archive.registry import register
>>> store = ArchiveStore.open(pathlib.Path(tempfile.mkdtemp()))
>>> reg = register(store, Capture("https://e.com/a", b'<link rel=canonical href="/b/"><p>hi'))
>>> address_of(store, reg.id), keep_all_addresses(store)
('/b', 0)
>>> store.close()
"""

from __future__ import annotations

from engine.archive.store import ArchiveStore
from engine.errors import DecodeError
from engine.html.address import declared_address

STEP = 50  # versions per migration step (one transaction; ~2 ms of parsing each)


def address_of(store: ArchiveStore, reg_id: str) -> str:
    """The path a version's page names for itself ("" when none, or when the version has no
    extraction: nothing to judge). Kept on its row; read from the original page only once."""
    row = store.row("extracts", reg_id)
    if not row:
        return ""
    if "address" in row:
        return str(row["address"] or "")
    content_id = store.content_id(reg_id)
    address = read_address(store, content_id)
    if not store.readonly:
        with store.transaction():
            store.update("extracts", content_id, {"address": address})
    return address


def read_address(store: ArchiveStore, reg_id: str) -> str:
    """The address parsed out of a version's original page ("" when it cannot be decoded)."""
    try:
        return declared_address(store.get_blob(store.version(reg_id)["orig"]))
    except DecodeError:
        return ""


def without_address(store: ArchiveStore, reg_ids: list[str] | None = None) -> list[str]:
    """The versions (of ``reg_ids``; every one when None) whose extraction has no kept
    address, oldest first."""
    return [
        reg_id
        for reg_id in (store.ids if reg_ids is None else reg_ids)
        if (row := store.row("extracts", reg_id)) is not None and "address" not in row
    ]


def keep_addresses(store: ArchiveStore, reg_ids: list[str]) -> int:
    """One migration step: those of ``reg_ids`` still without a kept address (not deleted
    meanwhile) get it, in one transaction; how many."""
    todo = [
        reg_id
        for reg_id in reg_ids
        if (row := store.row("extracts", reg_id)) is not None and "address" not in row
    ]
    found = {reg_id: read_address(store, reg_id) for reg_id in todo}
    if found:
        with store.transaction():
            for reg_id, address in found.items():
                store.update("extracts", reg_id, {"address": address})
    return len(found)


def keep_all_addresses(store: ArchiveStore, step: int = STEP) -> int:
    """The whole migration in steps of ``step`` versions (the daemon runs the same steps on
    its store thread, with requests between them); how many versions."""
    pending = without_address(store)
    return sum(
        keep_addresses(store, pending[at : at + step]) for at in range(0, len(pending), step)
    )
