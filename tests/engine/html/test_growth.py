"""The body's growth by the context model: blocks near the body that the model scores as main
text join it (engine/html/extract.py, grown_body)."""

from __future__ import annotations

from dataclasses import replace

from selectolax.lexbor import LexborHTMLParser

from engine.html.blocks import Block, split_regions
from engine.html.context import ContextModel
from engine.html.extract import ExtractOptions, grow_candidates, grown_body, main_text

STORY = "The council voted on Tuesday to reopen the old bridge to walkers and cyclists. " * 3
LEAD = "Work on the bridge starts in the spring and ends before the summer holidays."
AFTER = "Another story: the town hall's clock is fixed after ten years of standing still."

PAGE = f"""<html><body><div class="more-story"><p>{LEAD}</p></div>
<div class="other-box"><p>A line of the page just before the story begins.</p></div>
<div class="entry-content"><p>{STORY}</p></div>
<div class="more-story"><a href="/bridge">Read the whole bridge story on the site</a></div>
<div class="more-story"><p>Short one.</p></div>
<div class="entry-content"><p>{STORY}</p></div>
<div class="more-story"><p>{AFTER}</p></div>
</body></html>"""
BODY = (2, 5)
STAMP = "Updated 12 May 2024, 10:00 CET"


def page() -> tuple[list[Block], list]:
    blocks, _, regions = split_regions(LexborHTMLParser(PAGE).body, None)
    return blocks, regions


def grown(weights: dict[str, float], reach: int = 6) -> list[str]:
    blocks, regions = page()
    model = ContextModel(0.0, weights=weights)
    options = replace(ExtractOptions(), context_model=model, grow_reach=reach)
    body = [blocks[k] for k in BODY]
    return [b.text for b in grown_body(blocks, body, regions, options)]


def test_the_page_is_read_as_expected():
    blocks, _ = page()
    assert [b.text[:10] for b in blocks] == [
        LEAD[:10],
        "A line of ",
        STORY[:10],
        "Read the w",
        "Short one.",
        STORY[:10],
        AFTER[:10],
    ]


def test_a_near_block_the_model_scores_as_main_text_joins_the_body_in_page_order():
    text = grown({"near:entry": 5.0, "near:story": 5.0})
    assert text == [LEAD, STORY.strip(), STORY.strip()]


def test_a_near_block_under_the_minimum_logit_stays_out():
    assert grown({"near:entry": 2.0, "near:story": 2.9}) == [STORY.strip()] * 2
    assert grown({"near:entry": 2.0, "near:story": 3.0})[0] == LEAD


def test_a_near_block_under_the_bodys_mean_stays_out():
    assert grown({"near:entry": 6.0, "near:story": 5.9}) == [STORY.strip()] * 2
    assert grown({"near:entry": 6.0, "near:story": 6.0})[0] == LEAD


def test_link_text_short_blocks_and_blocks_after_the_body_never_join():
    blocks, _ = page()
    body = [blocks[k] for k in BODY]
    assert grow_candidates(blocks, body, replace(ExtractOptions(), grow_reach=6)) == [0, 1]
    assert AFTER not in grown({"near:entry": 5.0, "near:story": 9.0})


def test_a_block_beyond_the_reach_stays_out():
    blocks, _ = page()
    body = [blocks[k] for k in BODY]
    assert grow_candidates(blocks, body, replace(ExtractOptions(), grow_reach=1)) == [1]
    assert grow_candidates(blocks, body, replace(ExtractOptions(), grow_reach=2)) == [0, 1]
    assert grown({"near:entry": 5.0, "near:story": 5.0}, reach=1) == [STORY.strip()] * 2


def test_the_extraction_grows_the_body_unless_growth_is_off():
    html = f"""<html><body><nav><a href="/">Home</a></nav>
    <article class="entry-content"><p>{STAMP}</p><p>{STORY}</p><p>{STORY}</p></article>
    </body></html>"""
    model = ContextModel(0.0, weights={"near:entry": 5.0, "near:story": 5.0})
    on = replace(ExtractOptions(), context_model=model)
    assert STAMP not in main_text(html, options=replace(on, grow_reach=0))  # an edge's date
    assert main_text(html, options=on).startswith(STAMP)
