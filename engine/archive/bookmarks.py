"""Bookmark files: the Netscape bookmark HTML every browser exports, and Pocket's exports
(its HTML list and its CSV), as ``Bookmark(url, title, tags)``; folders become tags.

>>> page = b'<!DOCTYPE NETSCAPE-Bookmark-file-1><DL><p><DT><H3>Recipes</H3><DL><p>'
>>> page += b'<DT><A HREF="https://a.example/soup">Soup</A></DL><p></DL>'
>>> parse_bookmarks(page)
[Bookmark(url='https://a.example/soup', title='Soup', tags=('recipes',))]
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser

from engine.archive.labels import clean_tag
from engine.errors import InvalidInput

# Folders a browser makes itself: not the user's own way of sorting, so not tags.
ROOT_FOLDERS = frozenset(
    {
        "bookmarks",
        "bookmarks bar",
        "bookmarks toolbar",
        "bookmarks menu",
        "other bookmarks",
        "mobile bookmarks",
        "favorites bar",
        "favourites bar",
        "unsorted bookmarks",
        "unread",
        "read archive",
    }
)
ROOT_ATTRS = ("personal_toolbar_folder", "unfiled_bookmarks_folder")


@dataclass(frozen=True)
class Bookmark:
    url: str
    title: str
    tags: tuple[str, ...] = ()


def parse_bookmarks(data: bytes) -> list[Bookmark]:
    """Every http(s) bookmark of a Netscape or Pocket file, in file order, each URL once
    (tags of its copies joined); InvalidInput when the file is none of them."""
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    head = text[:2048].lower()
    if head.startswith("title,url,") or "\ntitle,url," in head[:200]:
        found = _pocket_csv(text)
    elif "netscape-bookmark-file" in head or "<dl" in text[:65536].lower() or "pocket" in head:
        found = _html(text)
    else:
        raise InvalidInput("not a bookmark file (Netscape bookmark HTML or a Pocket export)")
    return _merged(found)


def _web(url: str) -> bool:
    return url.lower().startswith(("http://", "https://"))


def _tags(names) -> tuple[str, ...]:
    out = []
    for name in names:
        if name.strip().lower() in ROOT_FOLDERS:
            continue
        try:
            out.append(clean_tag(name))
        except InvalidInput:
            continue  # a folder name that cannot be a tag (control characters, too long)
    return tuple(dict.fromkeys(out))


def _html(text: str) -> list[Bookmark]:
    tree = LexborHTMLParser(text)
    links = tree.css("a[href]")
    if not links and "<dl" not in text.lower():
        raise InvalidInput("not a bookmark file: no links in it")
    found = []
    for link in links:
        url = (link.attributes.get("href") or "").strip()
        if not _web(url):
            continue
        names = _folders(link) + (link.attributes.get("tags") or "").split(",")
        found.append(Bookmark(url, link.text(strip=True), _tags(n for n in names if n.strip())))
    return found


def _folders(link) -> list[str]:
    """The folder names above a link, outermost first (each <DL> follows its <H3>)."""
    names, node = [], link.parent
    while node is not None:
        if node.tag == "dl":
            heading = _heading_before(node)
            if heading is not None and not any(a in heading.attributes for a in ROOT_ATTRS):
                names.append(heading.text(strip=True))
        node = node.parent
    return names[::-1]


def _heading_before(dl):
    node = dl.prev
    while node is not None and node.tag in ("-text", "p"):
        node = node.prev
    if node is not None and node.tag == "h3":
        return node
    parent = dl.parent
    return (
        next((c for c in parent.iter() if c.tag == "h3"), None)
        if parent is not None and parent.tag == "dt"
        else None
    )


def _pocket_csv(text: str) -> list[Bookmark]:
    rows = csv.DictReader(io.StringIO(text))
    if not rows.fieldnames or "url" not in rows.fieldnames:
        raise InvalidInput("not a Pocket export: the CSV has no url column")
    found = []
    for row in rows:
        url = (row.get("url") or "").strip()
        if _web(url):
            tags = (row.get("tags") or "").replace("|", ",").split(",")
            found.append(
                Bookmark(url, (row.get("title") or "").strip(), _tags(t for t in tags if t.strip()))
            )
    return found


def _merged(found: list[Bookmark]) -> list[Bookmark]:
    by_url: dict[str, Bookmark] = {}
    for mark in found:
        held = by_url.get(mark.url)
        if held is None:
            by_url[mark.url] = mark
        else:
            tags = tuple(dict.fromkeys(held.tags + mark.tags))
            by_url[mark.url] = Bookmark(held.url, held.title or mark.title, tags)
    return list(by_url.values())
