"""``serve --detach`` and a daemon's start: it is waited for while it makes progress (the
dictionary index built on first start takes long on a slow machine), and a daemon that
dies or stops making progress gives a typed error (host/daemon/client.py ``wait_ready``).

The daemon's index build is slowed, stopped or killed by a test hook
(tests/host/daemon/start_hook/sitecustomize.py) in a home whose index cache is empty.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from host.cli.entry import main
from host.daemon import client
from host.daemon.main import acquire
from host.home import Home
from tests.host.daemon_fixtures import make_home, stop_daemon
from tests.slowdown import factor

HOOK = Path(__file__).resolve().parent / "start_hook"
STALL_S = 2.0  # the test's no-progress limit on an idle machine (the product's is a minute)
SLOW_S = 0.3  # the slowed build's pause between two progress reports, in stall limits


@pytest.fixture
def stall_s(monkeypatch) -> float:
    """The test's no-progress limit, scaled by how loaded the machine is now
    (tests/slowdown.py): a daemon's start also has steps that report nothing (loading the
    index it built, binding), which take seconds at load 20 on two cores."""
    stall = STALL_S * factor()
    monkeypatch.setattr(client, "STALL_S", stall)
    return stall


@pytest.fixture
def cold_home(tmp_path, monkeypatch, stall_s):
    """A home with an empty dictionary cache (the daemon builds the index), the hook on."""
    home = make_home(tmp_path, cache_dir=str(tmp_path / "empty-cache"))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(HOOK), os.environ.get("PYTHONPATH")]))
    )
    yield home
    stop_daemon(home)


def slowed(stall: float) -> str:
    """The hook's slowed build: 10 reports, each ``SLOW_S`` stall limits after the last (3
    limits in all, each gap well inside one)."""
    return f"slow:{SLOW_S * stall:.3f}"


def serve_detach(home: Path, capsys) -> tuple[int, dict, str]:
    code = main(["serve", "--detach", "--json", "--home", str(home)])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_a_start_longer_than_the_stall_limit_is_waited_for_while_it_progresses(
    cold_home, monkeypatch, capsys, stall_s
):
    monkeypatch.setenv("PAGEKEEPER_TEST_INDEX", slowed(stall_s))  # >= 3 stall limits in all
    began = time.monotonic()
    code, result, err = serve_detach(cold_home, capsys)
    waited = time.monotonic() - began
    assert code == 0, err
    assert result["running"] is True and result["url"].startswith("http://127.0.0.1:")
    assert waited > 2.5 * stall_s  # past the no-progress limit: progress is what counts
    assert "is starting: building the dictionary index (first start only)" in err
    assert client.call(cold_home, "ping", timeout=10)["protocol"]


def test_a_daemon_that_stops_making_progress_is_a_typed_error(
    cold_home, monkeypatch, capsys, stall_s
):
    monkeypatch.setenv("PAGEKEEPER_TEST_INDEX", "stuck")
    began = time.monotonic()
    code, result, _ = serve_detach(cold_home, capsys)
    assert code != 0
    assert result["error"]["code"] == "unavailable"
    message = result["error"]["message"]
    assert "stopped making progress" in message and "building the dictionary index" in message
    assert str(cold_home / "logs") in message
    assert time.monotonic() - began < 30 * stall_s  # the limit, not a hang
    # `stop` ends a daemon that never got to listen (no waiting for it first)
    assert client.lock_held(cold_home)
    began = time.monotonic()
    assert main(["stop", "--json", "--home", str(cold_home)]) == 0
    assert json.loads(capsys.readouterr().out)["stopped"] is True
    assert not client.lock_held(cold_home) and time.monotonic() - began < 15  # no wait for "ready"


def test_a_daemon_that_dies_while_starting_is_a_typed_error(cold_home, monkeypatch, capsys):
    monkeypatch.setenv("PAGEKEEPER_TEST_INDEX", "die")
    code, result, _ = serve_detach(cold_home, capsys)
    assert code != 0
    assert result["error"]["code"] == "unavailable"
    assert "daemon exited with 7" in result["error"]["message"]


def test_a_cli_command_waits_for_a_starting_daemon_instead_of_opening_the_store(
    cold_home, monkeypatch, capsys, stall_s
):
    monkeypatch.setenv("PAGEKEEPER_TEST_INDEX", slowed(stall_s))
    proc = client.spawn_daemon(cold_home)
    while not client.lock_held(cold_home):
        assert proc.poll() is None
        time.sleep(0.02)
    assert client.running(cold_home, wait=False) is None  # still starting
    state = client.running(cold_home)  # waits past the stall limit while it progresses
    assert state is not None and state["ready"] and state["pid"] == proc.pid


def test_a_client_probing_the_lock_does_not_turn_a_starting_daemon_away(tmp_path):
    """``lock_held`` holds the lock for an instant: the daemon tries again before it decides
    that another daemon owns the home (it used to exit with "unavailable")."""
    prober, daemon = Home(tmp_path).lock(), Home(tmp_path).lock()
    assert prober.acquire()
    threading.Timer(0.05, prober.release).start()
    assert acquire(daemon)  # the probe ended: the home is the daemon's
    assert not acquire(Home(tmp_path).lock(), tries=3)  # a daemon that holds it keeps it
    daemon.release()
