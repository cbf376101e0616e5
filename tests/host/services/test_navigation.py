"""nav_error's answer on real files: archived copies survive a failing suggester."""

from __future__ import annotations

import asyncio
import gc
import gzip
from pathlib import Path

import pytest

from engine.archive.model import Capture
from engine.archive.registry import register
from engine.urls.suggest import Suggester, SuggestOptions
from host.daemon.app import App, Config
from host.protocol import dispatch
from host.services.navigation import error_kind, navigation_help, nearest_on_site
from tests.host.daemon_fixtures import SHARED_CACHE

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"
URL = "https://news.example.org/story/1"


class BrokenSuggester:
    def suggest(self, request):
        raise RuntimeError("dictionary cache damaged")


@pytest.fixture
def app(tmp_path):
    app = App(tmp_path / "home", Config(port=47999, cache_dir=str(SHARED_CACHE)))
    html = gzip.decompress((PAGES / "228917f19c2a4451.html.gz").read_bytes())
    register(app.store, Capture(URL, html))
    yield app
    app.store.close()


def test_archived_copies_come_back_when_the_suggester_fails(app):
    app._suggester = BrokenSuggester()
    answer = navigation_help(app, URL, {"error": "http_404"}, 5)
    assert answer["suggestions"] == []
    assert answer["suggest_error"]["code"] == "internal"
    assert [v["url"] for v in answer["archived"]] == [URL]


def test_a_working_suggester_gives_no_error(app):
    answer = navigation_help(app, "http://gooogle.com/", {"error": "dns"}, 5)
    assert "suggest_error" not in answer
    assert answer["suggestions"][0]["url"] == "http://google.com/"


def test_the_warm_suggester_is_out_of_the_collectors_walks(app):
    gc.unfreeze()  # whatever an earlier test froze
    try:
        reader = app.suggester.reader  # built now, as at daemon start
        walked = gc.get_objects()  # the frozen generation is not listed
        assert gc.get_freeze_count() > 0
        assert not any(obj is reader for obj in walked)
    finally:
        gc.unfreeze()


def _nav_error(app, **params) -> dict:
    message = {"id": 1, "type": "nav_error", "params": {"url": TYPO, "kind": "dns", **params}}
    reply = asyncio.run(dispatch.handle(message, app))
    assert reply["ok"], reply
    return reply["result"]


TYPO = "http://gogle.com/"  # the bundled dictionary offers 16 repairs of it


def test_nav_error_limit_is_honoured_beyond_the_engines_default_five(tmp_path):
    app = App(tmp_path / "home", Config(port=47999, cache_dir=str(SHARED_CACHE)))
    try:
        assert len(_nav_error(app, limit=12)["suggestions"]) == 12
        assert len(_nav_error(app, limit=3)["suggestions"]) == 3
        assert len(_nav_error(app)["suggestions"]) == 8  # PROTOCOL.md: limit defaults to 8
    finally:
        app.close()


def test_the_confident_bar_is_the_engines_and_travels_in_the_answer(app):
    answer = navigation_help(app, "http://gooogle.com/", {"error": "dns"}, 5)
    assert answer["confident"] == SuggestOptions().confident == 0.5
    app._suggester = Suggester(app.suggester.dictionary, options=SuggestOptions(confident=0.7))
    answer = navigation_help(app, "http://gooogle.com/", {"error": "dns"}, 5)
    assert answer["confident"] == 0.7


@pytest.mark.parametrize("kind", ["reset", "unreachable"])
def test_reset_and_unreachable_reach_the_engine_as_themselves(app, kind):
    assert error_kind({"kind": kind, "error": "net::ERR_X"}) == kind
    answer = navigation_help(app, "https://wikipedia.org/", {"kind": kind}, 8)
    retry = [s for s in answer["suggestions"] if s["step"] == "retry"]
    assert retry and "known site:" in retry[0]["reason"]
    assert "down for a moment" not in retry[0]["reason"]  # not the generic (unknown) reason


def test_a_404_lists_each_page_of_the_site_once_as_the_repair(app):
    # Three other pages of the site archived (and so known to the suggester's paths): a 404 on
    # a page never archived finds them twice, as live addresses ("site") and as archived pages
    # nearest in path. The site answered, so each is listed once, as the live repair.
    html = gzip.decompress((PAGES / "228917f19c2a4451.html.gz").read_bytes())
    siblings = [f"https://news.example.org/story/{n}" for n in (2, 11, 12)]
    for url in siblings:
        register(app.store, Capture(url, html))
    app.suggester.add_user_urls([URL, *siblings], source="archived")
    missing = "https://news.example.org/story/10"
    answer = navigation_help(app, missing, {"error": "http_404"}, 10)
    live = [s["url"] for s in answer["suggestions"]]
    assert set(siblings) & set(live)
    similar = [page["url"] for page in answer["similar"]]
    assert not set(live) & set(similar), similar
    assert len(similar) == len(set(similar))
    # with fewer suggestions shown, the pages left out of them are listed as copies again
    one = navigation_help(app, missing, {"error": "http_404"}, 1)
    shown = [s["url"] for s in one["suggestions"]]
    assert shown and set(siblings) - set(shown) <= {page["url"] for page in one["similar"]}
    assert not set(shown) & {page["url"] for page in one["similar"]}


def test_the_pages_left_out_leave_their_room_to_the_next_similar_page(app, monkeypatch):
    # A similar list of one: the nearest archived page (story/1) is the repair, so the next
    # one fills the list.
    monkeypatch.setattr("host.services.navigation.SIMILAR_LIMIT", 1)
    html = gzip.decompress((PAGES / "228917f19c2a4451.html.gz").read_bytes())
    register(app.store, Capture("https://news.example.org/story/11", html))
    missing = "https://news.example.org/story/10"
    assert [page["url"] for page in nearest_on_site(app, missing)] == [URL]
    app.suggester.add_user_urls([URL], source="archived")
    answer = navigation_help(app, missing, {"error": "http_404"}, 10)
    assert URL in [s["url"] for s in answer["suggestions"]]
    assert [page["url"] for page in answer["similar"]] == ["https://news.example.org/story/11"]


def test_a_live_address_with_no_archived_copy_listed_is_still_suggested(app):
    # A site page known from a visit alone, with no copy, is a suggestion too.
    app.suggester.add_user_urls(["https://news.example.org/story/100"], source="visited")
    answer = navigation_help(app, "https://news.example.org/story/10", {"error": "http_404"}, 10)
    assert "https://news.example.org/story/100" in [s["url"] for s in answer["suggestions"]]
