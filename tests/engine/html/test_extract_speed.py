"""The extractor's speed paths give what the plain paths give: the article container's
narrowed query, the context model's logits without feature names (engine/html/extract.py,
context.py)."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from engine.html.blocks import split_regions
from engine.html.context import block_parts, bundled_model
from engine.html.extract import (
    _BOX_SELECTOR,
    _TIER_SELECTOR,
    BOX_TIERS,
    best_box,
    box_tier,
    decode,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASES = json.loads((FIXTURES / "extract" / "cases.json").read_text("utf-8"))
WIDE = sorted((FIXTURES / "extract-wide").glob("*.html.gz"))
# Candidates of every tier and of none: each mark in a class or an id, in any case, inside a
# longer word, the non-ASCII letters whose lower case is ASCII, itemprop and role.
LABELS = [
    *(f"<div class='{w}'>{w}</div>" for w in ("Post-Body", "xENTRYx", "single-post", "CONTAINER")),
    *(
        f"<section id='{w}'>{w}</section>"
        for w in ("content", "TextBox", "foo_body", "art-content")
    ),
    "<div class='row'>r</div><section id='nav'>n</section><div>plain</div><div class=''>e</div>",
    "<div class='\u0130ntro'>i</div><div class='\u212aontent'>k</div><div id='cont\u0130ner'>c</div>",
    "<div itemprop='articleBody'>a</div><div itemprop='name'>b</div><div role='main'>m</div>",
    "<section role='article'>s</section><div role='banner'>x</div><main>m</main><article>t</article>",
]
MARKS = "<main>" + "".join(LABELS) + "</main>"


def pages() -> list[str]:
    extract = [
        decode(gzip.decompress((FIXTURES / "extract" / f"{c}.html.gz").read_bytes())) for c in CASES
    ]
    return [*extract, *(gzip.decompress(p.read_bytes()).decode("utf-8") for p in WIDE), MARKS]


def test_the_narrowed_query_finds_every_candidate_that_can_have_a_tier_in_order():
    for html in pages():
        body = LexborHTMLParser(html).body
        tiered = [
            node.mem_id
            for node in body.css(_BOX_SELECTOR)
            if box_tier(node.tag or "", node.attributes) < BOX_TIERS
        ]
        narrowed = [node.mem_id for node in body.css(_TIER_SELECTOR)]
        assert set(tiered) <= set(narrowed), html[:80]
        assert [n for n in narrowed if n in set(tiered)] == tiered
        assert set(narrowed) <= {node.mem_id for node in body.css(_BOX_SELECTOR)}
    # MARKS: four labels with a tier word or "content", articleBody, two roles, two <main>s and
    # the <article>; a mark alone ("xENTRYx", "TextBox") gives no tier
    assert len(tiered) == 10


def test_the_box_is_the_same_from_the_narrowed_query():
    for html in pages():
        body = LexborHTMLParser(html).body
        for refill in (0, 3):
            box, tier = best_box(body, BOX_TIERS, refill)
            wide, wide_tier = best_box(body, BOX_TIERS + 1, refill)  # every candidate read
            assert tier == min(wide_tier, BOX_TIERS), html[:80]
            if wide_tier < BOX_TIERS:
                assert box is not None and wide is not None and box.mem_id == wide.mem_id
    # A caller that lets tier BOX_TIERS count reads every candidate: a bare labelled <div>.
    plain = LexborHTMLParser("<div class='row'>Only a row here.</div>").body
    assert best_box(plain, BOX_TIERS + 1)[1] == BOX_TIERS


def test_the_logits_add_each_blocks_weights_in_the_order_of_its_features():
    # The same floats added in the same order: equal, not only close.
    model = bundled_model()
    assert model is not None
    for path in WIDE:
        tree = LexborHTMLParser(gzip.decompress(path.read_bytes()).decode("utf-8"))
        blocks, _, regions = split_regions(tree.body, None)
        get = model.weights.get
        plain = [
            model.bias + sum(get(f, 0.0) for f in far) + sum(get(f, 0.0) for f in own)
            for own, far in block_parts(blocks, regions)
        ]
        assert model.logits(blocks, regions) == plain, path.name


class CountedWeights(dict):
    """The model's weights, counting each look-up by name."""

    def __init__(self, weights: dict) -> None:
        super().__init__(weights)
        self.asked: Counter = Counter()

    def get(self, key, default=None):
        self.asked[key] += 1
        return super().get(key, default)


def test_the_logits_look_each_weight_up_once_a_page_and_each_far_list_once():
    """The speed path's rule: a near word's weight is looked up once a page however many
    blocks have it; a far list shared by the blocks under one path prefix is summed once; and
    a block's own (shape, repeat, ``in``) features are summed once for each set of what
    decides them, so blocks alike in those ask no weight again."""
    model = bundled_model()
    assert model is not None
    for path in WIDE:
        tree = LexborHTMLParser(gzip.decompress(path.read_bytes()).decode("utf-8"))
        blocks, _, regions = split_regions(tree.body, None)
        parts = block_parts(blocks, regions)
        near = {name for own, _ in parts for name in own if name.startswith("near:")}
        own = [[name for name in names if not name.startswith("near:")] for names, _ in parts]
        shared = {id(far): far for _, far in parts}.values()
        counted = CountedWeights(model.weights)
        replace(model, weights=counted).logits(blocks, regions)
        asked = {name: n for name, n in counted.asked.items() if name.startswith("near:")}
        assert asked == dict.fromkeys(near, 1), path.name
        far = sum(n for name, n in counted.asked.items() if name.startswith("far:"))
        assert far == sum(map(len, shared)), path.name
        own_asked = sum(counted.asked.values()) - far - len(near)
        alike = {tuple(names) for names in own}
        assert sum(map(len, alike)) <= own_asked < sum(map(len, own)), path.name
        assert len(parts) > len(shared)  # the page has far lists shared by several blocks
