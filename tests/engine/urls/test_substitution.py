"""engine/urls/substitution.py's reading of a typed address: what is a web address at all
(``typed_address``), a bare word, and a local host (an IP literal or localhost)."""

from __future__ import annotations

import pytest

from engine.errors import InvalidURL
from engine.urls.substitution import bare_word, is_local, read_typed, typed_address


@pytest.mark.parametrize(
    "typed, host, port",
    [
        ("gooogle.com", "gooogle.com", ""),
        ("http://intranet/", "intranet", ""),  # a name on the network, written as a browser needs
        ("intranet:3000", "intranet", "3000"),  # a port makes it an address
        ("localhost", "localhost", ""),
        ("192.168.0.1", "192.168.0.1", ""),
        ("[::1]", "[::1]", ""),
    ],
)
def test_an_address_a_browser_would_open_is_read_as_typed(typed, host, port):
    url = typed_address(typed)
    assert url == read_typed(typed) and (url.host, url.port) == (host, port)


@pytest.mark.parametrize("typed", ["notaurl", "  notaurl  ", "notaurl/x", "notaurl?q=1"])
def test_a_bare_word_is_no_address_and_the_error_says_how_to_write_one(typed):
    """An address bar searches a bare word; the error names the word as typed (trimmed) and
    the form of a name on the network."""
    with pytest.raises(InvalidURL) as raised:
        typed_address(typed)
    assert str(raised.value) == (
        f"{typed.strip()!r} is no web address: no scheme (http://), no domain (a dot) and no"
        " port (an address bar searches a word); give the page's address, e.g."
        " http://notaurl/ for a name on your network"
    )


@pytest.mark.parametrize(
    "typed, bare",
    [
        ("notaurl", True),
        ("notaurl/x", True),
        ("//notaurl", False),  # written with slashes: meant as an address
        ("http://notaurl/", False),
        ("gooogle.com", False),
        ("intranet:3000", False),
        ("localhost", False),
        ("[::1]", False),
        ("10.0.0.1", False),
    ],
)
def test_a_bare_word_is_one_label_with_no_scheme_no_port_and_not_local(typed, bare):
    assert bare_word(typed, read_typed(typed)) is bare


@pytest.mark.parametrize(
    "host, local",
    [
        ("localhost", True),
        ("localhost.", True),  # the root's dot changes no host (RFC 1034 §3.1)
        ("app.localhost", True),  # every name under .localhost is loopback (RFC 6761 §6.3)
        ("app.localhost.", True),
        ("[::1]", True),  # an IPv6 literal, in its brackets (RFC 3986 §3.2.2)
        ("192.168.1.1", True),
        ("192.168.1.1.", True),
        ("1.example", False),
        ("localhost.example", False),
        ("notlocalhost", False),
        ("intranet", False),
    ],
)
def test_a_local_host_is_localhost_under_any_name_or_an_ip_literal(host, local):
    assert is_local(host) is local


def test_a_host_and_port_typed_without_a_scheme_is_no_scheme_typo():
    """``localhost:8080/a`` is read over http as an address bar does: no scheme was mistyped,
    so no "did you mean https://" correction of a scheme is owed."""
    for typed in ("localhost:8080/a", "intranet:3000", "nas:5000#top"):
        assert read_typed(typed).scheme_typo is False


@pytest.mark.parametrize(
    "typed, port, rest",
    [
        ("localhost:8080\\a", "8080", "/a"),
        ("nas:5000?q", "5000", "?q"),
        ("nas:65535", "65535", ""),
        ("nas:1 ", "1", ""),
    ],
)
def test_what_may_follow_a_typed_port(typed, port, rest):
    """After ``name:port`` come the path, the query or the fragment, or the end; a backslash
    starts the path as a slash does (the WHATWG URL standard's rule for special schemes)."""
    url = read_typed(typed)
    assert (url.scheme, url.host, url.port, url.rest) == ("http", typed.split(":")[0], port, rest)


@pytest.mark.parametrize("typed", ["localhost:123456/a", "localhost:80x/", "localhost:/a"])
def test_a_port_is_one_to_five_digits_or_it_is_no_port(typed):
    """A TCP port is at most 65535, five digits (RFC 6335 §6): six digits, or none, after a
    name and a colon make no host and port (the name reads as a scheme, which is no web one)."""
    with pytest.raises(InvalidURL, match="not a web URL"):
        read_typed(typed)


@pytest.mark.parametrize(
    "typed, host, rest, typo",
    [
        ("example.com/a", "example.com", "/a", False),  # no scheme typed: no scheme typo
        ("Xerox.com", "xerox.com", "", False),
        ("//example.com/a", "example.com", "/a", False),
        ("http://example.com/a", "example.com", "/a", False),
        ("HTTP://Example.com/a", "example.com", "/a", False),
        ("http:/example.com/a", "example.com", "/a", True),  # one slash
        ("http:example.com/a", "example.com", "/a", True),  # none
        ("http;//example.com/a", "example.com", "/a", True),  # a semicolon for the colon
        ("http;:example.com/a", "example.com", "/a", True),  # a semicolon before the colon
        ("http;example.com/a", "example.com", "/a", True),  # a semicolon, no slash
        ("htp://example.com/a", "example.com", "/a", True),
        ("htp;example.com/a", "example.com", "/a", True),  # a scheme's typo, a semicolon
        ("hhtp;example.com/a", "example.com", "/a", True),
    ],
)
def test_a_scheme_and_its_typos_are_read_off_the_front(typed, host, rest, typo):
    url = read_typed(typed)
    assert (url.scheme, url.host, url.rest, url.scheme_typo) == ("http", host, rest, typo)


def test_a_known_scheme_a_semicolon_and_no_slash_is_still_that_scheme():
    """``http;example.com``: the semicolon (next to the colon on most keyboards) is the
    scheme's separator, not part of the host."""
    url = read_typed("HTTPS;example.com/a")
    assert (url.scheme, url.host, url.rest) == ("https", "example.com", "/a")
    url = read_typed("http;://example.com/a")  # both: the semicolon is dropped
    assert (url.scheme, url.host, url.rest) == ("http", "example.com", "/a")


@pytest.mark.parametrize(
    "typed, host, port, rest",
    [
        ("http://[::1]:8080/a", "[::1]", "8080", "/a"),  # the port follows the "]"
        ("http://[::1]/a", "[::1]", "", "/a"),
        ("http://[::1]:/a", "[::1]", "", "/a"),  # an empty port (WHATWG: none)
        ("https://[2001:db8::1]:8443/x?q", "[2001:db8::1]", "8443", "/x?q"),
        ("http://[2001::1]", "[2001::1]", "", ""),
        ("[::1]:8080/a", "[::1]", "8080", "/a"),  # typed without a scheme
        ("http://[::1]x:80/a", "[::1]x:80", "", "/a"),  # no port after junk: not split
        ("http://[2001::1]:80", "[2001::1]", "", ""),  # the scheme's default port: none
    ],
)
def test_an_ipv6_literals_port_is_read_after_its_bracket(typed, host, port, rest):
    url = read_typed(typed)
    assert (url.host, url.port, url.rest) == (host, port, rest)
    assert (
        url.with_host(url.host) == f"{url.scheme}://{host}{':' + port if port else ''}{rest or '/'}"
    )


@pytest.mark.parametrize(
    "typed, port",
    [
        ("http://example.com:80/a", ""),
        ("https://example.com:443/a", ""),
        ("https://example.com:0443/a", ""),  # a port is a number (WHATWG URL): 0443 is 443
        ("http://example.com:443/a", "443"),  # another scheme's default is a port
        ("https://example.com:80/a", "80"),
        ("http://example.com:080/a", ""),
        ("http://example.com:8080/a", "8080"),
        ("http://example.com:08080/a", "8080"),
    ],
)
def test_the_schemes_default_port_is_no_port(typed, port):
    """WHATWG URL, port state: a port equal to the scheme's default is set to null, so the
    address is rebuilt without it, as a browser shows it."""
    url = read_typed(typed)
    assert url.port == port
    assert url.with_host(url.host) == f"{url.scheme}://example.com{':' + port if port else ''}/a"


@pytest.mark.parametrize("typed", ["intranet:80", "nas:80/a", "intranet:8080"])
def test_a_name_typed_with_a_port_is_no_bare_word_even_the_default_port(typed):
    """An address bar opens ``intranet:80`` as ``http://intranet/``: a port was typed, so it
    is an address, whatever the port."""
    assert bare_word(typed, read_typed(typed)) is False


def test_a_mistyped_scheme_with_a_semicolon_is_repaired_like_one_with_a_colon():
    """``htp;//``: a misspelled scheme and a semicolon for its colon, two typos at once: the
    scheme is repaired (as ``htp://`` is) and the host is what follows the slashes."""
    url = read_typed("htp;//example.com/a")
    assert (url.scheme, url.host, url.rest, url.scheme_typo) == ("http", "example.com", "/a", True)


@pytest.mark.parametrize(
    "typed, host, port",
    [
        ("http://[::1]:5/", "[::1]", "5"),  # one digit is a port
        ("http://[::1]8080/", "[::1]8080", ""),  # no colon after the "]": no port
        ("http://[::1]:x8/", "[::1]:x8", ""),  # a port is digits only
        ("http://example.com:/a", "example.com", ""),  # an empty port (WHATWG: none)
        ("http://example.com:abc/", "example.com:abc", ""),  # letters are no port
        ("http://2130706433/", "2130706433", ""),  # a host of digits alone is a host
    ],
)
def test_a_port_follows_its_colon_and_is_digits(typed, host, port):
    url = read_typed(typed)
    assert (url.host, url.port) == (host, port)


@pytest.mark.parametrize("typed", ["http://example.com:²/", "http://example.com:٨٠/", "nas:٨٠"])
def test_a_port_is_ascii_digits_only(typed):
    """WHATWG URL's port state takes ASCII digits only: a superscript or another script's
    digits make no port (``²`` once raised a bare ValueError from ``int``)."""
    try:
        url = read_typed(typed)
    except InvalidURL:
        return  # refused as no web URL: typed, as bad input must be
    assert url.port == ""
    assert url.host != "example.com"  # the characters stay in the host, which no DNS name holds
