"""A capture's place among its document's captures ("#2 of 3"), told where its time alone
cannot tell it apart: two captures within one second read alike to the second in every list,
in the diff's header and in the copy's banner. A real store on disk, real saved pages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engine.archive.model import Capture, RegisterOptions
from engine.archive.provider import place_of, served_copy, versions
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from tests.engine.archive.pages import page

START = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path):
    with ArchiveStore.open(tmp_path / "home", fsync=False) as opened:
        yield opened


def add(store, seconds: float, edit: bytes) -> str:
    """A capture of one page at START + ``seconds``, its text changed by ``edit``."""
    url, html = page("ordnung")
    html = html.replace(b"</body>", b"<p>" + edit + b"</p></body>", 1)
    options = RegisterOptions(now=START + timedelta(seconds=seconds), similar_budget_s=1.0)
    return register(store, Capture(url=url, html=html), options).id


def test_captures_within_one_second_are_numbered_and_others_are_not(store):
    ids = [add(store, 0.0, b"one"), add(store, 60.2, b"two"), add(store, 60.9, b"three")]
    listed = {v["id"]: v for v in versions(store, ids[0])}
    assert [listed[i]["number"] for i in ids] == [1, 2, 3]  # oldest first
    assert {listed[i]["of"] for i in ids} == {3}
    assert [listed[i]["same_second"] for i in ids] == [False, True, True]
    assert [place_of(store, i) for i in ids] == [
        {k: listed[i][k] for k in ("number", "of", "same_second")} for i in ids
    ]


def test_the_second_is_the_boundary_not_a_second_s_distance(store):
    """0.9 s apart across a second's edge read as two seconds: no number needed."""
    ids = [add(store, 10.6, b"one"), add(store, 11.5, b"two")]
    assert [place_of(store, i)["same_second"] for i in ids] == [False, False]


def test_the_copy_s_banner_names_its_place_only_when_its_second_is_shared(store):
    ids = [add(store, 0.0, b"one"), add(store, 60.2, b"two"), add(store, 60.9, b"three")]
    banners = [served_copy(store, i).body.decode() for i in ids]
    assert "registered on 2026-01-01 12:00:00 UTC, links" in banners[0]
    assert "registered on 2026-01-01 12:01:00 UTC (#2 of 3), links" in banners[1]
    assert "registered on 2026-01-01 12:01:00 UTC (#3 of 3), links" in banners[2]


def test_a_seen_again_capture_has_its_own_place(store):
    """An unchanged re-capture is a capture of its own in the list: it is numbered as one."""
    url, html = page("ordnung")
    first = register(
        store, Capture(url=url, html=html), RegisterOptions(now=START, similar_budget_s=1.0)
    )
    again = register(
        store,
        Capture(url=url, html=html),
        RegisterOptions(now=START + timedelta(seconds=0.5), similar_budget_s=1.0),
    )
    listed = {v["id"]: v for v in versions(store, first.id)}
    assert len(listed) == 2, listed
    assert sorted((v["number"], v["same_second"]) for v in listed.values()) == [
        (1, True),
        (2, True),
    ]
    assert place_of(store, again.id)["number"] == 2


def test_places_follow_the_capture_times_not_the_order_of_registration(store):
    """A capture registered after another may be older (a WARC import restores its time):
    its place follows its capture time."""
    later = add(store, 60.2, b"later")
    earlier = add(store, 60.1, b"earlier")  # registered second, captured first
    assert place_of(store, earlier) == {"number": 1, "of": 2, "same_second": True}
    assert place_of(store, later) == {"number": 2, "of": 2, "same_second": True}
    assert [v["id"] for v in versions(store, later)] == [later, earlier]  # newest first
