"""Search the archive: URL patterns with ``*`` and ``?``, and full text over stored pages.

Results are documents (one per key) described by their newest version.

* URL search compiles the pattern once and runs it over ONE newline-joined
  string of every document's URL (``re.MULTILINE``), so the loop over 100,000
  URLs happens inside the regex engine, not in Python. A pattern without
  wildcards matches as a substring (``example.com`` finds ``https://example.com/a``).
* Full-text search keeps an inverted index (term -> keys) of the title, visible
  text (headlines and links included) and URL of every stored version, built on first use and kept current as
  pages are registered; every query term must occur (AND).

>>> wildcard_regex("https://e.com/*?x").pattern
'^https://e\\\\.com/[^\\\\n]*[^\\\\n]x$'
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from engine.archive import labels
from engine.archive.model import DEFAULT_BASE, iso, version_url
from engine.archive.store import ArchiveStore

_TERM = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class SearchOptions:
    """Pattern, case, sort and an optional full-text query."""

    pattern: str = "*"
    case_sensitive: bool = False
    sort: str = "time"  # "url" | "time" (newest first)
    text: str | None = None
    base: str = DEFAULT_BASE
    tag: str | None = None  # only documents carrying this tag (engine/archive/labels.py)


def wildcard_regex(pattern: str, case_sensitive: bool = False) -> re.Pattern:
    """``*`` = any run of characters, ``?`` = one character; anchored per line."""
    if "*" not in pattern and "?" not in pattern:
        pattern = f"*{pattern}*"
    body = "".join(
        "[^\\n]*" if ch == "*" else "[^\\n]" if ch == "?" else re.escape(ch) for ch in pattern
    )
    flags = re.MULTILINE | (0 if case_sensitive else re.IGNORECASE)
    return re.compile(f"^{body}$", flags)


def stored_text(store: ArchiveStore, reg_id: str) -> str:
    """A version's stored visible text, else its stored main text, else "" (never parses)."""
    row = store.row("extracts", reg_id) or {}
    blob = row.get("visible_text") or row.get("text")
    return store.get_blob(blob).decode("utf-8", "replace") if blob else ""


def terms(text: str) -> set[str]:
    """Lower-cased word terms of a text.

    >>> sorted(terms("Die GEMA, die GEMA!"))
    ['die', 'gema']
    """
    return {t.casefold() for t in _TERM.findall(text)}


class _UrlLines:
    """Every document URL joined by newlines, with the key of each line; extended in place."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.starts: list[int] = []
        self.parts: list[str] = []
        self.text = ""
        self.length = 0
        self.seen_ids = 0

    def refresh(self, store: ArchiveStore) -> None:
        if len(store.ids) == self.seen_ids:
            return
        known, versions = set(self.keys), store.raw("versions")
        for reg_id in store.ids[self.seen_ids :]:
            doc = versions[reg_id]
            if doc["key"] not in known:
                known.add(doc["key"])
                self.keys.append(doc["key"])
                self.starts.append(self.length)
                self.parts.append(doc["url"].replace("\n", " "))
                self.length += len(self.parts[-1]) + 1
        self.text = "\n".join(self.parts)
        self.seen_ids = len(store.ids)

    def matching(self, regex: re.Pattern) -> list[str]:
        if not self.keys:  # "*" matches the one empty line of an empty archive
            return []
        return [
            self.keys[bisect_right(self.starts, m.start()) - 1] for m in regex.finditer(self.text)
        ]


class _FullText:
    """Inverted index term -> document keys, over the stored text of every version."""

    def __init__(self) -> None:
        self.index: dict[str, set[str]] = {}
        self.seen_ids = 0

    def refresh(self, store: ArchiveStore, limit: int | None = None) -> None:
        """Index the versions not seen yet (at most ``limit`` of them, oldest first)."""
        todo = store.ids[self.seen_ids :]
        todo = todo if limit is None else todo[:limit]
        for reg_id in todo:
            key = store.raw("versions")[reg_id]["key"]
            text = stored_text(store, reg_id)
            text += " " + store.raw("versions")[reg_id]["url"]
            for term in terms(text):
                self.index.setdefault(term, set()).add(key)
        self.seen_ids += len(todo)

    def matching(self, query: str) -> set[str]:
        wanted = terms(query)
        if not wanted:
            return set()
        found: set[str] | None = None
        for term in sorted(wanted, key=lambda t: len(self.index.get(t, ()))):
            keys = self.index.get(term, set())
            found = keys if found is None else found & keys
            if not found:
                return set()
        return set(found or ())


def _cached(store: ArchiveStore, name: str, factory):
    item = store.cache.get(name)
    if item is None:
        item = store.cache[name] = factory()
    item.refresh(store)
    return item


def warm_text_index(store: ArchiveStore, max_ids: int = 1000) -> bool:
    """Index up to ``max_ids`` more versions for full-text search; True once all are in.

    Lets the daemon build the inverted index in short steps on the store thread
    (100,000 versions take seconds at once), so the first full-text query the viewer
    sends as you type finds it built. A query before that finishes the rest itself.

    >>> import tempfile, pathlib
    >>> warm_text_index(ArchiveStore.open(pathlib.Path(tempfile.mkdtemp())))
    True
    """
    item = store.cache.get("search_text")
    if item is None:
        item = store.cache["search_text"] = _FullText()
    item.refresh(store, max_ids)
    return item.seen_ids >= len(store.ids)


def text_keys(store: ArchiveStore, query: str) -> set[str]:
    """Keys of the documents whose stored text (title, visible text, URL) holds every word of ``query``.

    Runs over the warm inverted index (built on first use, kept current).

    >>> import tempfile, pathlib
    >>> text_keys(ArchiveStore.open(pathlib.Path(tempfile.mkdtemp())), "gema")
    set()
    """
    return _cached(store, "search_text", _FullText).matching(query)


def _entry(store: ArchiveStore, key: str, base: str) -> dict:
    held = store.latest_of_key(key)
    assert held is not None  # a key is listed only while it has a version
    doc = store.raw("versions")[held]
    newest, ts = store.last_capture_of(held)  # a revisit when the page was seen again since
    return {
        "id": newest,
        "url": doc["url"],
        "key": key,
        "title": doc.get("title", ""),
        "registered_at": iso(ts),
        "version_url": version_url(base, newest, doc["url"]),
        "versions": len(store.captures_of_key(key)),
        "ts": ts,
    }


def matching_keys(store: ArchiveStore, options: SearchOptions) -> list[str]:
    """Keys of the documents whose URL matches the pattern (and that carry ``tag``), in
    the URL index's order; full text is left to the caller (host/services/fulltext.py ranks it)."""
    keys = _cached(store, "search_urls", _UrlLines).matching(
        wildcard_regex(options.pattern, options.case_sensitive)
    )
    if options.tag is not None:
        tagged = labels.keys_with_tag(store, options.tag)
        keys = [k for k in keys if k in tagged]
    return keys


def entry(store: ArchiveStore, key: str, base: str) -> dict:
    """A search result for one document (its newest version), with its tags."""
    found = _entry(store, key, base)
    del found["ts"]
    return {**found, "tags": labels.tags_of(store, key)}


def search(store: ArchiveStore, options: SearchOptions) -> list[dict]:
    """Documents whose URL matches the pattern (and whose text matches ``text``), sorted."""
    lines = _cached(store, "search_urls", _UrlLines)
    keys = lines.matching(wildcard_regex(options.pattern, options.case_sensitive))
    if options.text:
        allowed = text_keys(store, options.text)
        keys = [k for k in keys if k in allowed]
    if options.tag is not None:
        tagged = labels.keys_with_tag(store, options.tag)
        keys = [k for k in keys if k in tagged]
    tags = {row["key"]: row["tags"] for row in store.raw("tags").values()}
    found = [{**_entry(store, key, options.base), "tags": tags.get(key, [])} for key in keys]
    if options.sort == "url":
        found.sort(key=lambda e: (e["url"], e["id"]))
    else:  # newest capture first
        found.sort(key=lambda e: (e["ts"], e["id"]), reverse=True)
    for entry in found:
        del entry["ts"]
    return found
