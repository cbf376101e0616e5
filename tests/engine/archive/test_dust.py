"""DUST rules (engine/archive/dust.py): learned from URL lists, validated by stored content."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from engine.archive import keys
from engine.archive.dust import (
    DustOptions,
    DustRule,
    apply_rules,
    boundaries,
    candidate_rules,
    learn_rules,
    learning_form,
    site_of,
    substitute,
)
from engine.archive.keys import document_key
from engine.archive.model import Capture, RegisterOptions
from engine.archive.registry import register
from engine.archive.same_page import SamePage, SamePageOptions
from engine.archive.store import ArchiveStore
from engine.html.extract import extract
from engine.html.similarity import content_similarity

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"
NAMES = ["66ccd752a9bb2db9", "85b666998a03fcc0", "f158ac51f8c9d889", "4779762459127ce0"]


def page(name: str) -> str:
    return gzip.decompress((PAGES / f"{name}.html.gz").read_bytes()).decode("utf-8", "replace")


@pytest.fixture(scope="module")
def texts() -> list[str]:
    """Main texts of four real pages: four different stories."""
    return [extract(page(name)).body for name in NAMES]


class Site:
    """A URL list where each story is reachable under several URLs, and its stored texts."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        self.content: dict[str, str] = {}

    def add(self, url: str, story: int | None) -> str:
        if story is not None:
            self.content[url] = self.texts[story]
        return url

    def page(self, url: str) -> tuple[str, str]:
        return self.content.get(url, ""), ""


def learn(site: Site, urls: list[str], same=None, **options) -> list[DustRule]:
    return learn_rules(urls, SamePage(site.page, same), DustOptions(**options))


def rule_pairs(rules: list[DustRule]) -> set[tuple[str, str, str]]:
    return {(r.part, r.find, r.replace) for r in rules}


# -- the seed's example and friends ----------------------------------------------------------


def test_story_id_query_and_story_path_are_one_document(texts):
    """foo.org/story?id=xyz and foo.org/story_xyz (seed: "Normalization based on URL lists")."""
    site = Site(texts)
    urls = []
    for n, slug in enumerate(["xyz", "abc", "q7w", "zz9"]):
        urls.append(site.add(f"https://foo.org/story/?id={slug}", n))
        urls.append(site.add(f"https://foo.org/story_{slug}/", n))
    rules = learn(site, urls)
    assert rule_pairs(rules) == {("rest", "story?id=", "story_")}
    assert rules[0].support == 4 and rules[0].valid == rules[0].checked >= 2
    assert apply_rules("https://foo.org/story/?id=new1", rules) == "https://foo.org/story_new1/"


def test_mobile_host_maps_to_the_bare_host(texts):
    site = Site(texts)
    urls = []
    for n, path in enumerate(["news/a", "news/b", "sport/c"]):
        urls.append(site.add(f"https://example.com/{path}/", n))
        urls.append(site.add(f"https://m.example.com/{path}/", n))
    rules = learn(site, urls)
    assert {r.part for r in rules} == {"host"}
    assert all(r.find.startswith("m.") for r in rules)
    assert apply_rules("https://m.example.com/other/", rules) == "https://example.com/other/"
    assert site_of("https://m.example.com/x") == site_of("https://example.com/x")


def test_amp_suffix_and_amp_directory(texts):
    site = Site(texts)
    urls = []
    for n, slug in enumerate(["one", "two", "three"]):
        urls.append(site.add(f"https://news.example/a/{slug}.html", n))
        urls.append(site.add(f"https://news.example/a/{slug}.html.amp", n))
        urls.append(site.add(f"https://blog.example/p/{slug}/", n))
        urls.append(site.add(f"https://blog.example/p/{slug}/amp/", n))
    rules = learn(site, urls)
    assert apply_rules("https://news.example/a/four.html.amp", rules) == (
        "https://news.example/a/four.html"
    )
    assert apply_rules("https://blog.example/p/four/amp/", rules) == "https://blog.example/p/four/"
    assert {r.site for r in rules} == {"news.example", "blog.example"}


# -- validation ------------------------------------------------------------------------------


def test_rules_whose_pairs_differ_in_content_are_rejected(texts):
    """/en/ and /de/ versions of a page are different texts here: not DUST."""
    site = Site(texts)
    urls = []
    for n, slug in enumerate(["a", "b", "c"]):
        urls.append(site.add(f"https://shop.example/en/{slug}/", n))
        urls.append(site.add(f"https://shop.example/de/{slug}/", (n + 1) % 4))
    candidates = {(c.rule.find, c.rule.replace) for c in candidate_rules(urls)}
    assert ("en", "de") in candidates
    assert learn(site, urls) == []


def test_pairs_without_stored_content_cannot_validate(texts):
    site = Site(texts)
    urls = [f"https://foo.org/story/?id={s}" for s in "abc"] + [
        f"https://foo.org/story_{s}/" for s in "abc"
    ]
    assert learn(site, urls) == []  # nothing stored: the judge cannot tell


def test_support_threshold(texts):
    site = Site(texts)
    urls = [site.add("https://foo.org/story/?id=a", 0), site.add("https://foo.org/story_a/", 0)]
    urls += [site.add("https://foo.org/story/?id=b", 1), site.add("https://foo.org/story_b/", 1)]
    assert learn(site, urls, min_support=2)
    assert learn(site, urls, min_support=3) == []


def test_a_general_rule_wins_when_the_evidence_spans_contexts(texts):
    site = Site(texts)
    urls = []
    for n, (kind, slug) in enumerate(
        [("story", "a"), ("video", "b"), ("story", "c"), ("video", "d")]
    ):
        urls.append(site.add(f"https://foo.org/{kind}/?id={slug}", n))
        urls.append(site.add(f"https://foo.org/{kind}_{slug}/", n))
    assert rule_pairs(learn(site, urls)) == {("rest", "?id=", "_")}


def test_a_whole_query_parameter_is_left_to_the_parameter_learner(texts):
    """DUST samples pairs; dropping a parameter compares every pair (up to 64) and needs
    two values to drop it whatever its value (engine/archive/param_rules.py), so DUST
    never learns it."""
    site = Site(texts)
    urls = []
    for n, slug in enumerate("abc"):
        urls.append(site.add(f"https://foo.org/list/?cat={slug}", n))
        urls.append(site.add(f"https://foo.org/list/?cat={slug}&sort=desc", n))
        urls.append(site.add(f"https://foo.org/list/?sort=desc&cat={slug}x", n))
        urls.append(site.add(f"https://foo.org/list/?cat={slug}x", n))
    assert learn(site, urls) == []


def lines_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_a_path_rule_whose_pages_are_sorted_the_other_way_is_rejected(texts):
    """``/desc`` lists the same paragraphs the other way round: nearly the same shingles,
    another page. Only the order test holds the rule back."""
    site = Site(texts)
    urls = []
    for n, slug in enumerate(["a", "b", "c"]):
        urls.append(site.add(f"https://foo.org/list/{slug}/", n))
        urls.append(site.add(f"https://foo.org/list/{slug}/desc/", None))
        site.content[urls[-1]] = "\n".join(reversed(lines_of(texts[n])))
        assert content_similarity(site.content[urls[-2]], site.content[urls[-1]]) > 0.85
    assert learn(site, urls) == []
    assert rule_pairs(learn(site, urls, SamePageOptions(same_order=0.0))) == {("rest", "/desc", "")}


def test_a_path_rule_whose_pages_show_a_fifth_more_is_rejected(texts):
    """``/comments`` shows a fifth more paragraphs: shingles >= 0.85, the lines do not line up."""
    site = Site(texts)
    urls = []
    for n in (1, 2):
        body = lines_of(texts[n])
        more = body + lines_of(texts[n + 1])[: len(body) // 5]
        urls.append(site.add(f"https://foo.org/story{n}/", n))
        urls.append(site.add(f"https://foo.org/story{n}/comments/", None))
        site.content[urls[-1]] = "\n".join(more)
        assert content_similarity(texts[n], site.content[urls[-1]]) > 0.85
    assert learn(site, urls) == []
    assert rule_pairs(learn(site, urls, SamePageOptions(same_order=0.9))) == {
        ("rest", "/comments", "")
    }


def amp_is_merged(rules: list[DustRule]) -> bool:
    return apply_rules("https://foo.org/new.html.amp", rules) == "https://foo.org/new.html"


def amp_pairs(site, count: int) -> list[str]:
    """``count`` stories each stored under its URL and its ``.amp`` twin, with the same text."""
    urls = []
    for n in range(count):
        urls.append(site.add(f"https://foo.org/s{n}.html", n))
        urls.append(site.add(f"https://foo.org/s{n}.html.amp", n))
    return urls


def test_one_sampled_pair_that_shows_another_page_rejects_the_rule(texts):
    """Four pairs alike and one not (4 of 5: within the quarter the old check let differ)."""
    site = Site(texts)
    urls = amp_pairs(site, 4)
    assert amp_is_merged(learn(site, urls))
    urls.append(site.add("https://foo.org/s5.html", 0))
    urls.append(site.add("https://foo.org/s5.html.amp", 1))
    assert learn(site, urls) == []


def test_one_pair_is_not_enough_even_when_support_allows_it(texts):
    site = Site(texts)
    urls = [site.add("https://foo.org/a.html", 0), site.add("https://foo.org/a.html.amp", 0)]
    urls.append(site.add("https://foo.org/b.html", None))  # no stored page: not comparable
    urls.append(site.add("https://foo.org/b.html.amp", None))
    assert learn(site, urls) == []
    assert learn(site, urls, min_support=1) == []
    assert amp_is_merged(learn(site, urls, SamePageOptions(min_pairs=1)))


def test_the_checked_pairs_are_reported_and_all_alike(texts):
    site = Site(texts)
    urls = amp_pairs(site, 4)
    (rule,) = learn(site, urls)
    assert (rule.support, rule.checked, rule.valid) == (4, 4, 4)
    (sampled,) = learn(site, urls, checks_per_rule=3)
    assert (sampled.support, sampled.checked, sampled.valid) == (4, 3, 3)


def test_numbers_alone_never_make_a_rule():
    urls = [f"https://foo.org/list/?page={n}" for n in range(1, 9)]
    assert all(
        not (c.rule.find.isdigit() and c.rule.replace.isdigit()) for c in candidate_rules(urls)
    )


# -- application -----------------------------------------------------------------------------


def test_rules_are_site_scoped():
    rules = [DustRule("foo.org", "rest", ".amp", "")]
    assert apply_rules("https://bar.org/x.amp", rules) == "https://bar.org/x.amp"
    assert apply_rules("https://www.foo.org/x.amp", rules) != "https://www.foo.org/x.amp"


def test_substitution_respects_token_boundaries_and_parts():
    rule = DustRule("x.org", "rest", "amp", "")
    assert substitute("https://x.org/camp/amp", rule) == "https://x.org/camp/"
    host_rule = DustRule("x.org", "host", "m.", "")
    assert substitute("https://m.x.org/m.html", host_rule) == "https://x.org/m.html"


def test_unchanged_urls_come_back_as_they_are():
    url = "https://foo.org/Some/Path/?b=2&a=1"
    assert apply_rules(url, [DustRule("foo.org", "rest", ".amp", "")]) == url
    assert apply_rules(url, []) == url


def test_application_is_idempotent():
    rules = [DustRule("foo.org", "rest", "?id=", "_"), DustRule("foo.org", "host", "m.", "")]
    once = apply_rules("https://m.foo.org/story/?id=9", rules)
    assert once == "https://foo.org/story_9/"
    assert apply_rules(once, rules) == once


def test_rules_survive_json():
    rule = DustRule("foo.org", "rest", "?id=", "_", support=4, checked=4, valid=4)
    stored = json.loads(json.dumps([rule.to_dict()]))
    assert [DustRule.from_dict(d) for d in stored] == [rule]
    assert apply_rules("https://foo.org/s/?id=1", stored) == apply_rules(
        "https://foo.org/s/?id=1", [rule]
    )


def test_url_anatomy():
    assert learning_form("https://foo.org/a/b/?x=1") == "https://foo.org/a/b?x=1"
    assert learning_form("https://foo.org/") == "https://foo.org/"
    assert boundaries("a1-b") == [0, 2, 3, 4]
    assert site_of("https://a.b.example.co.uk:8443/x") == "example.co.uk"


# -- with the real archive store --------------------------------------------------------------


def test_learn_on_a_real_archive(tmp_path, texts):

    store = ArchiveStore.open(tmp_path, fsync=False)
    try:
        for n, name in enumerate(NAMES[:3]):
            html = gzip.decompress((PAGES / f"{name}.html.gz").read_bytes())
            for url in (f"https://foo.org/story?id=s{n}", f"https://foo.org/story_s{n}"):
                register(store, Capture(url=url, html=html), RegisterOptions())
        result = keys.learn(store)
        assert [(r["find"], r["replace"]) for r in result["rules"]] == [("story?id=", "story_")]
        assert store.load_state("dust_rules")["rules"] == result["rules"]
        assert document_key(store, "https://foo.org/story?id=new") == document_key(
            store, "https://foo.org/story_new"
        )
        stricter = keys.LearnOptions(same=SamePageOptions(min_pairs=4))  # 3 pairs stored
        assert keys.learn(store, stricter)["rules"] == []
        assert document_key(store, "https://foo.org/story?id=new") != document_key(
            store, "https://foo.org/story_new"
        )
    finally:
        store.close()
