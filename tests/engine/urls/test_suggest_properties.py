"""Property tests: random input raises nothing but PageKeeperError; known domains
are never confidently rewritten into another domain; learning state round-trips."""

from __future__ import annotations

import contextlib
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import PageKeeperError
from engine.urls.dictionary import DomainDictionary, split_host
from engine.urls.learning import LearningState
from engine.urls.substitution import read_typed
from engine.urls.suggest import ERRORS, Suggester, SuggestRequest
from tests.dictionary_cache import shared_bundled_dictionary

SUGGESTER = Suggester(shared_bundled_dictionary()).warm()
HOSTISH = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789.-_+&, éüß%@:/", max_size=40)


def registrable(url: str) -> str:
    key, suffix = split_host(read_typed(url).host)
    return f"{key.rpartition('.')[2]}.{suffix}"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200), st.sampled_from(ERRORS), st.none() | st.text(max_size=50))
def test_random_text_never_raises_anything_else(url, error, referrer):
    try:
        found = SUGGESTER.suggest(SuggestRequest(url, error, referrer))
    except PageKeeperError:
        return
    for s in found:
        assert 0.0 <= s.score <= 1.0 and s.url.startswith(("http://", "https://"))


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["http://", "https://", "htp://", "", "HTTP://u:p@"]),
    HOSTISH,
    st.text(max_size=20),
)
def test_url_shaped_input_never_raises_anything_else(scheme, host, path):
    try:
        found = SUGGESTER.suggest(SuggestRequest(f"{scheme}{host}/{path}"))
    except PageKeeperError:
        return
    assert all("u:p@" not in s.url for s in found)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=10), st.integers(0, 5)))
def test_malformed_learning_state_is_a_typed_error(data):
    with contextlib.suppress(PageKeeperError):
        LearningState.from_dict({"visited": data, "outcomes": {"a": {"b": data}}})


def test_known_domains_never_get_another_domain_at_05():
    """Over a sample of the dictionary: the top 1500 and 1500 drawn from the rest."""
    d = SUGGESTER.dictionary
    rng = random.Random(3)
    picked = list(range(1500)) + rng.sample(range(1500, len(d)), 1500)
    bad = []
    for ident in picked:
        domain = d.domain(ident)
        meant = registrable(f"http://{domain}/")  # IDNs compare decoded
        for s in SUGGESTER.suggest(SuggestRequest(f"http://{domain}/", "dns")):
            if s.score >= 0.5 and registrable(s.url) != meant:
                bad.append((domain, s.url, s.score))
    assert not bad, bad[:5]


@pytest.mark.parametrize(
    "url", ["", "   ", "ftp://x.com", "http://", "http://@/", "javascript:alert(1)"]
)
def test_bad_urls_are_invalid_url(url):
    with pytest.raises(PageKeeperError):
        SUGGESTER.suggest(SuggestRequest(url))


def test_bad_error_kind_is_invalid_input():
    with pytest.raises(PageKeeperError) as info:
        SUGGESTER.suggest(SuggestRequest("http://gogle.com/", "nxdomain"))
    assert info.value.code == "invalid_input"


def test_damaged_index_bytes_are_a_typed_error():
    data = DomainDictionary.from_domains(["google.com", "bbc.co.uk"]).to_bytes()
    for broken in (data[:-5], b"junk" + data, data[:20]):
        with pytest.raises(PageKeeperError):
            DomainDictionary.from_bytes(broken)
