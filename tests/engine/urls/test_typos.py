"""The typo-cost rules, each isolated at equal popularity.

Every dictionary here is ranked flat (``alpha=0``: the popularity prior is the same
for every domain) and the expected winner is listed last, so only the typo cost can
put it first. Each test pits a candidate that one rule makes cheap against a rival
whose cost lies between the rule's cost and the cost without the rule.
The keyboard is pinned to QWERTY (``languages=("en",)``).
"""

from __future__ import annotations

from engine.urls.dictionary import DomainDictionary
from engine.urls.suggest import Suggester, SuggestOptions, SuggestRequest
from engine.urls.typos import DEFAULT_COSTS as C
from engine.urls.typos import typo_cost

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
    # 'd' typed after 's' (its neighbour): 0.55; the rival lacks a final 'r': 0.7
    assert typo_cost("sdale", "sale", "qwerty") == C.adjacent_insertion
    got = scores("sdale.com", "sdaler.com", "sale.com")
    assert got["sale.com"] > got["sdaler.com"]


def test_inserted_letter_next_to_the_following_key():
    # 'q' typed before 'a' (its neighbour on QWERTY; not next to 's')
    assert typo_cost("sqale", "sale", "qwerty") == C.adjacent_insertion
    got = scores("sqale.com", "sqaler.com", "sale.com")
    assert got["sale.com"] > got["sqaler.com"]


def test_inserted_letter_next_to_a_key_two_places_away_is_a_random_insertion():
    # 'k' neighbours 'l', two places on: not a slip of the fingers around it (0.9 > 0.7)
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
