"""Readings of typos that Levenshtein 2 on the name cannot reach: a stray dot, the TLD
typed into the name or joined by a hyphen, words joined by a connector; and two edits on
a short name, never on the confident button."""

from __future__ import annotations

import pytest

from engine.urls.dictionary import DomainDictionary
from engine.urls.substitution import read_typed
from engine.urls.suggest import Suggester, SuggestRequest
from engine.urls.suggest.pipeline import _Context
from engine.urls.typos import DEFAULT_COSTS as C
from engine.urls.typos import typo_cost
from tests.dictionary_cache import shared_bundled_dictionary


@pytest.fixture(scope="module")
def bundled():
    return Suggester(shared_bundled_dictionary()).warm()


def suggest(suggester, url, error="dns"):
    return suggester.suggest(SuggestRequest(url, error))


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("face.book.com", "facebook.com"),
        ("you.tube.com", "youtube.com"),
        ("amaz.on.com", "amazon.com"),
    ],
)
def test_a_stray_dot_that_makes_a_subdomain_is_taken_out(bundled, typed, meant):
    top = suggest(bundled, f"http://{typed}/")[0]
    assert (top.url, top.step) == (f"http://{meant}/", "dot") and top.score >= 0.5


def test_only_a_dns_failure_is_evidence_of_the_stray_dot(bundled):
    # on.com is known: refused, the name resolved and amaz.on.com may just be down
    found = suggest(bundled, "http://amaz.on.com/", "refused")
    assert all(s.score < 0.5 for s in found if "amazon.com" in s.url)
    assert suggest(bundled, "http://amaz.on.com/")[0].score >= 0.5


def test_a_real_subdomain_of_a_known_site_is_not_rewritten(bundled):
    for url in ("http://mail.google.com/", "http://en.wikipedia.org/", "http://docs.python.org/"):
        assert all(s.score < 0.5 for s in suggest(bundled, url) if s.step != "retry"), url


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("githubcom.com", "github.com"),
        ("nytimescom.com", "nytimes.com"),
        ("wikipedia-org.com", "wikipedia.org"),
        ("stackoverflow-com.com", "stackoverflow.com"),
        ("bbc-co-uk.com", "bbc.co.uk"),
    ],
)
def test_the_tld_typed_into_the_name_is_split_off(bundled, typed, meant):
    top = suggest(bundled, f"http://{typed}/")[0]
    assert (top.url, top.step) == (f"http://{meant}/", "dot") and top.score >= 0.5


def test_a_two_letter_tail_is_split_off_only_onto_a_known_domain():
    s = Suggester(DomainDictionary.from_domains(["linked.com", "grammarly.io", "x.in", "y.io"]))
    assert suggest(s, "http://grammarlyio.com/")[0].url == "http://grammarly.io/"
    assert all("linked.in" not in x.url for x in suggest(s, "http://linkedin.com/"))


@pytest.mark.parametrize("typed", ["terra+world.com", "terra world.com", "terra_world.com"])
def test_words_joined_by_a_connector_are_looked_up_as_words(bundled, typed):
    found = suggest(bundled, f"http://{typed}/")
    assert found[0].url in ("http://terraworld.com/", "http://terra-world.com/")
    assert found[0].step == "segments"
    assert not any(s.url.startswith("http://terra.") for s in found[:2])


def test_a_known_joined_name_keeps_its_own_popularity():
    s = Suggester(DomainDictionary.from_domains(["world.com", "terraworld.com"]))
    top = suggest(s, "http://terra+world.com/")[0]
    assert (top.url, top.step) == ("http://terraworld.com/", "substitution")


def test_two_edits_on_a_short_name_are_found_but_never_confident():
    s = Suggester(DomainDictionary.from_domains(["yahoo.com", "example.org"]))
    top = suggest(s, "http://yaaho.com/")[0]
    assert top.url == "http://yahoo.com/" and top.score < 0.5
    # one edit on the same name may be confident
    assert suggest(s, "http://yaho.com/")[0].score >= 0.5


def test_a_costlier_two_edit_reading_does_not_cap_a_one_edit_match():
    # 3lfit is one swap from 3lift; its look-alike reading elfit (3 read as e, a dearer
    # reading, searched after it) is two edits from the same short name. The cap is the
    # cheapest way's, whichever reading comes first.
    s = Suggester(DomainDictionary.from_domains(["google.com", "3lift.com", "elfin.com"]))
    top = suggest(s, "http://3lfit.com/")[0]
    assert (top.url, top.reason) == ("http://3lift.com/", "3lfit → 3lift")
    assert top.score >= 0.5


@pytest.mark.parametrize(
    ("ways", "capped"),
    [
        ([(0.85, True), (1.2, False)], True),  # the cheapest way is two edits: capped
        ([(0.55, False), (0.85, True)], False),  # the cheapest way is one edit
        ([(0.85, True), (0.85, False)], False),  # a tie: the sure way wins
    ],
)
def test_the_short_name_cap_goes_with_the_cheapest_way_in_either_order(ways, capped):
    s = Suggester(DomainDictionary.from_domains(["yahoo.com"]))
    url = "http://yaaho.com/"
    for order in (ways, ways[::-1]):
        ctx = _Context(SuggestRequest(url), read_typed(url), "any", "")
        for cost, unsure in order:
            s._add(ctx, "yahoo.com", cost, "spelling", "", unsure=unsure)
        assert ctx.candidates["yahoo.com"].unsure is capped, order


def test_yaaho_puts_no_wrong_site_on_the_confident_button(bundled):
    found = suggest(bundled, "http://yaaho.com/")
    assert found[0].url == "http://yahoo.com/"
    assert all(s.score < 0.5 for s in found)


def test_a_moved_letter_costs_a_dropped_and_a_doubled_letter():
    # the alignment with two replacements would cost 2.0
    assert typo_cost("yaaho", "yahoo") == pytest.approx(C.repetition + C.doubled_omission)


def test_a_two_letter_tld_glued_to_a_name_is_read_only_onto_a_known_domain():
    popular = ["a.io", "b.io", "a.in", "b.in", "c.in"]  # a suffix is read on 3+ domains
    reader = Suggester(
        DomainDictionary.from_domains(["linked.com", "grammarly.io", *popular])
    ).reader
    assert [q for q in reader.split("linkedin.com") if q.suffix == "in"] == []
    assert [q.key for q in reader.split("grammarlyio.com") if q.suffix == "io"] == ["grammarly"]


def test_readings_that_keep_a_subdomain_a_stray_dot_made_pay_for_it():
    # vk.com is far more popular than muckrack.com, and ck → vk is one neighbouring key;
    # but muckra.vk.com keeps a subdomain nobody knows while muckrack.com explains it all
    fillers = [f"filler{i}x.org" for i in range(2000)]
    s = Suggester(DomainDictionary.from_domains(["vk.com", *fillers, "muckrack.com"]))
    assert suggest(s, "http://muckra.ck.com/")[0].url == "http://muckrack.com/"


@pytest.mark.parametrize("typed", ["luga.com", "doooo.com", "usst.gov"])
def test_segment_repair_invents_no_names_for_a_short_one(bundled, typed):
    # a 4-5 letter name is one word: step 6 would only make up one (lugar.com, doook.com)
    assert all(s.step != "segments" for s in suggest(bundled, f"http://{typed}/"))


def urls(suggester, url):
    return [s.url for s in suggest(suggester, url)]


def test_a_short_name_left_by_a_dearer_reading_is_not_respelled():
    # etapp.com read as et.app (the TLD typed into the name, an unknown head): net.app is
    # one edit from that head, a second mistake on two letters; netapp.com is one edit
    domains = ["netapp.com", "net.app", "eta.app", "web.app"]  # .app: a popular suffix
    found = urls(Suggester(DomainDictionary.from_domains(domains)), "http://etapp.com/")
    assert found[0] == "http://netapp.com/" and "http://net.app/" not in found
    # the host as typed is still respelled however short: et.com → net.com
    s = Suggester(DomainDictionary.from_domains(["net.com"]))
    assert urls(s, "http://et.com/") == ["http://net.com/"]


def test_a_reading_with_rewritten_letters_gets_one_edit_more():
    # 1emt read as lemt (1 as l): lime is two edits from lemt (three from 1emt), lent one
    s = Suggester(DomainDictionary.from_domains(["lime.de", "lent.de", "google.com"]))
    found = urls(s, "http://1emt.de/")
    assert "http://lent.de/" in found and "http://lime.de/" not in found
    # the same two edits on the host as typed are searched
    assert "http://lime.de/" in urls(s, "http://lemt.de/")


def test_a_name_two_edits_away_brings_its_top_domain_and_the_typed_suffixs():
    domains = ["yahoo.com", "yahoo.fr", "yahoo.es", "yahoo.de"]
    s = Suggester(DomainDictionary.from_domains(domains))
    assert sorted(urls(s, "http://yaaho.de/")) == ["http://yahoo.com/", "http://yahoo.de/"]
    # one edit away: the most popular few as well
    assert "http://yahoo.fr/" in urls(s, "http://yaho.de/")


@pytest.mark.parametrize(
    ("typed", "meant", "why"),
    [
        ("harvard.edu.com", "harvard.edu", ".edu.com → .edu"),
        ("lil.law.harvard.edu.com", "lil.law.harvard.edu", ".edu.com → .edu"),
        ("harvrd.edu.com", "harvard.edu", "harvrd → harvard, .edu.com → .edu"),
    ],
)
def test_a_repaired_suffix_is_named_as_it_was_typed(bundled, typed, meant, why):
    """The reason names what the user typed: ".edu.com → .edu", not the reading in between
    (".edu.co → .edu": no one typed .edu.co)."""
    top = suggest(bundled, f"https://{typed}/a")[0]
    assert (top.url, top.reason) == (f"https://{meant}/a", why)


def home_pages(found):
    return [s for s in found if s.step == "site"]


def test_an_unknown_subdomain_of_a_known_site_offers_its_home_page_below_the_retry():
    s = Suggester(DomainDictionary.from_domains(["example.com", "example.org", "google.com"]))
    found = suggest(s, "https://shop.example.com:8443/cart?id=3")
    retry = next(f for f in found if f.step == "retry")
    assert [(h.url, h.reason) for h in home_pages(found)] == [
        ("https://example.com:8443/", "the home page of example.com")
    ]
    assert home_pages(found)[0].score < retry.score < 0.5  # the network may be what failed


@pytest.mark.parametrize(
    ("url", "error"),
    [
        ("https://shop.example.com/cart", "refused"),  # the name resolved: the site answered no
        ("https://www.example.com/cart", "dns"),  # www is the site itself
        ("https://example.com/cart", "dns"),
        ("https://shop.unknown-site.net/cart", "dns"),  # no known site to offer
        ("https://intranet.example.com/", "dns"),  # a subdomain the user has visited
    ],
)
def test_the_home_page_is_offered_only_for_an_unknown_subdomain_that_did_not_resolve(url, error):
    s = Suggester(DomainDictionary.from_domains(["example.com", "example.org", "google.com"]))
    s.add_user_domains(["intranet.example.com"])
    assert home_pages(suggest(s, url, error)) == []
