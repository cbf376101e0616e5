"""The context model of the body's blocks: its features, its decision, and its place in the
extraction (engine/html/context.py)."""

from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser

from engine.html import context
from engine.html.blocks import Block, split_regions
from engine.html.context import (
    ContextModel,
    block_features,
    bundled_model,
    label_words,
    main_container,
    node_words,
    repeat_features,
    repeat_keys,
    story_share,
)
from engine.html.extract import ExtractOptions, main_text

STORY = "The council voted on Tuesday to reopen the old bridge to walkers and cyclists. " * 3

PAGE = f"""<html><body><div class="entry-content">
<p>{STORY}</p><p>{STORY}</p>
<div class="reply-list"><div class="reply-body"><p>Great post, thanks!</p></div>
<div class="reply-body"><p>I walk over it every day.</p></div></div>
</div></body></html>"""


def body_of(html: str) -> tuple[list[Block], list]:
    tree = LexborHTMLParser(html)
    blocks, _, regions = split_regions(tree.body, None)
    return blocks, regions


def test_class_and_id_words_are_whole_letter_runs_of_three_or_more():
    assert label_words("div", "Comment-Body post-4955 mx-auto") == (
        "@div",
        "comment",
        "body",
        "post",
        "auto",
    )
    assert label_words("li", "") == ("@li",)


def test_a_region_elements_words_are_its_label_words_cached_by_tag_and_label():
    tree = LexborHTMLParser(
        '<div class="Post-Body x1" id="main">a</div><section class="Post-Body x1" id="main">b'
        '</section><div class="Post-Body x1" id="main">c</div><div class="other">d</div>'
    )
    first, section, again, other = tree.css("div, section")
    assert node_words(first) == label_words("div", "Post-Body x1 main")
    assert node_words(section) == ("@section", "post", "body", "main")  # the tag is in the key
    assert node_words(again) is node_words(first)  # the cached tuple
    assert node_words(other) == ("@div", "other")


def test_the_region_words_cache_is_cleared_when_full(monkeypatch):
    monkeypatch.setattr(context, "_NODE_WORDS", {})
    monkeypatch.setattr(context, "_NODE_WORDS_MAX", 2)
    labels = "".join(f'<p class="w{n}">x</p>' for n in range(1, 6))  # one tag, five labels
    tree = LexborHTMLParser(labels + "".join(f"<h{n}>y</h{n}>" for n in range(1, 6)))
    for node in tree.css("p, h1, h2, h3, h4, h5"):
        words = node_words(node)
        assert words == label_words(node.tag, f"{node.attributes.get('class') or ''} ")
        assert len(context._NODE_WORDS) <= 2
        assert all(len(known) <= 2 for known in context._NODE_WORDS.values())


def test_a_block_reads_the_words_of_its_own_element_and_the_two_around_it_as_near():
    blocks, regions = body_of(PAGE)
    feats = block_features(blocks, regions)
    story, note = feats[0], feats[2]
    assert "near:entry" in story and "near:reply" not in story
    assert {"near:reply", "near:body", "near:list"} <= set(note)
    # the page's wrapper is three elements above the comment's paragraph: far context
    assert "far:entry" in note and "near:entry" not in note


def test_the_main_container_is_the_deepest_element_holding_most_of_the_body():
    blocks, _ = body_of(PAGE)
    main = main_container(blocks)
    assert all(b.path[: len(main)] == main for b in blocks)
    feats = block_features(*body_of(PAGE))
    assert "in:1" in feats[0]
    inner = Block("x" * 70, 70, 0, "p", path=(1, 2, 3))
    outer = Block("y" * 30, 30, 0, "p", path=(1, 4))
    assert main_container([inner, outer], share=0.6) == (1, 2)
    assert main_container([inner, outer], share=0.75) == (1,)
    assert main_container([inner, outer], share=0.7) == (1, 2)  # exactly the share holds it


def test_a_structure_repeated_under_other_parents_is_counted():
    one = Block("a", 1, 0, "p", path=(1, 2, 3))
    two = Block("b", 1, 0, "p", path=(1, 4, 5))
    sib = Block("c", 1, 0, "p", path=(1, 2, 6))
    assert repeat_features([one, two], [("k",), ("k",)]) == ["rep:1", "rep:1"]
    assert repeat_features([one, sib], [("k",), ("k",)]) == ["rep:0", "rep:0"]
    assert repeat_features([one, two], [("k",), ("j",)]) == ["rep:0", "rep:0"]


def test_repeats_are_bucketed_by_the_other_parents_one_two_and_five():
    # Buckets of how many other parents hold the structure: 0, 1, 2-4, 5 or more.
    def under(parents: int) -> str:
        body = [Block("x", 1, 0, "p", path=(1, n, 100 + n)) for n in range(2, 2 + parents)]
        return repeat_features(body, [("k",)] * parents)[0]

    assert [under(n) for n in (1, 2, 3, 5, 6, 9)] == [
        "rep:0",
        "rep:1",
        "rep:2",
        "rep:2",
        "rep:3",
        "rep:3",
    ]


def test_a_blocks_structure_key_is_the_words_of_its_element_and_its_parents():
    words = {1: ("@div", "thread"), 2: ("@div", "reply"), 3: ("@p",), 4: ("@div", "reply")}
    deep = Block("a", 1, 0, "p", path=(1, 2, 3))
    other = Block("b", 1, 0, "p", path=(1, 4, 3))
    top = Block("c", 1, 0, "p", path=(2,))
    bare = Block("d", 1, 0, "p", path=())
    assert repeat_keys([deep, other, top, bare], words) == [
        (("@div", "reply"), ("@p",)),
        (("@div", "reply"), ("@p",)),
        (("@div", "reply"),),
        (),
    ]
    assert repeat_keys([Block("e", 1, 0, "p", path=(1, 9))], words) == [(("@div", "thread"), ())]


def test_blocks_of_one_template_under_other_parents_repeat():
    # The two replies are one template (the same element names and class words) under two
    # parents; the story's paragraphs share one parent.
    feats = block_features(*body_of(PAGE))
    assert [f for fs in feats for f in fs if f.startswith("rep:")] == [
        "rep:0",
        "rep:0",
        "rep:1",
        "rep:1",
    ]


def test_a_block_far_under_the_body_mean_goes():
    model = ContextModel(0.0, margin=2.0, floor=0.5)
    assert model.decide([3.0, 3.0, 0.5], [100, 100, 10]) == [True, True, True]
    assert model.decide([3.0, 3.0, -0.5], [100, 100, 10]) == [True, True, False]


def test_a_block_scoring_over_the_floor_stays_whatever_the_mean():
    model = ContextModel(0.0, margin=2.0, floor=0.5)
    assert model.decide([9.0, 9.0, 0.1], [100, 100, 10]) == [True, True, True]
    assert model.decide([9.0, 9.0, -0.1], [100, 100, 10]) == [True, True, False]


def test_nothing_goes_when_the_blocks_dropped_would_hold_most_of_the_body():
    model = ContextModel(0.0, margin=1.0, floor=0.01, max_drop=0.5)
    assert model.decide([5.0, -5.0], [40, 60]) == [True, True]
    assert model.decide([5.0, -5.0], [60, 40]) == [True, False]


def test_a_body_under_the_gate_is_not_scored():
    blocks, regions = body_of(PAGE)
    model = ContextModel(0.0, weights={"near:reply": -20.0}, margin=1.0, floor=0.5)
    assert [b.text for b in model.keep(blocks, regions)] == [STORY.strip()] * 2
    share = story_share(blocks)
    assert 0.9 < share < 1.0
    gated = replace(model, gate=share + 0.01)
    assert model.keep(blocks, regions) != blocks
    assert gated.keep(blocks, regions) == blocks


def test_the_extraction_drops_what_the_model_judges_not_main_text():
    model = ContextModel(0.0, weights={"near:reply": -20.0}, margin=1.0, floor=0.5)
    without = main_text(PAGE, options=replace(ExtractOptions(), context_model=None))
    assert "Great post" in without
    text = main_text(PAGE, options=replace(ExtractOptions(), context_model=model))
    assert "Great post" not in text and "walk over it" not in text
    assert text.count("reopen the old bridge") == 6


def test_the_bundled_model_is_the_default_and_reads_context_words():
    model = bundled_model()
    assert model is not None and ExtractOptions().context_model == model
    assert model.weights and all(
        f.split(":", 1)[0]
        in {"tag", "len", "link", "end", "share", "rep", "in", "in0", "in1", "near", "far"}
        for f in model.weights
    )


WIDE_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "extract-wide"


def wide_page(page_id: str) -> str:
    """A real page of the wide extraction set (see tests/fixtures/extract-wide/README.md)."""
    return gzip.decompress((WIDE_FIXTURES / f"{page_id}.html.gz").read_bytes()).decode("utf-8")


def test_the_bundled_model_drops_a_sign_up_pitch_inside_a_story():
    # ottawacitizen.com (the Fundus corpus's test page, MIT): the ePaper sign-up pitch sits
    # inside the story; with its "hidden" class made responsive (md:block) the hidden rule
    # keeps it, and the model, reading the box it sits in, drops it.
    html = wide_page("fundus-ca-OttawaCitizen-V1")
    html = html.replace("intro-body__register hidden", "intro-body__register hidden md:block")
    pitch = "Ottawa Citizen ePaper, an electronic replica of the print edition"
    story = "the federal immigration department gave up 12 floors of real estate"
    assert pitch in main_text(html, options=ExtractOptions(context_model=None))
    body = main_text(html)
    assert story in body and pitch not in body


def test_the_fast_logits_are_the_weights_of_the_block_features():
    # A far word list shared by blocks under one path prefix is summed once: the sums must
    # be those of every block's own features (a real page, the bundled weights).
    model = bundled_model()
    assert model is not None
    tree = LexborHTMLParser(wide_page("readability-wordpress"))
    blocks, _, regions = split_regions(tree.body, None)
    slow = [
        model.bias + sum(model.weights.get(f, 0.0) for f in feats)
        for feats in block_features(blocks, regions)
    ]
    assert len(blocks) > 50
    assert model.logits(blocks, regions) == pytest.approx(slow, abs=1e-9)
    assert len(set(map(round, slow))) > 3  # the page's blocks differ in context


def test_a_block_that_ends_a_sentence_has_the_sentence_end_feature():
    def end(text: str) -> str:
        return context.shape_features(Block(text, len(text), 0, "p"), 0.3)[3]

    assert end("The bridge reopens to walkers today.") == "end:1"
    assert end("Is it open?") == "end:1"
    assert end("Read more") == "end:0" and end("") == "end:0"  # no text: no sentence end


def test_a_regions_words_are_its_tag_and_the_words_of_its_class_and_its_id():
    def words(html: str) -> tuple[str, ...]:
        return context.node_words(LexborHTMLParser(html).body.child)

    assert words("<div class='post-body' id='Comments'>x</div>") == (
        "@div",
        "post",
        "body",
        "comments",
    )
    assert words("<section id='comments'>x</section>") == ("@section", "comments")
    assert words("<div class='sidebar'>x</div>") == ("@div", "sidebar")
    assert words("<div>x</div>") == ("@div",)
