"""A second, independent body: Arc90 Readability's scoring of the page's paragraphs, read from
the blocks the extraction already cut (no second parse).

Readability (Arc90, 2009; readability-lxml's ``Document.score_paragraphs``) gives each
paragraph of 25+ characters 1 point, 1 per comma and 1 per 100 characters (at most 3), adds
that to its parent element and half of it to its grandparent, starts each such element at a
score of its tag and class/id words, scales it by one minus its link density, and takes the
best element with those of its siblings that score at least a fifth of it. It looks for the
densest paragraphs' common parent, where our body is grown from the largest blocks: the two
miss in different places, so where they disagree in a way a rule can tell, the other one is
evidence (see :func:`engine.html.extract.readable_switch`).

>>> from selectolax.lexbor import LexborHTMLParser
>>> from engine.html.blocks import split_regions
>>> html = ('<div class="menu"><p>Home | News | Sport | Weather | About us</p></div>'
...         '<div class="story"><p>' + "Words, words and more words. " * 8 + '</p>'
...         '<p>' + "A second paragraph, of the story. " * 6 + '</p></div>')
>>> blocks, _, regions = split_regions(LexborHTMLParser(html).body, None)
>>> [b.text[:9] for b in readable_body(blocks, regions)]
['Words, wo', 'A second ']
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from selectolax.lexbor import LexborNode

from engine.html.blocks import Block

# readability-lxml's regexes for class/id words (REGEXES "negativeRe", "positiveRe").
NEGATIVE = re.compile(
    r"combx|comment|com-|contact|foot|footer|footnote|masthead|media|meta|outbrain|promo|"
    r"related|scroll|shoutbox|sidebar|sponsor|shopping|tags|tool|widget",
    re.I,
)
POSITIVE = re.compile(
    r"article|body|content|entry|hentry|main|page|pagination|post|text|blog|story", re.I
)
# readability-lxml's initial score of an element by its tag (Document.score_node).
TAG_SCORES = {
    "div": 5.0, "pre": 3.0, "td": 3.0, "blockquote": 3.0,
    "address": -3.0, "ol": -3.0, "ul": -3.0, "dl": -3.0, "dd": -3.0, "dt": -3.0,
    "li": -3.0, "form": -3.0,
    "h1": -5.0, "h2": -5.0, "h3": -5.0, "h4": -5.0, "h5": -5.0, "h6": -5.0, "th": -5.0,
}  # fmt: skip
# The elements whose text readability scores as a paragraph (a <div> holding text directly
# counts, as readability turns such a div into a <p>).
SCORED = frozenset(("p", "pre", "td", "div"))
SENTENCE = re.compile(r"\.( |$)")


@dataclass(frozen=True)
class ReadableOptions:
    """readability-lxml's constants (not tuned here).

    >>> ReadableOptions().min_paragraph_chars
    25
    """

    min_paragraph_chars: int = 25  # shorter paragraphs are not scored
    class_weight: float = 25.0  # a positive or negative class (and id) word
    sibling_share: float = 0.2  # a sibling joins at this share of the top score ...
    sibling_min_score: float = 10.0  # ... and at least this score
    sibling_paragraph_chars: int = 80  # a sibling <p> this long joins if its links are few
    sibling_paragraph_density: float = 0.25


def class_weight(node: LexborNode, weight: float) -> float:
    """readability's class/id weight of an element: ±weight for its class, ±weight for its id.

    >>> from selectolax.lexbor import LexborHTMLParser
    >>> node = LexborHTMLParser('<div class="entry-content" id="sidebar">x</div>').css_first("div")
    >>> class_weight(node, 25.0)
    0.0
    """
    attrs = node.attributes
    score = 0.0
    for value in (attrs.get("class"), attrs.get("id")):
        if value:
            score -= weight if NEGATIVE.search(value) else 0.0
            score += weight if POSITIVE.search(value) else 0.0
    return score


def paragraph_score(block: Block) -> float:
    """1, plus one per comma, plus one per 100 characters (at most 3).

    >>> paragraph_score(Block("a, b, c" + "x" * 300, 307, 0, "p"))
    6.0
    """
    return 1.0 + block.text.count(",") + min(block.chars // 100, 3)


def candidate_scores(
    blocks: list[Block], regions: list[LexborNode], options: ReadableOptions
) -> dict[int, float]:
    """Each parent and grandparent of a scored paragraph (by region number) with its score,
    before the link density."""
    scores: dict[int, float] = {}
    for block in blocks:
        path = block.path
        if block.tag not in SCORED or block.chars < options.min_paragraph_chars or len(path) < 2:
            continue
        points = paragraph_score(block)
        for up, share in ((2, 1.0), (3, 0.5)):
            if len(path) < up:
                break
            n = path[-up]
            if n not in scores:
                node = regions[n - 1]
                scores[n] = TAG_SCORES.get(node.tag, 0.0) + class_weight(node, options.class_weight)
            scores[n] += points * share
    return scores


def link_densities(blocks: list[Block], wanted: dict[int, float]) -> dict[int, float]:
    """Share of link text under each wanted region element."""
    chars: dict[int, int] = dict.fromkeys(wanted, 0)
    links: dict[int, int] = dict.fromkeys(wanted, 0)
    for block in blocks:
        for n in block.path:
            if n in chars:
                chars[n] += block.chars
                links[n] += block.link_chars
    return {n: links[n] / chars[n] if chars[n] else 0.0 for n in chars}


def sibling_paragraph(block: Block, options: ReadableOptions) -> bool:
    """A sibling <p> readability joins on its own: long with few links, or a short sentence
    without links."""
    if block.tag != "p":
        return False
    density = block.link_density
    if block.chars > options.sibling_paragraph_chars:
        return density < options.sibling_paragraph_density
    return density == 0 and SENTENCE.search(block.text) is not None


def readable_body(
    blocks: list[Block], regions: list[LexborNode], options: ReadableOptions | None = None
) -> list[Block]:
    """The blocks of readability's article: the best-scored element and its siblings that
    score well, in page order; [] when no paragraph scores."""
    options = options or ReadableOptions()
    scores = candidate_scores(blocks, regions, options)
    if not scores:
        return []
    densities = link_densities(blocks, scores)
    final = {n: s * (1.0 - densities[n]) for n, s in scores.items()}
    top = max(final, key=final.__getitem__)
    bar = max(options.sibling_min_score, options.sibling_share * final[top])
    depth = next(b.path.index(top) for b in blocks if top in b.path)
    prefix = next(b.path[:depth] for b in blocks if top in b.path)
    body = []
    for block in blocks:
        path = block.path
        if len(path) <= depth or path[:depth] != prefix:
            continue
        n = path[depth]
        joins = n == top or final.get(n, -1.0) >= bar
        if joins or (len(path) == depth + 1 and sibling_paragraph(block, options)):
            body.append(block)
    return body
