"""Profiles, --rules adjustments and the rule listing."""

from __future__ import annotations

import pytest

from engine.errors import InvalidInput
from engine.urls.normalize import NormalizeOptions
from engine.urls.rules import PARSER_RULES, RULES, profile_rules

SAFE = {
    "scheme_case", "host_case", "empty_path_slash", "pct_upper", "pct_decode_unreserved",
    "pct_encode", "default_port", "dot_segments", "empty_query", "idn_punycode",
    "whitespace_strip", "empty_port", "port_leading_zero", "empty_userinfo", "ipv4_numeric",
    "ipv6_compress", "whatwg_lenient",
}  # fmt: skip
SEED = {"fragment", "query_sort", "tracking_params", "dir_index", "trailing_slash_dir", "www"}
EXTRA = {
    "tracking_params_extended", "session_id_params", "session_id_path", "query_form_encoding",
    "host_trailing_dot",
}  # fmt: skip


def test_rule_names_are_exactly_the_contract():
    assert set(RULES) == SAFE | SEED | EXTRA
    assert PARSER_RULES <= SAFE


def test_profiles_nest():
    assert profile_rules("safe") == SAFE
    assert profile_rules("archive") == SAFE | SEED
    assert profile_rules("aggressive") == SAFE | SEED | EXTRA


def test_adjust_adds_and_removes():
    options = NormalizeOptions.from_profile("archive", "+session_id_path,-www, fragment")
    assert options.enabled("session_id_path") and not options.enabled("www")
    assert options.enabled("fragment")


def test_to_dict_lists_every_rule_in_order():
    listing = NormalizeOptions.from_profile("safe").to_dict()
    assert list(listing) == list(RULES)
    assert {name for name, on in listing.items() if on} == SAFE


@pytest.mark.parametrize(("profile", "adjust"), [("nope", ""), ("safe", "+nope"), ("safe", "-")])
def test_unknown_names_are_invalid_input(profile, adjust):
    with pytest.raises(InvalidInput):
        NormalizeOptions.from_profile(profile, adjust)


def test_options_are_hashable_values():
    assert NormalizeOptions.from_profile("archive") == NormalizeOptions.from_profile("archive")
    assert len({NormalizeOptions.from_profile(p) for p in ("safe", "archive", "safe")}) == 2


def test_options_validate_rule_names_and_cap():
    assert NormalizeOptions(rules={"www", "fragment"}).rules == frozenset({"www", "fragment"})
    with pytest.raises(InvalidInput, match="wwww"):
        NormalizeOptions(rules=frozenset({"wwww"}))
    with pytest.raises(InvalidInput):
        NormalizeOptions(max_length=0)
