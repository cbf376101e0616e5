"""Step 4, TLD swaps: the same name under another suffix (issue 3, bench kind tld_swap)."""

from __future__ import annotations

import math

import Levenshtein
import pytest

from engine.urls.dictionary import DomainDictionary
from engine.urls.suggest import Suggester, SuggestOptions, SuggestRequest
from engine.urls.suggest.ranking import (
    SCAN_SIBLINGS,
    country_left_out,
    siblings,
    suffix_change_cost,
)
from engine.urls.suggest.readings import TLD_TYPOS, HostReader
from engine.urls.typos import DEFAULT_COSTS, typo_cost
from tests.dictionary_cache import shared_bundled_dictionary


def ranked(domains, url, **kw):
    found = Suggester(DomainDictionary.from_domains(domains)).suggest(SuggestRequest(url, **kw))
    return [(s.url, s.score) for s in found]


def test_country_code_left_off_a_generic_tld():
    # tienda.com typed for tienda.com.mx: the country code left off beats a vowel
    # respelling under the typed suffix, even one more popular
    found = ranked(["tiendo.com", "tienda.com.mx"], "http://tienda.com/")
    assert found[0][0] == "http://tienda.com.mx/", found


def test_a_country_tld_typed_is_not_a_truncation():
    # .co is a ccTLD and the classic slip of .com: shop.co means shop.com, not shop.co.uk
    found = ranked(["shop.co.uk", "shop.com"], "http://shop.co/")
    assert found[0][0] == "http://shop.com/", found


def test_a_known_typed_domain_keeps_its_siblings_below_the_button():
    # tienda.com is itself known (the site may be down): tienda.com.mx is offered,
    # never at the "Did you mean" score
    found = ranked(["tienda.com", "tienda.com.mx"], "http://tienda.com/")
    others = [(url, score) for url, score in found if "tienda.com.mx" in url]
    assert others and all(score < 0.5 for _, score in others), found


def _tld_fixes_by_brute_force(counts, typed):
    """What HostReader.tld_fixes answers, one known suffix at a time in popularity order."""
    fixed = TLD_TYPOS.get(typed)
    limit = 1 if len(typed) <= 3 else 2
    near = [
        (known, count)
        for known, count in counts.most_common()
        if known != fixed and Levenshtein.distance(typed, known) <= limit
    ]
    out = [(fixed, 0.3)] if fixed else []
    out += [
        (known, max(0.3 + typo_cost(typed, known) - 0.1 * math.log10(count), 0.3))
        for known, count in near[:40]
    ]
    return sorted(out, key=lambda fix: fix[1])[:6]


@pytest.mark.parametrize(
    "typed", ["vt", "eeu", "govv", "brr", "gtn", "cmo", "co", "nett", "com.bt", "a", "xyzw", ""]
)
def test_tld_repairs_are_the_brute_force_ones_in_popularity_order(typed):
    # many repairs tie at the floor cost (co → com, cl, ca…): the more used suffix first
    dictionary = shared_bundled_dictionary()
    fixes = HostReader(dictionary, lambda domain: False).tld_fixes(typed)
    found = [(known, round(cost, 9)) for known, cost, _ in fixes]
    expected = _tld_fixes_by_brute_force(dictionary.suffix_counts(), typed)
    assert found == [(known, round(cost, 9)) for known, cost in expected]


def test_siblings_of_a_big_family_look_the_typed_suffix_up():
    # google.* holds ~200 domains: the typed suffix's is looked up, not scanned for; the
    # answer is what a scan gives (the most popular few, then the typed suffix's once)
    d = shared_bundled_dictionary()
    ids = d.ids_with_key("google")
    assert len(ids) - 5 > SCAN_SIBLINGS
    for suffix in ("com", "de", "co.uk", "com.br", "cat", "zz", ""):
        for keep in (1, 5):
            scan = ids[:keep] + [i for i in ids[keep:] if d.suffix(i) == suffix][:1]
            assert siblings(d, ids, suffix, keep) == scan, (suffix, keep)
    assert d.suffix(siblings(d, ids, "cat", 1)[-1]) == "cat"


def test_a_tld_swap_far_from_the_typed_one_costs_the_swap_unaligned():
    # the shortcut (costs_more_than) gives what the alignment would, on every pair of
    # the bundled suffixes from the most used ones
    d = shared_bundled_dictionary()
    known = [s for s, _ in d.suffix_counts().most_common()]
    for typed in known[:25]:
        for other in known:
            slip = typo_cost(typed, other)
            want = (
                0.35
                if country_left_out(typed, other)
                else (0.6 + 0.2 * slip if slip <= 1.0 else 1.0)
            )
            assert suffix_change_cost.__wrapped__(typed, other, True) == want, (typed, other)


def flat_ranked(domains, url, **options):
    """Suggested URLs at equal popularity (alpha 0): only the costs rank them."""
    options = SuggestOptions(alpha=0.0, segments=False, **options)
    found = Suggester(DomainDictionary.from_domains(domains), options=options).suggest(
        SuggestRequest(url, languages=("en",))
    )
    return [s.url for s in found]


def test_dot_com_typed_for_another_tld_costs_less_than_a_random_letter():
    # bantam.com for bantam.net: .com is the TLD people assume (0.8); the rival batam.com
    # is the name with a random letter left in (0.9); any other real TLD swap costs 1.0
    # (the discount of a name typed as-is, tested below, is off here)
    assert typo_cost("bantam", "batam", "qwerty") == DEFAULT_COSTS.insertion
    plain = {"named_swap_discount": 0.0}
    assert flat_ranked(["batam.com", "bantam.net"], "http://bantam.com/", **plain)[0] == (
        "http://bantam.net/"
    )
    assert flat_ranked(["batam.org", "bantam.net"], "http://bantam.org/", **plain)[0] == (
        "http://batam.org/"
    )


def test_a_name_typed_as_is_known_under_another_tld_beats_a_random_letter():
    # bantam.de for bantam.net: the typed name is a known name, so one mistake (the TLD,
    # 1.0 - 0.2) explains it, against a random letter left in under the typed TLD (batam.de,
    # 0.9); without the discount the respelling wins
    domains = ["batam.de", "bantam.net"]
    assert flat_ranked(domains, "http://bantam.de/")[0] == "http://bantam.net/"
    assert flat_ranked(domains, "http://bantam.de/", named_swap_discount=0.0)[0] == (
        "http://batam.de/"
    )
    # a reading that rewrote the typed name (4 read as a), or a typed suffix that is no
    # real TLD (.dex, repaired first), is not the name typed as-is: no discount
    for url in ("http://b4ntam.de/", "http://bantam.dex/"):
        assert flat_scored(domains, url) == flat_scored(domains, url, named_swap_discount=0.0)


def flat_scored(domains, url, **options):
    """Suggested URLs with their scores at equal popularity."""
    options = SuggestOptions(alpha=0.0, segments=False, **options)
    found = Suggester(DomainDictionary.from_domains(domains), options=options).suggest(
        SuggestRequest(url, languages=("en",))
    )
    return [(s.url, s.score) for s in found]


@pytest.mark.parametrize("url", ["http://ww.google.lu/", "http://qww.google.at/"])
def test_a_known_typed_domain_gets_no_named_swap_discount(url):
    # the domain is known (only its www is mistyped): its own name under .com is no
    # better explained than before
    found = Suggester(shared_bundled_dictionary()).suggest(SuggestRequest(url, "dns"))
    assert found[0].url.startswith("http://www.google.") and url[-4:] in found[0].url
