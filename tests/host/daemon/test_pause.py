"""`pagekeeper stop` says what it means: the browser's next need starts the daemon again, and
`stop --until-login` keeps it stopped (the native host starts none) until the next login or
boot, or until `pagekeeper serve`. Real CLI, real native host, real daemon."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

from host.daemon import pause
from host.home import Home
from tests.host.daemon_fixtures import NativeHost, pk


def ping_through_the_browsers_host(home) -> dict:
    host = NativeHost(home)
    try:
        return host.call({"id": 1, "type": "ping"})
    finally:
        host.close()


def running(home) -> bool:
    return json.loads(pk(home, "status", "--json").stdout)["running"]


def test_a_plain_stop_says_the_browser_starts_it_again_and_it_does(daemon, home):
    said = pk(home, "stop").stdout
    assert "starts it again" in said and " stop --until-login" in said
    assert not running(home)
    assert ping_through_the_browsers_host(home)["ok"]  # what the message promised
    assert running(home)


def test_stop_until_login_holds_until_the_next_login(daemon, home):
    done = json.loads(pk(home, "stop", "--until-login", "--json").stdout)
    assert done["stopped"] and done["restarts"] == "next_login"
    assert "until you log in again" in pk(home, "stop", "--until-login").stdout
    refused = ping_through_the_browsers_host(home)
    assert refused["ok"] is False and refused["error"]["code"] == "unavailable"
    assert "--until-login" in refused["error"]["message"]
    assert not running(home)
    # The command it names runs as typed, in any folder, with no venv activated.
    program, *args = shlex.split(re.search(r"`([^`]+)`", refused["error"]["message"]).group(1))
    assert args == ["--home", str(home), "serve", "--detach"]  # this home, in the background
    assert Path(program).is_absolute() and os.access(program, os.X_OK)
    marker = Home(home).paused
    written = json.loads(marker.read_text())
    assert written["boot"] == pause.this_login()["boot"]
    marker.write_text(json.dumps({**written, "boot": "an-earlier-boot"}))  # the machine restarted
    assert ping_through_the_browsers_host(home)["ok"]
    assert running(home)


def test_serve_ends_the_pause(daemon, home):
    pk(home, "stop", "--until-login")
    assert pause.paused(home) is not None
    pk(home, "serve", "--detach")
    assert pause.paused(home) is None and running(home)
    pk(home, "stop")
    assert ping_through_the_browsers_host(home)["ok"]


def test_a_marker_of_another_session_is_not_a_pause(tmp_path, monkeypatch):
    pause.pause(tmp_path)
    assert pause.paused(tmp_path) is not None
    monkeypatch.setattr(pause, "_session", lambda: "another-login")
    assert pause.paused(tmp_path) is None


def test_open_starts_the_daemon_and_ends_the_pause(daemon, home):
    """`pagekeeper open` starts the daemon the viewer needs (a start the user asked for, as
    serve is), so the pause ends: afterwards the browser's host starts a stopped daemon again."""
    pk(home, "stop", "--until-login")
    assert pause.paused(home) is not None
    opened = json.loads(pk(home, "open", "--no-browser", "--json").stdout)
    assert opened["opened"] is False and pause.paused(home) is None and running(home)
    pk(home, "stop")
    assert ping_through_the_browsers_host(home)["ok"]
