"""The human-readable lines of ``archive crawl | schedule | dust | alerts`` (real pages on a
local site, the real CLI without a daemon): words and times in the user's zone, never the protocol's JSON or
Unix seconds, which ``--json`` still prints unchanged."""

from __future__ import annotations

import argparse
import json
import re

import pytest

from host.cli.entry import build_parser, main
from host.cli.shown import local_time, size
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


# Commands whose text output is the data itself (normalize: one URL a line; parse: the WHATWG
# components, as JSON by design), the browser's host, and schedule (it picks its render per
# action when it runs).
NO_RENDER = {"normalize", "parse", "native", "archive schedule"}


def commands_without_a_render(parser, path=()) -> set[str]:
    found = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if "run" in sub._defaults and "render" not in sub._defaults:
                    found.add(" ".join((*path, name)))
                found |= commands_without_a_render(sub, (*path, name))
    return found


def test_every_command_speaks_to_people_without_json():
    assert commands_without_a_render(build_parser()) == NO_RENDER


def test_get_profile_reclaim_and_liveness_speak_to_people(capsys, tmp_path):
    home = make_home(tmp_path / "home")
    stored, live = tmp_path / "stored.html", tmp_path / "live.html"
    stored.write_text(ARTICLE.format(title="River notes", text=RIVER))
    live.write_text(ARTICLE.format(title="River notes", text=RIVER))
    assert (
        main(["archive", "add", "http://a.test/", "--html", str(stored), "--home", str(home)]) == 0
    )
    version = capsys.readouterr().out.split()[1]
    out = tmp_path / "copy.html"
    got = said(capsys, home, "get", version, "-o", str(out))
    assert (
        got
        == f"wrote {version} (http://a.test/, links rewritten), {size(out.stat().st_size)}, to {out}\n"
    )
    assert said(capsys, home, "profile") == "archive (profiles: safe, archive, aggressive)\n"
    assert said(capsys, home, "reclaim").startswith("freed 0 B: 0 expired deletion(s)")
    assert main(["liveness", "--stored", str(stored), "--live", str(live)]) == 0
    assert capsys.readouterr().out == "present  P 100%\n"


def arguments_without_help(parser, path=()) -> list[str]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += arguments_without_help(sub, (*path, name))
        elif not action.help and not isinstance(action, argparse._HelpAction):
            found.append(f"{' '.join(path)} {action.option_strings or action.dest}")
    return found


def test_every_argument_of_every_command_says_what_it_is():
    assert arguments_without_help(build_parser()) == []


def test_liveness_details_show_the_reason_and_each_keyword_list_that_has_words(capsys, tmp_path):
    """``--details`` adds the reason and the matched and missing keywords (a list only when it
    has words), the same as ``--json`` gives; without it, only the verdict and its share."""
    stored, live = tmp_path / "stored.html", tmp_path / "live.html"
    stored.write_text(ARTICLE.format(title="River notes", text=RIVER))
    live.write_text(ARTICLE.format(title="River notes", text=RIVER[:48] + " " + BIRDS))
    files = ["liveness", "--stored", str(stored), "--live", str(live)]
    assert main([*files, "--details", "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["matched"] and verdict["missing"] and verdict["reason"]
    assert main([*files, "--details"]) == 0
    head = f"{verdict['state']}  P {round(verdict['match'] * 100)}%"
    assert capsys.readouterr().out.splitlines() == [
        head,
        f"  {verdict['reason']}",
        f"  matched: {', '.join(verdict['matched'])}",
        f"  missing: {', '.join(verdict['missing'])}",
    ]
    assert main(files) == 0
    assert capsys.readouterr().out == head + "\n"
    live.write_text(ARTICLE.format(title="Bird notes", text=BIRDS))
    assert main([*files, "--details"]) == 0
    said = capsys.readouterr().out
    assert "  missing: " in said and "matched" not in said  # nothing matched: no empty list


def test_get_into_a_file_says_whether_it_wrote_the_original_or_the_rewritten_copy(capsys, tmp_path):
    home = make_home(tmp_path / "home")
    stored = tmp_path / "stored.html"
    stored.write_text(ARTICLE.format(title="River notes", text=RIVER))
    assert (
        main(["archive", "add", "http://a.test/", "--html", str(stored), "--home", str(home)]) == 0
    )
    version = capsys.readouterr().out.split()[1]
    out = tmp_path / "original.html"
    got = said(capsys, home, "get", version, "--original", "-o", str(out))
    assert (
        got
        == f"wrote {version} (http://a.test/, the original), {size(out.stat().st_size)}, to {out}\n"
    )
    assert out.read_bytes() == stored.read_bytes()
