"""The named URL normalization rules, their groups and the three profiles.

Rule names are a public contract (CLI ``--rules``, ``--list-rules``, the
acceptance checks): never rename one. Each rule has one example, shown here
as ``input -> output`` with the ``safe`` profile plus that rule; the tests
check every example, and check that switching the rule off changes it.

WHATWG/RFC-safe (group ``safe``; applied by the WHATWG parse itself unless
marked "ours"; switching one off keeps that feature as written, see
``engine/urls/verbatim.py``):

=======================  =====================================================================
scheme_case              ``HTTP://example.com/`` -> ``http://example.com/``
host_case                ``http://EXAMPLE.com/`` -> ``http://example.com/``
empty_path_slash         ``http://example.com`` -> ``http://example.com/``
pct_upper (ours)         ``http://example.com/a%c2%b1b`` -> ``http://example.com/a%C2%B1b``
pct_decode_unreserved    ``http://example.com/%7Eu/a%2Fb`` -> ``http://example.com/~u/a%2Fb`` (ours)
pct_encode               ``http://example.com/a b`` -> ``http://example.com/a%20b``
default_port             ``http://example.com:80/`` -> ``http://example.com/``
dot_segments             ``http://example.com/a/./b/../%2e%2E/c`` -> ``http://example.com/c``
empty_query (ours)       ``http://example.com/?`` -> ``http://example.com/``
idn_punycode             ``http://bücher.example/`` -> ``http://xn--bcher-kva.example/``
whitespace_strip         ``" http://example.com/a\\tb "`` -> ``http://example.com/ab``
empty_port               ``http://example.com:/`` -> ``http://example.com/``
port_leading_zero        ``http://example.com:08080/`` -> ``http://example.com:8080/``
empty_userinfo           ``http://:@example.com/`` -> ``http://example.com/``
ipv4_numeric             ``http://0x7f.1/`` -> ``http://127.0.0.1/``
ipv6_compress            ``http://[2001:db8:0:0:0:0:0:1]/`` -> ``http://[2001:db8::1]/``
whatwg_lenient           ``http:\\\\example.com\\a`` -> ``http://example.com/a``
=======================  =====================================================================

Seed rules that change identity (group ``seed``; http and https URLs only):

=======================  =====================================================================
fragment                 ``http://example.com/a#top`` -> ``http://example.com/a`` (``#!x``, ``#/x`` kept)
query_sort               ``http://example.com/?b=2&a=1&b=1`` -> ``http://example.com/?a=1&b=2&b=1``
tracking_params          ``http://example.com/?id=1&utm_source=x`` -> ``http://example.com/?id=1``
dir_index                ``http://example.com/a/index.html`` -> ``http://example.com/a/``
trailing_slash_dir       ``http://example.com/a/b`` -> ``http://example.com/a/b/``
www                      ``http://www.example.com/`` -> ``http://example.com/``
=======================  =====================================================================

Opt-in extras (group ``extra``; http and https URLs only):

========================  ====================================================================
tracking_params_extended  ``http://example.com/?id=1&ref=hn`` -> ``http://example.com/?id=1``
session_id_params         ``http://example.com/?id=1&PHPSESSID=ab`` -> ``http://example.com/?id=1``
session_id_path           ``http://example.com/a;jsessionid=AB?x=1`` -> ``http://example.com/a?x=1``
query_form_encoding       ``http://example.com/?q=a%20b`` -> ``http://example.com/?q=a+b``
host_trailing_dot         ``http://example.com./`` -> ``http://example.com/``
========================  ====================================================================

Profiles: ``safe`` = the safe group; ``archive`` = safe + seed (the archive
key); ``aggressive`` = archive + extras.

>>> profile_rules("safe") < profile_rules("archive") < profile_rules("aggressive")
True
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import InvalidInput


@dataclass(frozen=True, slots=True)
class Rule:
    """One switchable rule with its group and its documented example.

    >>> RULES["www"].example
    ('http://www.example.com/', 'http://example.com/')
    """

    name: str
    group: str
    example: tuple[str, str]
    summary: str


def _rules(group: str, *entries: tuple[str, str, str, str]) -> list[Rule]:
    return [Rule(name, group, (before, after), summary) for name, before, after, summary in entries]


_SAFE = _rules(
    "safe",
    ("scheme_case", "HTTP://example.com/", "http://example.com/", "lowercase the scheme"),
    ("host_case", "http://EXAMPLE.com/", "http://example.com/", "lowercase the host"),
    ("empty_path_slash", "http://example.com", "http://example.com/", "empty path becomes /"),
    (
        "pct_upper",
        "http://example.com/a%c2%b1b",
        "http://example.com/a%C2%B1b",
        "uppercase hex digits of percent-escapes",
    ),
    (
        "pct_decode_unreserved",
        "http://example.com/%7Eu/a%2Fb",
        "http://example.com/~u/a%2Fb",
        "decode escapes of unreserved characters (RFC 3986 6.2.2.2), never reserved ones",
    ),
    (
        "pct_encode",
        "http://example.com/a b",
        "http://example.com/a%20b",
        "percent-encode what WHATWG encodes",
    ),
    ("default_port", "http://example.com:80/", "http://example.com/", "drop the scheme's port"),
    (
        "dot_segments",
        "http://example.com/a/./b/../%2e%2E/c",
        "http://example.com/c",
        "remove . and .. segments (RFC 3986 5.2.4, %2e forms too)",
    ),
    ("empty_query", "http://example.com/?", "http://example.com/", "drop a bare ?"),
    (
        "idn_punycode",
        "http://bücher.example/",
        "http://xn--bcher-kva.example/",
        "internationalized host to punycode (UTS-46 as in WHATWG)",
    ),
    (
        "whitespace_strip",
        " http://example.com/a\tb ",
        "http://example.com/ab",
        "strip outer C0/space, remove tab and newline",
    ),
    ("empty_port", "http://example.com:/", "http://example.com/", "drop an empty port"),
    (
        "port_leading_zero",
        "http://example.com:08080/",
        "http://example.com:8080/",
        "port as a plain number",
    ),
    ("empty_userinfo", "http://:@example.com/", "http://example.com/", "drop an empty userinfo"),
    ("ipv4_numeric", "http://0x7f.1/", "http://127.0.0.1/", "IPv4 hosts in dotted decimal"),
    (
        "ipv6_compress",
        "http://[2001:db8:0:0:0:0:0:1]/",
        "http://[2001:db8::1]/",
        "IPv6 hosts compressed (RFC 5952 as in WHATWG)",
    ),
    (
        "whatwg_lenient",
        "http:\\\\example.com\\a",
        "http://example.com/a",
        "accept what browsers accept (backslashes, missing or extra slashes)",
    ),
)

_SEED = _rules(
    "seed",
    (
        "fragment",
        "http://example.com/a#top",
        "http://example.com/a",
        "drop the fragment, keep hash routes #!x #!/x #/x",
    ),
    (
        "query_sort",
        "http://example.com/?b=2&a=1&b=1",
        "http://example.com/?a=1&b=2&b=1",
        "stable sort of parameters by key; empty pairs dropped",
    ),
    (
        "tracking_params",
        "http://example.com/?id=1&utm_source=x",
        "http://example.com/?id=1",
        "drop click and campaign tracking parameters",
    ),
    (
        "dir_index",
        "http://example.com/a/index.html",
        "http://example.com/a/",
        "drop a default directory index page (case-sensitive list)",
    ),
    (
        "trailing_slash_dir",
        "http://example.com/a/b",
        "http://example.com/a/b/",
        "an extension-less last segment gets /",
    ),
    ("www", "http://www.example.com/", "http://example.com/", "drop one leading www. label"),
)

_EXTRA = _rules(
    "extra",
    (
        "tracking_params_extended",
        "http://example.com/?id=1&ref=hn",
        "http://example.com/?id=1",
        "also drop referral and share parameters (ref, spm, si…)",
    ),
    (
        "session_id_params",
        "http://example.com/?id=1&PHPSESSID=ab",
        "http://example.com/?id=1",
        "drop session-id parameters (any case)",
    ),
    (
        "session_id_path",
        "http://example.com/a;jsessionid=AB?x=1",
        "http://example.com/a?x=1",
        "drop ;jsessionid= path parameters",
    ),
    (
        "query_form_encoding",
        "http://example.com/?q=a%20b",
        "http://example.com/?q=a+b",
        "%20 in the query written as + (form encoding)",
    ),
    ("host_trailing_dot", "http://example.com./", "http://example.com/", "drop the root dot"),
)

RULES: dict[str, Rule] = {rule.name: rule for rule in _SAFE + _SEED + _EXTRA}

PROFILES: dict[str, tuple[str, ...]] = {
    "safe": ("safe",),
    "archive": ("safe", "seed"),
    "aggressive": ("safe", "seed", "extra"),
}

# Rules the WHATWG parse applies by itself: turning one off means keeping the
# input's form of that feature (or, for the last two, rejecting input that needs it).
PARSER_RULES = frozenset(
    {
        "scheme_case",
        "host_case",
        "empty_path_slash",
        "pct_encode",
        "default_port",
        "dot_segments",
        "idn_punycode",
        "empty_port",
        "port_leading_zero",
        "empty_userinfo",
        "ipv4_numeric",
        "ipv6_compress",
        "whitespace_strip",
        "whatwg_lenient",
    }
)


def profile_rules(profile: str) -> frozenset[str]:
    """The rules a profile switches on.

    >>> sorted(profile_rules("archive") - profile_rules("safe"))[:2]
    ['dir_index', 'fragment']
    """
    if profile not in PROFILES:
        raise InvalidInput(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
    groups = PROFILES[profile]
    return frozenset(name for name, rule in RULES.items() if rule.group in groups)


def adjust_rules(rules: frozenset[str], adjust: str | None) -> frozenset[str]:
    """Apply ``+x,-y`` (a bare name means ``+``) to a rule set.

    >>> sorted(adjust_rules(frozenset({"www"}), "-www,+fragment"))
    ['fragment']
    """
    enabled = set(rules)
    for item in (adjust or "").replace(" ", ",").split(","):
        if not item:
            continue
        sign, name = (item[0], item[1:]) if item[0] in "+-" else ("+", item)
        if name not in RULES:
            raise InvalidInput(f"unknown rule {name!r}; see --list-rules")
        (enabled.add if sign == "+" else enabled.discard)(name)
    return frozenset(enabled)
