"""``<home>/config.json`` (host/daemon/app.py ``Config``) is edited by hand (the README names its
caps): a broken file or a setting of the wrong kind is a typed ``invalid_input`` error naming
the file, from every command and from a daemon's start, never a traceback."""

from __future__ import annotations

import json

import pytest

from host.cli.entry import main
from host.daemon.app import Config
from tests.host.daemon_fixtures import make_home, stop_daemon


def _cli(capsys, home, *argv):
    code = main([*argv, "--home", str(home), "--json"])
    out = capsys.readouterr().out.strip().splitlines()
    return code, json.loads(out[-1]) if out else None


@pytest.mark.parametrize("text", ["{bad", "[1, 2]", "\xff\xfe"], ids=["json", "array", "bytes"])
@pytest.mark.parametrize(
    "argv", [("archive", "search"), ("suggest", "http://gooogle.com/"), ("archive", "stats")]
)
def test_a_broken_config_is_a_typed_error_naming_the_file(capsys, tmp_path, text, argv):
    home = make_home(tmp_path)
    (home / "config.json").write_bytes(text.encode("latin-1"))
    code, answer = _cli(capsys, home, *argv)
    assert code == 2, answer
    assert answer["error"]["code"] == "invalid_input"
    assert str(home / "config.json") in answer["error"]["message"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("port", "47477"),
        ("port", 70000),
        ("port", -1),
        ("port", True),
        ("capture_resource_bytes", "20MB"),
        ("capture_page_bytes", 0),
        ("suggest_limit", 2.5),
        ("extension_ids", "abc"),
        ("firefox_ids", [1]),
        ("cache_dir", 3),
    ],
)
def test_a_setting_of_the_wrong_kind_is_named(tmp_path, name, value):
    home = make_home(tmp_path, **{name: value})
    with pytest.raises(Exception) as raised:
        Config.load(home)
    assert getattr(raised.value, "code", None) == "invalid_input", raised.value
    assert f'"{name}"' in str(raised.value)


def test_good_settings_load(tmp_path):
    home = make_home(tmp_path, port=0, capture_resource_bytes=1, extension_ids=[], cache_dir=None)
    config = Config.load(home)
    assert (config.port, config.capture_resource_bytes, config.cache_dir) == (0, 1, None)


def test_a_daemon_that_cannot_start_says_why(capsys, tmp_path):
    """``serve --detach`` quotes the daemon's own typed error, not only its exit status."""
    home = make_home(tmp_path)
    (home / "config.json").write_text("{bad")
    try:
        code, answer = _cli(capsys, home, "serve", "--detach")
    finally:
        stop_daemon(home)
    assert code == 6 and answer["error"]["code"] == "unavailable", answer
    message = answer["error"]["message"]
    assert "daemon exited with 2" in message and "is not valid JSON" in message, message
