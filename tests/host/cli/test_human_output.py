"""The human-readable lines of ``archive crawl | schedule | dust | alerts`` (real pages on a
local site, the real CLI without a daemon): words and times in the user's zone, never the protocol's JSON or
Unix seconds, which ``--json`` still prints unchanged."""

from __future__ import annotations

import json
import re

import pytest

from host.cli.entry import main
from host.cli.shown import local_time
from tests.conftest import static_site
from tests.host.cli.test_alerts import ARTICLE, BIRDS, RIVER
from tests.host.daemon_fixtures import make_home

EPOCH = re.compile(r"\b1\d{9}(\.\d+)?\b")  # Unix seconds of this era


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "site"
    root.mkdir()
    (root / "river.html").write_text(
        ARTICLE.format(title="River notes", text=RIVER) + '<a href="birds.html">birds</a>'
    )
    (root / "birds.html").write_text(ARTICLE.format(title="Bird notes", text=BIRDS))
    with static_site(root) as url:
        yield url


def said(capsys, home, *argv) -> str:
    assert main(["archive", *argv, "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert not out.lstrip().startswith(("{", "[")) and not EPOCH.search(out), out
    return out


def as_json(capsys, home, *argv):
    assert main(["archive", *argv, "--home", str(home), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_crawl_schedule_dust_and_alerts_speak_to_people(capsys, tmp_path, site):
    home = make_home(tmp_path / "home")
    river = f"{site}/river.html"
    crawled = said(capsys, home, "crawl", river, "--delay", "0")
    assert crawled.startswith("registered 2 pages, skipped 0") and f"  {river}" in crawled
    assert said(capsys, home, "alerts").startswith("no changes recorded yet ")
    added = said(capsys, home, "schedule", river, "--every", "weekly")
    row = as_json(capsys, home, "schedule", "--list")[0]  # --json: the row, Unix seconds
    assert isinstance(row["next_run"], float)
    assert added == f"scheduled {river} weekly, first run {local_time(row['next_run'])}\n"
    listed = said(capsys, home, "schedule", "--list")
    assert listed.startswith(f"weekly  next {local_time(row['next_run'])}  last never  {river}")
    assert said(capsys, home, "schedule", "--run-due").startswith("registered ")
    assert " last 20" in said(capsys, home, "schedule", "--list")
    assert said(capsys, home, "schedule", "--run-due") == "nothing was due\n"
    assert said(capsys, home, "dust").startswith("learned 0 DUST rules and 0 parameter rules")
    assert said(capsys, home, "schedule", "--remove", river) == f"removed the schedule of {river}\n"
    assert said(capsys, home, "schedule", "--list") == "no schedules\n"
