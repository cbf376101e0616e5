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

from selectolax.lexbor import LexborHTMLParser, LexborNode

from engine.html.blocks import REGION_WEIGHTS, BlockOptions, has_ancestor_in, split_shown
from engine.html.extract import parse_page

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
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
VISIBLE_OPTIONS = BlockOptions(
    useless_tags=UNSEEN_TAGS,
    weights={**REGION_WEIGHTS, **dict.fromkeys(LINE_TAGS, 1.0)},
    class_hints=False,
)


def hidden_nodes(tree: LexborHTMLParser) -> list[LexborNode]:
    """The elements hidden by the ``hidden`` attribute or an inline style (those inside
    another one too).

    >>> tree = LexborHTMLParser('<p hidden>a</p><p style="display: none">b</p><p>c</p>')
    >>> [node.text() for node in hidden_nodes(tree)]
    ['a', 'b']
    """
    return [
        node
        for node in tree.css("[hidden], [style]")
        if "hidden" in node.attributes or _HIDDEN_STYLE.search(node.attributes.get("style") or "")
    ]


def visible_text(html: bytes | str | LexborHTMLParser) -> str:
    """The page's visible text, one line per block, in page order (a parsed tree is read,
    never changed). Raises DecodeError for binary data, as :func:`extract` does.

    >>> visible_text(b"<ul><li><a href=/x>First story</a></li><li>Second</li></ul>")
    'First story\\nSecond'
    """
    if isinstance(html, LexborHTMLParser):  # parsed again from its serialization: lexbor's
        html = html.html or ""  # clone() fails on some real pages ("Can't create a new document")
    return shown_text(parse_page(html).tree)


def shown_text(tree: LexborHTMLParser) -> str:
    """:func:`visible_text` of a page parsed by :func:`engine.html.extract.parse_page`, read
    without changing the tree, so the extraction can take the same parse afterwards. What a
    browser does not render is not walked into; a hidden ``<body>`` or root shows nothing.

    >>> page = parse_page("<title>T</title><p>a<script>x</script></p><p hidden>b</p>")
    >>> shown_text(page.tree), page.tree.css_first("script") is not None
    ('a', True)
    >>> shown_text(parse_page("<html hidden><p>a</p>").tree)
    ''
    """
    hidden = hidden_nodes(tree)
    ids = {node.mem_id for node in hidden}
    root = tree.body or tree.root
    if root is None or root.mem_id in ids or has_ancestor_in(root, ids):
        return ""
    return "\n".join(block.text for block in split_shown(root, VISIBLE_OPTIONS, hidden))
