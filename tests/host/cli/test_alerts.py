"""Alerts end to end: real pages on a local site, the real CLI (``check``, ``archive
schedule --run-due``, ``archive alerts``), with and without a real daemon."""

from __future__ import annotations

import json

import pytest

from engine.archive import alerts
from engine.archive.store import ArchiveStore
from host.cli.entry import main
from tests.conftest import static_site
from tests.host.cli.test_content import Site
from tests.host.daemon_fixtures import make_home

ARTICLE = (
    "<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
    "<p>{text}</p><p>{text}</p></article></body></html>"
)

RIVER = "The river rose two metres overnight and the lower meadow is under water again this spring."
BIRDS = "Two herons stood at dawn by the alders, and a kingfisher flew low over the quiet millpond."


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    root.mkdir()
    (root / "river.html").write_text(ARTICLE.format(title="River notes", text=RIVER))
    (root / "birds.html").write_text(ARTICLE.format(title="Bird notes", text=BIRDS))
    with static_site(root) as url:
        yield url, root


def cli(capsys, home, *argv) -> tuple[int, object]:
    code = main([*argv, "--home", str(home), "--json"])
    lines = capsys.readouterr().out.strip().splitlines()
    return code, json.loads(lines[-1]) if lines else None


def kinds(capsys, home, *extra) -> list[tuple[str, str]]:
    _, listed = cli(capsys, home, "archive", "alerts", *extra)
    return [(a["kind"], a["url"].rsplit("/", 1)[-1]) for a in listed["alerts"]]


def _gone_then_changed(capsys, home, site) -> None:
    base, root = site
    river, birds = f"{base}/river.html", f"{base}/birds.html"
    for url in (river, birds):
        assert cli(capsys, home, "archive", "add", url)[0] == 0
    assert cli(capsys, home, "archive", "tag", river, "+nature")[0] == 0  # tagged: alerted
    (root / "river.html").unlink()
    (root / "birds.html").unlink()
    assert cli(capsys, home, "check", "--all")[0] == 0
    assert kinds(capsys, home) == [("gone", "river.html")]  # the untagged page is not alerted
    assert cli(capsys, home, "check", "--all")[0] == 0
    assert kinds(capsys, home) == [("gone", "river.html")]  # still gone: no second alert
    assert cli(capsys, home, "archive", "alerts", "--on", birds)[1]["alerts"] is True
    (root / "birds.html").write_text(ARTICLE.format(title="Bird notes", text=BIRDS))
    code, back = cli(capsys, home, "check", birds)
    assert code == 0 and back["results"][0]["state"] == "present", back  # nothing to alert
    assert kinds(capsys, home) == [("gone", "river.html")]
    (root / "birds.html").unlink()
    assert cli(capsys, home, "check", birds)[0] == 0
    assert kinds(capsys, home)[0] == ("gone", "birds.html")  # alerts on for it now


def test_alerts_without_a_daemon(capsys, tmp_path, site):
    home = make_home(tmp_path / "a")
    _gone_then_changed(capsys, home, site)
    with ArchiveStore.open(home) as store:  # the viewer's visit marks them seen
        alerts.mark_seen(store)
    assert kinds(capsys, home) == []
    assert len(kinds(capsys, home, "--all")) == 2


def test_alerts_through_the_daemon_and_a_scheduled_recapture(capsys, home, daemon, site):
    base, root = site
    _gone_then_changed(capsys, home, site)
    (root / "river.html").write_text(ARTICLE.format(title="River notes", text=BIRDS + " " + BIRDS))
    assert (
        cli(capsys, home, "archive", "schedule", f"{base}/river.html", "--every", "daily")[0] == 0
    )
    code, ran = cli(capsys, home, "archive", "schedule", "--run-due")
    assert code == 0 and ran and not ran[0].get("error"), ran
    assert kinds(capsys, home)[0] == ("changed", "river.html")
    assert cli(capsys, home, "archive", "alerts", "--default", "off")[1] == {"default": "off"}


def test_a_site_down_between_two_gone_checks_is_one_alert(capsys, tmp_path):
    """gone, then the server answers 503 (unreachable: nothing judged), then gone again:
    the page never came back, so it is alerted once."""
    home, site = make_home(tmp_path / "a"), Site()
    try:
        page = ARTICLE.format(title="River notes", text=RIVER).encode()
        site.pages["/river"] = (200, page)
        river = f"{site.base}/river"
        assert cli(capsys, home, "archive", "add", river)[0] == 0
        assert cli(capsys, home, "archive", "tag", river, "+nature")[0] == 0
        states = []
        for status in (404, 503, 404):
            site.pages["/river"] = (status, b"<h1>no</h1>")
            states.append(cli(capsys, home, "check", river)[1]["results"][0]["state"])
    finally:
        site.close()
    assert states == ["gone", "unreachable", "gone"]
    assert kinds(capsys, home) == [("gone", "river")]


def test_bad_alert_settings_are_typed(capsys, tmp_path):
    home = make_home(tmp_path / "b")
    code, error = cli(capsys, home, "archive", "alerts", "--on", "20990101000000000000")
    assert code == 3 and error["error"]["code"] == "not_found"
