"""Bad input gets a typed error per URL (InvalidURL or TooLarge)."""

from __future__ import annotations

import pytest

from engine.errors import InvalidURL, TooLarge
from engine.urls.normalize import NormalizeOptions, archive_key, normalize
from engine.urls.parse import MAX_URL_LENGTH


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        (" \t\n", "empty"),
        ("http://exa mple.com/", "whitespace"),
        ("http://example.com\x00/", "invalid host"),
        ("http://ex\x7fample.com/", "invalid host"),
        ("http://example.com/\udc80", "surrogate"),
        ("\ud83dhttp://x/", "surrogate"),
        ("http://256.1.1.1/", "IPv4"),
        ("http://1.2.3.4.5/", "IPv4"),
        ("http://0x100000000/", "IPv4"),
        ("http://[1::2::3]/", "IPv6"),
        ("not a url", "no scheme"),
    ],
)
def test_bad_input_is_an_invalid_url_with_a_reason(text, reason):
    with pytest.raises(InvalidURL, match=reason):
        archive_key(text)


def test_a_100_kb_url_is_too_large():
    with pytest.raises(TooLarge, match="exceeds the cap"):
        archive_key("https://example.com/?q=" + "x" * 100_000)


def test_the_cap_is_inclusive_and_configurable():
    url = "https://example.com/a.html?" + "x" * (MAX_URL_LENGTH - 27)
    assert len(url) == MAX_URL_LENGTH
    assert archive_key(url) == url
    small = NormalizeOptions(max_length=30)
    with pytest.raises(TooLarge):
        normalize("https://example.com/abcdefghijk", small)


@pytest.mark.parametrize("value", [None, 42, b"http://example.com/"])
def test_non_text_is_an_invalid_url(value):
    with pytest.raises(InvalidURL, match="must be text"):
        archive_key(value)  # type: ignore[arg-type]


def test_control_characters_in_path_are_escaped_not_rejected():
    # WHATWG percent-encodes C0 controls in the path: still a URL.
    assert archive_key("http://example.com/a\x01b.html") == "http://example.com/a%01b.html"
