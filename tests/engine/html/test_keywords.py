"""Keyword rules, each isolated: damped term frequency, the title boost, stop words, spread."""

from __future__ import annotations

import math

import pytest

from engine.html.extract import extract
from engine.html.keywords import KeywordOptions, body_keywords, keywords, seed_keywords


def weights(pairs) -> dict[str, float]:
    return dict(pairs)


def test_term_frequency_is_log_damped():
    found = weights(keywords("zebra " * 8 + "otter", ""))
    assert found["zebra"] / found["otter"] == pytest.approx(1 + math.log(8), rel=1e-3)


def test_a_title_word_weighs_twice_an_equally_frequent_word():
    found = weights(keywords("zebra otter zebra otter", "Otter"))
    assert found["otter"] / found["zebra"] == pytest.approx(2.0, rel=1e-3)


def test_the_title_boost_ranks_a_title_word_first():
    one = KeywordOptions(sections=1)
    assert [w for w, _ in body_keywords("zebra otter", "", one)] == ["zebra", "otter"]
    assert [w for w, _ in body_keywords("zebra otter", "Otter", one)] == ["otter", "zebra"]


def test_extract_boosts_the_page_title_words():
    html = (
        "<title>Otter sightings</title><body><p>"
        + "The zebra and the otter were seen near the river bank on Sunday morning. " * 3
        + "</p></body>"
    )
    found = weights(extract(html).keywords)
    assert found["otter"] / found["zebra"] == pytest.approx(2.0, rel=1e-3)


def test_seed_mode_boosts_the_title_and_damps_frequency_too():
    found = weights(seed_keywords("zebra zebra zebra zebra otter", "Otter", KeywordOptions()))
    assert found["otter"] / found["zebra"] == pytest.approx(2.0 / (1 + math.log(4)), rel=1e-3)


def test_stop_words_are_never_keywords():
    found = weights(keywords("the cat and the dog and the bird", ""))
    assert "the" not in found and "and" not in found and {"cat", "dog", "bird"} <= found.keys()
