"""The error kinds: one list, the engine's, and the extension sends nothing outside it.

extension/lib/net-errors.js maps browser errors to kinds; the host passes the kind to the
engine, which used to turn any kind it did not list into ``unknown`` without a word. The test
reads the JS file itself, so a kind added there and not here fails.
"""

from __future__ import annotations

import re

import pytest

from engine.errors import InvalidInput
from engine.urls.dictionary import DomainDictionary
from engine.urls.suggest import ERRORS, NETWORK_ERRORS, Suggester, SuggestRequest
from tests.conftest import ROOT

EXTENSION = ROOT / "extension"
NET_ERRORS = EXTENSION / "lib" / "net-errors.js"


def kinds_in_net_errors(source: str) -> set[str]:
    """Every kind net-errors.js can hand out: the values of its error maps (``'net::X': 'dns'``,
    ``2152398878: 'dns', // NS_…``), SOFT_404, and ``http_<status>`` for each GONE_STATUSES."""
    maps = re.findall(r"^\s*(?:'[^']+'|\w+):\s*'([a-z0-9_]+)',", source, re.M)
    soft = re.findall(r"export const SOFT_404 = '([a-z0-9_]+)'", source)
    statuses = re.search(r"GONE_STATUSES = new Set\(\[([\d,\s]+)\]\)", source)
    assert maps and soft and statuses, "net-errors.js no longer has the shape this test reads"
    http = {f"http_{s.strip()}" for s in statuses.group(1).split(",") if s.strip()}
    return set(maps) | set(soft) | http


def kind_literals(root) -> set[str]:
    """``kind: '…'`` literals anywhere in the extension (the error page's fallback kind)."""
    found = set()
    for path in root.rglob("*.js"):
        found |= set(re.findall(r"\bkind: '([a-z0-9_]+)'", path.read_text("utf-8")))
    return found


def test_every_kind_the_extension_sends_is_an_engine_kind():
    sent = kinds_in_net_errors(NET_ERRORS.read_text("utf-8")) | kind_literals(EXTENSION)
    assert {"dns", "reset", "unreachable", "http_404", "soft_404", "unknown"} <= sent
    assert sent - set(ERRORS) == set()


def test_the_reader_sees_a_kind_added_to_the_js():
    source = NET_ERRORS.read_text("utf-8").replace(
        "'net::ERR_TIMED_OUT': 'timeout',",
        "'net::ERR_TIMED_OUT': 'timeout',\n  'net::X': 'brand_new',",
    )
    assert "brand_new" in kinds_in_net_errors(source)


@pytest.fixture(scope="module")
def known():
    return Suggester(DomainDictionary.from_domains(["example.com", "wikipedia.org"])).warm()


@pytest.mark.parametrize("kind", ["reset", "unreachable"])
def test_reset_and_unreachable_are_network_errors_with_their_own_retry(known, kind):
    assert kind in NETWORK_ERRORS
    found = known.suggest(SuggestRequest("https://example.com/a", kind))
    retry = [s for s in found if s.step == "retry"]
    assert retry and retry[0].url == "https://example.com/a"
    generic = known.suggest(SuggestRequest("https://example.com/a", "timeout"))
    assert retry[0].reason != next(s.reason for s in generic if s.step == "retry")


def test_a_kind_outside_the_list_is_a_typed_error(known):
    with pytest.raises(InvalidInput, match="unknown error kind"):
        known.suggest(SuggestRequest("https://example.com/a", "brand_new"))
