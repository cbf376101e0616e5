"""Every rule: its documented example, its off switch, and its edge cases."""

from __future__ import annotations

import pytest

import engine.urls.rules as module
from engine.errors import InvalidURL
from engine.urls.normalize import NormalizeOptions, normalize
from engine.urls.rules import RULES


def norm(url: str, profile: str = "safe", adjust: str = "") -> str:
    return normalize(url, NormalizeOptions.from_profile(profile, adjust))


def only(url: str, *rules: str) -> str:
    """The safe profile plus exactly these rules."""
    return norm(url, "safe", ",".join("+" + r for r in rules))


@pytest.mark.parametrize("name", list(RULES))
def test_documented_example_holds(name):
    before, after = RULES[name].example
    assert only(before, name) == after


@pytest.mark.parametrize("name", list(RULES))
def test_switching_the_rule_off_changes_its_example(name):
    before, after = RULES[name].example
    try:
        off = norm(before, "aggressive", "-" + name)
    except InvalidURL:
        assert name in ("whitespace_strip", "whatwg_lenient")  # strict input when off
        return
    assert off != norm(before, "aggressive")


@pytest.mark.parametrize("name", list(RULES))
def test_every_rule_is_named_in_the_module_docs(name):

    assert f"\n{name} " in module.__doc__


# -- WHATWG/RFC-safe rules -------------------------------------------------


def test_scheme_and_host_case_only_touch_scheme_and_host():
    assert norm("HtTpS://ExAmPlE.CoM/PaTh?QuErY=VaLuE#FrAg") == (
        "https://example.com/PaTh?QuErY=VaLuE#FrAg"
    )


def test_empty_path_slash_with_query_and_fragment():
    assert norm("http://example.com?x=1#y") == "http://example.com/?x=1#y"
    assert (
        norm("http://example.com?x=1#y", adjust="-empty_path_slash") == "http://example.com?x=1#y"
    )


def test_pct_upper_everywhere_but_only_hex_digits():
    assert norm("http://u%3a:p%3a@example.com/%e2%82%ac?q=%e2%82%ac#%e2%82%ac") == (
        "http://u%3A:p%3A@example.com/%E2%82%AC?q=%E2%82%AC#%E2%82%AC"
    )
    assert norm("http://example.com/%zz%4") == "http://example.com/%zz%4"  # not escapes


@pytest.mark.parametrize("escape", ["%2F", "%3F", "%23", "%26", "%3D", "%2B", "%25", "%3A", "%40"])
def test_pct_decode_unreserved_never_decodes_reserved(escape):
    url = f"http://example.com/a{escape}b?k=v{escape}w"
    assert norm(url) == url
    assert norm(url.lower()) == url  # only uppercased


def test_pct_decode_unreserved_decodes_letters_digits_and_marks():
    assert (
        norm("http://example.com/%41%7a%30%2D%2e%5F%7E?%61=%62") == "http://example.com/Az0-._~?a=b"
    )


def test_pct_decode_is_single_pass():
    # %25 is "%" (reserved here): decoding never runs twice, so %2541 stays.
    assert norm("http://example.com/%2541") == "http://example.com/%2541"


def test_pct_encode_space_quotes_and_non_ascii():
    assert (
        norm('http://example.com/a b"<é>?q=a b')
        == "http://example.com/a%20b%22%3C%C3%A9%3E?q=a%20b"
    )
    assert norm("http://example.com/a b", adjust="-pct_encode") == "http://example.com/a b"


def test_default_port_per_scheme_and_other_ports_kept():
    assert norm("https://example.com:443/") == "https://example.com/"
    assert norm("http://example.com:443/") == "http://example.com:443/"
    assert norm("ws://example.com:80/") == "ws://example.com/"
    assert norm("http://example.com:8080/") == "http://example.com:8080/"


def test_dot_segments_rfc3986_examples_and_percent_forms():
    assert norm("http://a/b/c/./../../g") == "http://a/g"
    assert norm("http://a/b/c/../../../g") == "http://a/g"  # never above the root
    assert norm("http://a/b/%2E%2e/c/.%2E/d") == "http://a/d"
    off = norm("http://a/b/%2E%2e/c", adjust="-dot_segments")
    assert off == "http://a/b/../c"


def test_empty_query_only_drops_a_bare_question_mark():
    assert norm("http://example.com/p?") == "http://example.com/p"
    assert norm("http://example.com/p?=") == "http://example.com/p?="
    assert norm("http://example.com/p?#f") == "http://example.com/p#f"


def test_idn_punycode_uts46_mapping():
    assert norm("http://BÜCHER.example/") == "http://xn--bcher-kva.example/"
    assert norm("http://faß.de/") == "http://xn--fa-hia.de/"  # WHATWG: nontransitional
    assert norm("http://bücher.example/", adjust="-idn_punycode") == "http://bücher.example/"


def test_whitespace_strip_removes_tabs_and_newlines_inside():
    assert norm("\t http://exa\nmple.com/a\rb \x00") == "http://example.com/ab"


def test_whitespace_strip_off_rejects_instead_of_keeping():
    with pytest.raises(InvalidURL, match="whitespace_strip"):
        norm("http://example.com/a\tb", adjust="-whitespace_strip")
    assert norm("http://example.com/ab", adjust="-whitespace_strip") == "http://example.com/ab"


def test_port_rules():
    assert norm("http://example.com:/") == "http://example.com/"
    assert norm("http://example.com:00080/") == "http://example.com/"
    assert norm("http://example.com:00080/", adjust="-default_port") == "http://example.com:80/"
    assert norm("http://example.com:00080/", adjust="-port_leading_zero,-default_port") == (
        "http://example.com:00080/"
    )
    assert norm("http://example.com:/", adjust="-empty_port") == "http://example.com:/"


def test_empty_userinfo_but_real_userinfo_kept():
    assert norm("http://@example.com/") == "http://example.com/"
    assert norm("http://u@example.com/") == "http://u@example.com/"
    assert norm("http://:p@example.com/") == "http://:p@example.com/"
    assert norm("http://@example.com/", adjust="-empty_userinfo") == "http://@example.com/"


def test_ipv4_numeric_forms():
    for form in ("http://2130706433/", "http://0177.0.0.1/", "http://0x7F.0.0.1/", "http://127.1/"):
        assert norm(form) == "http://127.0.0.1/"
    assert norm("http://0x7F.1/", adjust="-ipv4_numeric") == "http://0x7f.1/"


def test_ipv6_compress_and_lowercase():
    assert norm("http://[2001:DB8:0:0:1:0:0:1]/") == "http://[2001:db8::1:0:0:1]/"
    assert norm("http://[::FFFF:192.168.0.1]/") == "http://[::ffff:c0a8:1]/"


def test_whatwg_lenient_slashes():
    assert norm("http:example.com/a") == "http://example.com/a"
    assert norm("http:///example.com/a") == "http://example.com/a"
    with pytest.raises(InvalidURL, match="whatwg_lenient"):
        norm("http:example.com/a", adjust="-whatwg_lenient")


# -- seed rules ---------------------------------------------------------------


@pytest.mark.parametrize("route", ["#!x", "#!/inbox/1", "#/settings", "#!"])
def test_fragment_keeps_hash_routes(route):
    assert norm("https://app.example/" + route, "archive") == "https://app.example/" + route


@pytest.mark.parametrize("fragment", ["#top", "#", "#x!/y", "#%21x"])
def test_fragment_drops_anchors(fragment):
    assert norm("https://example.com/a.html" + fragment, "archive") == "https://example.com/a.html"


def test_query_sort_is_stable_by_key_and_drops_empty_pairs():
    url = "http://example.com/a.php?b=2&&a=9&b=1&a=3&c&"
    assert only(url, "query_sort") == "http://example.com/a.php?a=9&a=3&b=2&b=1&c"
    assert only("http://example.com/?a-b=1&a=2", "query_sort") == "http://example.com/?a=2&a-b=1"
    assert only("http://example.com/?&&", "query_sort") == "http://example.com/"


def test_query_sort_keys_are_case_sensitive_codepoint_order():
    assert (
        only("http://example.com/?b=1&B=2&a=3", "query_sort") == "http://example.com/?B=2&a=3&b=1"
    )


@pytest.mark.parametrize(
    "key",
    ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "utm_id", "fbclid"]
    + ["gclid", "gclsrc", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid", "ttclid"]
    + ["igshid", "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok"]
    + ["__twitter_impression", "oly_anon_id", "oly_enc_id", "vero_id"],
)
def test_tracking_params_drops_each_listed_key(key):
    assert only(f"http://example.com/p.html?id=1&{key}=x&z=2", "tracking_params") == (
        "http://example.com/p.html?id=1&z=2"
    )
    assert (
        only(f"http://example.com/p.html?{key}", "tracking_params") == "http://example.com/p.html"
    )


@pytest.mark.parametrize("key", ["utm", "gclid2", "xfbclid", "UTM_SOURCE", "ga", "ref", "id"])
def test_tracking_params_keeps_lookalikes(key):
    url = f"http://example.com/p.html?{key}=1"
    assert only(url, "tracking_params") == url


def test_tracking_params_removed_after_unreserved_decoding():
    assert only("http://example.com/p.html?utm%5Fsource=x&a=1", "tracking_params") == (
        "http://example.com/p.html?a=1"
    )


@pytest.mark.parametrize(
    "page",
    ["index.html", "index.htm", "index.xhtml", "index.shtml", "index.php", "index.asp"]
    + ["index.aspx", "index.jsp", "index.cgi", "default.asp", "default.aspx", "default.htm"]
    + ["default.html", "Default.asp", "Default.aspx"],
)
def test_dir_index_pages(page):
    assert only(f"http://example.com/a/{page}?x=1", "dir_index") == "http://example.com/a/?x=1"


@pytest.mark.parametrize(
    "page", ["Index.html", "INDEX.HTML", "index.html5", "myindex.html", "Default.htm", "index"]
)
def test_dir_index_is_case_sensitive_and_exact(page):
    assert only(f"http://example.com/a/{page}", "dir_index") == f"http://example.com/a/{page}"


def test_dir_index_only_the_last_segment():
    assert only("http://example.com/index.html/a.txt", "dir_index") == (
        "http://example.com/index.html/a.txt"
    )


def test_trailing_slash_dir_only_for_extensionless_last_segment():
    assert only("http://example.com/a/b?x", "trailing_slash_dir") == "http://example.com/a/b/?x"
    assert only("http://example.com/a/b.pdf", "trailing_slash_dir") == "http://example.com/a/b.pdf"
    assert only("http://example.com/a/", "trailing_slash_dir") == "http://example.com/a/"
    assert only("http://example.com/a//", "trailing_slash_dir") == "http://example.com/a//"


@pytest.mark.parametrize(
    ("host", "after"),
    [
        ("www.example.com", "example.com"),
        ("WWW.Example.com", "example.com"),
        ("www.example.co.uk", "example.co.uk"),
        ("www2.example.com", "www2.example.com"),
        ("m.example.com", "m.example.com"),
        ("wwwexample.com", "wwwexample.com"),
        ("www.co.uk", "www.co.uk"),  # what remains would be a public suffix
        ("www.com", "www.com"),
        ("www.github.io", "www.github.io"),  # PSL private section
        ("www.www.example.com", "www.www.example.com"),  # idempotent, never two labels
        ("sub.www.example.com", "sub.www.example.com"),
    ],
)
def test_www_drops_exactly_one_leading_label(host, after):
    assert only(f"http://{host}/", "www") == f"http://{after}/"


def test_seed_rules_leave_non_web_schemes_alone():
    url = "ftp://www.example.com/a/index.html?utm_source=x#frag"
    assert norm(url, "aggressive") == url


# -- opt-in extras ----------------------------------------------------------


def test_session_id_params_any_case_and_prefixes():
    url = "http://example.com/p.html?JSESSIONID=1&a=1&phpsessid=2&ASPSESSIONIDQASDQ=3&CFID=4&cftoken=5"
    assert only(url, "session_id_params") == "http://example.com/p.html?a=1"
    assert only("http://example.com/p.html?sid=1", "session_id_params") == (
        "http://example.com/p.html?sid=1"
    )


def test_session_id_path_any_case_before_query():
    assert only("http://example.com/a.jsp;JSESSIONID=ab12?x=1", "session_id_path") == (
        "http://example.com/a.jsp?x=1"
    )
    assert only("http://example.com/a;v=1", "session_id_path") == "http://example.com/a;v=1"
    assert (
        only("http://example.com/a;jsessionid=1/b/", "session_id_path") == "http://example.com/a/b/"
    )


def test_query_form_encoding_only_in_query():
    assert only("http://example.com/a%20b?q=a%20b&r=c+d", "query_form_encoding") == (
        "http://example.com/a%20b?q=a+b&r=c+d"
    )


def test_host_trailing_dot_and_www_together():
    assert norm("http://www.example.com./", "aggressive") == "http://example.com/"
    assert norm("http://www.example.com./", "archive") == "http://example.com./"


def test_tracking_params_extended():
    url = "http://example.com/p.html?ref=hn&spm=a.b&si=x&pk_campaign=y&id=3"
    assert only(url, "tracking_params_extended") == "http://example.com/p.html?id=3"
    assert (
        norm(url, "archive") == "http://example.com/p.html?id=3&pk_campaign=y&ref=hn&si=x&spm=a.b"
    )


UNRESERVED = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def test_pct_rules_over_every_escape_spelling():
    hexdigits = "0123456789abcdefABCDEF"
    for a in hexdigits:
        for b in hexdigits:
            escape, char = f"%{a}{b}", chr(int(a + b, 16))
            both = only(f"http://example.com/x{escape}y", "pct_upper", "pct_decode_unreserved")
            want = char if char in UNRESERVED else escape.upper()
            assert both == f"http://example.com/x{want}y", escape
            upper = norm(f"http://example.com/x{escape}y", adjust="-pct_decode_unreserved")
            assert upper == f"http://example.com/x{escape.upper()}y", escape


def test_host_trailing_dot_never_makes_an_ipv4_host():
    assert only("http://0x7f../", "host_trailing_dot") == "http://0x7f../"
    assert only("http://a.1../", "host_trailing_dot") == "http://a.1../"
    assert only("http://a.b1../", "host_trailing_dot") == "http://a.b1/"


def test_a_query_of_only_tracking_parameters_disappears_with_sorting_on():
    assert norm("http://example.com/a.html?utm_source=x&fbclid=y", "archive") == (
        "http://example.com/a.html"
    )
    assert norm("http://example.com/a.html?utm_source=x&&fbclid=y&b=1&a", "archive") == (
        "http://example.com/a.html?a&b=1"
    )


@pytest.mark.parametrize(
    "url",
    [
        "HTTP://Example.COM:80/a/../b?x#y",
        "http://User@[2001:DB8::0:1]:0443/%7e/./x?",
        "https://bücher.EXAMPLE/a b?q=é#f g",
        "http://0x7F.1:/p",
        "http://EX.com",
    ],
)
def test_every_rule_off_keeps_a_valid_url_as_written(url):
    options = NormalizeOptions(rules=frozenset({"whitespace_strip", "whatwg_lenient"}))
    assert normalize(url, options) == url
    with pytest.raises(InvalidURL):
        normalize(url.replace("/", " ", 3), options)  # still validated, never repaired
