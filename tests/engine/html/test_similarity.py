"""Structural similarity (seed fig. 9), link prefilter (fig. 10) and content similarity."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from engine.errors import TooLarge
from engine.html.extract import extract
from engine.html.fingerprint import fingerprint
from engine.html.similarity import (
    ContentOptions,
    FingerprintIndex,
    PrefilterOptions,
    SimilarityOptions,
    SuffixAutomaton,
    content_similarity,
    greedy_count,
    link_counts_pass,
    link_prefilter,
    longest_matches,
    naive_similarity,
    shingles,
    similarity,
    words,
)

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"
ARTICLE, OTHER_BLOG = "66ccd752a9bb2db9", "85b666998a03fcc0"
CHIP_TEST, CHIP_DOWNLOAD = "f158ac51f8c9d889", "4779762459127ce0"


def page(name: str) -> str:
    return gzip.decompress((PAGES / f"{name}.html.gz").read_bytes()).decode("utf-8", "replace")


# -- the seed's worked examples ---------------------------------------------------------------


def test_seed_longest_substr_example():
    """longestSubstr("xyABCGGD1234", "88890ABCGGABZGGD1234", 3) returns "ABCGG" (1-based 3)."""
    assert longest_matches("xyABCGGD1234", "88890ABCGGABZGGD1234", [2]) == [len("ABCGG")]


def test_seed_locate_substring_example():
    """locateSubString("abcabc", "ab", 2) returns 4 (1-based): the next delimiter search."""
    assert greedy_count("abcabc", lambda i: 0, SimilarityOptions(delimiter="ab")) == 0
    visited = []
    greedy_count("abcabc", lambda i: visited.append(i) or 1, SimilarityOptions(delimiter="ab"))
    assert [i + 1 for i in visited] == [1, 4]


def test_matches_shorter_than_six_are_not_counted():
    target = "<a<b<c<d<e<f<g<h"
    assert similarity("<a<b<c", target) == 1.0  # 6 chars, counted
    assert similarity("<a<bX", target + "<a<b<c") == 0.0  # "<a<b" (4) is not counted
    assert similarity("<a<bX", target, SimilarityOptions(min_match=4)) == 0.8


def test_loop_moves_past_a_match_to_the_next_delimiter():
    # From 0 the match "<ab<cd" (6) is counted; the loop resumes after it, at "<zz" (no match).
    assert greedy_count("<ab<cd<zz", lambda i: {0: 6, 6: 0}[i]) == 6


def test_identical_and_empty():
    fp = fingerprint(page(ARTICLE))
    assert similarity(fp, fp) == 1.0
    assert similarity("", fp) == 0.0
    assert similarity("", "") == 0.0


def test_a_seed_page_against_its_growth():
    small = "<H<E<NheF<n<e<B<b<h"
    grown = "<H<E<NheF<n<e<B<PxA<p<b<h"
    # "<H<E<NheF<n<e<B<" (16 chars) is shared; "<b<h" (4) is too short to count.
    assert similarity(small, grown) == pytest.approx(16 / 19)


# -- real pages ------------------------------------------------------------------------------


def edited_version(html: str) -> str:
    """A later version of the page: one paragraph rewritten, one added."""
    tree = LexborHTMLParser(html)
    paragraphs = [p for p in tree.css("p") if len(p.text()) > 40]
    old = paragraphs[2].text()
    return html.replace(old[:40], "Ein neuer Satz ersetzt den alten Anfang", 1).replace(
        old[-20:], old[-20:] + "</p><p>Ein ganz neuer Absatz.", 1
    )


def test_a_new_version_is_more_similar_than_a_sibling_and_a_stranger():
    article = fingerprint(page(ARTICLE))
    version = similarity(article, fingerprint(edited_version(page(ARTICLE))))
    stranger = similarity(article, fingerprint(page(OTHER_BLOG)))
    assert version > 0.95
    assert stranger < 0.5


def test_pages_of_one_site_share_their_template():
    same_site = similarity(fingerprint(page(CHIP_TEST)), fingerprint(page(CHIP_DOWNLOAD)))
    other_site = similarity(fingerprint(page(CHIP_TEST)), fingerprint(page(ARTICLE)))
    assert same_site > 0.5 > other_site


def test_template_without_its_article_keeps_structure_but_not_content():
    html = page(ARTICLE)
    tree = LexborHTMLParser(html)
    for node in tree.css(".entry-content p"):
        node.decompose()
    gutted = tree.html
    assert similarity(fingerprint(html), fingerprint(gutted)) > 0.8
    assert content_similarity(extract(html).body, extract(gutted).body) < 0.3


def test_redesign_changes_structure_but_not_content():
    html = page(ARTICLE)
    body = extract(html).body
    cells = "".join(f"<div class=c><span>{para}</span></div>" for para in body.split("\n"))
    redesigned = f"<html><body><main><section>{cells}</section></main></body></html>"
    assert similarity(fingerprint(html), fingerprint(redesigned)) < 0.3
    assert content_similarity(body, extract(redesigned).body) > 0.8


def test_index_against_many_matches_pairwise():
    fps = [fingerprint(page(name)) for name in (ARTICLE, OTHER_BLOG, CHIP_TEST, CHIP_DOWNLOAD)]
    fps.append(fingerprint(edited_version(page(ARTICLE))))
    for one in fps:
        index = FingerprintIndex(one)
        for other in fps:
            assert index.similarity(other) == pytest.approx(similarity(one, other))


def test_fast_equals_naive_on_real_fingerprint_slices():
    a = fingerprint(page(CHIP_TEST))[:900]
    b = fingerprint(page(CHIP_DOWNLOAD))[:1200]
    assert similarity(a, b) == naive_similarity(a, b)


# -- properties ------------------------------------------------------------------------------

# Few symbols and short "tags" so that random strings share long substrings often.
_FP = st.text(alphabet="<<<ABab", max_size=60)


@settings(max_examples=400, deadline=None)
@given(_FP, _FP, st.integers(1, 8))
def test_fast_equals_naive(a, b, min_match):
    options = SimilarityOptions(min_match=min_match)
    expected = naive_similarity(a, b, options)
    assert similarity(a, b, options) == expected
    assert FingerprintIndex(a, options).similarity(b) == expected
    assert FingerprintIndex(b, options).similarity(a) == expected


@settings(max_examples=200, deadline=None)
@given(_FP, _FP)
def test_similarity_is_in_unit_interval_and_symmetric(a, b):
    value = similarity(a, b)
    assert 0.0 <= value <= 1.0
    assert similarity(b, a) == value


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="<<<ABab", min_size=5, max_size=60))
def test_a_fingerprint_is_fully_similar_to_itself(rest):
    a = "<" + rest  # a fingerprint starts with a tag and is at least min_match long
    assert similarity(a, a) == 1.0


@settings(max_examples=100, deadline=None)
@given(_FP, _FP)
def test_shorter_is_the_source(a, b):
    """The definition: counted length over the shorter fingerprint, matches looked up in the longer."""
    short, long_ = (a, b) if (len(a), a) <= (len(b), b) else (b, a)
    assume(short)
    counted = greedy_count(short, lambda i: longest_matches(short, long_, [i])[0])
    assert similarity(a, b) == counted / len(short)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abc", max_size=40), st.text(alphabet="abc", max_size=40))
def test_automaton_matching_statistics(text, other):
    automaton = SuffixAutomaton(text)
    for j, size in enumerate(automaton.match_ends(other)):
        assert other[j + 1 - size : j + 1] in text
        assert j + 1 - size == 0 or other[j - size : j + 1] not in text
    for j, size in enumerate(automaton.own_match_ends(other)):
        assert text[j + 1 - size : j + 1] in other
        assert j + 1 - size == 0 or text[j - size : j + 1] not in other


# -- link prefilter (seed fig. 10) -----------------------------------------------------------


def test_small_link_counts_always_pass():
    assert link_prefilter(range(7), [])  # 7 + 0 <= 7
    assert not link_prefilter(range(8), [])  # |8 - 0| / (8 + 2) = 0.8


def test_count_gap_threshold():
    assert link_counts_pass(10, 5)  # 5 / 17 = 0.294 < 1/3
    assert not link_counts_pass(10, 4)  # 6 / 16 = 0.375
    assert link_counts_pass(10, 4, PrefilterOptions(max_count_gap=0.4))


def test_shared_links_must_be_a_fair_share():
    a = [f"https://x.example/{i}" for i in range(20)]
    assert link_prefilter(a, a[:10] + [f"https://y.example/{i}" for i in range(10)])
    assert not link_prefilter(a, [f"https://y.example/{i}" for i in range(20)])
    strict = PrefilterOptions(min_shared_share=0.6)
    assert not link_prefilter(a, a[:10] + [f"https://y.example/{i}" for i in range(10)], strict)


def test_duplicate_links_count_once():
    assert link_prefilter(["a"] * 50, ["a"])


def test_real_pages_links():
    def links(name):
        tree = LexborHTMLParser(page(name))
        return {a.attributes.get("href") for a in tree.css("a[href]")}

    article = links(ARTICLE)
    assert link_prefilter(article, set(article))
    assert not link_prefilter(article, links(CHIP_TEST))


# -- content similarity ----------------------------------------------------------------------


def test_words_are_normalized_and_cjk_aware():
    assert words("Straße STRASSE") == ["strasse", "strasse"]
    assert words("ﬁne ＷＩＤＥ") == ["fine", "wide"]
    assert words("東京で会う") == ["東", "京", "で", "会", "う"]
    assert words("ｶﾀｶﾅ") == ["カ", "タ", "カ", "ナ"]  # half-width katakana, NFKC first


def test_cjk_text_without_spaces_is_comparable():
    a = "今日は東京で友達と会って昼ご飯を食べました"
    b = "今日は東京で友達と会って晩ご飯を食べました"
    assert 0.5 < content_similarity(a, b) < 1.0
    assert content_similarity(a, "まったく違う文章がここにあります") < 0.1


def test_content_similarity_bounds():
    assert content_similarity("", "anything at all") == 0.0
    assert content_similarity("one two", "one two") == 1.0
    assert content_similarity("a b c d e", "f g h i j") == 0.0


def test_shingle_width_is_an_option():
    assert len(shingles("a b c d e", ContentOptions(shingle=2))) == 4
    assert content_similarity("a b c x", "a b c y", ContentOptions(shingle=1)) == 0.6


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=80), st.text(max_size=80))
def test_content_similarity_in_unit_interval_and_symmetric(a, b):
    value = content_similarity(a, b)
    assert 0.0 <= value <= 1.0
    assert content_similarity(b, a) == value


def test_oversized_fingerprints_are_refused_or_indexed_from_the_smaller_side():
    small = SimilarityOptions(max_automaton=40)
    short, long_ = "<a<b<c<d<e" * 2, "<a<b<c<d<e" * 10
    assert similarity(short, long_, small) == similarity(short, long_)
    with pytest.raises(TooLarge):
        similarity(long_, long_ + "<x", small)
    with pytest.raises(TooLarge):
        FingerprintIndex(long_, small)


@settings(max_examples=300, deadline=None)
@given(_FP, st.integers(1, 8))
def test_a_fingerprint_against_itself_equals_the_naive_loop_without_an_automaton(a, min_match):
    options = SimilarityOptions(min_match=min_match)
    index = FingerprintIndex(a, options)
    assert index.similarity(a) == naive_similarity(a, a, options)
    assert index._automaton is None  # the identical case never builds it


def test_the_automaton_is_built_once_on_first_real_comparison():
    index = FingerprintIndex("<H<E<NheF<n<e<B<b<h")
    assert index._automaton is None
    first = index.similarity("<H<E<NheF<n<e<B<b<x")
    built = index._automaton
    assert built is not None and first == similarity("<H<E<NheF<n<e<B<b<h", "<H<E<NheF<n<e<B<b<x")
    index.similarity("<H<E<Nhe")
    assert index._automaton is built
