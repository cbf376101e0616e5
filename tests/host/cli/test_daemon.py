"""``pagekeeper serve|stop|status|open`` (host/cli/commands/daemon.py): a bad ``--port`` is a
typed usage error (exit 2), never a traceback from the socket layer."""

from __future__ import annotations

import json

import pytest

from host.cli.entry import main


@pytest.mark.parametrize("port", ["99999", "65536", "-1", "http"])
def test_serve_refuses_a_port_that_is_no_tcp_port(capsys, tmp_path, port):
    code = main(["serve", "--port", port, "--home", str(tmp_path / "home"), "--json"])
    answer = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 2 and answer["error"]["code"] == "invalid_input", answer
    assert "from 0 to 65535" in answer["error"]["message"]
    assert not (tmp_path / "home" / "daemon.json").exists()
