"""A start asked for while a daemon stops, in this process (no daemon): ``wait_out_stop``
waits only for a daemon that says it is stopping and still holds the home's lock, and
``serve`` tries the lock again after it (host/daemon/main.py). test_stop.py holds the same
rules end to end, with real daemons in child processes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine.archive.storage import FileLock
from host.daemon import client, main
from host.home import Home


@pytest.fixture
def home(tmp_path) -> Path:
    place = tmp_path / "home"
    place.mkdir()
    return place


@pytest.fixture
def waits(monkeypatch) -> list:
    """Each ``client.wait_stopped(home, pid)`` asked for (none is made for real)."""
    asked: list = []
    monkeypatch.setattr(client, "wait_stopped", lambda home, pid: asked.append((home, pid)))
    return asked


def leaving_daemon(home: Path, **state) -> FileLock:
    """The home's lock held (as by a daemon of another process) and its daemon.json."""
    lock = Home(home).lock()
    assert lock.acquire()
    client.state_path(home).write_text(json.dumps(state), "utf-8")
    return lock


def test_a_start_waits_out_a_daemon_that_is_stopping_and_holds_the_lock(home, waits):
    lock = leaving_daemon(home, pid=4321, stopping=True)
    try:
        main.wait_out_stop(home)
    finally:
        lock.release()
    assert waits == [(home, 4321)]


@pytest.mark.parametrize(
    "state",
    [
        {"pid": 4321},  # running or starting: not on its way out
        {"pid": 4321, "stopping": False},
        {"pid": "4321", "stopping": True},  # no pid to wait for
        {"pid": None, "stopping": True},
        {"stopping": True},
    ],
)
def test_a_start_does_not_wait_for_a_daemon_that_is_not_stopping(home, waits, state):
    lock = leaving_daemon(home, **state)
    try:
        main.wait_out_stop(home)
    finally:
        lock.release()
    assert waits == []


def test_a_stopping_note_left_by_a_daemon_that_is_gone_is_not_waited_for(home, waits):
    """A killed daemon's daemon.json may still say "stopping": without the lock held no
    daemon is there to wait for."""
    client.state_path(home).write_text(json.dumps({"pid": 4321, "stopping": True}), "utf-8")
    main.wait_out_stop(home)
    assert waits == []
    client.state_path(home).unlink()
    main.wait_out_stop(home)  # no daemon.json at all
    assert waits == []


class Served(Exception):
    """Raised where ``serve`` begins to serve, having taken the lock."""


@pytest.fixture
def serving(monkeypatch):
    """``serve`` stopped right after it took the lock; another daemon's status stubbed."""

    def began(home):
        raise Served

    monkeypatch.setattr(main, "setup_logging", began)
    monkeypatch.setattr(main, "status_when_ready", lambda of: {"pid": 4321, "home": of})


def test_serve_takes_the_lock_once_the_stopping_daemon_has_let_it_go(home, serving, monkeypatch):
    lock = leaving_daemon(home, pid=4321, stopping=True)
    gone: list = []

    def stopped(of, pid):  # the leaving daemon ends while the start waits
        lock.release()
        gone.append((of, pid))

    monkeypatch.setattr(client, "wait_stopped", stopped)
    with pytest.raises(Served):
        main.serve(home)
    assert gone == [(home, 4321)]
    assert not client.state_path(home).exists()  # the leaving daemon's address is not kept


def test_serve_reports_a_daemon_that_runs_without_waiting_for_it(home, serving, waits):
    lock = leaving_daemon(home, pid=os.getpid())
    try:
        state = main.serve(home)
    finally:
        lock.release()
    assert state == {"pid": 4321, "home": home, "already_running": True} and waits == []


def test_serve_reports_a_daemon_still_there_after_the_wait(home, serving, waits):
    """The stop ended no daemon (say it was asked to stop and another took its place):
    the lock is still held, so the running one is reported, not a second one started."""
    lock = leaving_daemon(home, pid=4321, stopping=True)
    try:
        state = main.serve(home)
    finally:
        lock.release()
    assert state == {"pid": 4321, "home": home, "already_running": True}
    assert waits == [(home, 4321)]


def test_a_first_start_in_a_home_with_no_daemon_takes_the_lock(home, serving, waits):
    """No daemon.json to remove and no lock held: serve goes on at once."""
    with pytest.raises(Served):
        main.serve(home)
    assert waits == [] and Home(home).lock().acquire()  # let go again on the way out
