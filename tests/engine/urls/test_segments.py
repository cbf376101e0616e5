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


def test_on_a_score_and_length_tie_the_likelier_typo_wins():
    # travel and travis both score 429 for 'travle'; a swap (0.55) beats a replacement (0.85)
    assert ngram_score("travle", "travel") == ngram_score("travle", "travis") == 429
    assert Segmenter(Lexicon(["travis", "travel"])).replace("travle") == ("travel", 429)


def test_a_word_too_far_as_a_typo_gives_way_to_the_next_best():
    # travler has every n-gram of 'travle' but is an insertion away (0.7), over max_typo_cost
    options = SegmentOptions(max_typo_cost=0.6)
    assert ngram_score("travle", "travler") == 1000 and ngram_score("travle", "gravle") == 714
    assert Segmenter(Lexicon(["travler", "gravle"]), options).replace("travle") == ("gravle", 714)


def test_only_fresh_look_ups_spend_the_budget():
    # muddmain needs 12 fresh segment look-ups: with a budget of 6 the first try runs out,
    # and the second, half of it cached, repairs the name
    def segmenter(budget: int) -> Segmenter:
        return Segmenter(Lexicon(["my", "domain"]), SegmentOptions(budget=budget))

    assert segmenter(12).repair("muddmain") == ("mydomain", 429)
    assert segmenter(11).repair("muddmain") is None
    short = segmenter(6)
    assert short.repair("muddmain") is None
    assert short.repair("muddmain") == ("mydomain", 429)
