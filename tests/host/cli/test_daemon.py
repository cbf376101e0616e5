"""``pagekeeper serve|stop|status|open`` (host/cli/commands/daemon.py): a bad ``--port`` is a
typed usage error (exit 2), never a traceback from the socket layer."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from host.cli.entry import main
from tests.host.daemon_fixtures import make_home, stop_daemon


@pytest.mark.parametrize("port", ["99999", "65536", "-1", "http"])
def test_serve_refuses_a_port_that_is_no_tcp_port(capsys, tmp_path, port):
    code = main(["serve", "--port", port, "--home", str(tmp_path / "home"), "--json"])
    answer = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 2 and answer["error"]["code"] == "invalid_input", answer
    assert "from 0 to 65535" in answer["error"]["message"]
    assert not (tmp_path / "home" / "daemon.json").exists()


def test_stop_names_commands_that_act_on_the_home_it_stopped(capsys, tmp_path):
    """``stop`` with no daemon running: the ``--until-login`` it suggests is this PageKeeper
    for this home, as a user can type it (not a bare ``pagekeeper``, off PATH after make run)."""
    home = tmp_path / "home"
    assert main(["stop", "--home", str(home)]) == 0
    hint = re.search(r"until you log in again: (.+)", capsys.readouterr().out).group(1)
    program, *args = shlex.split(hint)
    assert Path(program).is_absolute() and os.access(program, os.X_OK)
    assert args == ["--home", str(home), "stop", "--until-login"]


def test_a_pause_names_the_start_doctor_names(capsys, tmp_path):
    """``stop --until-login`` and ``doctor`` name one command that starts the daemon now, in
    the background (a bare ``serve`` holds the terminal)."""
    home = tmp_path / "home"
    assert main(["stop", "--until-login", "--home", str(home)]) == 0
    said = capsys.readouterr().out
    start = re.search(r"\((.+) starts it now\)", said).group(1)
    main(
        [
            "doctor",
            "--browser",
            "chromium",
            "--profile-dir",
            str(tmp_path / "p"),
            "--home",
            str(home),
        ]
    )
    assert f"to start it now: {start}\n" in capsys.readouterr().out
    assert shlex.split(start)[-2:] == ["serve", "--detach"]


def test_status_of_a_stopped_daemon_names_the_start_for_its_home_and_it_runs(
    capsys, tmp_path, monkeypatch
):
    """``status`` with no daemon names the command that starts one for this home; run in a
    shell as printed, it does (``status`` then gives its address), and the home is this one."""
    monkeypatch.setenv("HOME", str(tmp_path / "user"))  # a start that misses starts only there
    monkeypatch.delenv("PAGEKEEPER_HOME", raising=False)
    home = make_home(tmp_path)
    assert main(["status", "--home", str(home)]) == 0
    said = capsys.readouterr().out
    start = re.search(r"to start it: (.+)$", said.strip()).group(1)
    try:
        done = subprocess.run(start, shell=True, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert main(["status", "--home", str(home), "--json"]) == 0
        state = json.loads(capsys.readouterr().out)
        assert state["running"] and state["home"] == str(home), state
    finally:
        stop_daemon(home)
        stop_daemon(tmp_path / "user" / ".local" / "share" / "pagekeeper")
