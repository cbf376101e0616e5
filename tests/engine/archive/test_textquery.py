"""The full-text query language: parsing, the FTS5 expression, snippets."""

from __future__ import annotations

import pytest

from engine.archive.textquery import highlight, index_text, marked_html, parse, to_fts
from engine.errors import InvalidInput


@pytest.mark.parametrize(
    ("typed", "fts"),
    [
        ("river", '"river"'),
        ("River Meadow", '"river" AND "meadow"'),
        ('"lower meadow" flood', '"lower meadow" AND "flood"'),
        ("arch*", '"arch" *'),
        ("river -flood", '"river" NOT ("flood")'),
        ('river -"dry season" -x*', '"river" NOT ("dry season" OR "x" *)'),
        ("天気", '"天気"'),
        ("天気予報", '"天気 気予 予報"'),
        ("天", '"天" *'),
        ('AND OR NOT NEAR("x")', '"and" AND "or" AND "not" AND "near x"'),
        ("e-mail", '"e mail"'),
    ],
)
def test_queries_become_quoted_fts5(typed, fts):
    assert to_fts(parse(typed)) == fts


@pytest.mark.parametrize("bad", ['"unbalanced', 'a "b" "c', "-only", '""', "   ", "*** -x"])
def test_bad_queries_are_typed(bad):
    with pytest.raises(InvalidInput):
        parse(bad)


def test_cjk_is_indexed_as_bigrams():
    assert index_text("東京都の天気予報です") == "東京 京都 都の の天 天気 気予 予報 報で です"
    assert index_text("Weather in 東京").split() == ["Weather", "in", "東京"]


def test_snippet_marks_words_phrases_prefixes_and_cjk():
    text = (
        "Intro. " * 40
        + "The archive archives archived pages, said the archivist. 東京都の天気予報です"
    )
    window, marks = highlight(text, parse('archiv* "said the" 天気'))
    assert [window[a:b] for a, b in marks] == [
        "archive", "archives", "archived", "said the", "archivist", "天気"
    ]  # fmt: skip
    assert window.startswith("…")
    assert marked_html("x < y", [[0, 1]]) == "<mark>x</mark> &lt; y"


def test_excluded_words_are_not_marked():
    window, marks = highlight("river and flood", parse("river -flood"))
    assert [window[a:b] for a, b in marks] == ["river"]
