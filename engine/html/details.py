"""A product's details box, taken whole once the body holds a part of it.

A shop lays out a product's own text in one container named for its details
(``product-details``, ``product__detail-block``, ``detailBullets_feature_div``): the
description, then its feature list and its specifications, each in a branch of its own. The
body's sample grows from the largest of those branches and stops at the container's other
branches, whose short list items and lines are too short to join it one by one. When the
body holds a block inside such a container, the container's other blocks join it in page
order, unless the caller's test refuses them (link text, site notices). A container of more
than ``max_blocks`` blocks is a page-wide layout named "detail" (a whole product page's
wrapper, with its buy box, its reviews and its related items), not one product's details.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from selectolax.lexbor import LexborNode

from engine.html.blocks import Block

MARK = "detail"  # in a class or id, lower-cased: "productDetails", "details_x1", "store-detail"


@dataclass(frozen=True)
class DetailOptions:
    """Which containers are a product's details box (see :func:`with_details`)."""

    # A details container of more blocks than this is a page-wide layout, not one box
    # (Sweetwater's "store-detail" around its whole page): chosen by 5-fold cross-validation
    # by site on the wide tuning split among 35, 50, 80 and no bound.
    max_blocks: int = 80
    # A block shorter than this (a carousel's "Image 1 of 5", "sold out") does not join.
    min_chars: int = 0


def is_details(node: LexborNode) -> bool:
    """True when the element's class or id names details (see MARK).

    >>> from selectolax.lexbor import LexborHTMLParser
    >>> tree = LexborHTMLParser('<div class="Product-Details">a</div><div id="x">b</div>')
    >>> [is_details(n) for n in tree.css("div")]
    [True, False]
    """
    attrs = node.attributes
    label = f"{attrs.get('class') or ''} {attrs.get('id') or ''}"
    return MARK in label.lower()


def details_of(block: Block, regions: Sequence[LexborNode]) -> int:
    """The path id of the outermost details container around a block, 0 when none.

    >>> from selectolax.lexbor import LexborHTMLParser
    >>> tree = LexborHTMLParser('<div class="page"><div class="details"><p>a</p></div></div>')
    >>> regions = tree.css("div")
    >>> details_of(Block("a", 1, 0, "p", path=(1, 2)), regions), details_of(Block("b", 1, 0, "p", path=(1,)), regions)
    (2, 0)
    """
    for n in block.path:
        if is_details(regions[n - 1]):
            return n
    return 0


def with_details(
    blocks: list[Block],
    body: list[Block],
    regions: Sequence[LexborNode],
    keep: Callable[[Block], bool],
    options: DetailOptions,
) -> list[Block]:
    """The body with the other blocks of each details container it holds a block of, in
    page order; blocks that ``keep`` refuses stay out, and so does a container of more than
    ``options.max_blocks`` blocks.

    >>> from selectolax.lexbor import LexborHTMLParser
    >>> regions = LexborHTMLParser('<div class="product-details"></div><div></div>').css("div")
    >>> about = Block("A mug thrown by hand.", 21, 0, "p", path=(1,))
    >>> feature = Block("Dishwasher safe", 15, 0, "li", path=(1,))
    >>> other = Block("Related mugs", 12, 0, "p", path=(2,))
    >>> body = with_details([about, feature, other], [about], regions, lambda b: True, DetailOptions())
    >>> [b.text for b in body]
    ['A mug thrown by hand.', 'Dishwasher safe']
    """
    held = {details_of(b, regions) for b in body} - {0}
    if not held:
        return body
    members: dict[int, list[Block]] = {n: [] for n in held}
    for block in blocks:
        n = details_of(block, regions)
        if n in members:
            members[n].append(block)
    chosen = {id(b) for b in body}
    extra = [
        b
        for group in members.values()
        if len(group) <= options.max_blocks
        for b in group
        if id(b) not in chosen and b.chars >= options.min_chars and keep(b)
    ]
    if not extra:
        return body
    chosen.update(id(b) for b in extra)
    return [b for b in blocks if id(b) in chosen]
