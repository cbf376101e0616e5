"""Keyword rules, each isolated: damped term frequency, the title boost, stop words, spread."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import pytest

from engine.html.extract import ExtractOptions, decode, extract
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


WIDE_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "extract-wide"


def test_a_page_that_repeats_its_body_outside_it_keeps_its_keywords():
    # A real klaviyo.com blog post (WCXB, CC-BY-4.0) holds a markdown copy of the article in a
    # <pre> beside it: every body term occurs in the text outside the body too. Filtering
    # those terms as the template's left no keyword at all (liveness then had nothing to judge).
    page = decode(gzip.decompress((WIDE_FIXTURES / "wcxb-4258.html.gz").read_bytes()))
    found = [w for w, _ in extract(page).keywords]
    assert len(found) == KeywordOptions().limit and {"crm", "software"} <= set(found)
    off = ExtractOptions(keywords=KeywordOptions(template_copy=1.01))
    assert extract(page, options=off).keywords == []


def test_the_template_filter_stands_below_the_copy_share():
    # 10 body terms: 8 shared with the template are filtered, 9 (a copy) are kept.
    body = "alpha bravo charlie delta echo foxtrot golf hotel india juliet"
    words = body.split()
    eight = body_keywords(body, "", KeywordOptions(), template=" ".join(words[:8]))
    nine = body_keywords(body, "", KeywordOptions(), template=" ".join(words[:9]))
    assert [w for w, _ in eight] == ["india", "juliet"]
    assert len(nine) == 10
