"""The typo index: which keys ``near_keys`` finds (OSA distance, a swap is one edit)."""

from __future__ import annotations

from engine.urls.dictionary import DomainDictionary

DOMAINS = ["google.com", "stackoverflow.com", "microsoftonline.com", "abc.com", "yahoo.com"]


def near(query: str) -> dict[str, int]:
    d = DomainDictionary.from_domains(DOMAINS)
    return {d.domain(i): dist for i, dist in d.near_keys(query)}


def test_two_letters_shorter_or_longer_is_two_edits_away():
    assert near("gogl") == {"google.com": 2}
    assert near("googglee") == {"google.com": 2}
    assert near("gogl" + "e") == {"google.com": 1}


def test_three_letters_apart_in_length_is_not_found():
    assert near("gog") == {}
    assert near("gooogglee") == {}


def test_a_key_under_four_letters_is_matched_at_one_edit_only():
    assert near("abd") == {"abc.com": 1}
    assert near("axd") == {}  # two edits from abc: nothing left to recognise
    assert near("abxd") == {}  # a longer query reaches abc through its deletions


def test_long_keys_with_two_edits_in_different_parts():
    # long keys are found through their parts: each edit in another part
    assert near("stakcoverfolw") == {"stackoverflow.com": 2}
    assert near("xstackoverflo") == {"stackoverflow.com": 2}
    assert near("microsoftonlie") == {"microsoftonline.com": 1}
    assert near("mcrosoftonlinee") == {"microsoftonline.com": 2}
    # parts of different sizes start at one place: each is hashed by its own letters
    for typed, meant in (
        ("stacjoverfow", "stackoverflow.com"),
        ("stackverfloa", "stackoverflow.com"),
        ("microsoftonie", "microsoftonline.com"),
        ("misrosoftonlin", "microsoftonline.com"),
    ):
        assert near(typed) == {meant: 2}
