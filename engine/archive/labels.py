"""Tags on documents and notes on versions.

A tag belongs to a document (every version of one key): the ``tags`` table holds one
row per tagged document, ``{"key", "tags": [sorted]}``. A note belongs to one version:
the ``notes`` table holds ``{"text", "updated_at"}`` under the version's ID. Deleting
a version or a document takes its note and tags into the trash with it (trash.py).

Tags are stored NFC and lower-cased, at most 64 characters, with no control
characters and no leading ``+``/``-`` (those mean add/remove on the command line).

>>> clean_tag("  Reading List ")
'reading list'
>>> parse_changes(["+News", "-old", "later"])
(['news', 'later'], ['old'])
"""

from __future__ import annotations

import time
import unicodedata

from engine.archive.store import ArchiveStore
from engine.errors import InvalidInput

TAG_MAX = 64
NOTE_MAX = 10_000
_NOTE_CONTROLS_OK = frozenset("\n\t")


def _controls(text: str, allowed: frozenset = frozenset()) -> list[str]:
    return [c for c in text if c not in allowed and unicodedata.category(c) in ("Cc", "Cf", "Cs")]


def clean_tag(tag: str) -> str:
    """A tag as stored; InvalidInput for an empty, too long or control-character tag.

    >>> clean_tag("a\\x07b")
    Traceback (most recent call last):
    ...
    engine.errors.InvalidInput: a tag cannot hold control characters ('\\x07' in 'a\\x07b')
    """
    if not isinstance(tag, str):
        raise InvalidInput("a tag must be a string")
    bad = _controls(tag)
    if bad:
        raise InvalidInput(f"a tag cannot hold control characters ({bad[0]!r} in {tag!r})")
    cleaned = " ".join(unicodedata.normalize("NFC", tag).split()).lower()
    if not cleaned:
        raise InvalidInput("a tag cannot be empty")
    if len(cleaned) > TAG_MAX:
        raise InvalidInput(f"a tag is at most {TAG_MAX} characters")
    if cleaned[0] in "+-":
        raise InvalidInput(f"a tag cannot start with {cleaned[0]!r}: {tag!r}")
    return cleaned


def parse_changes(changes: list[str]) -> tuple[list[str], list[str]]:
    """``+tag`` (or a bare ``tag``) adds, ``-tag`` removes: (added, removed)."""
    added, removed = [], []
    for change in changes:
        if change[:1] == "-":
            removed.append(clean_tag(change[1:]))
        else:
            added.append(clean_tag(change[1:] if change[:1] == "+" else change))
    return added, removed


# -- tags ------------------------------------------------------------------------------------


def _tag_row(store: ArchiveStore, key: str) -> tuple[int | None, dict | None]:
    for doc_id, row in store.raw("tags").items():
        if row["key"] == key:
            return int(doc_id), row
    return None, None


def tags_of(store: ArchiveStore, key: str) -> list[str]:
    """The tags of a document key (sorted).

    >>> import tempfile, pathlib
    >>> tags_of(ArchiveStore.open(pathlib.Path(tempfile.mkdtemp())), "a.example/")
    []
    """
    return list((_tag_row(store, key)[1] or {}).get("tags", []))


def set_tags(store: ArchiveStore, key: str, added: list[str], removed: list[str]) -> list[str]:
    """Add and remove tags of a document (one journal line); the tags after.
    Each tag is cleaned (:func:`clean_tag`) first: a bad one changes nothing."""
    added, removed = [clean_tag(t) for t in added], [clean_tag(t) for t in removed]
    doc_id, row = _tag_row(store, key)
    tags = sorted((set((row or {}).get("tags", [])) | set(added)) - set(removed))
    table = store.db.table("tags")
    if doc_id is None and tags:
        table.insert({"key": key, "tags": tags})
    elif doc_id is not None and tags:
        table.update({"tags": tags}, doc_ids=[doc_id])
    elif doc_id is not None:
        table.remove(doc_ids=[doc_id])
    return tags


def keys_with_tag(store: ArchiveStore, tag: str) -> set[str]:
    """Keys of the documents that carry ``tag``."""
    wanted = clean_tag(tag)
    return {row["key"] for row in store.raw("tags").values() if wanted in row["tags"]}


def all_tags(store: ArchiveStore) -> list[dict]:
    """Every tag with how many documents carry it, most used first.

    >>> import tempfile, pathlib
    >>> all_tags(ArchiveStore.open(pathlib.Path(tempfile.mkdtemp())))
    []
    """
    counts: dict[str, int] = {}
    for row in store.raw("tags").values():
        for tag in row["tags"]:
            counts[tag] = counts.get(tag, 0) + 1
    return [
        {"tag": t, "documents": n} for t, n in sorted(counts.items(), key=lambda i: (-i[1], i[0]))
    ]


# -- notes -----------------------------------------------------------------------------------


def clean_note(text: str) -> str:
    """A note as stored (NFC, trimmed); InvalidInput for control characters or > 10,000."""
    if not isinstance(text, str):
        raise InvalidInput("a note must be a string")
    bad = _controls(text, _NOTE_CONTROLS_OK)
    if bad:
        raise InvalidInput(f"a note cannot hold control characters ({bad[0]!r})")
    text = unicodedata.normalize("NFC", text).strip()
    if len(text) > NOTE_MAX:
        raise InvalidInput(f"a note is at most {NOTE_MAX} characters")
    return text


def note_of(store: ArchiveStore, reg_id: str) -> str:
    """A version's note, or ""."""
    return (store.row("notes", reg_id) or {}).get("text", "")


def set_note(store: ArchiveStore, reg_id: str, text: str, now: float | None = None) -> str:
    """Set (or with empty text, remove) the note of a version; the note after."""
    text = clean_note(text)
    if text:
        store.update("notes", reg_id, {"text": text, "updated_at": now or time.time()})
    else:
        store.remove_row("notes", reg_id)
    return text


# -- WARC export and import (host/services/warc.py) ---------------------------------------------------


def exported(store: ArchiveStore, reg_id: str, key: str) -> dict:
    """The labels a WARC export carries for a version: ``tags`` and ``note`` when set."""
    found = {"tags": tags_of(store, key), "note": note_of(store, reg_id)}
    return {name: value for name, value in found.items() if value}


def apply_exported(store: ArchiveStore, reg_id: str, fields: dict) -> None:
    """Take an imported version's tags and note (from :func:`exported`); a malformed or
    invalid one is left out, the rest still applies.

    >>> import tempfile, pathlib
    >>> apply_exported(ArchiveStore.open(pathlib.Path(tempfile.mkdtemp())), "1", {})
    """
    tags, note = fields.get("tags"), fields.get("note")
    if isinstance(tags, list) and store.has_capture(reg_id):  # a revisit's too
        good = [t for t in tags if isinstance(t, str) and _valid(clean_tag, t)]
        if good:
            set_tags(store, store.version(reg_id)["key"], good, [])
    if isinstance(note, str) and note and store.has_capture(reg_id) and _valid(clean_note, note):
        set_note(store, reg_id, note)


def _valid(check, value) -> bool:
    try:
        check(value)
    except InvalidInput:
        return False
    return True
