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
"""

from __future__ import annotations

from collections import defaultdict

from liveness_pairs import (
    REAL_GONE,
    REAL_PRESENT,
    SITE_PAGES,
    RealPage,
    holds,
    holds_all,
    real_case,
    split_of_site,
)

CLASS_TYPES = ("product", "collection", "listing")
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
            for kind in CLASS_KINDS:
                case = class_case(kind, page, sibling)
                if case is not None:
                    triple = (kind, page.cid, sibling.cid)
                    cases.append({**case, "split": split, "archived": archived,
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
