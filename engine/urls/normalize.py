"""URL normalization: a WHATWG parse (ada-url) plus our named rules.

The rules and profiles are listed in ``engine/urls/rules.py``. The policy
(ARCHITECTURE.md, "URL normalization"): http and https stay distinct; path
and query are case-sensitive; ``//`` in a path is kept; escapes are decoded
at most once and only for unreserved characters; decoded bytes get no Unicode
normalization; userinfo is kept; ``m.``/``amp`` variants are never static
rules; an invalid URL raises InvalidURL and is never "repaired".

Speed (tests/bench/bench_normalize.py): http(s) input already in WHATWG form
is split by one regex (``parse.fast_slices``, checked against ada by tests);
anything else gets one ada parse, whose href and component offsets are sliced
without attribute look-ups. Options compile once into a :class:`Plan`; each
rule first checks, with a substring test, whether its component can be
affected at all, so a typical URL costs one split and a few slices.

>>> normalize("HTTP://www.Example.com:80/a/./index.html?utm_source=x&b=2&a=1#top")
'http://example.com/a/?a=1&b=2'
>>> archive_key("https://example.com/docs?v=2#/intro")
'https://example.com/docs/?v=2#/intro'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, lru_cache

from ada_url import idna_to_ascii

from engine.errors import InvalidInput, InvalidURL
from engine.urls import verbatim
from engine.urls.escapes import Escapes
from engine.urls.params import SESSION_IDS, TRACKING, TRACKING_EXTENDED, Dropper
from engine.urls.parse import (
    DEFAULT_PORT,
    LOWER_SCHEME,
    MAX_URL_LENGTH,
    ada_slices,
    check_text,
    explain_failure,
    fast_match,
)
from engine.urls.rules import PARSER_RULES, RULES, adjust_rules, profile_rules
from engine.urls.sites import public_suffixes

WEB_SCHEMES = frozenset({"http", "https"})

# Default directory index pages, matched case-sensitively on the last segment.
DIR_INDEX = frozenset(
    [
        f"index.{ext}"
        for ext in ("html", "htm", "xhtml", "shtml", "php", "asp", "aspx", "jsp", "cgi")
    ]
    + [f"default.{ext}" for ext in ("asp", "aspx", "htm", "html")]
    + ["Default.asp", "Default.aspx"]
)

PATH_RULES = frozenset({"dir_index", "trailing_slash_dir", "session_id_path"})
SESSION_PATH = re.compile(r";jsessionid=[^/;?#]*", re.IGNORECASE)


@dataclass(frozen=True)
class NormalizeOptions:
    """Which rules run, and the length cap (longer input raises TooLarge).

    >>> NormalizeOptions.from_profile("safe", "+www").enabled("www")
    True
    """

    rules: frozenset[str] = field(default_factory=lambda: profile_rules("archive"))
    max_length: int = MAX_URL_LENGTH

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", frozenset(self.rules))
        unknown = sorted(self.rules - RULES.keys())
        if unknown:
            raise InvalidInput(f"unknown rule(s) {', '.join(unknown)}; see --list-rules")
        if not isinstance(self.max_length, int) or self.max_length < 1:
            raise InvalidInput(f"max_length must be a positive integer, not {self.max_length!r}")

    @classmethod
    def from_profile(cls, profile: str = "archive", adjust: str | None = None) -> NormalizeOptions:
        """A profile (``safe``, ``archive``, ``aggressive``) adjusted by ``+x,-y``."""
        return cls(rules=adjust_rules(profile_rules(profile), adjust))

    def enabled(self, rule: str) -> bool:
        return rule in self.rules

    def to_dict(self) -> dict[str, bool]:
        """``{rule: on?}`` for every rule, in documentation order."""
        return {name: name in self.rules for name in RULES}


@dataclass(frozen=True, slots=True)
class Plan:
    """NormalizeOptions compiled for speed: flags, the escape rewriter, the dropper."""

    on: frozenset[str]
    max_length: int
    escapes: Escapes | None
    dropper: Dropper | None
    strict: bool
    verbatim: bool
    fast: bool
    trailing_dot: bool
    www: bool
    empty_query: bool
    form_encoding: bool
    query_sort: bool
    drop_fragment: bool
    path_rules: bool
    session_path: bool
    dir_index: bool
    trailing_slash: bool


def _escapes(upper: bool, decode: bool) -> Escapes | None:
    return Escapes(upper, decode) if upper or decode else None


def _dropper(on: frozenset[str]) -> Dropper | None:
    exact = (TRACKING if "tracking_params" in on else ()) + (
        TRACKING_EXTENDED if "tracking_params_extended" in on else ()
    )
    any_case = SESSION_IDS if "session_id_params" in on else ()
    return Dropper(exact, any_case) if exact or any_case else None


@lru_cache(maxsize=64)
def compile_plan(options: NormalizeOptions) -> Plan:
    on = options.rules
    return Plan(
        on=on,
        max_length=options.max_length,
        escapes=_escapes("pct_upper" in on, "pct_decode_unreserved" in on),
        dropper=_dropper(on),
        strict=not {"whitespace_strip", "whatwg_lenient"} <= on,
        verbatim=not on >= PARSER_RULES,
        fast=on >= PARSER_RULES,
        trailing_dot="host_trailing_dot" in on,
        www="www" in on,
        empty_query="empty_query" in on,
        form_encoding="query_form_encoding" in on,
        query_sort="query_sort" in on,
        drop_fragment="fragment" in on,
        path_rules=bool(on & PATH_RULES),
        session_path="session_id_path" in on,
        dir_index="dir_index" in on,
        trailing_slash="trailing_slash_dir" in on,
    )


ARCHIVE_PLAN = compile_plan(NormalizeOptions.from_profile("archive"))


def normalize(url: str, options: NormalizeOptions | None = None) -> str:
    """Normalize ``url`` with ``options`` (default: the ``archive`` profile).

    Raises InvalidURL (not a URL, lone surrogate, not text) or TooLarge.

    >>> normalize("http://example.com/a%7e?", NormalizeOptions.from_profile("safe"))
    'http://example.com/a~'
    """
    return _normalize(url, ARCHIVE_PLAN if options is None else compile_plan(options))


def archive_key(url: str) -> str:
    """The archive's key for a URL: :func:`normalize` with the ``archive`` profile.

    >>> archive_key("https://WWW.example.com/a/index.php?gclid=1")
    'https://example.com/a/'
    """
    return _normalize(url, ARCHIVE_PLAN)


@cache
def _profile_plan(profile: str) -> Plan:
    return (
        ARCHIVE_PLAN
        if profile == "archive"
        else compile_plan(NormalizeOptions.from_profile(profile))
    )


def profile_key(url: str, profile: str = "archive") -> str:
    """:func:`normalize` with a named profile, its plan compiled once (InvalidInput for an unknown one).

    >>> profile_key("https://WWW.example.com/a/index.php?gclid=1", "safe")
    'https://www.example.com/a/index.php?gclid=1'
    """
    return _normalize(url, _profile_plan(profile))


def _normalize(url: str, plan: Plan) -> str:
    """Split ``url`` (one regex, else one ada parse), then apply the plan's rules.

    The hot path of the archive: ``parse.fast_slices`` and the http(s) rules
    are inlined here, each saving a call and a tuple per URL;
    tests/engine/urls/test_normalize_fastpath.py checks this function against
    its own ada path on every profile.
    """
    if type(url) is not str or len(url) > plan.max_length:
        check_text(url, plan.max_length)  # raises the right error
    match = fast_match(url) if plan.fast else None
    if match is not None:  # parse.fast_slices, inlined
        scheme, host, port, path, query, fragment = match.groups()
        if path is None:
            path = "/"
        elif "/." in path or ("%2" in path and ("%2e" in path or "%2E" in path)):
            match = None  # possible dot segments: let ada resolve them
        host = host.lower()
        if "xn--" in host:
            match = None  # ada checks punycode labels
    if match is None:
        scheme, before_host, host, port, path, query, fragment = _parse(url, plan)
    else:
        scheme = LOWER_SCHEME.get(scheme) or scheme.lower()
        before_host = "//"
        port = "" if port is None or port == DEFAULT_PORT[scheme] else ":" + port
    escapes = plan.escapes
    # Parsing only removes escapes or adds uppercase ones (never unreserved):
    # without "%" in the input, no escape can change. Escapes.sub returns its
    # input when nothing changes, so no search is needed before it.
    if escapes is not None and "%" in url:
        sub, replace = escapes.sub, escapes.replace
        if "%" in before_host:
            before_host = sub(replace, before_host)
        if "%" in path:
            path = sub(replace, path)
        if query and "%" in query:
            query = sub(replace, query)
        if fragment and "%" in fragment:
            fragment = sub(replace, fragment)
    if match is None and scheme not in WEB_SCHEMES:
        query = None if query == "" and plan.empty_query else query
        return _serialize(scheme, before_host, host, port, path, query, fragment)
    # The http(s) rules. An IP literal never ends with "." nor starts with "www.".
    if plan.trailing_dot and host[-1:] == ".":
        host = drop_trailing_dots(host)
    if plan.www and host[:4] == "www.":
        host = drop_www(host)
    if plan.session_path:
        path = _path(path, plan)
    elif plan.path_rules and path[-1:] != "/":  # _path, inlined
        cut = path.rfind("/") + 1
        last = path[cut:]
        if "." not in last:  # so not in DIR_INDEX either
            if plan.trailing_slash:
                path += "/"
        elif plan.dir_index and last in DIR_INDEX:
            path = path[:cut]
    if query is not None:
        query = _query(query, plan)
    # Hash routes (#!x, #!/x, #/x) address content in single-page apps: kept.
    if fragment is not None and plan.drop_fragment and fragment[:1] not in ("!", "/"):
        fragment = None
    # _serialize, inlined: one f-string per case, no "?" + query concatenation.
    if fragment is None:
        if query is None:
            return f"{scheme}:{before_host}{host}{port}{path}"
        return f"{scheme}:{before_host}{host}{port}{path}?{query}"
    if query is None:
        return f"{scheme}:{before_host}{host}{port}{path}#{fragment}"
    return f"{scheme}:{before_host}{host}{port}{path}?{query}#{fragment}"


def _parse(url: str, plan: Plan) -> tuple:
    """The general case: one ada parse (after the strict checks; then the
    verbatim restorations)."""
    if plan.strict:
        verbatim.check_strict(url, plan.on)
    try:
        data = url.encode()
    except UnicodeEncodeError:
        data = check_text(url, plan.max_length)  # raises InvalidURL naming the surrogate
    parts = ada_slices(data)
    if parts is None:
        raise InvalidURL(explain_failure(url))
    return verbatim.restore(url, parts, plan.on) if plan.verbatim else parts


def _serialize(scheme, before_host, host, after_host, path, query, fragment) -> str:
    query = "" if query is None else "?" + query
    fragment = "" if fragment is None else "#" + fragment
    return f"{scheme}:{before_host}{host}{after_host}{path}{query}{fragment}"


def drop_trailing_dots(host: str) -> str:
    """Drop the root dot(s), unless the host would then end in a number, which
    WHATWG would read as an IPv4 address ("ends in a number checker").

    >>> drop_trailing_dots("example.com."), drop_trailing_dots("0x7f..")
    ('example.com', '0x7f..')
    """
    bare = host.rstrip(".")
    return host if not bare or ends_in_number(bare) else bare


def ends_in_number(host: str) -> bool:
    """https://url.spec.whatwg.org/#ends-in-a-number-checker (host without trailing dot).

    >>> ends_in_number("a.1"), ends_in_number("a.0x"), ends_in_number("a.b1")
    (True, True, False)
    """
    last = host.rpartition(".")[2]
    if last.isascii() and last.isdigit():
        return True
    return last[:2] in ("0x", "0X") and all(c in "0123456789abcdefABCDEF" for c in last[2:])


def drop_www(host: str) -> str:
    """Drop exactly one leading ``www.`` label, unless what remains is a public
    suffix (``www.co.uk``) or starts with ``www.`` again (which keeps the rule
    idempotent: ``www.www.example.com`` stays as it is).

    >>> drop_www("www.example.co.uk"), drop_www("www.co.uk"), drop_www("www2.example.com")
    ('example.co.uk', 'www.co.uk', 'www2.example.com')
    """
    rest = host[4:]
    if host[:4] != "www." or rest[:4] == "www.":
        return host
    bare = rest.rstrip(".") if rest[-1:] == "." else rest
    dot = bare.find(".")
    if dot < 0:
        return host
    suffixes = _SUFFIXES or _load_suffixes()
    # "*.parent" rules looked up by parent: no string to build for each host.
    if bare in suffixes or bare[dot + 1 :] in _WILDCARD_PARENTS:
        return host if is_public_suffix(bare) else rest  # a wildcard rule: check exceptions
    return rest


_SUFFIXES: frozenset[str] = frozenset()
_WILDCARD_PARENTS: frozenset[str] = frozenset()


def _load_suffixes() -> frozenset[str]:
    global _SUFFIXES, _WILDCARD_PARENTS
    _WILDCARD_PARENTS = frozenset(rule[2:] for rule in punycode_suffixes() if rule[:2] == "*.")
    _SUFFIXES = punycode_suffixes()
    return _SUFFIXES


@lru_cache(maxsize=1)
def punycode_suffixes() -> frozenset[str]:
    """The Public Suffix List (ICANN and private sections) as punycode rules."""
    return frozenset(rule if rule.isascii() else _to_ascii(rule) for rule in public_suffixes())


def _to_ascii(rule: str) -> str:
    prefix = rule[: len(rule) - len(rule.lstrip("*.!"))]
    return prefix + idna_to_ascii(rule[len(prefix) :]).decode()


def is_public_suffix(host: str) -> bool:
    """Whether ``host`` is itself a public suffix (PSL rules, wildcards, exceptions).

    >>> is_public_suffix("co.uk"), is_public_suffix("github.io"), is_public_suffix("example.co.uk")
    (True, True, False)
    """
    suffixes = _SUFFIXES or _load_suffixes()
    if host in suffixes:
        return True
    parent = host.partition(".")[2]
    return bool(parent) and "*." + parent in suffixes and "!" + host not in suffixes


def _path(path: str, plan: Plan) -> str:
    """session_id_path, then dir_index or trailing_slash_dir on the last segment."""
    if plan.session_path and ";" in path:
        path = SESSION_PATH.sub("", path)
    cut = path.rfind("/") + 1
    last = path[cut:]
    if not last:
        return path
    if plan.dir_index and last in DIR_INDEX:
        return path[:cut]
    if plan.trailing_slash and "." not in last:
        return path + "/"
    return path


def _query(query: str, plan: Plan) -> str | None:
    if not query:
        return None if plan.empty_query else query
    if plan.form_encoding and "%20" in query:
        query = query.replace("%20", "+")
    dropper = plan.dropper
    if "&" not in query:  # one pair: nothing to sort, one key to check
        return None if dropper is not None and dropper.drops(query) else query
    pairs = None
    if dropper is not None and dropper.find("&" + query) is not None:
        pairs = dropper.filter_pairs(query.split("&"))
    if plan.query_sort:
        # Stable by key: repeated keys keep their relative order; "&&" pairs go.
        if pairs is None:
            pairs = query.split("&")
        if "" in pairs:
            pairs = [pair for pair in pairs if pair]
        pairs.sort(key=_param_key)
    if pairs is not None:
        query = "&".join(pairs)
    return query or None


def _param_key(pair: str) -> str:
    return pair.partition("=")[0]
