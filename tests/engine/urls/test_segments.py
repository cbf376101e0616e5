"""Segment repair rules: the score threshold is inclusive, and candidates come from the
segment's rarest trigrams."""

from __future__ import annotations

from engine.urls.segments import Lexicon, Segmenter, SegmentOptions, ngram_score


def test_a_score_exactly_at_the_threshold_is_accepted():
    assert ngram_score("ddmain", "domain") == 429
    at = Segmenter(Lexicon(["my", "domain"]), SegmentOptions(threshold=429))
    assert at.repair("muddmain") == ("mydomain", 429)
    above = Segmenter(Lexicon(["my", "domain"]), SegmentOptions(threshold=430))
    assert above.repair("muddmain") is None


def test_candidates_come_from_the_rarest_trigrams():
    # 'abcdefgh' shares abc/bcd/cde with the word it misspells (each trigram found in
    # that word only) and def/efg/fgh with twelve unrelated words. Counting only the
    # three most common trigrams never meets the right word.
    fillers = [f"{a}defgh{b}" for a in "mnpr" for b in "stv"]
    lexicon = Lexicon([*fillers, "abcdeqgh"])
    assert "abcdeqgh" in lexicon.sharing("abcdefgh")
    assert Segmenter(lexicon).replace("abcdefgh") == ("abcdeqgh", 500)
