"""A product's own description, as its page declares it in structured data, and the visible
block that holds it.

A shop's page names its product in schema.org data: a JSON-LD object of ``@type`` Product or
ProductGroup (https://schema.org/Product) with a ``description``, or microdata
(``itemtype=".../Product"``) whose ``itemprop="description"`` element is the description
itself. A page that declares a product this way also gives ``og:description`` (the Open
Graph protocol, https://ogp.me/), mostly the same words. These texts are not emitted (a
script's data is not what the page shows): they tell which visible block is the product's
description, so that a body read from elsewhere on the page (a story about the brand, a
second layout's copy) still holds it.

Only a product the page is about counts: a Product at the top of a JSON-LD script or of its
``@graph``, not one nested in another object (a news page's ``isPartOf`` subscription
Product, a review's ``itemReviewed``), whose description is not the page's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser

from engine.html.blocks import HEADINGS, Block
from engine.html.tokens import tokenize

PRODUCT_TYPES = frozenset(("Product", "ProductGroup"))
_LD_SCRIPTS = 'script[type="application/ld+json" i]'
_TAGS = re.compile(r"<[^>]+>")  # some shops put the description's HTML in its JSON-LD text


@dataclass(frozen=True)
class DescriptionOptions:
    """Which blocks are the declared description (see :func:`described_blocks`)."""

    phrase_words: int = 4  # a phrase is this many words in a row
    # A block is the description when this share of its phrases is in a declared text
    # (0.4, 0.6 and 0.8 give the same outputs on the wide tuning split).
    share: float = 0.6
    # Blocks and texts of fewer phrases (a name, a price) are not matched; chosen by
    # leave-one-site-out on the wide tuning split over 3, 5 and 8.
    min_phrases: int = 3


def json_ld_products(scripts: Iterable[str]) -> list[dict]:
    """The Product objects at the top of JSON-LD texts or of their ``@graph``; a script that
    is not JSON, or names no Product, gives none.

    >>> doc = '{"@graph": [{"@type": "WebPage"}, {"@type": ["Product"], "description": "Mug"}]}'
    >>> [p["description"] for p in json_ld_products([doc, "{oops", '{"@type": "Article"}'])]
    ['Mug']
    >>> json_ld_products(['{"@type": "NewsArticle", "isPartOf": {"@type": ["CreativeWork", "Product"]}}'])
    []
    """
    found: list[dict] = []
    for text in scripts:
        if "Product" not in text:  # most pages' scripts: no parse
            continue
        try:
            data = json.loads(text)
        except ValueError:
            continue
        found.extend(o for o in top_objects(data) if PRODUCT_TYPES & types_of(o))
    return found


def top_objects(data: object) -> Iterator[dict]:
    """The objects of a JSON-LD document: the top ones (one, or a list) and its ``@graph``'s.

    >>> [o["@type"] for o in top_objects([{"@type": "A", "@graph": [{"@type": "B"}]}])]
    ['A', 'B']
    """
    if isinstance(data, list):
        for item in data:
            yield from top_objects(item)
    elif isinstance(data, dict):
        yield data
        graph = data.get("@graph")
        if isinstance(graph, list):
            yield from (item for item in graph if isinstance(item, dict))


def types_of(obj: dict) -> set[str]:
    """The ``@type`` names of a JSON-LD object (one name or a list).

    >>> sorted(types_of({"@type": ["Product", "Thing"]})), types_of({})
    (['Product', 'Thing'], set())
    """
    kind = obj.get("@type")
    if isinstance(kind, str):
        return {kind}
    return {k for k in kind if isinstance(k, str)} if isinstance(kind, list) else set()


# What a page that declares a product holds in its source: a JSON-LD type name in quotes, or
# a microdata item type. A page without any is not searched (most pages: ~0.15 ms saved).
PRODUCT_MARKS = ('"Product"', '"ProductGroup"', "schema.org/Product")
_DECLARATIONS = f"{_LD_SCRIPTS}, [itemtype]"
_BEFORE_PRODUCT = max(mark.index("Product") for mark in PRODUCT_MARKS)


def may_declare_product(html: str) -> bool:
    """False when the page's source cannot declare a product (see PRODUCT_MARKS).

    >>> may_declare_product('{"@type": "Product"}'), may_declare_product("<h1>Our products</h1>")
    (True, False)
    """
    # Each scan of a long page costs ~0.05 ms; every mark holds "Product", which two pages in
    # three lack: one scan for them. A mark's "Product" is at or after the first one, so the
    # marks are searched from there, less what a mark holds before it.
    first = html.find("Product")
    if first < 0:
        return False
    start = max(0, first - _BEFORE_PRODUCT)
    return any(html.find(mark, start) >= 0 for mark in PRODUCT_MARKS)


def declared_descriptions(tree: LexborHTMLParser) -> list[str]:
    """The texts the page declares as its product's description: the ``description`` of each
    top-level JSON-LD Product, the microdata ``itemprop="description"`` elements, and
    ``og:description``; [] when the page declares no product (read before the scripts and
    the head are filtered out).

    >>> page = ('<head><meta property="og:description" content="A mug."></head>'
    ...         '<script type="application/ld+json">{"@type": "Product", "description": "A <b>mug</b>."}</script>')
    >>> declared_descriptions(LexborHTMLParser(page))
    ['A  mug .', 'A mug.']
    >>> declared_descriptions(LexborHTMLParser('<meta property="og:description" content="News.">'))
    []
    """
    scripts, microdata = [], False
    for node in tree.css(_DECLARATIONS):  # one pass over the page for both kinds
        if node.tag == "script":
            scripts.append(node.text())
        elif not microdata:
            microdata = microdata_product(node.attributes.get("itemtype") or "")
    products = json_ld_products(scripts)
    if not (products or microdata):
        return []
    texts = [
        _TAGS.sub(" ", p["description"]) for p in products if isinstance(p.get("description"), str)
    ]
    for node in tree.css('[itemprop="description" i]'):
        texts.append(node.attributes.get("content") or node.text())
    for node in tree.css('meta[property="og:description" i]'):
        texts.append(node.attributes.get("content") or "")
    return [t for t in texts if t and t.strip()]


def microdata_product(itemtype: str) -> bool:
    """True for a microdata item type that is schema.org's Product or ProductGroup (http or
    https; several types may be listed).

    >>> microdata_product("https://schema.org/Product"), microdata_product("http://schema.org/Offer")
    (True, False)
    """
    return any(
        t.lower().endswith(("schema.org/product", "schema.org/productgroup"))
        for t in itemtype.split()
    )


def phrases(text: str, n: int) -> set[tuple[str, ...]]:
    """The runs of ``n`` consecutive words of a text (tokenized as everywhere).

    >>> sorted(phrases("Cats nap all day", 3))
    [('cats', 'nap', 'all'), ('nap', 'all', 'day')]
    """
    tokens = tokenize(text)
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def described_blocks(
    blocks: list[Block], texts: list[str], options: DescriptionOptions
) -> list[Block]:
    """The blocks that hold a declared description: at least ``share`` of the block's phrases
    are in one of ``texts``. A heading is the product's name, not its description, and a
    block under ``min_phrases`` phrases is too short to tell.

    >>> about = Block("Hand thrown in our studio from speckled clay, glazed white.", 59, 0, "p")
    >>> name = Block("Hand thrown in our studio from speckled clay", 44, 0, "h1")
    >>> story = Block("Our studio opened in 2015 by the sea and sells online.", 54, 0, "p")
    >>> text = "Hand thrown in our studio from speckled clay, glazed white. Dishwasher safe."
    >>> [b.text[:11] for b in described_blocks([about, name, story], [text], DescriptionOptions())]
    ['Hand thrown']
    """
    n = options.phrase_words
    declared = [phrases(t, n) for t in texts]
    declared = [d for d in declared if len(d) >= options.min_phrases]
    if not declared:
        return []
    found = []
    for block in blocks:
        if block.tag in HEADINGS or block.chars < n:
            continue
        own = phrases(block.text, n)
        if len(own) < options.min_phrases:
            continue
        need = options.share * len(own)
        if any(len(own & d) >= need for d in declared):
            found.append(block)
    return found


def with_description(blocks: list[Block], body: list[Block], described: list[Block]) -> list[Block]:
    """The body, with the declared description's blocks in page order when it holds none of
    them (it was read from another part of the page); unchanged when it holds one.

    >>> about, story = Block("A white mug.", 12, 0, "p"), Block("Our studio.", 11, 0, "p")
    >>> [b.text for b in with_description([about, story], [story], [about])]
    ['A white mug.', 'Our studio.']
    >>> [b.text for b in with_description([about, story], [about, story], [about])]
    ['A white mug.', 'Our studio.']
    """
    chosen = {id(b) for b in body}
    if not described or any(id(b) in chosen for b in described):
        return body
    chosen.update(id(b) for b in described)
    return [b for b in blocks if id(b) in chosen]
