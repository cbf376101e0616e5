"""``pagekeeper stop`` waits for a daemon's stop as long as it makes progress, and says so, typed,
when it no longer does (host/daemon/client.py ``wait_stopped``, the stop's counterpart of
``wait_ready``); the daemon does not wait for work it can cancel (a request's fetch).

The stop's last step, closing the archive, is slowed or stopped on purpose by a test hook
(tests/host/daemon/stop_hook/sitecustomize.py).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
from pathlib import Path

import pytest

from engine.errors import Unavailable
from host.cli.entry import main
from host.daemon import client
from host.daemon.main import stop
from host.home import Home
from host.services.fetch import FetchOptions
from tests.host.daemon_fixtures import make_home, pk, stop_daemon
from tests.slowdown import factor

HOOK = Path(__file__).resolve().parent / "stop_hook"
STALL_S = 2.0  # the test's no-progress limit on an idle machine (the product's is a minute)
SLOW_S = 0.3  # the slowed close's pause between two progress notes, in stall limits


@pytest.fixture
def stall_s(monkeypatch) -> float:
    """The test's no-progress limit, scaled by how loaded the machine is now
    (tests/slowdown.py), as in test_start.py."""
    stall = STALL_S * factor()
    monkeypatch.setattr(client, "STALL_S", stall)
    return stall


@pytest.fixture
def hooked_home(tmp_path, monkeypatch):
    """A home whose daemons load the hook; a daemon left stuck is killed afterwards."""
    home = make_home(tmp_path)
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(HOOK), os.environ.get("PYTHONPATH")]))
    )
    yield home
    state = client.read_state(home) or {}
    if client.lock_held(home) and isinstance(state.get("pid"), int):
        os.kill(state["pid"], signal.SIGKILL)
    stop_daemon(home)


def serve(home: Path) -> dict:
    return json.loads(pk(home, "serve", "--detach", "--json").stdout)


def test_a_stop_longer_than_the_stall_limit_is_waited_for_while_it_progresses(
    hooked_home, monkeypatch, capsys, stall_s
):
    monkeypatch.setenv("PAGEKEEPER_TEST_STOP", f"slow:{SLOW_S * stall_s:.3f}")  # 3 limits in all
    serve(hooked_home)
    began = time.monotonic()
    code = main(["stop", "--json", "--home", str(hooked_home)])
    waited = time.monotonic() - began
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["stopped"] is True and not client.lock_held(hooked_home)
    assert waited > 2.5 * stall_s  # past the no-progress limit: progress is what counts
    log = Home(hooked_home).daemon_log.read_text()
    assert "stopping: closing the archive" in log and log.rstrip().endswith("stopped")


def test_a_stop_that_no_longer_progresses_is_a_typed_error_naming_the_daemon(
    hooked_home, monkeypatch, stall_s
):
    monkeypatch.setenv("PAGEKEEPER_TEST_STOP", "stuck")
    pid = serve(hooked_home)["pid"]
    failed: list[BaseException] = []

    def stopping() -> None:
        try:
            stop(hooked_home)
        except BaseException as exc:  # noqa: BLE001 - the test reads what was raised
            failed.append(exc)

    began = time.monotonic()
    waiter = threading.Thread(target=stopping, daemon=True)
    waiter.start()
    waiter.join(5 * stall_s)  # the limit, not a hang
    assert not waiter.is_alive() and time.monotonic() - began < 5 * stall_s
    assert len(failed) == 1 and isinstance(failed[0], Unavailable), failed
    message = failed[0].message
    assert f"daemon pid {pid} stopped making progress while stopping" in message
    assert "(closing the archive)" in message and str(hooked_home / "logs") in message
    assert client.lock_held(hooked_home)  # it is not killed behind the user's back


def silent_server() -> tuple[socket.socket, dict]:
    """A TCP server that accepts one connection and never answers; ``seen`` gets the
    monotonic times of the accept and of the peer's close."""
    server = socket.create_server(("127.0.0.1", 0))
    seen: dict = {}

    def serve_one() -> None:
        conn, _ = server.accept()
        seen["accepted"] = time.monotonic()
        with conn:
            while conn.recv(4096):
                pass
        seen["closed"] = time.monotonic()

    threading.Thread(target=serve_one, daemon=True).start()
    return server, seen


def test_a_stop_cancels_a_request_under_way_instead_of_waiting_for_its_fetch(home_with_daemon):
    home = home_with_daemon
    server, seen = silent_server()
    url = f"http://127.0.0.1:{server.getsockname()[1]}/"
    answered: list = []

    def add() -> None:
        try:
            answered.append(client.call(home, "archive_page", {"url": url}, timeout=120))
        except Unavailable as exc:
            answered.append(exc)

    requester = threading.Thread(target=add, daemon=True)
    requester.start()
    while "accepted" not in seen:  # the daemon's fetch is under way
        assert requester.is_alive(), answered
        time.sleep(0.02)
    stop(home)
    requester.join(30)
    server.close()
    # The fetch was cut by the stop, not ended by its own timeout, and the client was told.
    assert seen["closed"] - seen["accepted"] < FetchOptions().timeout
    assert len(answered) == 1 and isinstance(answered[0], Unavailable), answered
    assert "closed the connection" in answered[0].message


@pytest.fixture
def home_with_daemon(tmp_path):
    home = make_home(tmp_path)
    serve(home)
    yield home
    stop_daemon(home)


def stopping_in_background(home: Path, failed: list) -> threading.Thread:
    """``stop`` in a thread, returned once the daemon has published that it is stopping;
    what the stop raised goes to ``failed``."""

    def stopping() -> None:
        try:
            stop(home)
        except BaseException as exc:  # noqa: BLE001 - the test reads what was raised
            failed.append(exc)

    stopper = threading.Thread(target=stopping, daemon=True)
    stopper.start()
    while not (client.read_state(home) or {}).get("stopping"):
        assert stopper.is_alive(), "the daemon stopped before it said it was stopping"
        time.sleep(0.01)
    return stopper


def start_its_own_entry(home: Path) -> dict:
    """The daemon's own entry (``serve`` in the foreground of a detached process)."""
    return client.wait_ready(home, client.spawn_daemon(home))


@pytest.mark.parametrize("start", [serve, start_its_own_entry])
def test_a_start_asked_for_while_a_daemon_stops_starts_a_new_one_after_it(
    hooked_home, monkeypatch, stall_s, start
):
    """``serve --detach`` and a daemon spawned directly, each asked for while another stops,
    wait for it to be gone and then serve (before: "no daemon is starting", exit 6)."""
    monkeypatch.setenv("PAGEKEEPER_TEST_STOP", f"slow:{SLOW_S * stall_s / 3:.3f}")
    leaving, failed = serve(hooked_home)["pid"], []
    stopper = stopping_in_background(hooked_home, failed)
    state = start(hooked_home)
    stopper.join(10 * stall_s)
    # the stop ends when its daemon is gone, though the new one holds the lock at once
    assert not stopper.is_alive() and failed == [], failed
    assert (
        state["pid"] != leaving and client.running(hooked_home, wait=False)["pid"] == state["pid"]
    )
