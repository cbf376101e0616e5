"""``pagekeeper serve|stop|status|open`` (host/cli/commands/daemon.py): a bad ``--port`` is a
typed usage error (exit 2), never a traceback from the socket layer."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest

from host.cli.entry import main


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
