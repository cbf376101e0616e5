"""Keyboard adjacency for QWERTY, QWERTZ and AZERTY, used to weigh typos.

A key's neighbours are the keys left/right on its row and the keys touching
it on the rows above and below (rows are staggered by half a key).

>>> is_adjacent("g", "f")
True
>>> is_adjacent("g", "p")
False
"""

from __future__ import annotations

from functools import cache

LAYOUTS = {
    "qwerty": ("1234567890-", "qwertyuiop", "asdfghjkl", "zxcvbnm"),
    "qwertz": ("1234567890-", "qwertzuiop", "asdfghjkl", "yxcvbnm"),
    "azerty": ("1234567890-", "azertyuiop", "qsdfghjklm", "wxcvbn"),
}


def _row_neighbours(rows: tuple[str, ...]) -> dict[str, set[str]]:
    near: dict[str, set[str]] = {}
    for r, row in enumerate(rows):
        for i, ch in enumerate(row):
            found = near.setdefault(ch, set())
            found.update(row[j] for j in (i - 1, i + 1) if 0 <= j < len(row))
            for other in (r - 1, r + 1):
                if 0 <= other < len(rows):
                    found.update(rows[other][j] for j in (i - 1, i) if 0 <= j < len(rows[other]))
                    if other == r - 1 and i + 1 < len(rows[other]):
                        found.add(rows[other][i + 1])
    return near


@cache
def neighbours(layout: str = "any") -> dict[str, frozenset[str]]:
    """Neighbour sets per key; ``any`` merges the three layouts.

    >>> "w" in neighbours("azerty")["a"]
    False
    >>> "z" in neighbours("azerty")["a"]
    True
    """
    names = LAYOUTS if layout == "any" else (layout,)
    merged: dict[str, set[str]] = {}
    for name in names:
        for key, near in _row_neighbours(LAYOUTS[name]).items():
            merged.setdefault(key, set()).update(near)
    return {key: frozenset(near - {key}) for key, near in merged.items()}


def is_adjacent(a: str, b: str, layout: str = "any") -> bool:
    """True when ``a`` and ``b`` are neighbouring keys on the layout."""
    return b in neighbours(layout).get(a, ())


# The national layouts by browser language, a region overriding its language:
# AZERTY in France and Belgium, QWERTZ in German-speaking and most Central
# European countries (Swiss and Luxembourg French too), QWERTY elsewhere
# (Canadian French included).
BY_LANGUAGE = {
    **dict.fromkeys(("fr", "br", "oc", "co"), "azerty"),
    **dict.fromkeys(("de", "cs", "sk", "hu", "sl", "hr", "bs", "sq", "lb", "rm"), "qwertz"),
}
BY_REGION = {
    **dict.fromkeys(("fr-be", "nl-be"), "azerty"),
    **dict.fromkeys(("fr-ch", "fr-lu", "it-ch"), "qwertz"),
    "fr-ca": "qwerty",
}


def layout_for_languages(languages: tuple[str, ...]) -> str:
    """The likely layout from the browser's first language; ``any`` without one.

    >>> layout_for_languages(("de-DE", "en")), layout_for_languages(("fr-CA",))
    ('qwertz', 'qwerty')
    >>> layout_for_languages(("fr",)), layout_for_languages(())
    ('azerty', 'any')
    """
    first = (languages[0] if languages else "").strip().lower().replace("_", "-")
    if not first or first == "*":
        return "any"
    region = "-".join(first.split("-")[:1] + first.split("-")[-1:])
    return BY_REGION.get(region) or BY_LANGUAGE.get(first.split("-")[0], "qwerty")
