"""Suggestion learning through the real paths: a running daemon (``nav_error``,
``suggestion_taken``, ``visited`` as the extension sends them), a daemon restart, and
the one-shot ``pagekeeper suggest`` CLI reading what the daemon learned."""

from __future__ import annotations

import json

from engine.errors import PageKeeperError
from engine.urls.suggest import _domain_of as registrable
from host.daemon.client import call
from host.services import learning_file
from tests.host.daemon_fixtures import pk, stop_daemon

TYPO = "http://gogle.com/"


def nav_error(home, url: str, **params) -> list[dict]:
    answer = call(home, "nav_error", {"url": url, "error": "dns", **params})
    assert "suggest_error" not in answer, answer
    return answer["suggestions"]


def cli_suggestions(home, url: str) -> list[dict]:
    return json.loads(pk(home, "suggest", url, "--json").stdout)["suggestions"]


def test_taken_ranks_first_next_time_and_survives_a_restart(home):
    pk(home, "serve", "--detach", "--json")
    before = nav_error(home, TYPO)
    assert before[0]["url"] == "http://google.com/"
    runner_up = before[2]["url"]  # not the best guess: only learning can put it first
    assert call(
        home, "suggestion_taken", {"url": TYPO, "suggestion": runner_up, "taken": True}
    ) == {"recorded": True, "taken": True, "retried": False}
    after = nav_error(home, TYPO)
    assert (after[0]["url"], after[0]["step"]) == (runner_up, "learned")
    assert after[0]["score"] >= 0.5  # gogle.com is not a known domain: the big button

    # "Try again" once while it was offered (the error page sends taken false, retried true):
    # weak evidence, so the correction taken once stays learned, first, with the big button
    retried = {"url": TYPO, "suggestion": runner_up, "taken": False, "retried": True}
    assert call(home, "suggestion_taken", retried) == {
        "recorded": True,
        "taken": False,
        "retried": True,
    }
    again = nav_error(home, TYPO)
    assert (again[0]["url"], again[0]["step"]) == (runner_up, "learned")
    assert again[0]["score"] >= 0.5

    # the one-shot CLI reads what the running daemon learned (read-only, the daemon writes)
    assert cli_suggestions(home, TYPO)[0]["url"] == runner_up

    stop_daemon(home)
    # every suggestion shown is counted too (the seed's statistics), saved by the stop
    counts = learning_file.store_learning(home)["outcomes"]["gogle.com"]
    assert counts["google.com"]["shown"] >= 2 and counts["google.com"]["taken"] == 0
    assert counts[registrable(runner_up)]["taken"] == 1
    assert counts[registrable(runner_up)]["retried"] == 1
    assert counts[registrable(runner_up)]["rejected"] == 0
    assert cli_suggestions(home, TYPO)[0]["url"] == runner_up  # no daemon: same answer
    pk(home, "serve", "--detach", "--json")
    assert nav_error(home, TYPO)[0]["url"] == runner_up  # saved in the store, reloaded


def test_rejected_is_demoted(home):
    pk(home, "serve", "--detach", "--json")
    typo = "http://facebok.com/"
    before = nav_error(home, typo)
    best = before[0]
    assert best["url"] == "http://facebook.com/" and best["score"] >= 0.5
    reply = call(home, "suggestion_taken", {"url": typo, "suggestion": best["url"], "taken": False})
    assert reply == {"recorded": True, "taken": False, "retried": False}
    after = {s["url"]: s for s in nav_error(home, typo)}
    demoted = after.get(best["url"])
    assert demoted is None or demoted["score"] < 0.5 <= best["score"], after
    assert cli_suggestions(home, typo)[0]["score"] < 0.5  # the CLI sees the rejection too


def test_visited_hosts_become_suggestions(home):
    pk(home, "serve", "--detach", "--json")
    assert all("mycorp" not in s["url"] for s in nav_error(home, "http://wiki.mycrop.example/"))
    assert call(home, "visited", {"url": "https://wiki.mycorp.example/start"}) == {
        "host": "wiki.mycorp.example"
    }
    found = nav_error(home, "http://wiki.mycrop.example/")
    assert found[0]["url"] == "http://wiki.mycorp.example/"


def test_bad_suggestion_taken_params_are_typed_errors(home):

    pk(home, "serve", "--detach", "--json")
    for params in (
        {"url": TYPO, "suggestion": "http://google.com/", "taken": "yes"},
        {"url": TYPO, "suggestion": "http://google.com/", "taken": False, "retried": "once"},
        {"url": TYPO, "taken": True},
        {"url": "not a url", "suggestion": "also not", "taken": True},
    ):
        try:
            call(home, "suggestion_taken", params)
        except PageKeeperError as exc:
            assert exc.code == "invalid_input", (params, exc.code)
        else:
            raise AssertionError(f"accepted {params}")


def test_404_on_a_live_host_offers_the_archived_copy_and_the_nearest_known_path(home):
    """Step 9 through the daemon: a page archived via ``archive_page`` comes back first for a
    404 of its URL, and as the nearest known path for a mistyped path on the same site."""
    pk(home, "serve", "--detach", "--json")
    page = "https://docs.example.org/guide/installation"
    html = "<!doctype html><title>Install</title><main><p>" + "How to install it. " * 40
    archived = call(home, "archive_page", {"url": page, "html": html})
    found = nav_error(home, page, error="http_404")
    assert (found[0]["url"], found[0]["step"]) == (archived["version_url"], "archive")
    assert found[0]["score"] >= 0.5
    near = nav_error(home, "https://docs.example.org/guide/instalation", error="http_404")
    assert [s["url"] for s in near if s["step"] == "site"] == [page]
    assert all(s["step"] != "archive" for s in near)  # that URL itself was never archived
