"""The typo-cost rules, each isolated at equal popularity.

Every dictionary here is ranked flat (``alpha=0``: the popularity prior is the same
for every domain) and the expected winner is listed last, so only the typo cost can
put it first. Each test pits a candidate that one rule makes cheap against a rival
whose cost lies between the rule's cost and the cost without the rule.
The keyboard is pinned to QWERTY (``languages=("en",)``).
"""

from __future__ import annotations

from pytest import approx

from engine.urls.dictionary import DomainDictionary
from engine.urls.suggest import Suggester, SuggestOptions, SuggestRequest
from engine.urls.typos import DEFAULT_COSTS as C
from engine.urls.typos import TypoCosts, costs_more_than, typo_cost, typo_costs

FLAT = SuggestOptions(alpha=0.0, segments=False)


def scores(typed: str, rival: str, meant: str) -> dict[str, float]:
    """Scores of the two candidate domains for ``http://<typed>/``, equal popularity."""
    suggester = Suggester(DomainDictionary.from_domains([rival, meant]), options=FLAT)
    found = suggester.suggest(SuggestRequest(f"http://{typed}/", languages=("en",)))
    return {s.url.split("//")[1].rstrip("/"): s.score for s in found}


def test_lookalike_one_for_l_beats_a_neighbouring_key():
    # '1' for 'l' costs a look-alike (0.35); '1' for '2' is a neighbouring key (0.5);
    # without the look-alike rule 1/l is a random letter (1.0). (The pipeline also reads
    # digits as letters before any look-up, so the cost itself is what this test holds.)
    assert typo_cost("he1p", "help", "qwerty") == C.lookalike
    got = scores("he1p.com", "he2p.com", "help.com")
    assert got["help.com"] > got["he2p.com"]


def test_lookalike_l_for_i_beats_a_neighbouring_key():
    # letters are not read by the digit substitution: here only the cost ranks
    assert typo_cost("mlnd", "mind", "qwerty") == C.lookalike
    got = scores("mlnd.com", "mknd.com", "mind.com")
    assert got["mind.com"] > got["mknd.com"]


def test_lookalike_zero_for_o_is_cheaper_than_a_neighbouring_key():
    # '0' and 'o' are also neighbouring keys: the look-alike rule must still win (0.35 < 0.5)
    assert typo_cost("d0t", "dot", "qwerty") == C.lookalike
    got = scores("d0t.com", "dpt.com", "dot.com")
    assert got["dot.com"] > got["dpt.com"]


def test_inserted_letter_next_to_the_previous_key():
    # 'd' typed after 's' (its neighbour): 0.55; the rival has a for e (two vowels): 0.6
    assert typo_cost("sdale", "sale", "qwerty") == C.adjacent_insertion
    got = scores("sdale.com", "sdala.com", "sale.com")
    assert got["sale.com"] > got["sdala.com"]


def test_inserted_letter_next_to_the_following_key():
    # 'q' typed before 'a' (its neighbour on QWERTY; not next to 's')
    assert typo_cost("sqale", "sale", "qwerty") == C.adjacent_insertion
    got = scores("sqale.com", "sqala.com", "sale.com")
    assert got["sale.com"] > got["sqala.com"]


def test_inserted_letter_next_to_a_key_two_places_away_is_a_random_insertion():
    # 'k' neighbours 'l', two places on: not a slip of the fingers around it (0.9 > 0.55)
    assert typo_cost("skale", "sale", "qwerty") == C.insertion
    got = scores("skale.com", "sale.com", "skaler.com")
    assert got["skaler.com"] > got["sale.com"]


def test_neighbouring_vowels_cost_a_neighbouring_key_not_a_vowel_swap():
    # u and i are neighbours: 0.5, below a transposition (0.55), below a vowel swap (0.6)
    assert typo_cost("bund", "bind", "qwerty") == C.adjacent
    got = scores("bund.com", "bnud.com", "bind.com")
    assert got["bind.com"] > got["bnud.com"]


def test_vowels_that_are_not_neighbours_cost_a_vowel_swap():
    assert typo_cost("bend", "band", "qwerty") == C.vowel


def test_a_swap_and_a_doubled_letter_cost_what_each_costs():
    # ymigg for yimg: a swap (0.55) plus a doubled g (0.4). The alignment with the fewest
    # Levenshtein edits (drop m, g for m: 1.9) is dearer; the cost is the cheapest one.
    assert typo_cost("ymigg", "yimg", "qwerty") == approx(C.transposition + C.repetition)
    # the rival: k for m (neighbours, 0.5) and m for g (1.0), between the two readings
    assert C.transposition + C.repetition < typo_cost("ymigg", "ykimg", "qwerty") < 1.9
    got = scores("ymigg.com", "ykimg.com", "yimg.com")
    assert got["yimg.com"] > got["ykimg.com"]


def test_two_swaps_cost_two_transpositions():
    # kiae for ikea: ik and ea swapped, 2 x 0.55; read as replacements it costs 2.2
    assert typo_cost("kiae", "ikea", "qwerty") == approx(2 * C.transposition)
    assert 2 * C.transposition < typo_cost("kiae", "dias", "qwerty") < 2.2
    got = scores("kiae.com", "dias.com", "ikea.com")
    assert got["ikea.com"] > got["dias.com"]


def test_a_swap_with_a_slip_on_its_second_letter_costs_both():
    # breakfatd for breakfast: s and t swapped, and d typed for s (its neighbour): 0.55 +
    # 0.5. An OSA alignment cannot edit a swapped letter again: without the rule it pays
    # an omission and a random insertion (1.45)
    assert typo_cost("breakfatd", "breakfast", "qwerty") == approx(C.transposition + C.adjacent)
    # the rival: two vowel swaps (e for a, o for a), 1.2: between the two
    assert typo_cost("breakfatd", "breekfotd", "qwerty") == approx(2 * C.vowel)
    got = scores("breakfatd.com", "breekfotd.com", "breakfast.com")
    assert got["breakfast.com"] > got["breekfotd.com"]


def test_a_swap_with_a_slip_on_its_first_letter_costs_both():
    # breakfags for breakfast: s and t swapped, and g typed for t (its neighbour)
    assert typo_cost("breakfags", "breakfast", "qwerty") == approx(C.transposition + C.adjacent)
    assert typo_cost("breakfags", "breekfogs", "qwerty") == approx(2 * C.vowel)
    got = scores("breakfags.com", "breekfogs.com", "breakfast.com")
    assert got["breakfast.com"] > got["breekfogs.com"]


def test_a_letter_moved_over_two_costs_one_slip():
    # plneats for planets: the a typed two places late (after "ne"); pleants: the e two
    # places early. Without the rule OSA pays a dropped and a stray letter (1.45); the
    # rivals have a random letter for the last one (1.0), between the two
    for typed, rival in (("plneats", "plneatk"), ("pleants", "pleantk")):
        assert typo_cost(typed, "planets", "qwerty") == approx(C.moved)
        assert C.moved < C.substitution
        assert typo_cost(typed, rival, "qwerty") == C.substitution
        assert typo_cost(typed, "planets", "qwerty", TypoCosts(moved=9.0)) == approx(1.45)
        got = scores(f"{typed}.com", f"{rival}.com", "planets.com")
        assert got["planets.com"] > got[f"{rival}.com"]
    # a letter moved over three is not one slip
    assert typo_cost("plnetas", "planets", "qwerty") > C.substitution


def test_a_dropped_letter_costs_less_than_two_vowels_confused():
    # plnet for planet: one way to leave the a out (0.55); the rival plnat has e for a,
    # two vowels that are not neighbours (0.6); at 0.7 the omission lost
    assert typo_cost("plnet", "planet", "qwerty") == C.omission < C.vowel
    assert typo_cost("plnet", "plnat", "qwerty") == C.vowel
    got = scores("plnet.com", "plnat.com", "planet.com")
    assert got["planet.com"] > got["plnat.com"]


def test_a_doubled_and_a_dropped_letter_beat_two_replacements():
    # yaaho for yahoo: one a doubled (0.4) and one o dropped (0.45)
    assert typo_cost("yaaho", "yahoo", "qwerty") == approx(C.repetition + C.doubled_omission)


def test_a_hyphen_left_out_costs_a_hyphen_not_a_letter():
    # stackoverflow for stack-overflow: the hyphen left out (0.3), not a letter (0.7)
    assert typo_cost("stackoverflow", "stack-overflow", "qwerty") == approx(C.hyphen)
    assert typo_cost("stackoverflow", "stackxoverflow", "qwerty") == approx(C.omission)


def test_the_letter_before_the_difference_may_be_the_doubled_one():
    # coopomer for coomer: the o typed twice is the one before the first difference
    # (0.4), then p next to o (0.55); an alignment starting at the first difference
    # cannot see that o and pays a neighbouring insertion for it (1.1)
    assert typo_cost("coopomer", "coomer", "qwerty") == approx(C.repetition + C.adjacent_insertion)


def test_costs_more_than_never_skips_a_cost_within_the_limit():
    # the bound behind suffix_change_cost's shortcut: OSA distance x the cheapest edit
    # (a hyphen or a dot only when one is in either); pairs near every limit
    texts = ["com", "co", "cm", "de", "co.uk", "com.br", "org", "or-g", "io", "i.o", "c-m"]
    texts += ["aabb", "abab", "bbaa", "l1", "il", "uv", "vu", "0o", "o0"]
    skipped = 0
    for limit in (0.3, 0.6, 0.7, 0.9, 1.0, 1.05, 1.2, 2.0):
        for typed in texts:
            for meant in texts:
                if costs_more_than(typed, meant, limit):
                    skipped += 1
                    assert typo_cost(typed, meant) > limit, (typed, meant, limit)
    assert skipped > 600  # most pairs are far apart: the bound must skip them
    # a moved letter is two OSA edits for one price: half of it bounds each edit
    cheap = TypoCosts(moved=0.5)
    for typed, meant in (("abcd", "bcad"), ("abcd", "cabd"), ("planets", "plneats")):
        assert typo_cost(typed, meant, costs=cheap) == 0.5
        assert not costs_more_than(typed, meant, 0.5, cheap)


def test_costs_more_than_counts_a_dot_as_the_cheapest_edit():
    # "com" → "c.om" is one stray dot (0.3): three dots are 0.9, within 1.0; letters
    # cost at least 0.35 each, so three of them are over 1.0
    assert typo_cost("c.o.m.", "com") == approx(3 * C.hyphen)
    assert not costs_more_than("c.o.m.", "com", 1.0)
    assert costs_more_than("cxoxmx", "com", 1.0)
    assert not costs_more_than("cxoxmx", "com", 2.0)


def test_typo_costs_is_typo_cost_of_each():
    keys = ["google", "gogle", "goggle", "bogle", "gole", "g-ogle", "ogle", "gogel"]
    for layout in ("any", "azerty"):
        assert typo_costs("gogle", keys, layout) == [typo_cost("gogle", k, layout) for k in keys]
