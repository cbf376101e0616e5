"""parse_url: WHATWG components, typed errors with reasons, and the fast path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidURL, TooLarge
from engine.urls.parse import MAX_URL_LENGTH, ada_slices, fast_slices, parse_url
from tests.bench.bench_normalize import make_urls

ROOT = Path(__file__).resolve().parents[3]
WPT = ROOT / "tests" / "fixtures" / "wpt-url" / "urltestdata.json"


def test_components_of_a_full_url():
    parts = parse_url("HTTPS://User:Pa%20ss@Example.COM:8443/a/./b/../c?q=1#frag")
    assert parts.to_dict() == {
        "href": "https://User:Pa%20ss@example.com:8443/a/c?q=1#frag",
        "protocol": "https:",
        "username": "User",
        "password": "Pa%20ss",
        "host": "example.com:8443",
        "hostname": "example.com",
        "port": "8443",
        "pathname": "/a/c",
        "search": "?q=1",
        "hash": "#frag",
    }
    assert parts.host_type == "domain"


def test_relative_reference_against_a_base():
    assert parse_url("../x?y", "http://example.com/a/b/c").href == "http://example.com/a/x?y"


def test_bare_question_mark_and_hash_are_empty_components():
    parts = parse_url("http://example.com/p?#")
    assert (parts.href, parts.search, parts.hash) == ("http://example.com/p?#", "", "")


def test_host_types():
    assert parse_url("http://[0:0::1]/").host_type == "ipv6"
    assert parse_url("http://0x7f.1/").hostname == "127.0.0.1"
    assert parse_url("http://0x7f.1/").host_type == "ipv4"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty URL"),
        ("   ", "empty URL"),
        ("example.com/a", "no scheme"),
        ("http://1.2.3.256/", "invalid IPv4 address"),
        ("http://999999999999/", "invalid IPv4 address"),
        ("http://exa mple.com/", "whitespace"),
        ("http://example.com:99999/", "above 65535"),
        ("http://example.com:8x/", "invalid port"),
        ("http://[::1/", "invalid IPv6"),
        ("http://[::g]:80/", "invalid IPv6 address: \\[::g\\]"),
        ("http://[::1]x/", "invalid IPv6"),
        ("http://a\x01b/", "invalid host"),
    ],
)
def test_invalid_urls_say_why(text, reason):
    with pytest.raises(InvalidURL, match=reason):
        parse_url(text)


def test_lone_surrogate_is_an_invalid_url():
    with pytest.raises(InvalidURL, match="surrogate"):
        parse_url("http://example.com/\ud800")


def test_non_text_is_an_invalid_url():
    with pytest.raises(InvalidURL, match="bytes"):
        parse_url(b"http://example.com/")  # type: ignore[arg-type]


def test_length_cap_raises_too_large():
    with pytest.raises(TooLarge):
        parse_url("http://example.com/" + "a" * MAX_URL_LENGTH)


def fast_path_corpus() -> list[str]:
    urls = make_urls(20_000, seed=7)
    if WPT.exists():
        urls += [c["input"] for c in json.loads(WPT.read_text()) if isinstance(c, dict)]
    return urls


def test_fast_path_agrees_with_ada_on_realistic_and_wpt_inputs():
    corpus = fast_path_corpus()
    taken = [url for url in corpus if fast_slices(url) is not None]
    assert len(taken) > len(corpus) // 2  # the fast path is actually used
    assert [fast_slices(url) for url in taken] == [ada_slices(url.encode()) for url in taken]


URLISH = st.text(
    alphabet=st.sampled_from(list("hHtTpPsS:/.?#%2eE5aAxXnN-_~!$&'()*+,;=@[]09 \\\t^`{}|\"<>")),
    max_size=40,
)


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(["http://", "https://", "HTTP://", "http:"]), URLISH)
def test_fast_path_never_disagrees_with_ada(prefix, rest):
    text = prefix + rest
    fast = fast_slices(text)
    if fast is not None:
        assert fast == ada_slices(text.encode())
