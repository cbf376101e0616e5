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

from dataclasses import astuple, dataclass
from functools import cache

from rapidfuzz.distance import OSA

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
    # a letter left out: one way to drop it, where a slip has several neighbouring keys,
    # so one given omission is as likely as one given neighbouring insertion
    omission: float = 0.55
    # one letter moved over two others (``oonz`` for ozon): one slip of the hand, where
    # OSA sees two edits (a dropped letter and a stray one, or two overlapping swaps)
    moved: float = 0.9


DEFAULT_COSTS = TypoCosts()


def costs_more_than(typed: str, meant: str, limit: float, costs: TypoCosts = DEFAULT_COSTS) -> bool:
    """Whether :func:`typo_cost` is surely above ``limit``, without working it out: the
    cheapest alignment makes at least as many edits as the OSA distance counts, and each
    costs at least the cheapest kind (a hyphen's or dot's only when one is in either).

    >>> costs_more_than("de", "com", 1.0), costs_more_than("co", "com", 1.0)
    (True, False)
    """
    hyphen = "-" in typed or "-" in meant or "." in typed or "." in meant
    cheapest = _DEFAULT_CHEAPEST[hyphen] if costs is DEFAULT_COSTS else _cheapest(costs, hyphen)
    within = int(limit / cheapest)  # the most edits whose cost may stay within the limit
    if (within + 1) * cheapest <= limit:  # limit / cheapest rounded down past an integer
        within += 1
    return OSA.distance(typed, meant, score_cutoff=within) > within


@cache
def _cheapest(costs: TypoCosts, hyphen: bool) -> float:
    """The cheapest edit (a stray or missing hyphen or dot counts only when ``hyphen``)."""
    # a moved letter is two edits to OSA: half its cost is the least any one can cost
    each = [
        v / 2 if name == "moved" else v for name, v in zip(_FIELDS, astuple(costs), strict=True)
    ]
    if hyphen:
        return min(each)
    return min(v for name, v in zip(_FIELDS, each, strict=True) if name != "hyphen")


_FIELDS = tuple(TypoCosts.__dataclass_fields__)
# the default costs' cheapest edits, without hashing the dataclass on every call
_DEFAULT_CHEAPEST = (_cheapest(DEFAULT_COSTS, False), _cheapest(DEFAULT_COSTS, True))


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
    return _trimmed(
        typed, meant, _replace_table(layout, costs), _extra_costs(typed, layout, costs), costs
    )


def typo_costs(
    typed: str, meants: list[str], layout: str = "any", costs: TypoCosts = DEFAULT_COSTS
) -> list[float]:
    """:func:`typo_cost` of ``typed`` for each of ``meants`` (the typed key's tables looked
    up once: a reading is aligned with up to 40 keys).

    >>> [round(c, 2) for c in typo_costs("gogle", ["google", "gogle", "bogle"])]
    [0.45, 0.0, 0.5]
    """
    replace, extra = _replace_table(layout, costs), _extra_costs(typed, layout, costs)
    return [0.0 if m == typed else _trimmed(typed, m, replace, extra, costs) for m in meants]


def _trimmed(typed: str, meant: str, replace: _Table, extra: tuple, costs: TypoCosts) -> float:
    n, k = len(typed), len(meant)
    # The typo lies between the common prefix and suffix; one letter of each is kept in
    # the alignment, and every rule reads its neighbours in the whole strings.
    head = 0
    while head < n and head < k and typed[head] == meant[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < k - head and typed[n - 1 - tail] == meant[k - 1 - tail]:
        tail += 1
    return _aligned(typed, meant, max(0, head - 1), max(0, tail - 1), replace, extra, costs)


def _replace_table(layout: str, costs: TypoCosts) -> _Table:
    replace = _TABLES.get((layout, id(costs)))
    if replace is None or replace.costs is not costs:
        replace = _table(layout, costs)
    return replace


def _aligned(
    typed: str,
    meant: str,
    head: int,
    tail: int,
    replace: _Table,
    extra: tuple[float, ...],
    costs: TypoCosts,
) -> float:
    """The weighted OSA distance of ``typed[head:-tail]`` to ``meant[head:-tail]`` (a
    dynamic programme over the differing middle; the cheapest of all alignments, where
    one alignment picked by edit count may cost more: ``yaaho`` for yahoo is a doubled
    and a dropped letter, 0.85, not two replacements, 2.0).

    >>> table, extra = _replace_table("any", DEFAULT_COSTS), _extra_costs("yaaho", "any", DEFAULT_COSTS)
    >>> round(_aligned("yaaho", "yahoo", 0, 0, table, extra, DEFAULT_COSTS), 2)
    0.85
    """
    end = len(meant) - tail
    middle = meant[head:end]
    # the cost of leaving out each letter of the middle: a hyphen or dot is a hyphen's, one
    # of a doubled letter less than another letter
    # typed locals: compiled by mypyc (`make suggest-compiled`) they are C doubles, not objects
    hyphen: float = costs.hyphen
    doubled: float = costs.doubled_omission
    omission: float = costs.omission
    cost: float
    best: float
    moved: float
    down: float
    right: float
    left: float
    missing: list[float] = []
    above = [0.0]
    for j in range(head, end):
        ch = meant[j]
        if ch == "-" or ch == ".":
            cost = hyphen
        elif (j and meant[j - 1] == ch) or meant[j + 1 : j + 2] == ch:
            cost = doubled
        else:
            cost = omission
        missing.append(cost)
        above.append(above[-1] + cost)
    before: list[float] = []
    third: list[float] = []  # the row three letters back (a moved letter spans three)
    swap: float = costs.transposition
    shift: float = costs.moved
    previous: str = typed[head - 1] if head else ""
    previous_cost: dict[str, float] = {}
    for i in range(head, len(typed) - tail):
        ch = typed[i]
        drop: float = extra[i]
        row_cost: dict[str, float] = replace[ch]
        left = above[0] + drop
        row: list[float] = [left]
        prior = ""  # the meant letter before ``want``
        for c, want in enumerate(middle):
            if ch == want:
                best = above[c]
            else:
                best = above[c] + row_cost[want]
                # two letters swapped (Damerau's transposition), and one of them may
                # also be a slip of its key: ``plantds`` for planets (d for e)
                if previous == want:
                    if prior and before:
                        moved = before[c - 1] + swap
                        if prior != ch:
                            moved += row_cost[prior]
                        if moved < best:
                            best = moved
                elif prior == ch and before:
                    moved = before[c - 1] + swap + previous_cost[want]
                    if moved < best:
                        best = moved
                # one letter moved over two: ``oonz`` for ozon (z after "on"), ``puss``
                # for usps (p before "us")
                if third and c > 1:
                    first, second = middle[c - 2], prior
                    earlier = typed[i - 2]
                    if (earlier == second and previous == want and ch == first) or (
                        earlier == want and previous == first and ch == second
                    ):
                        moved = third[c - 2] + shift
                        if moved < best:
                            best = moved
            down = above[c + 1] + drop
            if down < best:
                best = down
            right = left + missing[c]
            left = right if right < best else best
            row.append(left)
            prior = want
        third, before, above, previous, previous_cost = before, above, row, ch, row_cost
    return above[-1]


class _Row(dict):
    """Replacement costs of one typed letter, by the meant letter, filled on first use."""

    def __init__(self, typed: str, close: frozenset, costs: TypoCosts) -> None:
        super().__init__()
        self.typed, self.close, self.costs = typed, close, costs

    def __missing__(self, meant: str) -> float:
        cost = self[meant] = _replace_cost(self.typed, meant, self.close, self.costs)
        return cost


class _Table(dict):
    """One :class:`_Row` per typed letter."""

    def __init__(self, near: dict, costs: TypoCosts) -> None:
        super().__init__()
        self.near, self.costs = near, costs

    def __missing__(self, typed: str) -> _Row:
        row = self[typed] = _Row(typed, self.near.get(typed, frozenset()), self.costs)
        return row


_TABLES: dict[tuple[str, int], _Table] = {}  # by layout and costs (by id: no dataclass hash)


def _table(layout: str, costs: TypoCosts) -> _Table:
    # the table holds ``costs``: while it is cached, that id names no other object
    table = _TABLES[layout, id(costs)] = _Table(neighbours(layout), costs)
    return table


_EXTRA: dict[tuple[str, str, int], tuple[TypoCosts, tuple[float, ...]]] = {}


def _extra_costs(typed: str, layout: str, costs: TypoCosts) -> tuple[float, ...]:
    """The cost of each letter of ``typed`` as a stray one. The typed key is aligned
    with every candidate of a reading, so this is kept (a small cache keyed by the id of
    ``costs``, checked against the object itself: no dataclass hash per call)."""
    found = _EXTRA.get((typed, layout, id(costs)))
    if found is not None and found[0] is costs:
        return found[1]
    if len(_EXTRA) >= 512:
        _EXTRA.clear()
    near = neighbours(layout)
    extra = tuple(_extra_cost(typed, i, near, costs) for i in range(len(typed)))
    _EXTRA[typed, layout, id(costs)] = (costs, extra)
    return extra
