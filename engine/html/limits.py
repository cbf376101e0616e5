"""How much of a page can be analysed within bounded memory and time, measured before parsing.

lexbor's tree costs about 300 bytes an element, and its parser is quadratic in
nesting depth (10k levels: 0.3 s, 20k: 1.2 s, 200k: minutes). So before a page is
parsed, one pass over its text estimates both: elements as start tags (``<`` not
followed by ``/`` or ``!``; C-speed counts), depth by a tag scan that ignores void
elements and those whose end tag is optional (their nesting is closed implicitly).
A page over ``max_elements`` or ``max_depth`` is not parsed at all; one over
``extract_elements`` is parsed once (fingerprint, links) but its text is not extracted.

>>> small = PageLimits(max_elements=100, max_depth=2)
>>> measure("<div><p>a<p>b<br></div>" * 3, small)
PageSize(elements=12, depth=1)
>>> cut_reason(measure("<div>" * 5000), PageLimits())
'nested more than 4096 levels deep'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.html.fingerprint import VOID_TAGS

START_TAG = re.compile(r"<(/?)([A-Za-z][^\s/>]*)")
# HTML §13.1.2 void elements, and elements whose end tag may be omitted (§13.1.2.4):
# neither nests the way an unclosed <div> does.
FLAT = VOID_TAGS | frozenset(
    [
        "p",
        "li",
        "dt",
        "dd",
        "option",
        "optgroup",
        "tr",
        "td",
        "th",
        "thead",
        "tbody",
        "tfoot",
        "colgroup",
        "caption",
        "rb",
        "rt",
        "rp",
        "html",
        "head",
        "body",
    ]
)

COMMON_FLAT = ("<br>", "<br ", "<br/", "<img ", "<input ", "<meta ", "<link ", "<hr", "<p>", "<li>")


@dataclass(frozen=True)
class PageLimits:
    """The most a registration analyses (measured: tests/bench/bench_hostile.py)."""

    max_elements: int = 1_000_000  # parse, fingerprint and rewrite: ~7 s and ~450 MB
    max_depth: int = 4_096  # browsers stop nesting far earlier (Chromium's parser: 512)
    extract_elements: int = 250_000  # main-text extraction (a second, heavier pass)


@dataclass(frozen=True)
class PageSize:
    """Estimated start tags and nesting depth of a page."""

    elements: int
    depth: int


def measure(text: str, limits: PageLimits | None = None) -> PageSize:
    """Estimate ``text``'s element count and depth; the depth scan stops past the limit."""
    limits = limits or PageLimits()
    elements = text.count("<") - text.count("</") - text.count("<!")
    if elements > limits.max_elements or elements <= limits.max_depth:
        return PageSize(elements, min(elements, limits.max_depth))
    bound = _depth_bound(text)
    if bound <= limits.max_depth:
        return PageSize(elements, bound)
    return PageSize(elements, _depth(text, limits.max_depth + 1))


def _depth_bound(text: str, step: int = 1 << 16) -> int:
    """An upper bound of the depth from substring counts per 64 KB (C speed): within a
    slice the depth can rise by at most its start tags, minus the common void/flat ones."""
    depth = peak = 0
    for start in range(0, len(text), step):
        piece = text[start : start + step].lower()
        closes = piece.count("</")
        opens = piece.count("<") - closes - piece.count("<!")
        opens -= sum(piece.count(tag) for tag in COMMON_FLAT)
        peak = max(peak, depth + opens)
        depth = max(depth + opens - closes, 0)
    return peak


def _depth(text: str, stop: int) -> int:
    depth = deepest = 0
    for match in START_TAG.finditer(text):
        if match.group(2).lower() in FLAT:
            continue
        if match.group(1):
            depth = max(depth - 1, 0)
            continue
        depth += 1
        if depth > deepest:
            deepest = depth
            if deepest >= stop:
                break
    return deepest


def cut_reason(size: PageSize, limits: PageLimits) -> str | None:
    """Why the page cannot be parsed within the limits, or None."""
    if size.elements > limits.max_elements:
        return f"about {size.elements} elements (limit {limits.max_elements})"
    if size.depth > limits.max_depth:
        return f"nested more than {limits.max_depth} levels deep"
    return None
