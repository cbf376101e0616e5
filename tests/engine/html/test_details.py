"""A product's details box taken whole once the body holds a part of it (engine/html/details.py
and extract.product_details), on a real shop page and rule by rule."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from engine.html.blocks import Block
from engine.html.details import DetailOptions, details_of, is_details, with_details
from engine.html.extract import ExtractOptions, main_text

WIDE_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "extract-wide"
OFF = ExtractOptions(product_details=None)


def wide_page(page_id: str) -> str:
    """A real page of the wide extraction set (see tests/fixtures/extract-wide/README.md)."""
    return gzip.decompress((WIDE_FIXTURES / f"{page_id}.html.gz").read_bytes()).decode("utf-8")


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


# --- on a real page -----------------------------------------------------------------------------


def test_the_key_features_of_a_products_details_box_join_the_body():
    # bhphotovideo.com (WCXB): the camera's overview and its "Key Features" list sit in one
    # container of class "details_…"; the body grows from the overview and stops before the
    # list, whose items are too short to join one by one.
    html = wide_page("wcxb-0626")
    features = ["Key Features", '3.2" 1,229k-Dot RGBW Tilting LCD Monitor']
    features.append("Full HD 1080p Video Recording at 60 fps")
    lines = main_text(html).splitlines()
    without = main_text(html, options=OFF).splitlines()
    for line in features:
        assert line in lines
        assert line not in without
    overview = next(k for k, line in enumerate(lines) if line.startswith("Championing"))
    assert lines.index("Key Features") < lines.index(features[1]) < overview  # page order


# --- rule by rule ----------------------------------------------------------------------------


def page(details: str, outside: str = "") -> str:
    """A shop's page (og:type product) with a details container and a block beside it."""
    return (
        '<html><head><meta property="og:type" content="product"></head><body>'
        f"{details}<div class='related'>{outside}</div></body></html>"
    )


STORY = (
    "<p>This mug is thrown by hand in our small studio by the sea from a speckled stoneware "
    "clay, glazed in a soft white that shows every fleck of iron in the body. Each one is a "
    "little different, and each is signed on its foot before the last firing in our kiln. It "
    "holds a large coffee or a pot of tea, and it keeps the heat in its thick walls.</p>"
)
FEATURES = "<ul><li>Dishwasher safe</li><li>Holds 350 ml</li><li>Lead-free glaze</li></ul>"


def test_a_details_container_the_body_holds_a_part_of_joins_it_whole():
    html = page(f"<div class='product-details'><div>{STORY}</div><div>{FEATURES}</div></div>")
    text = main_text(html)
    assert "Dishwasher safe" in text and "Lead-free glaze" in text
    assert "Dishwasher safe" not in main_text(html, options=OFF)


def test_only_a_product_page_takes_its_details_box():
    html = page(f"<div class='product-details'><div>{STORY}</div><div>{FEATURES}</div></div>")
    article = html.replace('content="product"', 'content="article"')
    assert "Dishwasher safe" not in main_text(article)


def test_a_page_that_declares_a_product_in_json_ld_is_a_product_page():
    html = page(f"<div class='product-details'><div>{STORY}</div><div>{FEATURES}</div></div>")
    declared = html.replace(
        '<meta property="og:type" content="product">',
        '<script type="application/ld+json">{"@type": "Product", "description": '
        '"This mug is thrown by hand in our small studio by the sea."}</script>',
    )
    assert "Dishwasher safe" in main_text(declared)


def test_a_container_not_named_for_details_is_not_taken_whole():
    html = page(f"<div class='product-info'><div>{STORY}</div><div>{FEATURES}</div></div>")
    assert "Dishwasher safe" not in main_text(html)


def regions_of(html: str) -> list:
    return LexborHTMLParser(html).css("div")


def test_a_body_that_holds_no_details_block_is_unchanged():
    regions = regions_of("<div class='details'></div><div class='story'></div>")
    feature = Block("Dishwasher safe", 15, 0, "li", path=(1,))
    story = Block("Our studio opened in 2015.", 26, 0, "p", path=(2,))
    body = with_details([feature, story], [story], regions, lambda b: True, DetailOptions())
    assert body == [story]


def test_the_details_blocks_join_in_page_order():
    regions = regions_of("<div class='details'></div>")
    name = Block("White speckle mug", 17, 0, "h2", path=(1,))
    about = Block("A mug thrown by hand.", 21, 0, "p", path=(1,))
    feature = Block("Dishwasher safe", 15, 0, "li", path=(1,))
    body = with_details([name, about, feature], [about], regions, lambda b: True, DetailOptions())
    assert [b.text for b in body] == [
        "White speckle mug",
        "A mug thrown by hand.",
        "Dishwasher safe",
    ]


def test_a_details_container_of_too_many_blocks_is_a_layout_not_a_box():
    regions = regions_of("<div class='store-detail'></div>")
    blocks = [Block(f"Line {k} of the page", 17, 0, "p", path=(1,)) for k in range(4)]
    three, four = DetailOptions(max_blocks=3), DetailOptions(max_blocks=4)
    assert with_details(blocks, blocks[:1], regions, lambda b: True, three) == blocks[:1]
    assert with_details(blocks, blocks[:1], regions, lambda b: True, four) == blocks


def test_the_outermost_details_container_is_the_box():
    regions = regions_of("<div class='product-details'><div class='detail-title'></div></div>")
    title = Block("White speckle mug", 17, 0, "h2", path=(1, 2))
    feature = Block("Dishwasher safe", 15, 0, "li", path=(1,))
    assert details_of(title, regions) == 1
    body = with_details([title, feature], [title], regions, lambda b: True, DetailOptions())
    assert body == [title, feature]


def test_what_the_keep_test_refuses_or_a_short_line_stays_out():
    regions = regions_of("<div class='details'></div>")
    about = Block("A mug thrown by hand.", 21, 0, "p", path=(1,))
    link = Block("Ask an Expert", 13, 13, "p", path=(1,))
    short = Block("sold out", 8, 0, "p", path=(1,))

    def keep(block: Block) -> bool:
        return block.link_chars == 0

    body = with_details([about, link, short], [about], regions, keep, DetailOptions(min_chars=10))
    assert body == [about]
    body = with_details([about, link, short], [about], regions, keep, DetailOptions(min_chars=0))
    assert body == [about, short]


def test_a_details_container_is_named_by_its_class_or_id():
    tree = LexborHTMLParser(
        "<div class='ProductDetails'></div><div id='detailBullets_feature_div'></div>"
        "<div class='product-info'></div><div></div>"
    )
    assert [is_details(n) for n in tree.css("div")] == [True, True, False, False]


def test_in_the_extraction_link_text_and_prices_of_the_box_stay_out():
    links = "<p><a href='/a'>Ask an expert about this mug</a></p><p>$60.00</p>"
    html = page(
        f"<div class='product-details'><div>{STORY}</div><div>{FEATURES}</div>{links}</div>"
    )
    text = main_text(html)
    assert "Dishwasher safe" in text
    assert "Ask an expert" not in text and "$60.00" not in text
