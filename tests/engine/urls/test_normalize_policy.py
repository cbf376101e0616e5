"""The normalization policy (ARCHITECTURE.md, "URL normalization") as tests."""

from __future__ import annotations

import pytest

from engine.errors import InvalidURL
from engine.urls.normalize import NormalizeOptions as Options
from engine.urls.normalize import archive_key, normalize


def test_http_and_https_stay_distinct():
    assert archive_key("http://example.com/") != archive_key("https://example.com/")


def test_path_and_query_are_case_sensitive():
    assert archive_key("http://example.com/A.html?Q=X") == "http://example.com/A.html?Q=X"
    assert archive_key("http://example.com/a.html") != archive_key("http://example.com/A.html")


def test_double_slashes_are_kept():
    assert archive_key("http://example.com//a//b.html") == "http://example.com//a//b.html"


def test_no_repeated_unescaping():
    once = archive_key("http://example.com/%252F.html")
    assert once == "http://example.com/%252F.html"
    assert archive_key(once) == once


def test_no_unicode_normalization_of_decoded_bytes():
    # "é" precomposed vs "e" + combining acute: different bytes, different keys.
    assert archive_key("http://example.com/%C3%A9.html") != archive_key(
        "http://example.com/e%CC%81.html"
    )
    assert archive_key("http://example.com/e\u0301.html") == "http://example.com/e%CC%81.html"


def test_userinfo_is_kept():
    assert archive_key("https://alice:s3cret@example.com/") == "https://alice:s3cret@example.com/"


@pytest.mark.parametrize("url", ["http://m.example.com/a.html", "http://example.com/amp/a.html"])
def test_mobile_and_amp_variants_are_not_static_rules(url):
    assert normalize(url, Options.from_profile("aggressive")) == url


@pytest.mark.parametrize(
    "text", ["http://exa mple.com/", "http://1.2.3.999/", "example.com", "http//x"]
)
def test_invalid_urls_are_errors_not_repairs(text):
    with pytest.raises(InvalidURL):
        archive_key(text)


def test_default_profile_is_archive():
    url = "HTTP://www.Example.com/a/index.html?utm_source=x#top"
    assert normalize(url) == archive_key(url) == "http://example.com/a/"
