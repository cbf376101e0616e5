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

import Levenshtein

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


def _replace_cost(a: str, b: str, near: dict, costs: TypoCosts) -> float:
    if _is_lookalike(a, b):
        return costs.lookalike
    if b in near.get(a, ()):
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
    """Weighted edit cost of typing ``meant`` as ``typed`` (0 when equal).

    >>> round(typo_cost("goolge", "google"), 2)  # one transposition
    0.55
    """
    if typed == meant:
        return 0.0
    plain = _ops_cost(typed, meant, layout, costs)
    if plain <= costs.transposition or len(typed) > 40:
        return plain
    # editops renders a swap as delete+insert: try undoing each adjacent swap
    best, base = plain, Levenshtein.distance(typed, meant)
    for i in range(len(typed) - 1):
        if typed[i] == typed[i + 1]:
            continue
        swapped = typed[:i] + typed[i + 1] + typed[i] + typed[i + 2 :]
        if Levenshtein.distance(swapped, meant) <= base - 2:
            best = min(best, costs.transposition + _ops_cost(swapped, meant, layout, costs))
    return best


def _ops_cost(typed: str, meant: str, layout: str, costs: TypoCosts) -> float:
    """The cheaper of two alignments: editops picks one of several with the fewest
    edits, and may pick two replacements where a dropped and a doubled letter cost less
    (``yaaho`` for yahoo); the reversed strings make it pick another. Every cost rule
    reads both neighbours, so a reversed alignment costs what it would forwards.

    >>> round(_ops_cost("yaaho", "yahoo", "any", DEFAULT_COSTS), 2)
    0.85
    """
    if typed == meant:
        return 0.0
    forwards = _aligned_cost(typed, meant, layout, costs)
    return min(forwards, _aligned_cost(typed[::-1], meant[::-1], layout, costs))


def _aligned_cost(typed: str, meant: str, layout: str, costs: TypoCosts) -> float:
    near = neighbours(layout)
    ops = Levenshtein.editops(typed, meant)
    total, skip = 0.0, -1
    for k, (op, i, j) in enumerate(ops):
        if k == skip:
            continue
        if op == "replace":
            if _is_swap(ops, k, typed, meant):
                total += costs.transposition
                skip = k + 1
                continue
            total += _replace_cost(typed[i], meant[j], near, costs)
        elif op == "delete":
            total += _extra_cost(typed, i, near, costs)
        else:
            total += _missing_cost(meant, j, costs)
    return total


def _is_swap(ops: list, k: int, typed: str, meant: str) -> bool:
    if k + 1 >= len(ops):
        return False
    op2, i2, j2 = ops[k + 1]
    _, i, j = ops[k]
    return (
        op2 == "replace"
        and i2 == i + 1
        and j2 == j + 1
        and typed[i] == meant[j2]
        and typed[i2] == meant[j]
    )
