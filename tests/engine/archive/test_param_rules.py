"""Query parameters that change nothing (engine/archive/param_rules.py): learned from URL pairs
that differ in one parameter, validated by the stored pages' content, never on a guess.
Each URL's content is a real saved page's main text and fingerprint."""

from __future__ import annotations

import pytest

from engine.archive.param_rules import (
    ParamOptions,
    ParamRule,
    apply_params,
    evidence,
    learn_params,
    split_query,
)
from engine.archive.same_page import SamePage, SamePageOptions
from engine.html.extract import extract
from engine.html.fingerprint import fingerprint
from engine.html.similarity import content_similarity
from tests.engine.archive.pages import page

NAMES = ["peptalks", "erfurt", "modabot", "time4talks", "ordnung", "latin1"]


@pytest.fixture(scope="module")
def pages() -> list[tuple[str, str]]:
    """(main text, fingerprint) of six different real pages."""
    found = []
    for name in NAMES:
        html = page(name)[1].decode("utf-8", "replace")
        found.append((extract(html).body, fingerprint(html)))
    return found


def reversed_lines(content: tuple[str, str]) -> tuple[str, str]:
    """The same page listed the other way round (its paragraphs in reverse order)."""
    text, fp = content
    return "\n".join(reversed(text.splitlines())), fp


class Site:
    """URLs and what each one's stored page holds."""

    def __init__(self) -> None:
        self.content: dict[str, tuple[str, str]] = {}

    def add(self, url: str, content: tuple[str, str]) -> Site:
        self.content[url] = content
        return self

    def learn(self, **options) -> list[ParamRule]:
        """Learn with the "same page" bars in ``options`` (e.g. ``same_order=0.0``)."""
        judge = SamePage(lambda u: self.content.get(u, ("", "")), SamePageOptions(**options))
        return learn_params(self.content, judge, ParamOptions())


def listing(pages) -> Site:
    """foo.org/display: articles a and b, each without a sort, sorted ascending (the
    default: the same page) and descending (the other way round)."""
    site = Site()
    for article, content in zip("ab", pages[:2], strict=True):
        url = f"https://foo.org/display/?article={article}"
        site.add(url, content).add(f"{url}&sort=ascending", content)
        site.add(f"{url}&sort=descending", reversed_lines(content))
    return site


def shape(rules: list[ParamRule]) -> set[tuple]:
    return {(r.site, r.name, r.value, r.path) for r in rules}


def test_a_default_value_is_learned_and_the_other_values_stay(pages):
    rules = listing(pages).learn()
    assert shape(rules) == {("foo.org", "sort", "ascending", "/display/")}
    assert rules[0].pairs == 2
    assert apply_params("https://foo.org/display/?article=c&sort=ascending", rules) == (
        "https://foo.org/display/?article=c"
    )
    assert apply_params("https://foo.org/display/?article=c&sort=descending", rules) == (
        "https://foo.org/display/?article=c&sort=descending"
    )


def test_an_empty_value_is_a_default(pages):
    site = Site()
    for n, content in enumerate(pages[:2]):
        base = f"https://foo.org/display/?article={n}"
        site.add(base, content).add(f"{base}&id=", content)
    assert shape(site.learn()) == {("foo.org", "id", "", "/display/")}
    assert apply_params("https://foo.org/display/?id=", site.learn()) == "https://foo.org/display/"


def test_an_arbitrary_variable_is_dropped_with_any_value_on_the_whole_site(pages):
    site = Site()
    for n, content in enumerate(pages[:3]):
        url = f"https://foo.org/story{n}/?id=123"
        site.add(url, content).add(f"{url}&fakefoo=bar{n}", content)
    site.add("https://foo.org/story0/?fakefoo=other&id=123", pages[0])
    rules = site.learn()
    assert shape(rules) == {("foo.org", "fakefoo", None, "")}
    assert (
        apply_params("https://foo.org/new/?fakefoo=zzz&id=9", rules) == "https://foo.org/new/?id=9"
    )
    assert (
        apply_params("https://bar.org/new/?fakefoo=zzz", rules)
        == "https://bar.org/new/?fakefoo=zzz"
    )


def test_one_pair_is_not_enough(pages):
    site = Site()
    site.add("https://foo.org/display/", pages[0])
    site.add("https://foo.org/display/?sort=ascending", pages[0])
    assert site.learn() == []
    assert shape(site.learn(min_pairs=1)) == {("foo.org", "sort", "ascending", "/display/")}


def test_one_pair_that_changes_the_page_rejects_the_parameter(pages):
    site = Site()
    for n, content in enumerate(pages[:4]):
        url = f"https://foo.org/p{n}/"
        site.add(url, content).add(f"{url}?ref=x{n}", content)
    assert shape(site.learn()) == {("foo.org", "ref", None, "")}
    site.add("https://foo.org/p4/", pages[4]).add("https://foo.org/p4/?ref=x4", pages[5])
    assert site.learn() == []  # four pairs alike, one not: never a guess


def test_the_same_words_in_another_order_are_another_page(pages):
    """A listing sorted the other way has nearly the same shingles: the order test holds it."""
    site = Site()
    for article, content in zip("ab", (pages[0], pages[2]), strict=True):
        url = f"https://foo.org/display/?article={article}"
        site.add(url, content).add(f"{url}&sort=descending", reversed_lines(content))
        assert content_similarity(content[0], reversed_lines(content)[0]) > 0.85
    assert site.learn() == []
    assert site.learn(same_order=0.0) != []  # without the order test it would merge


def test_a_difference_in_content_is_measured_not_assumed(pages):
    """Different real pages under one parameter: never alike, whatever the URL says."""
    site = Site()
    for n in range(3):
        url = f"https://foo.org/display/?article={n}"
        site.add(url, pages[n]).add(f"{url}&page=2", pages[n + 3])
    assert site.learn() == []


def test_pages_without_stored_content_cannot_validate():
    site = Site()
    for n in range(3):
        url = f"https://foo.org/display/?article={n}"
        site.add(url, ("", "")).add(f"{url}&sort=ascending", ("", ""))
    assert site.learn() == []


def test_pages_without_text_compare_by_fingerprint(pages):
    site = Site()
    for n in range(2):
        url = f"https://foo.org/img{n}/"
        site.add(url, ("", pages[n][1])).add(f"{url}?size=full", ("", pages[n][1]))
    assert shape(site.learn()) == {("foo.org", "size", "full", "")}
    other = Site()
    for n in range(2):
        url = f"https://foo.org/img{n}/"
        other.add(url, ("", pages[n][1])).add(f"{url}?size=full", ("", pages[n + 2][1]))
    assert other.learn() == []


def test_a_path_rule_stays_on_its_path():
    rule = ParamRule("foo.org", "sort", "ascending", "/display/")
    assert apply_params("https://foo.org/list/?sort=ascending", [rule]) == (
        "https://foo.org/list/?sort=ascending"
    )
    assert apply_params("https://www.foo.org/display/?sort=ascending#x", [rule]) == (
        "https://www.foo.org/display/#x"
    )


def test_evidence_pairs_urls_that_differ_in_one_parameter_only():
    urls = [
        "https://foo.org/a/?x=1&y=2",
        "https://foo.org/a/?x=1",
        "https://foo.org/a/?y=2",
        "https://foo.org/a/?x=2&y=2",
        "https://foo.org/b/?x=1",
    ]
    found = evidence(urls)
    assert found["foo.org", "y"].defaults == {"2": [(urls[0], urls[1], "/a/")]}
    assert found["foo.org", "x"].defaults == {
        "1": [(urls[0], urls[2], "/a/")],
        "2": [(urls[3], urls[2], "/a/")],
    }
    assert found["foo.org", "x"].values == [(urls[0], urls[3], "/a/")]
    assert split_query(urls[0]) == ("https://foo.org/a/", ("x=1", "y=2"), "")


def test_rules_survive_json():
    rule = ParamRule("foo.org", "sort", "ascending", "/display/", pairs=3)
    assert ParamRule.from_dict({**rule.to_dict(), "future": 1}) == rule


def test_a_parameter_that_shows_more_paragraphs_is_another_page(pages):
    """``comments=1`` adds three short comments: the shingles hardly change (0.99 and 0.96),
    but the lines no longer line up (line order 0.949 and 0.936, under 0.95)."""
    comments = [
        "Danke für den Artikel, sehr interessant!",
        "Ich sehe das ganz anders, aber gut geschrieben.",
        "Gibt es dazu eine Quelle?",
    ]
    site = Site()
    for n, content in enumerate(pages[:2]):
        more = "\n".join([*content[0].splitlines(), *comments])
        url = f"https://foo.org/story{n}/"
        site.add(url, content).add(f"{url}?comments=1", (more, content[1]))
    assert site.learn() == []
    assert site.learn(same_order=0.9) != []  # a looser order test would merge them
