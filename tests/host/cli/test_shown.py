"""Text output shows times in the user's own zone (host/cli/shown.py); ``--json`` keeps UTC."""

from __future__ import annotations

import json
import re
import time

import pytest

from host.cli.entry import main
from host.cli.shown import local_time, size
from tests.engine.archive.pages import page
from tests.host.daemon_fixtures import make_home


@pytest.fixture
def tokyo(monkeypatch):
    """The user's zone is Tokyo (UTC+9, no daylight saving), put back afterwards."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_a_stored_time_is_shown_on_the_users_clock(tokyo):
    assert local_time("2026-11-26T13:40:12Z") == "2026-11-26 22:40:12 JST"
    assert local_time(0.0) == "1970-01-01 09:00:00 JST"
    assert local_time(None, "not yet") == "not yet"


def test_a_stored_time_without_a_zone_is_utc(tokyo):
    """The store writes UTC; an ISO time that lost its ``Z`` (an older row, an import) is
    still UTC, never the reader's own clock."""
    assert local_time("2026-11-26T13:40:12") == "2026-11-26 22:40:12 JST"
    assert local_time("2026-11-26T13:40:12+01:00") == "2026-11-26 21:40:12 JST"


def test_a_size_changes_unit_at_1024_and_shows_a_decimal_below_10():
    assert [size(n) for n in (0, 1023, 1024)] == ["0 B", "1023 B", "1.0 KB"]
    assert size(10 * 1024 - 52) == "9.9 KB" and size(10 * 1024) == "10 KB"
    assert size(1024**2 - 1) == "1024 KB"  # 1023.999 KB: not yet a MB, shown to the unit
    assert [size(1024**k) for k in (2, 3, 4)] == ["1.0 MB", "1.0 GB", "1.0 TB"]
    assert size(5 * 1024**5) == "5120 TB"  # TB is the last unit


def test_versions_search_and_an_undoable_delete_speak_the_users_time(capsys, tmp_path, tokyo):
    home = make_home(tmp_path)
    url, body = page("partei")
    (tmp_path / "p.html").write_bytes(body)
    assert (
        main(["archive", "add", url, "--html", str(tmp_path / "p.html"), "--home", str(home)]) == 0
    )
    capsys.readouterr()
    assert main(["archive", "versions", url, "--home", str(home), "--json"]) == 0
    stored = json.loads(capsys.readouterr().out)[0]["registered_at"]
    assert stored.endswith("Z")  # the protocol's UTC, unchanged
    shown = local_time(stored)
    assert shown.endswith(" JST")
    for argv in (["versions", url], ["search", "*"]):
        assert main(["archive", *argv, "--home", str(home)]) == 0
        said = capsys.readouterr().out
        assert said.startswith(shown) and stored not in said, said
    assert main(["archive", "delete", "--undo", url, "--home", str(home)]) == 0
    said = capsys.readouterr().out
    assert re.search(r"undo until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d JST: ", said), said


def test_the_similarity_column_keeps_its_width_for_a_first_version(capsys, tmp_path):
    home = make_home(tmp_path)
    url, body = page("partei")
    (tmp_path / "p.html").write_bytes(body)
    for _ in range(2):
        main(["archive", "add", url, "--html", str(tmp_path / "p.html"), "--home", str(home)])
    capsys.readouterr()
    assert main(["archive", "versions", url, "--home", str(home)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len({line.index("http://") for line in lines}) == 1, lines
