"""The other panels of a tab set the body reads one panel of.

A page that lays its text out in tabs ("Description | Details | Item specifics" on a shop's
page, "Permits | Inspections" on a service page) prints every panel in its source and shows
one at a time. WAI-ARIA marks each panel ``role="tabpanel"`` (WAI-ARIA 1.2, "tabpanel";
Authoring Practices, "Tabs Pattern"), and the panels of one tab set share a parent. The
body's sample grows from one panel; the others sit on sibling branches it does not reach,
yet they are the same text's other parts.

Only the ARIA role marks a panel: class words ("tab-pane", "tab-content") also name the
panes of cookie-consent layers and site menus (see docs/tuning.md).
"""

from __future__ import annotations

from collections.abc import Callable

from selectolax.lexbor import LexborNode

from engine.html.blocks import Block

PANEL_ROLE = "tabpanel"


def may_hold_tabs(html: str) -> bool:
    """False when the page's source names no tab panel (most pages: nothing is read).

    >>> may_hold_tabs('<div role="tabpanel">'), may_hold_tabs("<p>Tables</p>")
    (True, False)
    """
    return PANEL_ROLE in html


def is_tab_panel(node: LexborNode) -> bool:
    """An element whose ARIA role is ``tabpanel``.

    >>> from selectolax.lexbor import LexborHTMLParser
    >>> page = LexborHTMLParser('<div role="TabPanel">a</div><div class="tab-pane">b</div>')
    >>> [is_tab_panel(n) for n in page.css("div")]
    [True, False]
    """
    return (node.attributes.get("role") or "").strip().lower() == PANEL_ROLE


def tab_sets(blocks: list[Block], regions: list[LexborNode]) -> dict[int, int]:
    """The tab panels the blocks lie in: {region number of a panel (see
    ``blocks.split_regions``): ``mem_id`` of its parent, the tab set}."""
    panels: dict[int, int] = {}
    seen: set[int] = set()
    for block in blocks:
        for n in block.path:
            if n in seen:
                continue
            seen.add(n)
            node = regions[n - 1]
            if node.parent is not None and is_tab_panel(node):
                panels[n] = node.parent.mem_id
    return panels


def with_tab_panels(
    blocks: list[Block],
    body: list[Block],
    regions: list[LexborNode],
    keep: Callable[[Block], bool],
) -> list[Block]:
    """The body with the blocks of the other panels of each tab set it holds a panel of, in
    page order; of those, only blocks ``keep`` accepts (not link lists, not site notices).

    >>> from selectolax.lexbor import LexborHTMLParser
    >>> from engine.html.blocks import split_regions
    >>> page = LexborHTMLParser('<div><div role="tabpanel"><p>Made of steel, 44 mm wide.</p></div>'
    ...     '<div role="tabpanel"><p>Water resistant to 50 metres.</p></div></div><p>Sign up today.</p>')
    >>> blocks, _, regions = split_regions(page.body, None)
    >>> [b.text for b in with_tab_panels(blocks, blocks[:1], regions, lambda b: True)]
    ['Made of steel, 44 mm wide.', 'Water resistant to 50 metres.']
    """
    panels = tab_sets(blocks, regions)
    held = {panels[n] for b in body for n in b.path if n in panels}
    if not held:
        return body
    ids = {id(b) for b in body}
    return [
        b
        for b in blocks
        if id(b) in ids or (keep(b) and any(panels.get(n) in held for n in b.path))
    ]
