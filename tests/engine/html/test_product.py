"""A product's declared description anchors the body (engine/html/product.py and
extract.anchor_description), on real shop pages and rule by rule."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser

from engine.html.blocks import Block
from engine.html.extract import ExtractOptions, anchor_description, main_text
from engine.html.product import (
    PRODUCT_MARKS,
    DescriptionOptions,
    declared_descriptions,
    described_blocks,
    json_ld_products,
    may_declare_product,
    with_description,
)

WIDE_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "extract-wide"
OFF = ExtractOptions(product_description=None)


def wide_page(page_id: str) -> str:
    """A real page of the wide extraction set (see tests/fixtures/extract-wide/README.md)."""
    return gzip.decompress((WIDE_FIXTURES / f"{page_id}.html.gz").read_bytes()).decode("utf-8")


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


# --- on real pages ------------------------------------------------------------------------------


def test_a_microdata_description_the_body_missed_joins_it():
    # thomann.de (WCXB): the microphone's itemprop="description" (in an itemscope of
    # schema.org/Product) lists its specifications; the body came from the text beside it.
    html = wide_page("wcxb-2985")
    spec = "Dual Connect connector: XLR3-M (analogue) and USB-C (digital)"
    assert spec in flat(main_text(html))
    assert spec not in flat(main_text(html, options=OFF))


def test_a_declared_short_description_joins_the_body():
    # store.steampowered.com (WCXB): the game's short description under its capsule image is
    # the page's og:description and the microdata Product's; the body is the long "About".
    html = wide_page("wcxb-3074")
    blurb = (
        "Dig, fight, explore, build! Nothing is impossible in this action-packed adventure game."
    )
    assert blurb in flat(main_text(html))
    assert blurb not in flat(main_text(html, options=OFF))


def test_a_body_that_holds_the_description_is_unchanged():
    # etsy.com (WCXB): the JSON-LD Product's description is the body's own text already.
    html = wide_page("wcxb-0616")
    assert declared_descriptions(LexborHTMLParser(html))
    assert main_text(html) == main_text(html, options=OFF)


# --- which texts a page declares ----------------------------------------------------------------

LD = '<script type="application/ld+json">{}</script>'
OG = '<meta property="og:description" content="A white mug, thrown by hand in our studio.">'


@pytest.mark.parametrize(
    ("data", "declared"),
    [
        ('{"@type": "Product", "description": "A mug."}', True),
        ('{"@type": ["Product", "Thing"], "description": "A mug."}', True),
        ('{"@type": "ProductGroup", "description": "A mug."}', True),
        ('[{"@type": "WebSite"}, {"@type": "Product", "description": "A mug."}]', True),
        ('{"@graph": [{"@type": "WebPage"}, {"@type": "Product"}]}', True),
        # A news page's paywall markup and a review's subject name a Product in passing.
        ('{"@type": "NewsArticle", "isPartOf": {"@type": ["CreativeWork", "Product"]}}', False),
        (
            '{"@type": "Review", "itemReviewed": {"@type": "Product", "description": "A mug."}}',
            False,
        ),
        ('{"@type": "Article", "description": "A mug."}', False),
        ('{"@type": "Product", oops', False),
    ],
)
def test_only_a_product_at_the_top_of_json_ld_declares_a_description(data, declared):
    page = OG + LD.format(data)
    assert bool(declared_descriptions(LexborHTMLParser(page))) is declared
    assert bool(json_ld_products([data])) is declared


@pytest.mark.parametrize(
    ("source", "searched"),
    [
        ('{"@type":"Product"}', True),
        ('{"@type": ["ProductGroup"]}', True),
        ('<div itemscope itemtype="https://schema.org/Product">', True),
        ("<h1>Products</h1><p>Our Product range.</p>", False),  # the word alone: not searched
    ],
)
def test_only_a_source_that_can_declare_a_product_is_searched(source, searched):
    assert may_declare_product(source) is searched


def test_the_marks_are_searched_from_the_first_product_as_in_the_whole_source():
    # may_declare_product searches the marks from the first "Product" less what a mark holds
    # before its own: the same answer as a search of the whole source.
    sources = [gzip.decompress(p.read_bytes()).decode("utf-8") for p in WIDE_FIXTURES.glob("*.gz")]
    for mark in PRODUCT_MARKS:
        sources += [mark, f"x{mark}", f"Products {mark}", f"{mark} Product", mark[:-1]]
    sources += ["schema.org/Produc", "schema.org/ Product", '"Product', 'Product"', ""]
    for source in sources:
        plain = "Product" in source and any(mark in source for mark in PRODUCT_MARKS)
        assert may_declare_product(source) is plain, source[:80]
    assert any(may_declare_product(source) for source in sources)


def test_the_declared_texts_are_the_products_og_and_microdata_descriptions():
    page = (
        OG
        + LD.format('{"@type": "Product", "description": "Thrown <b>by hand</b>."}')
        + '<div itemscope itemtype="https://schema.org/Product">'
        + '<div itemprop="description">Speckled clay, glazed white.</div></div>'
    )
    texts = declared_descriptions(LexborHTMLParser(page))
    assert [flat(t).strip() for t in texts] == [
        "Thrown by hand .",
        "Speckled clay, glazed white.",
        "A white mug, thrown by hand in our studio.",
    ]


def test_microdata_alone_declares_a_product_and_og_alone_does_not():
    micro = '<div itemscope itemtype="http://schema.org/Product"><p itemprop="description">A mug.</p></div>'
    assert declared_descriptions(LexborHTMLParser(micro)) == ["A mug."]
    assert declared_descriptions(LexborHTMLParser(OG)) == []
    # Another item type (a blog post's microdata) declares no product.
    article = micro.replace("http://schema.org/Product", "https://schema.org/BlogPosting")
    assert declared_descriptions(LexborHTMLParser(OG + article)) == []


# --- which blocks hold it -----------------------------------------------------------------------

DECLARED = ["Hand thrown in our studio from speckled clay, glazed white, safe in the dishwasher."]


def block(text: str, tag: str = "p", links: int = 0) -> Block:
    return Block(text, len(text), links, tag)


def test_a_block_is_the_description_when_enough_of_its_phrases_are_declared():
    # 7 phrases of 4 words, the first 5 declared: a share of 5/7 (0.714).
    half = block("Hand thrown in our studio from speckled clay, then fired.")
    assert described_blocks([half], DECLARED, DescriptionOptions(share=0.7)) == [half]
    assert described_blocks([half], DECLARED, DescriptionOptions(share=0.72)) == []
    assert described_blocks([half], DECLARED, DescriptionOptions(share=5 / 7)) == [half]


def test_a_heading_or_a_short_block_is_never_the_description():
    name = block("Hand thrown in our studio from speckled clay", "h1")
    short = block("Hand thrown in our studio")  # 2 phrases
    both = [name, short]
    assert described_blocks(both, DECLARED, DescriptionOptions()) == []
    assert described_blocks(both, DECLARED, DescriptionOptions(min_phrases=2)) == [short]
    # A declared text under min_phrases (a name, "Overwhelmingly Positive") matches nothing:
    # here 2 of the block's 3 phrases would be declared (0.67).
    line, name = block("Hand thrown in our studio today"), ["Hand thrown in our studio"]
    assert described_blocks([line], name, DescriptionOptions()) == []
    assert described_blocks([line], name, DescriptionOptions(min_phrases=2)) == [line]


def test_link_text_is_never_the_description():
    about = block(DECLARED[0])
    linked = block(DECLARED[0], links=len(DECLARED[0]))
    story = block("Our studio opened in 2015 by the sea and sells online.")
    assert anchor_description([linked, story], [story], DECLARED, ExtractOptions()) == [story]
    assert anchor_description([about, story], [story], DECLARED, ExtractOptions()) == [about, story]
    assert anchor_description([about, story], [story], DECLARED, OFF) == [story]


def test_the_description_joins_in_page_order_only_when_the_body_holds_none_of_it():
    one, two = block(DECLARED[0]), block("Hand thrown in our studio from speckled clay, glazed.")
    story, price = block("Our studio opened in 2015 by the sea."), block("$24")
    page = [one, story, two, price]
    assert with_description(page, [story, price], [one, two]) == [one, story, two, price]
    assert with_description(page, [story, two], [one, two]) == [story, two]
    assert with_description(page, [story], []) == [story]
