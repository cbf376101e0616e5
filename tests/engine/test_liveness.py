"""Liveness on real pages: the same article, edited, or gone under a kept template."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from engine.errors import DecodeError
from engine.html.extract import ExtractOptions, decode, extract
from engine.html.keywords import KeywordOptions
from engine.liveness import (
    NOTHING_TO_COMPARE,
    UNJUDGED,
    LivenessOptions,
    by_phrases,
    decide,
    from_status,
    judge,
    live_terms,
    match_keywords,
    nothing_to_compare,
    phrase_share,
    stored_keywords,
    too_large,
    unreachable,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "extract"
ARTICLE = "76e5d18c072b364b"  # bmjv.de consumer page (German)
OTHER = "b48cdf12c871c85a"  # landwirt.com article (German, latin-1)


def html(case_id: str) -> str:
    return decode(gzip.decompress((FIXTURES / f"{case_id}.html.gz").read_bytes()))


def stored(case_id: str = ARTICLE):
    return extract(html(case_id))


def replace_body(page: str, new_inner: str, stored_body: str) -> str:
    """Replace each <p> holding stored body text with new content (the template stays)."""
    lines = [line for line in stored_body.split("\n") if len(line) > 30]

    def swap(match):
        text = re.sub(r"<[^>]+>|\s+", " ", match.group(0))
        return "" if any(line[:30] in " ".join(text.split()) for line in lines) else match.group(0)

    page = re.sub(r"<p\b.*?</p>", swap, page, flags=re.S | re.I)
    return page.replace("</body>", new_inner + "</body>")


def test_the_same_page_is_present_with_all_keywords():
    verdict = judge(stored(), html(ARTICLE))
    assert verdict.state == "present" and verdict.present
    assert verdict.match == 1.0 and not verdict.missing


def test_another_article_is_gone():
    verdict = judge(stored(), html(OTHER))
    assert verdict.state == "gone" and not verdict.present
    assert verdict.match < LivenessOptions().changed_at


def test_template_kept_with_a_removal_notice_is_gone():
    kept = stored()
    live = replace_body(html(ARTICLE), "<p>Diese Seite wurde entfernt.</p>", kept.body)
    assert "Auch hier gilt der Grundsatz" not in live
    verdict = judge(kept, live)
    assert verdict.state == "gone", verdict.reason


def test_the_title_alone_does_not_keep_a_page_alive():
    kept = stored()
    title = kept.title
    live = f"<html><head><title>{title}</title></head><body><h1>{title}</h1><p>Leider nichts.</p></body></html>"
    assert judge(kept, live).state == "gone"


def test_an_added_comment_section_keeps_it_present():
    live = html(ARTICLE).replace(
        "</body>", "<div class='comments'><p>Toller Artikel, danke!</p></div></body>"
    )
    assert judge(stored(), live).state == "present"


def test_reordered_paragraphs_stay_present():
    page = html(ARTICLE)
    paragraphs = re.findall(r"<p\b.*?</p>", page, flags=re.S | re.I)
    shuffled = page
    for a, b in zip(paragraphs, reversed(paragraphs), strict=True):
        shuffled = shuffled.replace(a, "\0" + b.replace("<p", "<P", 1), 1)
    assert judge(stored(), shuffled.replace("\0", "")).present


def test_thresholds_are_configurable():
    kept, live = stored(), html(ARTICLE)
    strict = LivenessOptions(present_at=1.01, changed_at=1.01, phrases_alone=1.01)
    assert judge(kept, live, strict).state == "gone"
    assert decide(0.7, LivenessOptions(present_at=0.9, changed_at=0.5)) == "changed"


def test_match_is_weighted():
    p, matched, missing = match_keywords([("a", 3.0), ("b", 1.0)], {"a"})
    assert p == 0.75 and matched == ["a"] and missing == ["b"]


def test_stored_keywords_accepts_extraction_dict_and_pairs():
    kept = stored()
    assert stored_keywords(kept) == stored_keywords(kept.to_dict()) == kept.keywords
    assert stored_keywords([["x", 1]]) == [("x", 1.0)]


def test_a_missing_page_status_is_gone_with_the_reason():
    for status in (404, 410, 403):
        verdict = from_status(status, stored())
        assert verdict.state == "gone" and verdict.reason == f"HTTP {status}"
        assert verdict.missing and verdict.match == 0.0 and not verdict.present


@pytest.mark.parametrize("status", [500, 502, 503, 504, 408, 429])
def test_a_server_error_is_unreachable_not_gone(status):
    verdict = from_status(status, stored())
    assert verdict.state == "unreachable" and not verdict.present
    assert verdict.missing == [] and verdict.matched == []  # no keyword was judged
    assert f"HTTP {status}" in verdict.reason and "next check" in verdict.reason


@pytest.mark.parametrize("kind", ["dns", "refused", "timeout", "reset", "network"])
def test_a_server_that_does_not_answer_is_unreachable_in_plain_words(kind):
    verdict = unreachable(kind)
    assert verdict.state == "unreachable" and not verdict.present and verdict.missing == []
    assert "Error" not in verdict.reason and "next check" in verdict.reason
    assert verdict.reason.startswith(("the server", "the site", "the connection"))


def test_a_page_over_the_size_cap_is_too_large_to_check_not_gone():
    verdict = too_large(50 * 2**20)
    assert verdict.state == "too_large" and not verdict.present
    assert verdict.missing == [] and verdict.matched == [] and verdict.match == 0.0
    assert verdict.reason == "the live page is larger than the 50 MB cap, so it was not checked"
    assert "cap" in too_large().reason


def app_shell(case_id: str = ARTICLE) -> str:
    """The real page's <head> over an empty root a script fills in: a stored copy with no text."""
    page = html(case_id)
    head = page[: page.lower().index("<body")]
    return head + "<body><div id='root'></div><script>render('#root')</script></body></html>"


def test_a_stored_copy_without_main_text_is_unknown_not_gone():
    kept = extract(app_shell())
    assert kept.body == "" and kept.keywords == []
    for live in (html(ARTICLE), html(OTHER), app_shell()):
        verdict = judge(kept, live)
        assert (verdict.state, verdict.present, verdict.match) == ("unknown", False, 0.0)
        assert verdict.matched == verdict.missing == []
        assert verdict.reason == NOTHING_TO_COMPARE == nothing_to_compare().reason
    assert "unknown" in UNJUDGED  # alerts compare with the last state judged on content
    assert judge([], html(ARTICLE)).state == "unknown"
    assert from_status(404, kept).state == "gone"  # a missing page is gone, text or not


def test_live_page_is_read_without_its_title_and_scripts():
    terms = live_terms("<title>Geheim</title><p>offen</p><script>geheim2()</script>")
    assert terms == {"offen"}


def test_chinese_page_liveness_uses_bigrams():
    kept = stored("996936aefb678cd9")
    assert judge(kept, html("996936aefb678cd9")).state == "present"
    assert judge(kept, html("75eb9b9958b1cd84")).state == "gone"


def test_seed_keywords_mode_still_judges():
    seed = extract(html(ARTICLE), options=ExtractOptions(keywords=KeywordOptions(mode="seed")))
    assert judge(seed, html(ARTICLE)).state == "present"


def test_binary_live_body_is_a_decode_error():
    with pytest.raises(DecodeError):
        judge(stored(), b"\x89PNG" + bytes(2000))


def test_keywords_match_across_unicode_normal_forms():
    # Stored body is NFC; a live page may spell the same word decomposed (e + U+0301).
    text = "Le café de la gare ferme ses portes après cent ans de service au quartier. " * 3
    page = f"<title>Café</title><article><p>{text}</p></article>"
    kept = extract(page)
    assert "café" in dict(kept.keywords)
    decomposed = page.replace("é", "e\u0301").replace("è", "e\u0300")
    verdict = judge(kept, decomposed)
    assert verdict.state == "present" and "café" in verdict.matched


# -- each rule on its own ---------------------------------------------------------------------


def test_a_heading_repeating_the_title_is_not_read_as_content():
    # A deleted page often keeps its title, and its <h1> repeats it: neither keeps it alive.
    live = (
        "<html><head><title>Gema Zeiger | Verlag</title></head><body>"
        "<h1>Gema Zeiger</h1><p>Diese Seite gibt es nicht mehr.</p></body></html>"
    )
    assert live_terms(live) == {"diese", "seite", "gibt", "es", "nicht", "mehr"}
    verdict = judge([("gema", 0.5), ("zeiger", 0.5)], live)
    assert verdict.state == "gone" and verdict.match == 0.0


def test_a_heading_that_differs_from_the_title_is_read():
    live = "<title>Gema Zeiger</title><h1>Gema dreht am Zeiger</h1><p>Text</p>"
    assert {"gema", "zeiger", "dreht"} <= live_terms(live)


def test_a_changed_page_is_still_present():
    # P between changed_at and present_at: the content is partly there, so present is true.
    verdict = judge([("gema", 0.7), ("zeiger", 0.3)], "<p>Die Gema heute</p>")
    assert verdict.state == "changed" and verdict.match == pytest.approx(0.7)
    assert verdict.present is True
    assert verdict.to_dict()["present"] is True


# The stored text's phrasing: the same words in another text are not the same content.
STORED_TEXT = (
    "The river rose two metres overnight and the lower meadow is under water again.\n"
    "Two herons stood at the edge of the flood at dawn, waiting for the fish to come."
)
STORED = {"keywords": [("river", 0.3), ("meadow", 0.3), ("herons", 0.2), ("flood", 0.2)],
          "body": STORED_TEXT}  # fmt: skip


def test_the_same_words_in_another_text_are_gone():
    # Every keyword is on the page, but none of the stored sentences: another article.
    other = (
        "<title>x</title><p>Meadow walks: a flood of visitors, herons on posters, "
        "and a river cruise.</p>"
    )
    verdict = judge(STORED, other)
    assert verdict.match == 1.0 and verdict.state == "gone" and not verdict.present
    assert "0% of the stored text's phrases found" in verdict.reason
    kept = f"<title>x</title><p>{STORED_TEXT.replace(chr(10), '</p><p>')}</p>"
    assert judge(STORED, kept).state == "present"  # the same text: present
    assert judge(STORED["keywords"], other).state == "present"  # no stored text: keywords only


def test_the_stored_text_found_verbatim_is_not_gone_when_keywords_weigh_little():
    # A redesign that lost words weighing most of P (a byline, comments) but kept the text.
    stored = {"keywords": [("byline", 0.5), ("comments", 0.2), ("river", 0.3)], "body": STORED_TEXT}
    kept = f"<title>x</title><p>{STORED_TEXT.replace(chr(10), '</p><p>')}</p>"
    verdict = judge(stored, kept)
    assert verdict.match == pytest.approx(0.3) and verdict.state == "changed" and verdict.present
    half = f"<title>x</title><p>{STORED_TEXT.split(chr(10))[0][:40]}</p>"
    assert judge(stored, half).state == "gone"  # a little of the text is not enough


def test_phrase_thresholds_sit_on_their_bounds():
    share = phrase_share("a b c d e f", [["a", "b", "c", "d"]], 2)  # 3 of 5 phrases
    assert share == pytest.approx(0.6)
    options = LivenessOptions(phrases_at=0.6, phrases_alone=0.6)
    assert by_phrases("present", 0.6, options) == "present"  # >= phrases_at keeps it
    assert by_phrases("present", 0.59, options) == "gone"
    assert by_phrases("gone", 0.6, options) == "changed"  # >= phrases_alone lifts it
    assert by_phrases("gone", 0.59, options) == "gone"
    assert phrase_share("", [["a"]], 2) is None and phrase_share("a b", [], 2) == 0.0
    # A phrase is read inside one block: words that only meet across two blocks (the end of one
    # teaser, the start of the next) are not the stored sentence.
    assert phrase_share("a b", [["x", "a"], ["b", "y"]], 2) == 0.0


def test_a_gone_page_is_not_present():
    verdict = judge([("gema", 0.5), ("zeiger", 0.5)], "<p>Die Gema heute</p>")
    assert verdict.state == "gone" and verdict.present is False
