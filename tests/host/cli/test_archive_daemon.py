"""``archive crawl|schedule|dust`` while a real daemon runs: through it, same answers as without it.

Each test runs the real CLI (in-process ``main``) twice against a real local
``http.server`` site: once in a home with a running ``pagekeeper serve``
(the command must go through the daemon, which holds the store's lock) and
once in a home without one (the command writes directly), and compares the
answers. Bad input sent straight through the protocol gets typed errors.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time

import pytest

from engine.archive import provider
from engine.archive.store import ArchiveStore
from engine.errors import PageKeeperError
from host.cli.entry import main
from host.daemon import client
from host.daemon.app import App, Config
from host.daemon.jobs import schedules_once
from host.handlers.archive import run_due_schedules
from host.services.schedule import add_schedule
from tests.conftest import static_site
from tests.host.daemon_fixtures import dust_stories, listing_pages, make_home

# A small site: / links to a, b, a missing page and another site; a links c; c links d.
SITE = {
    "index.html": '<a href="a.html">A</a> <a href="b.html">B</a> <a href="missing.html">gone</a>'
    ' <a href="https://elsewhere.example/">off-site</a>',
    "a.html": '<a href="c.html">C</a> <a href="index.html">home</a>',
    "b.html": '<a href="index.html">home</a> <a href="a.html#top">A again</a>',
    "c.html": '<a href="d.html">D</a>',
    "d.html": "<p>the deepest page</p>",
}


def _page(name: str, body: str) -> bytes:
    text = f"This is page {name} of the test site, with enough words to have a main text."
    return (
        f"<html><head><title>Page {name}</title></head><body><h1>Page {name}</h1>"
        f"<p>{text}</p>{body}</body></html>"
    ).encode()


@pytest.fixture
def site(tmp_path):
    """A real ``http.server`` over a directory of linked pages; yields its base URL."""
    root = tmp_path / "site"
    root.mkdir()
    for name, body in SITE.items():
        (root / name).write_bytes(_page(name, body))

    with static_site(root) as url:
        yield url


@pytest.fixture
def direct(tmp_path):
    """A second home in which no daemon ever runs."""
    return make_home(tmp_path / "direct")


def cli(capsys, home, *argv) -> tuple[int, object, str]:
    """Run ``pagekeeper archive … --json`` in-process: exit code, parsed JSON, stderr."""
    code = main(["archive", *argv, "--home", str(home), "--json"])
    captured = capsys.readouterr()
    lines = captured.out.strip().splitlines()
    return code, json.loads(lines[-1]) if lines else None, captured.err


def assert_daemon_holds_the_store(home) -> None:
    """The direct path is impossible here: the daemon holds the writer's lock."""
    with pytest.raises(PageKeeperError, match="another writer"):
        ArchiveStore.open(home)


def _shape(report: dict) -> dict:
    """A crawl report without what differs by home (IDs, the archive's base URL)."""
    return {
        "keys": sorted(report),
        "count": report["count"],
        "registered": [r["url"] for r in report["registered"]],
        "skipped": [r["url"] for r in report["skipped"]],
        "failed": [(r["url"], r["error"]["code"]) for r in report["failed"]],
        "entry_keys": sorted({k for r in report["registered"] for k in r}),
    }


# -- crawl -------------------------------------------------------------------------------


def test_crawl_through_the_daemon_gives_the_direct_answer(capsys, home, daemon, direct, site):
    argv = ("crawl", f"{site}/index.html", "--depth", "2", "--same-site", "--delay", "0")
    code, through, err = cli(capsys, home, *argv)
    assert code == 0, err
    assert "4/50" in err  # the progress bar, drawn from the daemon's job status
    assert_daemon_holds_the_store(home)
    code, alone, _ = cli(capsys, direct, *argv)
    assert code == 0
    assert _shape(through) == _shape(alone)
    assert _shape(through)["registered"] == [  # breadth-first, same site, to depth 2
        f"{site}/{name}" for name in ("index.html", "a.html", "b.html", "c.html")
    ]
    assert _shape(through)["failed"] == [(f"{site}/missing.html", "invalid_input")]
    assert all(r["version_url"].startswith(daemon["url"]) for r in through["registered"])
    _, found, _ = cli(capsys, home, "search", f"{site}/*", "--sort", "url")  # in the daemon's store
    assert sorted(r["url"] for r in found) == sorted(_shape(alone)["registered"])


def test_crawl_page_limit_and_depth_zero_through_the_daemon(capsys, home, daemon, direct, site):
    for argv in (
        ("crawl", f"{site}/index.html", "--depth", "3", "--max-pages", "2", "--delay", "0"),
        ("crawl", f"{site}/index.html", "--depth", "0", "--delay", "0"),
    ):
        through, alone = cli(capsys, home, *argv)[1], cli(capsys, direct, *argv)[1]
        assert _shape(through) == _shape(alone)
    assert through["count"] == 1


def test_crawl_job_runs_in_the_background_and_can_be_cancelled(home, daemon, site):
    job = client.call(home, "crawl", {"url": f"{site}/index.html", "delay": 30, "depth": 2})
    assert job["state"] == "running" and job["report"] is None and job["limit"] == 50
    deadline = time.monotonic() + 20
    while job["steps"] < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
        job = client.call(home, "crawl_status", {"job": job["job"]})
    assert job["done"] == 1 and job["current"] == f"{site}/index.html"
    started = time.monotonic()  # mid-pause: the daemon still answers other requests at once
    assert client.call(home, "versions", {"url": f"{site}/index.html"})["versions"]
    assert time.monotonic() - started < 5
    client.call(home, "crawl_cancel", {"job": job["job"]})
    while job["state"] == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
        job = client.call(home, "crawl_status", {"job": job["job"]})
    assert job["state"] == "cancelled" and job["finished_at"]
    assert job["report"]["count"] == 1  # stopped in the politeness pause, not 30 s later


# -- schedule ----------------------------------------------------------------------------


def _schedule_session(capsys, home, url) -> dict:
    """add, list, run-due twice, remove, remove again: every answer, without times and IDs."""
    out = {}
    code, row, _ = cli(
        capsys, home, "schedule", url, "--every", "weekly", "--only-if-different", "0.99"
    )
    assert code == 0
    out["add"] = {k: row[k] for k in ("url", "every", "only_if_different", "last_run")}
    out["add_keys"] = sorted(row)
    out["list"] = [r["url"] for r in cli(capsys, home, "schedule", "--list")[1]]
    code, done, _ = cli(capsys, home, "schedule", "--run-due")
    assert code == 0 and done[0]["id"]
    out["run"] = [(d["url"], d["skipped"], sorted(d)) for d in done]
    out["again"] = cli(capsys, home, "schedule", "--run-due")[1]  # a week away now
    rows = cli(capsys, home, "schedule", "--list")[1]
    out["period"] = rows[0]["next_run"] - rows[0]["last_run"]
    out["last_result"] = rows[0]["last_result"] == done[0]["id"]
    out["remove"] = cli(capsys, home, "schedule", url, "--remove")[1]
    code, error, _ = cli(capsys, home, "schedule", url, "--remove")
    out["remove_again"] = (code != 0, error["error"]["code"])
    return out


def test_schedule_through_the_daemon_gives_the_direct_answer(capsys, home, daemon, direct, site):
    url = f"{site}/a.html"
    through = _schedule_session(capsys, home, url)
    alone = _schedule_session(capsys, direct, url)
    assert through == alone
    assert through["run"] == [(url, False, ["id", "skipped", "url"])]
    assert through["period"] == 7 * 86400 and through["last_result"]
    assert through["remove_again"] == (True, "not_found")
    _, versions, _ = cli(capsys, home, "versions", url)
    assert len(versions) == 1  # the due run registered it in the daemon's store


def test_schedule_run_due_records_a_failing_url_and_goes_on(capsys, home, daemon, direct, site):
    results = []
    for each in (home, direct):
        cli(capsys, each, "schedule", f"{site}/missing.html")
        cli(capsys, each, "schedule", f"{site}/b.html")
        results.append(sorted(cli(capsys, each, "schedule", "--run-due")[1], key=str))
    through, alone = results
    assert [sorted(d) for d in through] == [sorted(d) for d in alone]
    errors = [d for d in through if "error" in d]
    assert errors == [{"url": f"{site}/missing.html", "error": "invalid_input"}]


# -- dust --------------------------------------------------------------------------------


def _stories(capsys, home, tmp_path) -> None:
    for url, path in dust_stories(tmp_path):
        assert cli(capsys, home, "add", url, "--html", str(path))[0] == 0


def test_dust_through_the_daemon_gives_the_direct_answer(capsys, home, daemon, direct, tmp_path):
    _stories(capsys, home, tmp_path)
    _stories(capsys, direct, tmp_path)
    code, through, err = cli(capsys, home, "dust")
    assert code == 0, err
    assert_daemon_holds_the_store(home)
    assert through == cli(capsys, direct, "dust")[1]
    assert [(r["find"], r["replace"]) for r in through["rules"]] == [("story?id=", "story_")]
    assert through["urls"] == 10 and through["compared_pairs"] > 0
    assert through["rekeyed"] == 5 and through["documents"] == 5  # the daemon re-keyed them
    _, history, _ = cli(capsys, home, "versions", "https://news.example.com/story?id=3")
    assert {v["url"] for v in history} == {
        "https://news.example.com/story?id=3",
        "https://news.example.com/story_3",
    }
    page = tmp_path / "s1.html"
    _, added, _ = cli(
        capsys, home, "add", "https://news.example.com/story?id=9", "--html", str(page)
    )
    assert added["key"] == "https://news.example.com/story_9/"  # the daemon applies the new rule


def test_parameters_learned_through_the_daemon_give_the_direct_answer(
    capsys, home, daemon, direct, tmp_path
):
    for target in (home, direct):
        for url, path in listing_pages(tmp_path):
            assert cli(capsys, target, "add", url, "--html", str(path))[0] == 0
    code, through, err = cli(capsys, home, "dust")
    assert code == 0, err
    assert through == cli(capsys, direct, "dust")[1]
    assert {(p["name"], p["value"]) for p in through["params"]} == {
        ("fakefoo", None),
        ("sort", "ascending"),
    }
    assert through["rekeyed"] == 6 and through["documents"] == 3
    _, history, _ = cli(capsys, home, "versions", "https://shop.example/display/?article=0")
    assert len(history) == 3  # the daemon re-keyed the stored versions
    _, added, _ = cli(
        capsys,
        home,
        "add",
        "https://shop.example/display/?article=0&fakefoo=zz",
        "--html",
        str(tmp_path / "ordnung.html"),
    )
    assert added["key"] == "https://shop.example/display/?article=0"


# -- bad input through the protocol -----------------------------------------------------


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/gone"


BAD = [
    ("crawl", {}, "invalid_input"),
    ("crawl", {"url": "not a url"}, "invalid_url"),
    ("crawl", {"url": "ftp://example.com/"}, "invalid_url"),
    ("crawl", {"url": "http://a.test/", "depth": -1}, "invalid_input"),
    ("crawl", {"url": "http://a.test/", "depth": 11}, "invalid_input"),
    ("crawl", {"url": "http://a.test/", "depth": "2"}, "invalid_input"),
    ("crawl", {"url": "http://a.test/", "max_pages": 0}, "invalid_input"),
    ("crawl", {"url": "http://a.test/", "same_site": "yes"}, "invalid_input"),
    ("crawl", {"url": "http://a.test/", "delay": -1}, "invalid_input"),
    ("crawl", {"url": "http://a.test/", "only_if_different": 2}, "invalid_input"),
    ("crawl_status", {}, "invalid_input"),
    ("crawl_status", {"job": "nosuchjob"}, "not_found"),
    ("crawl_cancel", {"job": "nosuchjob"}, "not_found"),
    ("schedule_add", {"url": "not a url"}, "invalid_url"),
    ("schedule_add", {"url": "mailto:a@b.example"}, "invalid_url"),
    ("schedule_add", {"url": "http://a.test/", "every": "monthly"}, "invalid_input"),
    ("schedule_add", {"url": "http://a.test/", "only_if_different": True}, "invalid_input"),
    ("schedule_remove", {"url": "http://never.scheduled.test/"}, "not_found"),
    ("schedule_remove", {"url": 5}, "invalid_input"),
]


def test_bad_input_through_the_protocol_gets_typed_errors(home, daemon):
    for type, params, code in BAD:
        with pytest.raises(PageKeeperError) as caught:
            client.call(home, type, params)
        assert caught.value.code == code, (type, params, caught.value.message)
    assert client.call(home, "schedule_list") == {"schedules": []}  # nothing was half-added
    assert client.call(home, "dust_learn")["rules"] == []  # an empty archive learns nothing


def test_an_unreachable_start_is_a_failed_page_both_ways(capsys, home, daemon, direct):
    dead = _closed_port_url()
    through = cli(capsys, home, "crawl", dead, "--delay", "0")[1]
    alone = cli(capsys, direct, "crawl", dead, "--delay", "0")[1]
    assert _shape(through) == _shape(alone)
    assert _shape(through)["failed"] == [(dead, "fetch_failed")] and through["count"] == 0


def test_cli_refuses_a_bad_start_url_alike_with_and_without_the_daemon(
    capsys, home, daemon, direct
):
    for each in (home, direct):
        code, error, _ = cli(capsys, each, "crawl", "notaurl", "--delay", "0")
        assert code != 0 and error["error"]["code"] == "invalid_url"
        code, error, _ = cli(capsys, each, "crawl", "http://a.test/", "--depth", "99")
        assert code != 0 and error["error"]["code"] == "invalid_input"


def test_stopping_the_daemon_mid_crawl_is_prompt_and_keeps_what_was_registered(
    capsys, home, daemon, site
):
    job = client.call(home, "crawl", {"url": f"{site}/index.html", "delay": 30})
    deadline = time.monotonic() + 20
    while job["steps"] < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
        job = client.call(home, "crawl_status", {"job": job["job"]})
    started = time.monotonic()
    assert main(["stop", "--home", str(home), "--json"]) == 0
    assert time.monotonic() - started < 10  # the crawl's 30 s pause does not hold the daemon
    capsys.readouterr()
    _, rows, _ = cli(capsys, home, "versions", f"{site}/index.html")  # read directly now
    assert len(rows) == 1


def test_background_runner_and_run_due_never_register_one_due_url_twice(tmp_path, site):

    app = App(make_home(tmp_path / "inproc"), Config(port=1))
    urls = [f"{site}/{name}" for name in ("a.html", "b.html", "c.html")]
    try:
        for url in urls:
            app.executor.submit(add_schedule, app.store, url, "daily").result()

        async def both():  # the daemon's minute tick and a `schedule --run-due` at once
            runner = run_due_schedules(app)
            return await asyncio.gather(schedules_once(app), runner)

        ran, done = asyncio.run(both())
        assert ran + len(done) == len(urls)
        counts = [len(app.executor.submit(provider.versions, app.store, u).result()) for u in urls]
        assert counts == [1, 1, 1]
    finally:
        app.close()
