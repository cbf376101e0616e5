"""The page's visible text: every line a reader sees, menus, links and headings included.

Main-text extraction (:mod:`engine.html.extract`) keeps the article and drops link lists and
headings over them: right for liveness and keywords, wrong for full-text search (a headline on a
home page is a link) and for the diff between two versions (a new article's title is a link).
Those use this text instead. What a browser does not render is left out: the head, scripts,
styles, templates, ``<noscript>`` (scripting is on in a browser), form controls' option lists,
elements with the ``hidden`` attribute or an inline ``display:none`` / ``visibility:hidden``
(HTML §15.3.1 and the ``hidden`` attribute, §6.1). Block elements end a line; inline
elements (links, emphasis) stay inside theirs.

>>> visible_text("<title>T</title><nav><a href=/>Home</a></nav><h2><a href=/a>Big news</a></h2><p>Read <b>it</b></p>")
'Home\\nBig news\\nRead it'
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser

from engine.html.blocks import (
    REGION_WEIGHTS,
    BlockOptions,
    detach,
    has_ancestor_in,
    split_blocks,
    useless_nodes,
)
from engine.html.extract import decode
from engine.html.parse import closed_title

# Not rendered (HTML §15.3.1 "hidden elements"), or not text a reader sees on the page.
UNSEEN_TAGS = (
    "head", "title", "script", "style", "template", "noscript", "link", "meta", "base",
    "object", "embed", "iframe", "frame", "svg", "math", "canvas", "video", "audio", "source",
    "track", "img", "map", "area", "select", "option", "optgroup", "datalist", "textarea",
    "input", "rp",
)  # fmt: skip
# Elements a browser lays out as blocks (or table cells) beyond the extractor's region tags:
# each ends a line of visible text.
LINE_TAGS = (
    "nav", "aside", "footer", "header", "figcaption", "button", "label", "menu", "legend",
    "dialog", "output", "main", "hgroup", "search",
)  # fmt: skip
_UNSEEN = frozenset(UNSEEN_TAGS)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_OPTIONS = BlockOptions(
    useless_tags=UNSEEN_TAGS,
    weights={**REGION_WEIGHTS, **dict.fromkeys(LINE_TAGS, 1.0)},
    class_hints=False,
)


def drop_hidden(tree: LexborHTMLParser) -> None:
    """Remove elements hidden by the ``hidden`` attribute or an inline style.

    >>> tree = LexborHTMLParser('<p hidden>a</p><p style="display: none">b</p><p>c</p>')
    >>> drop_hidden(tree); tree.body.text()
    'c'
    """
    doomed = [
        node
        for node in tree.css("[hidden], [style]")
        if "hidden" in node.attributes or _HIDDEN_STYLE.search(node.attributes.get("style") or "")
    ]
    kept_ids = {node.mem_id for node in doomed}
    for node in doomed:  # outermost only: decomposing a node frees its subtree
        if not has_ancestor_in(node, kept_ids):
            node.decompose()


def visible_text(html: bytes | str | LexborHTMLParser) -> str:
    """The page's visible text, one line per block, in page order (a parsed tree is read,
    never changed). Raises DecodeError for binary data, as :func:`extract` does.

    >>> visible_text(b"<ul><li><a href=/x>First story</a></li><li>Second</li></ul>")
    'First story\\nSecond'
    """
    if isinstance(html, LexborHTMLParser):  # parsed again from its serialization: lexbor's
        html = html.html or ""  # clone() fails on some real pages ("Can't create a new document")
    tree = LexborHTMLParser(closed_title(decode(html)))
    drop_hidden(tree)
    if tree.root is not None:  # one walk, not lexbor's tag search once per tag
        detach(useless_nodes(tree.root, _UNSEEN))
    root = tree.body or tree.root
    return "\n".join(block.text for block in split_blocks(root, _OPTIONS))
