"""How likely one string is a mistyping of another: a weighted edit cost.

Plain Levenshtein counts every edit as 1. Real typos are not uniform: a key
next to the intended one, a doubled or dropped doubled letter, two swapped
letters, a stray hyphen and ``0``/``o`` look-alikes are far more common than a
random letter. The cost below is lower for those, so ranking by it (with
popularity) picks the domain the user most likely meant.

>>> typo_cost("gogle", "google") < typo_cost("gaogle", "google")
True
>>> typo_cost("google", "google")
0.0
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.urls.keyboard import neighbours

VOWELS = frozenset("aeiouy")
# Characters that look alike in a URL bar (digits for letters and back).
LOOKALIKES = frozenset(
    {("0", "o"), ("1", "l"), ("1", "i"), ("l", "i"), ("3", "e"), ("5", "s"), ("4", "a")}
    | {("8", "b"), ("9", "g"), ("7", "t"), ("2", "z"), ("6", "b"), ("u", "v")}
)


@dataclass(frozen=True)
class TypoCosts:
    """Cost of each kind of edit; 1.0 is a random substitution."""

    transposition: float = 0.55
    lookalike: float = 0.35
    adjacent: float = 0.5
    vowel: float = 0.6
    substitution: float = 1.0
    repetition: float = 0.4
    hyphen: float = 0.3
    adjacent_insertion: float = 0.55
    insertion: float = 0.9
    doubled_omission: float = 0.45
    omission: float = 0.7


DEFAULT_COSTS = TypoCosts()


def _is_lookalike(a: str, b: str) -> bool:
    return (a, b) in LOOKALIKES or (b, a) in LOOKALIKES


def _replace_cost(a: str, b: str, close: frozenset | tuple, costs: TypoCosts) -> float:
    """``a`` typed for ``b``; ``close``: the keys next to ``a``. A look-alike first (0
    and o are also neighbours), then a neighbouring key, then two vowels."""
    if _is_lookalike(a, b):
        return costs.lookalike
    if b in close:
        return costs.adjacent
    if a in VOWELS and b in VOWELS:
        return costs.vowel
    return costs.substitution


def _extra_cost(typed: str, i: int, near: dict, costs: TypoCosts) -> float:
    """The user typed ``typed[i]`` that should not be there."""
    ch = typed[i]
    around = typed[i - 1 : i] + typed[i + 1 : i + 2]
    if ch == "-" or ch == ".":
        return costs.hyphen
    if ch in around:
        return costs.repetition
    if any(ch in near.get(c, ()) for c in around):
        return costs.adjacent_insertion
    return costs.insertion


def _missing_cost(meant: str, j: int, costs: TypoCosts) -> float:
    """The user left out ``meant[j]``."""
    ch = meant[j]
    if ch == "-" or ch == ".":
        return costs.hyphen
    if ch in meant[j - 1 : j] + meant[j + 1 : j + 2]:
        return costs.doubled_omission
    return costs.omission


def typo_cost(
    typed: str, meant: str, layout: str = "any", costs: TypoCosts = DEFAULT_COSTS
) -> float:
    """Weighted edit cost of typing ``meant`` as ``typed`` (0 when equal): the cheapest
    alignment, each edit priced by its kind in context (an OSA alignment: an adjacent
    swap is one edit).

    >>> round(typo_cost("goolge", "google"), 2)  # one transposition
    0.55
    >>> round(typo_cost("ymigg", "yimg"), 2)  # a swap and a doubled letter
    0.95
    """
    if typed == meant:
        return 0.0
    n, k = len(typed), len(meant)
    # The typo lies between the common prefix and suffix; one letter of each is kept in
    # the alignment, and every rule reads its neighbours in the whole strings.
    head = 0
    while head < n and head < k and typed[head] == meant[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < k - head and typed[n - 1 - tail] == meant[k - 1 - tail]:
        tail += 1
    head, tail = max(0, head - 1), max(0, tail - 1)
    return _aligned(typed, meant, head, tail, neighbours(layout), costs)


def _aligned(typed: str, meant: str, head: int, tail: int, near: dict, costs: TypoCosts) -> float:
    """The weighted OSA distance of ``typed[head:-tail]`` to ``meant[head:-tail]`` (a
    dynamic programme over the differing middle; the cheapest of all alignments, where
    one alignment picked by edit count may cost more: ``yaaho`` for yahoo is a doubled
    and a dropped letter, 0.85, not two replacements, 2.0).

    >>> round(_aligned("yaaho", "yahoo", 0, 0, neighbours("any"), DEFAULT_COSTS), 2)
    0.85
    """
    cols = range(head, len(meant) - tail)
    missing = [_missing_cost(meant, j, costs) for j in cols]
    before: list[float] = []
    above = [0.0]
    for cost in missing:
        above.append(above[-1] + cost)
    swap, previous = costs.transposition, typed[head - 1] if head else ""
    for i in range(head, len(typed) - tail):
        ch, drop, close = typed[i], _extra_cost(typed, i, near, costs), near.get(typed[i], ())
        row = [above[0] + drop]
        left = above[0] + drop
        for c, j in enumerate(cols):
            want = meant[j]
            if ch == want:
                best = above[c]
            else:
                best = above[c] + _replace_cost(ch, want, close, costs)
                if previous == want and c and meant[j - 1] == ch and before:
                    best = min(best, before[c - 1] + swap)
            down, right = above[c + 1] + drop, left + missing[c]
            left = min(best, down, right)
            row.append(left)
        before, above, previous = above, row, ch
    return above[-1]
