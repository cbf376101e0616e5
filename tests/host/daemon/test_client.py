"""The daemon's client: what it tells a user when no daemon runs."""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

import pytest

from engine.errors import Unavailable
from host.daemon import client
from tests.host.daemon_fixtures import make_home


def test_no_daemon_names_a_start_command_that_runs_as_typed(tmp_path):
    """``make run`` installs ``pagekeeper`` in .venv/bin/, which is not on PATH: the message
    names the command by the path a user can type in any folder."""
    with pytest.raises(Unavailable) as raised:
        client.connect(make_home(tmp_path))
    program, *args = shlex.split(re.search(r"`([^`]+)`", str(raised.value)).group(1))
    assert args == ["serve", "--detach"] and Path(program).is_absolute()
    assert os.access(program, os.X_OK)


def test_the_command_named_to_a_user_is_the_binary_or_the_script_beside_python(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "my python"))
    assert client.own_command() == "pagekeeper"  # nothing beside it: whatever is on PATH
    (tmp_path / "pagekeeper").write_text("")
    assert client.own_command() == shlex.quote(str(tmp_path / "pagekeeper"))
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert client.own_command() == shlex.quote(str(tmp_path / "my python"))
    assert client.own_command().startswith("'")  # a path with a space, quoted for a shell
