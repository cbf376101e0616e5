"""More pairings for one class of pages: shops' product and collection pages and listings
(``bench_liveness.py --family real --split tune-class``).

The seeded constructions (``liveness_pairs.build_real``) pair each page with ONE random
sibling, so a shop's product page is seldom paired with another product of the same shop, and
its moved kinds are few (the sibling's content box must be found). Here every page of
``CLASS_TYPES`` is paired with EVERY sibling of its site (another title), in every kind but the
redirect to another site (a stranger says nothing of the class): the page's text in each
sibling's template, under its address and a new one; each sibling's teaser added; each sibling
served under the URL, as it is and under the page's title. The cases are built as
``liveness_pairs.real_case`` builds them and kept by the same rules (a gone case holds none of
the page's lines, a moved case all of them); each is marked ``seeded`` when one of the seeded
constructions of its split already built it. Building them takes about 20 s CPU, so they are not
kept on disk.

A shop's page often has no element holding ALL of its ground-truth lines but the body (the
product's name above the gallery, its description below it), so the page's text cannot be moved
into it. For such a sibling a WIDER box is taken (``box`` "wider", moved into the sibling's
template under its address only): the deepest element holding at least ``WIDER_SHARE`` of the
sibling's lines gets the page's text, and each of the sibling's other lines goes with the
deepest element holding it (every place it is written, scripts too); the case is dropped when
that element holds the box (the body does), or when a line of the sibling's own is still shown. What is left around the page's text is the
sibling's template and whatever of its own the ground truth did not hold (prices, cards,
specifications): the live page's main text may then be partly the new template's, as a
redesign into another product's layout makes it.
"""

from __future__ import annotations

import html
from collections import defaultdict

from liveness_pairs import (
    REAL_GONE,
    REAL_PRESENT,
    SITE_PAGES,
    RealPage,
    holds,
    holds_all,
    norm,
    own_address,
    page_text,
    real_case,
    sibling_template,
    split_of_site,
)
from selectolax.lexbor import LexborHTMLParser

CLASS_TYPES = ("product", "collection", "listing")
WIDER_SHARE = 0.6  # the wider box holds at least this share of the sibling's lines
CLASS_KINDS = tuple(k for k in REAL_PRESENT + REAL_GONE if k != "redirect_other_site")


def class_cases(
    pages: list[RealPage],
    split: str = "tune",
    types: tuple[str, ...] = CLASS_TYPES,
    seeded: frozenset = frozenset(),
) -> list[dict]:
    """Every page of ``split`` whose type is in ``types`` against every other-titled page of
    its site, in each of ``CLASS_KINDS``; ``seeded``: the (kind, page, other page) triples the
    seeded constructions built."""
    by_site = defaultdict(list)
    for page in pages:
        by_site[page.site].append(page)
    cases = []
    for page in pages:
        if page.page_type not in types or split_of_site(page.site) != split:
            continue
        for sibling in by_site[page.site]:
            if sibling is page or sibling.title == page.title:
                continue
            archived = [p for p in by_site[page.site] if p not in (page, sibling)][:SITE_PAGES]
            built = [class_case(kind, page, sibling) for kind in CLASS_KINDS]
            built.append(wider_case(page, sibling))
            for case in filter(None, built):
                triple = (case["kind"], page.cid, sibling.cid)
                cases.append({"box": "whole", **case, "split": split, "archived": archived,
                              "other": sibling.cid, "seeded": triple in seeded})  # fmt: skip
    return cases


def class_case(kind: str, page: RealPage, sibling: RealPage) -> dict | None:
    """One case of ``kind`` (None when the construction's rules drop it)."""
    live = real_case(kind, page, sibling, sibling)
    gone = kind in REAL_GONE
    if live is None or (gone and holds(live, page)):
        return None
    if kind.startswith("moved_") and not holds_all(live, page):
        return None
    return {"page": page, "kind": kind, "gone": gone, "status": 200, "live": live}


def wider_case(page: RealPage, sibling: RealPage) -> dict | None:
    """The page's text moved into the sibling's template through a wider box, only when the
    sibling has no box holding all its lines (else ``class_case`` builds it)."""
    if not page.full or sibling_template(page, sibling) is not None:
        return None
    live = wider_template(page, sibling)
    if live is None or not holds_all(live, page):
        return None
    return {"page": page, "kind": "moved_to_sibling_template", "gone": False, "status": 200,
            "live": live, "box": "wider"}  # fmt: skip


def wider_template(page: RealPage, sibling: RealPage) -> str | None:
    """The sibling's page with its wider box holding the page's lines and its other own lines
    removed; None when that cannot be done cleanly."""
    tree = LexborHTMLParser(sibling.text)
    box = deepest(tree.body, sibling.lines, WIDER_SHARE)
    if box is None or box.tag in ("body", "html"):
        return None
    own = [line for line in sibling.lines if line not in page.lines]
    for line in own:
        while line in norm(tree.body.text()):
            node = deepest(tree.body, [line], 1.0)
            if node is None or box.html in (node.html or ""):
                return None  # the line is the body's own text, or beside the box's
            node.decompose()
    box.inner_html = "".join(f"<p>{html.escape(line)}</p>" for line in page.lines)
    own_address(tree, LexborHTMLParser(page.text))
    # A line written across elements with no space between them ("<b>A</b><i>B</i>") is read
    # by the walk above as one word but shown as two: what is shown decides.
    shown = norm(page_text(tree.html))
    return None if any(line in shown for line in own) else tree.html


def deepest(node, lines: list[str], share: float):
    """The deepest element under ``node`` whose text holds at least ``share`` of ``lines``
    (None when ``node`` itself does not)."""
    need = max(1, round(len(lines) * share + 0.4999))
    if node is None or sum(line in norm(node.text()) for line in lines) < need:
        return None
    while True:
        for child in node.iter():
            if sum(line in norm(child.text()) for line in lines) >= need:
                node = child
                break
        else:
            return node
