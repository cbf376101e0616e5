"""Tokenization: words for spaced scripts, bigrams for CJK (real page text included)."""

from __future__ import annotations

import gzip
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from engine.html.tokens import bigrams, count_tokens, is_cjk, text_length, tokenize

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "extract"


def test_words_are_lowercased_and_split_on_punctuation():
    assert tokenize("Die GEMA dreht völlig am Zeiger!") == [
        "die",
        "gema",
        "dreht",
        "völlig",
        "am",
        "zeiger",
    ]


def test_underscores_and_apostrophes_split_words():
    assert tokenize("snake_case it's") == ["snake", "case", "it", "s"]


def test_chinese_runs_become_overlapping_bigrams():
    assert tokenize("网页信息探测") == ["网页", "页信", "信息", "息探", "探测"]


def test_single_cjk_character_stays_a_token():
    assert bigrams("网") == ["网"]
    assert tokenize("A网B") == ["a", "网", "b"]


def test_mixed_scripts_keep_their_order():
    assert tokenize("2012年 Olympia 北京奥运") == ["2012", "年", "olympia", "北京", "京奥", "奥运"]


def test_japanese_kana_and_kanji_are_cjk():
    assert is_cjk("ひらがな") and is_cjk("カタカナ") and is_cjk("漢字")
    assert not is_cjk("latin")


def test_real_chinese_page_text_yields_known_bigrams():
    html = gzip.decompress((FIXTURES / "996936aefb678cd9.html.gz").read_bytes()).decode("utf-8")
    counts = count_tokens(html)
    assert counts["益阳"] >= 5
    assert counts["数字"] >= 5


def test_text_length_ignores_whitespace():
    assert text_length("a b\tc\nd") == 4


@given(st.text())
def test_tokenize_never_raises_and_tokens_are_nonempty(text):
    assert all(tokenize(text))
