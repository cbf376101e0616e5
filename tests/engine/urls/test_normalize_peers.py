"""Classic cases of other normalizers, restated where they agree with our policy.

Sources (behaviour restated in our own words, not copied): w3lib's
``canonicalize_url`` tests, the ``url-normalize`` package's tests, the Internet
Archive's ``surt`` canonicalizers, and Google Safe Browsing's URL
canonicalization list. Where a peer disagrees with our policy the test says
what we do instead, and why.
"""

from __future__ import annotations

import pytest

from engine.errors import InvalidURL
from engine.urls.normalize import NormalizeOptions, normalize


def norm(url: str, profile: str = "archive", adjust: str = "") -> str:
    return normalize(url, NormalizeOptions.from_profile(profile, adjust))


# -- w3lib canonicalize_url ----------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # query arguments are sorted by key, an empty pair disappears
        ("http://www.example.com/do?c=1&b=2&a=3", "http://example.com/do/?a=3&b=2&c=1"),
        ("http://www.example.com/do?&a=1", "http://example.com/do/?a=1"),
        # escapes get uppercase hex digits; non-ASCII path text gets UTF-8 escapes
        ("http://www.example.com/a%a3do", "http://example.com/a%A3do/"),
        ("http://www.example.com/résumé", "http://example.com/r%C3%A9sum%C3%A9/"),
        # the fragment goes, userinfo stays
        ("http://user:pass@www.example.com/do?a=1#frag", "http://user:pass@example.com/do/?a=1"),
        # the host is lowercased, an internationalized host becomes punycode
        ("http://www.EXAMPLE.com/", "http://example.com/"),
        ("http://www.例子.测试/", "http://xn--fsqu00a.xn--0zwm56d/"),
        # reserved escapes are kept as they are
        ("http://www.example.com/a%2Fb", "http://example.com/a%2Fb/"),
    ],
)
def test_w3lib_canonicalize_url_cases(before, after):
    assert norm(before) == after


def test_w3lib_spaces_in_query_become_plus_with_form_encoding():
    # w3lib writes spaces in the query as "+"; we do that with query_form_encoding
    # (aggressive); the archive key keeps WHATWG's %20.
    url = "http://www.example.com/do?q=a space&a=1"
    assert norm(url, "aggressive") == "http://example.com/do/?a=1&q=a+space"
    assert norm(url) == "http://example.com/do/?a=1&q=a%20space"


# -- url-normalize -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("HTTP://EXAMPLE.COM/", "http://example.com/"),
        ("http://example.com:80/", "http://example.com/"),
        ("https://example.com:443/", "https://example.com/"),
        ("http://example.com/a/./b/../c.html", "http://example.com/a/c.html"),
        ("http://example.com/%7Efoo.html", "http://example.com/~foo.html"),
        ("http://example.com/foo%2a.html", "http://example.com/foo%2A.html"),
        ("http://example.com?", "http://example.com/"),
        ("http://example.com/#", "http://example.com/"),
        ("http://@example.com/", "http://example.com/"),
        ("http://:@example.com/", "http://example.com/"),
        ("http://example.com:/", "http://example.com/"),
        ("http://example.com/foo bar.html", "http://example.com/foo%20bar.html"),
        ("http://USER:pass@example.com/", "http://USER:pass@example.com/"),
        ("http://example.com/?b=1&a=2&utm_source=x", "http://example.com/?a=2&b=1"),
    ],
)
def test_url_normalize_cases(before, after):
    assert norm(before, "safe", "+fragment,+query_sort,+tracking_params") == after


# -- surt (Internet Archive canonicalizers) -----------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("http://www.alexa.com/", "http://alexa.com/"),
        ("http://www.example.com/?b=1&a=2", "http://example.com/?a=2&b=1"),
        ("http://www.example.com:80/foo.html#bar", "http://example.com/foo.html"),
        ("http://www.example.com/foo.jsp;jsessionid=ABCDEF0123", "http://example.com/foo.jsp"),
        (
            "http://archive.org/index.php?PHPSESSID=0123456789abcdefghijklemopqrstuv&action=profile;u=4221",
            "http://archive.org/?action=profile;u=4221",
        ),
        (
            "http://archive.org/?ASPSESSIONIDAQBSDSRT=EOHBLBDDPFCLHKPGGKLILNAM",
            "http://archive.org/",
        ),
    ],
)
def test_surt_canonicalizer_cases(before, after):
    assert norm(before, "aggressive") == after


def test_surt_strips_www_digits_but_we_do_not():
    # surt's IA canonicalizer turns www2. into the bare domain; www2 can be a
    # different site, so our www rule drops only an exact "www." label.
    assert norm("http://www2.example.com/a.html") == "http://www2.example.com/a.html"


# -- Google Safe Browsing canonicalization list -----------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("http://www.google.com/blah/..", "http://www.google.com/"),
        ("http://www.GOOgle.com/", "http://www.google.com/"),
        ("http://www.google.com/foo\tbar\rbaz\n2", "http://www.google.com/foobarbaz2"),
        ("http://www.google.com/q?r?", "http://www.google.com/q?r?"),
        ("http://www.google.com/q?r?s", "http://www.google.com/q?r?s"),
        ("http://evil.com/foo;", "http://evil.com/foo;"),
        ("http://evil.com/foo?bar;", "http://evil.com/foo?bar;"),
        ("http://notrailingslash.com", "http://notrailingslash.com/"),
        ("  http://www.google.com/  ", "http://www.google.com/"),
        ("https://www.securesite.com/", "https://www.securesite.com/"),
        ("http://host.com/ab%23cd", "http://host.com/ab%23cd"),
        ("http://host.com//twoslashes?more//slashes", "http://host.com//twoslashes?more//slashes"),
        ("http://3279880203/blah", "http://195.127.0.11/blah"),
        (
            "http://%31%36%38%2e%31%38%38%2e%39%39%2e%32%36/%2E%73%65%63%75%72%65/%77%77%77%2E%65%62%61%79%2E%63%6F%6D/",
            "http://168.188.99.26/.secure/www.ebay.com/",
        ),
    ],
)
def test_safe_browsing_cases_with_the_safe_profile(before, after):
    assert norm(before, "safe") == after


def test_safe_browsing_fragments_go_in_the_archive_profile():
    assert norm("http://evil.com/foo#bar#baz") == "http://evil.com/foo/"


def test_safe_browsing_unescapes_repeatedly_but_we_decode_once():
    # Safe Browsing turns %25%32%35 into %25 (it unescapes until nothing changes).
    # We decode the unreserved escapes %32 and %35 once: the same bytes, kept apart.
    assert norm("http://host/%25%32%35", "safe") == "http://host/%2525"


@pytest.mark.parametrize(
    "text",
    [
        "www.google.com/",
        "http:// leadingspace.com/",
        "http://%20leadingspace.com/",
        "http://\x01\x80.com/",
    ],
)
def test_safe_browsing_repairs_that_we_refuse(text):
    # An invalid URL is an error, never repaired into another URL.
    with pytest.raises(InvalidURL):
        norm(text, "safe")


def test_safe_browsing_drops_every_port_but_we_keep_real_ones():
    assert norm("http://www.gotaport.com:1234/", "safe") == "http://www.gotaport.com:1234/"
