"""The extractor's speed paths give what the plain paths give: one query read by two steps,
the context model's logits without feature names (engine/html/blocks.py, extract.py,
context.py)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser

from engine.html.blocks import (
    LABELLED_SELECTOR,
    BlockOptions,
    drop_labelled,
    drop_useless,
    is_labelled,
    labelled_nodes,
    split_regions,
)
from engine.html.context import block_parts, bundled_model
from engine.html.extract import _BOX_SELECTOR, best_box, decode, is_box_candidate

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASES = json.loads((FIXTURES / "extract" / "cases.json").read_text("utf-8"))
WIDE = sorted((FIXTURES / "extract-wide").glob("*.html.gz"))
# Every mark either query reads, on elements of each kind, with and without them.
MARKS = (
    "<main><article>a</article><div role=main>b</div><section itemprop=articleBody>c</section>"
    "<div class=x id=y>d</div><div>e</div><p role=dialog>f</p><span aria-modal=true>g</span>"
    "<b id=h>i</b><i>j</i><section>k</section><div itemprop=text>l</div><p class>m</p></main>"
)


def pages() -> list[str]:
    extract = [
        decode(gzip.decompress((FIXTURES / "extract" / f"{c}.html.gz").read_bytes())) for c in CASES
    ]
    return [*extract, *(gzip.decompress(p.read_bytes()).decode("utf-8") for p in WIDE), MARKS]


def filtered(html: str):
    return drop_useless(LexborHTMLParser(html), BlockOptions())


def test_one_query_finds_the_box_candidates_and_the_labelled_elements_in_order():
    for html in pages():
        body = filtered(html)
        found = labelled_nodes(body)
        assert [(tag, attrs) for node, tag, attrs in found] == [
            (node.tag, node.attributes) for node, _, _ in found
        ]
        boxes = [node.mem_id for node, tag, attrs in found if is_box_candidate(tag, attrs)]
        assert boxes == [node.mem_id for node in body.css(_BOX_SELECTOR)], html[:80]
        labelled = [node.mem_id for node, _, attrs in found if is_labelled(attrs)]
        assert labelled == [node.mem_id for node in body.css(LABELLED_SELECTOR)], html[:80]


@pytest.mark.parametrize("refill", [0, 3])
def test_the_box_and_the_filtered_tree_are_the_same_from_the_shared_query(refill):
    for html in pages():
        alone, shared = filtered(html), filtered(html)
        box, tier = best_box(alone, refill=refill)
        found = labelled_nodes(shared)
        box2, tier2 = best_box(shared, refill=refill, found=found)
        assert tier2 == tier and (box is None) == (box2 is None), html[:80]
        assert box is None or box.html == box2.html
        kept = drop_labelled(alone, BlockOptions(), keep=box, within=box)
        kept2 = drop_labelled(shared, BlockOptions(), keep=box2, within=box2, found=found)
        assert (kept is None) == (kept2 is None)
        assert alone.html == shared.html, html[:80]


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
