"""The normalizer's inlined fast path (``parse.fast_slices`` and the http(s)
rules, both inlined in ``normalize._normalize`` for speed) gives exactly what
its own ada path gives, on every profile and with rules switched off."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import PageKeeperError
from engine.urls.normalize import NormalizeOptions, _normalize, compile_plan
from engine.urls.parse import fast_match, fast_slices
from tests.engine.urls.test_normalize_properties import urlish
from tests.engine.urls.test_parse import URLISH, fast_path_corpus

OPTIONS = [
    NormalizeOptions.from_profile("safe"),
    NormalizeOptions.from_profile("archive"),
    NormalizeOptions.from_profile("aggressive"),
    NormalizeOptions.from_profile("archive", "-www,-query_sort,+host_trailing_dot"),
    NormalizeOptions.from_profile("archive", "-tracking_params,-dir_index,-pct_upper"),
    NormalizeOptions.from_profile("safe", "+trailing_slash_dir,+session_id_params,-empty_query"),
    NormalizeOptions.from_profile("aggressive", "-pct_decode_unreserved,-fragment"),
]


def outcome(url: str, plan) -> str | tuple[str, str]:
    try:
        return _normalize(url, plan)
    except PageKeeperError as exc:
        return ("error", exc.code)


def fast_and_ada(options: NormalizeOptions):
    plan = compile_plan(options)
    assert plan.fast  # every parser rule is on: the regex split is allowed
    return plan, replace(plan, fast=False)


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    return fast_path_corpus()


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: str(len(o.rules)))
def test_fast_path_agrees_with_the_ada_path_on_realistic_and_wpt_inputs(options, corpus):
    fast, ada = fast_and_ada(options)
    taken = [url for url in corpus if fast_slices(url) is not None]
    assert len(taken) > len(corpus) // 2  # the fast path is actually used
    assert [outcome(url, fast) for url in corpus] == [outcome(url, ada) for url in corpus]


@settings(max_examples=1500, deadline=None)
@given(
    st.one_of(
        urlish(),
        st.tuples(st.sampled_from(["http://", "https://", "HTTP://", "http:"]), URLISH).map(
            "".join
        ),
    ),
    st.sampled_from(OPTIONS),
)
def test_fast_path_never_disagrees_with_the_ada_path(text, options):
    fast, ada = fast_and_ada(options)
    assert outcome(text, fast) == outcome(text, ada)


def test_a_rejected_fast_split_falls_back_to_ada():
    # Matched by the regex but refused afterwards: a dot segment, a punycode label.
    for url in ("http://a.example/x/%2E%2e/y?q#f", "http://xn--bcher-kva.example/a/./b"):
        assert fast_match(url) is not None and fast_slices(url) is None
        fast, ada = fast_and_ada(NormalizeOptions.from_profile("archive"))
        assert outcome(url, fast) == outcome(url, ada)
    assert outcome("http://a.example/x/%2E%2e/y?q#f", fast) == "http://a.example/y/?q"
