"""Segment repair rules: the score threshold is inclusive, and candidates come from the
segment's rarest trigrams."""

from __future__ import annotations

import random

import engine.urls.segments as segments
from engine.urls.segments import Lexicon, Segmenter, SegmentOptions, ngram_score
from engine.urls.typos import costs_more_than, typo_cost


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
    # travler has every n-gram of 'travle' but is a dropped letter away (0.55), over
    # max_typo_cost; gravle is a neighbouring key away (0.5)
    options = SegmentOptions(max_typo_cost=0.52)
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


def _holders(lexicon: Lexicon) -> dict[str, list[str]]:
    """Every word of 4+ letters under each of its trigrams, whatever its length."""
    holders: dict[str, list[str]] = {}
    for word in lexicon.order:
        if len(word) >= 4:
            for gram in {word[i : i + 3] for i in range(len(word) - 2)}:
                holders.setdefault(gram, []).append(word)
    return holders


def _plain_sharing(holders: dict, segment: str, slack: int = 2, top: int = 8) -> list[str]:
    """``Lexicon.sharing`` as first written: every word of each of the segment's three
    rarest trigrams counted, then only those of about the segment's length kept."""
    lists = [holders.get(segment[i : i + 3], []) for i in range(len(segment) - 2)]
    counts: dict[str, int] = {}
    for words in sorted(lists, key=len)[:3]:
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    near = [(c, w) for w, c in counts.items() if abs(len(w) - len(segment)) <= slack]
    return [w for _, w in sorted(near, reverse=True)[:top]]


def _segments_of(names: list[str]) -> list[str]:
    return sorted({n[i:j] for n in names for i in range(len(n)) for j in range(i + 3, len(n) + 1)})


SLOW_NAMES = ["resolverarpa", "xhamsterdesi", "advisortravel", "muddmain", "nomdedoamine"]


def test_sharing_counts_only_words_of_about_the_segment_length():
    # the trigram index is split by word length: the words counted are those of the
    # segment's length +-2 under its three rarest trigrams (rarest by every word holding
    # them, whatever their length), the same words as counting them all and filtering
    # abcdefgx's rarest trigrams: fgx (no word), def and efg (3 words each); abcdefghijk
    # holds both but is 3 letters longer, abcde holds neither
    lexicon = Lexicon(["abcdefgh", "abcde", "abcdefghijk", "xabcdefg", "abcxyz", "abca"])
    assert lexicon.sharing("abcdefgx") == ["xabcdefg", "abcdefgh"]
    bundled = Lexicon.bundled()
    holders = _holders(bundled)
    for segment in _segments_of(SLOW_NAMES + ["tripadvisor", "wikipedia", "abcabcabc"]):
        assert bundled.sharing(segment) == _plain_sharing(holders, segment), segment


def _plain_replace(segmenter: Segmenter, segment: str) -> tuple[str, int, float] | None:
    """``Segmenter._replace`` pricing every word tied at the top, no bound."""
    lexicon, options = segmenter.lexicon, segmenter.options
    scored = [(ngram_score(segment, w), len(w), w) for w in lexicon.sharing(segment)]
    scored.sort(key=lambda c: (-c[0], -c[1]))
    best = None
    for score, length, word in scored:
        if score < options.threshold or (best and (score, length) != best[:2]):
            break
        cost = typo_cost(segment, word)
        if cost <= options.max_typo_cost and (best is None or (-cost, word) > best[2:]):
            best = (score, length, -cost, word)
    return None if best is None else (best[3], best[0], -best[2])


def test_a_word_surely_dearer_than_the_best_is_never_aligned(monkeypatch):
    # the OSA bound skips an alignment only when the typo surely costs more than the
    # limit or the best word so far: the same word wins as when every tie is aligned
    skipped = []

    def bound(typed: str, meant: str, limit: float) -> bool:
        found = costs_more_than(typed, meant, limit)
        skipped.append(found)
        return found

    monkeypatch.setattr(segments, "costs_more_than", bound)
    segmenter = Segmenter(Lexicon.bundled())
    for segment in _segments_of(SLOW_NAMES):
        if len(segment) > 3:
            found = segmenter._replace(segment)
            assert found == _plain_replace(segmenter, segment), segment
    assert any(skipped) and not all(skipped)  # tripadvisor for advisortr: 6 edits


def _misspelt(word: str, rng: random.Random) -> str:
    """``word`` with one or two slips: look-alikes (cheap) or random letters (dear)."""
    for _ in range(rng.choice((1, 2))):
        i = rng.randrange(len(word))
        swap = {"o": "0", "l": "1", "e": "3", "s": "5", "a": "4"}.get(word[i])
        word = (
            word[:i]
            + (swap if swap and rng.random() < 0.6 else rng.choice("abelostz"))
            + word[i + 1 :]
        )
    return word


def test_sharing_and_replace_match_the_plain_search_on_small_lexicons():
    # small lexicons of one stem's misspellings tie often on n-grams and length, with
    # typo costs a few hundredths apart: the length split and the bound must not lose
    # a word the plain search would count or choose
    rng = random.Random(7)
    for _ in range(400):
        stem = "".join(rng.choice("abelostz") for _ in range(rng.randint(4, 8)))
        words = [_misspelt(stem, rng) for _ in range(rng.randint(3, 12))] + [stem + "s"]
        lexicon = Lexicon(words)
        segmenter = Segmenter(lexicon)
        holders = _holders(lexicon)
        for segment in {stem, _misspelt(stem, rng), stem[1:], stem + "e"}:
            assert lexicon.sharing(segment) == _plain_sharing(holders, segment), (words, segment)
            found = segmenter._replace(segment) if len(segment) > 3 else None
            if len(segment) > 3:
                assert found == _plain_replace(segmenter, segment), (words, segment)


def test_a_cheaper_word_after_the_best_is_still_aligned():
    # sab4 and eaba tie for eab4 (500, 4 letters); sab4 comes first (0.5, a neighbouring
    # key), eaba is one look-alike away (0.35): the bound at sab4's cost must let it through
    words = ["sabt", "s4b4", "sab4", "stba", "taba", "eaba", "saaa", "sata", "sabas"]
    segmenter = Segmenter(Lexicon(words))
    assert segmenter._replace("eab4") == ("eaba", 500, 0.35)
    assert segmenter._replace("eab4") == _plain_replace(segmenter, "eab4")
