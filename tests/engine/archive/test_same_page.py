"""The "same page" judgement both URL learners share (engine/archive/same_page.py), on real
saved pages' main texts and fingerprints."""

from __future__ import annotations

import pytest

from engine.archive.same_page import SamePage, SamePageOptions
from engine.html.extract import extract
from engine.html.fingerprint import fingerprint
from tests.engine.archive.pages import page

NAMES = ["peptalks", "erfurt", "modabot"]


@pytest.fixture(scope="module")
def judge() -> SamePage:
    """URLs ``p<n>`` (a real page), ``p<n>/desc`` (its lines reversed), ``p<n>/more`` (a fifth
    more lines), ``p<n>/teaser`` (one line of ten replaced), ``p<n>/fp`` (its fingerprint only)."""
    content: dict[str, tuple[str, str]] = {}
    found = []
    for name in NAMES:
        html = page(name)[1].decode("utf-8", "replace")
        found.append((extract(html).body, fingerprint(html)))
    for n, (text, fp) in enumerate(found):
        lines = [line for line in text.splitlines() if line.strip()]
        other = [line for line in found[(n + 1) % 3][0].splitlines() if line.strip()]
        teaser = lines[:]
        teaser[len(lines) // 2] = other[len(other) // 2]
        content[f"p{n}"] = (text, fp)
        content[f"p{n}/desc"] = ("\n".join(reversed(lines)), fp)
        content[f"p{n}/more"] = ("\n".join(lines + other[: max(2, len(lines) // 5)]), fp)
        content[f"p{n}/teaser"] = ("\n".join(teaser), fp)
        content[f"p{n}/fp"] = ("", fp)
    content["none"] = ("", "")
    return SamePage(lambda url: content[url])


def test_a_page_is_itself_and_survives_a_rotating_teaser(judge):
    assert judge.same("p0", "p0") is True
    assert [judge.same(f"p{n}", f"p{n}/teaser") for n in (0, 1)] == [True, True]  # >= 10 lines


def test_another_page_is_another_page(judge):
    assert judge.same("p0", "p1") is False


def test_the_same_lines_in_another_order_are_another_page(judge):
    assert [judge.same(f"p{n}", f"p{n}/desc") for n in range(3)] == [False] * 3


def test_a_fifth_more_lines_is_another_page(judge):
    assert [judge.same(f"p{n}", f"p{n}/more") for n in range(3)] == [False] * 3


def test_without_text_the_fingerprints_decide_and_without_both_nobody_can(judge):
    assert judge.same("p0/fp", "p0") is True
    assert judge.same("p0/fp", "p1/fp") is False
    assert judge.same("none", "p0") is None


def test_a_rule_holds_on_two_alike_pairs_and_never_with_one_unlike(judge):
    alike = [("p0", "p0/teaser"), ("p1", "p1/teaser")]
    assert judge.holds(alike) == 2
    assert judge.holds(alike[:1]) == 0  # one pair is a guess
    assert judge.holds([*alike, ("none", "p2")]) == 2  # an unknown pair counts for nothing
    assert judge.holds([*alike, ("p2", "p2/desc")]) == 0
    assert judge.holds([("p2", "p2/more"), *alike]) == 0


def test_the_bars_are_options():
    text = "\n".join(f"line {n} of a page that lists things" for n in range(20))
    flipped = "\n".join(reversed(text.splitlines()))
    content = {"a": (text, ""), "b": (flipped, "")}
    assert SamePage(content.__getitem__).same("a", "b") is False
    loose = SamePage(content.__getitem__, SamePageOptions(same_order=0.0))
    assert loose.same("a", "b") is True
    assert SamePage(content.__getitem__, SamePageOptions(min_pairs=1)).holds([("a", "a")]) == 1


def test_each_pair_is_compared_once():
    content = {"a": ("one two three", ""), "b": ("one two three", "")}
    judge = SamePage(content.__getitem__)
    judge.same("a", "b"), judge.same("b", "a"), judge.holds([("a", "b")])
    assert judge.compared == 1
