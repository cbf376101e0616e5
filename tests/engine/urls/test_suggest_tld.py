"""Step 4, TLD swaps: the same name under another suffix (issue 3, bench kind tld_swap)."""

from __future__ import annotations

from engine.urls.dictionary import DomainDictionary
from engine.urls.suggest import Suggester, SuggestRequest


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
