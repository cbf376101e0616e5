"""The other panels of a tab set the body reads one panel of join it (engine/html/tabs.py
and extract.find_body), on a real page and rule by rule."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from engine.html.blocks import Block, split_regions
from engine.html.extract import ExtractOptions, main_text
from engine.html.tabs import is_tab_panel, may_hold_tabs, with_tab_panels

WIDE_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "extract-wide"
OFF = ExtractOptions(tab_panels=False)


def wide_page(page_id: str) -> str:
    """A real page of the wide extraction set (see tests/fixtures/extract-wide/README.md)."""
    return gzip.decompress((WIDE_FIXTURES / f"{page_id}.html.gz").read_bytes()).decode("utf-8")


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def cut(html: str) -> tuple[list[Block], list]:
    blocks, _, regions = split_regions(LexborHTMLParser(html).body, None)
    return blocks, regions


def texts(blocks: list[Block]) -> list[str]:
    return [b.text for b in blocks]


# --- on a real page -----------------------------------------------------------------------------


def test_the_other_panels_of_a_tab_set_join_the_body():
    # burnsharbor-in.gov (WCXB, service page): the building department's tabbed widget, three
    # div[role=tabpanel] in one parent; the body grew from the open one, and the truth holds
    # the second panel's "Contractor's License and Business License".
    html = wide_page("wcxb-4550")
    other = "Contractor's License and Business License"
    assert other in flat(main_text(html))
    assert other not in flat(main_text(html, options=OFF))


# --- rule by rule -------------------------------------------------------------------------------

TABS = (
    '<div class="tabs"><div role="tabpanel"><p>Made of brushed steel, 44 mm wide.</p></div>'
    '<div role="tabpanel" hidden><p>Water resistant to 50 metres.</p>'
    '<p><a href="/a">Strap sizes</a> <a href="/b">Care guide</a></p></div></div>'
)


def test_only_the_aria_role_marks_a_panel():
    page = LexborHTMLParser(
        '<div role="tabpanel">a</div><div role=" TabPanel ">b</div><div role="tab">c</div>'
        '<div class="tab-pane">d</div><div class="tabpanel">e</div>'
    )
    assert [is_tab_panel(node) for node in page.css("div")] == [True, True, False, False, False]


def test_panels_join_in_page_order_when_the_body_holds_one():
    blocks, regions = cut("<p>Before the tabs, a long introduction.</p>" + TABS)
    body = [blocks[1]]
    joined = with_tab_panels(blocks, body, regions, lambda b: True)
    assert texts(joined) == texts(blocks[1:])
    before_body = [blocks[0], blocks[2]]
    assert texts(with_tab_panels(blocks, before_body, regions, lambda b: True)) == texts(blocks)


def test_a_body_that_holds_no_panel_is_unchanged():
    blocks, regions = cut("<p>Before the tabs, a long introduction.</p>" + TABS)
    assert with_tab_panels(blocks, [blocks[0]], regions, lambda b: True) == [blocks[0]]


def test_only_the_panels_of_a_set_the_body_holds_a_panel_of_join():
    other_set = (
        '<div class="faq"><div role="tabpanel"><p>How long is shipping?</p></div>'
        '<div role="tabpanel"><p>Can I return it?</p></div></div>'
    )
    blocks, regions = cut(TABS + other_set)
    joined = with_tab_panels(blocks, [blocks[0]], regions, lambda b: True)
    assert "Water resistant to 50 metres." in texts(joined)
    assert "How long is shipping?" not in texts(joined)
    assert "Can I return it?" not in texts(joined)


def test_a_panel_is_a_whole_element_not_the_set_it_lies_in():
    # a panel with a panel's parent's other children: only sibling panels' blocks join
    html = '<div><div role="tabpanel"><p>One panel of text here.</p></div><p>Beside the panels.</p></div>'
    blocks, regions = cut(html)
    assert texts(with_tab_panels(blocks, [blocks[0]], regions, lambda b: True)) == [
        "One panel of text here."
    ]


def test_what_the_keep_test_refuses_stays_out():
    blocks, regions = cut(TABS)
    joined = with_tab_panels(blocks, [blocks[0]], regions, lambda b: b.link_chars == 0)
    assert texts(joined) == [
        "Made of brushed steel, 44 mm wide.",
        "Water resistant to 50 metres.",
    ]


def test_in_the_extraction_link_lists_of_other_panels_stay_out():
    page = (
        "<title>Steel watch</title><h1>Steel watch</h1>"
        '<div class="tabs"><div role="tabpanel"><p>'
        + "Made of brushed steel with a sapphire glass, this watch is 44 mm wide. "
        * 5
        + '</p></div><div role="tabpanel"><p>Water resistant to 50 metres in rain and swims.</p>'
        '<p><a href="/a">Strap sizes</a> <a href="/b">Care guide</a></p></div></div>'
    )
    text = main_text(page)
    assert "Water resistant to 50 metres in rain and swims." in text
    assert "Strap sizes" not in text
    assert "Water resistant" not in main_text(page, options=OFF)


def test_only_a_source_that_names_a_panel_is_searched():
    assert may_hold_tabs('<div role="tabpanel">')
    assert not may_hold_tabs('<div class="tab-pane">')
