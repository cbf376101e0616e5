"""``viewer_watch`` over a real daemon and real websockets: pushed live updates (long-poll).

A watch is answered as soon as another connection writes (or a sweep moves), at its
timeout when nothing happens, for every watcher at once, without holding the store
thread; a stopping daemon or a closed connection does not wait for it.

The rules are held by the order of events, not by the machine's speed: each watch's timeout
is far longer than any wait here, so an answer before it is the rule's; how a waiter waits
(one sleep to its deadline, woken by a change; none for a stale ``since``) is counted in
this process, on :class:`ChangeFeed` itself.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import pytest

from engine.errors import InvalidInput
from host.daemon import client, main  # the daemon and home fixtures: tests/host/conftest.py
from host.daemon.changes import ChangeFeed

PAGE = "<html><head><title>Watch {n}</title></head><body><p>Story number {n}, with words.</p>"


class Watch(threading.Thread):
    """One ``viewer_watch`` on its own connection, answered in the background."""

    def __init__(self, home, params: dict) -> None:
        super().__init__(daemon=True)
        self.home = home
        self.params = params
        self.result = self.error = None
        self.answered_at = None

    def run(self) -> None:
        try:
            with client.connect(self.home) as ws:
                self.result = client.request(ws, "viewer_watch", self.params, timeout=90)
        except Exception as exc:  # noqa: BLE001 - the test reads it
            self.error = exc
        self.answered_at = time.monotonic()


def stamp(home) -> dict:
    return client.call(home, "viewer_watch", {})


def archive(home, n: int, url: str | None = None) -> float:
    """Archive a page over its own connection; the time its reply arrived."""
    url = url or f"https://watch.example.com/story/{n}"
    client.call(home, "archive_page", {"url": url, "html": PAGE.format(n=n)})
    return time.monotonic()


def started(home, params: dict, settle: float = 0.3) -> Watch:
    watch = Watch(home, params)
    watch.start()
    time.sleep(settle)  # the request is on the wire and waiting
    assert watch.is_alive(), (watch.result, watch.error)
    return watch


def test_a_write_from_another_connection_answers_the_watch_at_once(home, daemon):
    first = stamp(home)
    assert first["changed"] and isinstance(first["seq"], int) and first["versions"] == 0
    watch = started(home, {"since": first["seq"], "timeout_ms": 60_000})
    archive(home, 1)
    watch.join(30)  # half its timeout: an answer by then is the write's, not the timeout's
    assert not watch.is_alive() and watch.error is None, watch.error
    got = watch.result
    assert got["seq"] > first["seq"] and got["changed"]
    assert got["versions"] == 1 and got["last_key"] and "watch.example.com" in got["last_key"]
    # Woken by the write itself, not a poll: test_a_change_wakes_a_waiter_from_one_sleep.


class Waits:
    """``asyncio.wait`` (how :meth:`ChangeFeed.wait` sleeps) counted: each call's timeout and
    whether a waiter finished it (a wake) or its timeout did. ``then`` runs as each starts."""

    def __init__(self, monkeypatch, then) -> None:
        self.timeouts: list[float] = []
        self.woken: list[bool] = []
        real = asyncio.wait

        async def wait(futures, *, timeout=None, return_when=asyncio.ALL_COMPLETED):
            self.timeouts.append(timeout)
            then()
            done, pending = await real(futures, timeout=timeout, return_when=return_when)
            self.woken.append(bool(done))
            return done, pending

        monkeypatch.setattr(asyncio, "wait", wait)


def test_a_change_wakes_a_waiter_from_one_sleep_to_its_deadline(monkeypatch):
    """A waiter sleeps once, to its deadline (no poll interval), and a change noted from
    another thread (the store thread's) after it began to sleep wakes that one sleep."""
    feed = ChangeFeed()
    note = threading.Thread(target=feed.note)
    waits = Waits(monkeypatch, note.start)
    assert asyncio.run(feed.wait(since=0, timeout=60))
    note.join()
    assert waits.woken == [True] and waits.timeouts[0] > 59, (waits.woken, waits.timeouts)


def test_a_stale_since_is_not_waited_for(monkeypatch):
    """A ``since`` the feed never reached (another daemon life's) moved already: no sleep."""
    feed = ChangeFeed()
    feed.note()

    def slept() -> None:
        raise AssertionError("a stale since was waited for")

    Waits(monkeypatch, slept)
    assert asyncio.run(feed.wait(since=feed.seq + 1000, timeout=60))
    assert not asyncio.run(feed.wait(since=feed.seq, timeout=0))  # its own seq: not moved


def test_a_page_seen_again_answers_the_watch_with_its_capture(home, daemon):
    """An unchanged re-capture adds no version row, but it is a capture the timeline shows."""
    archive(home, 1)
    first = stamp(home)
    watch = started(home, {"since": first["seq"], "timeout_ms": 20_000})
    url = "https://watch.example.com/story/1"
    again = client.call(home, "archive_page", {"url": url, "html": PAGE.format(n=1)})
    watch.join(15)
    assert not watch.is_alive() and watch.error is None, watch.error
    assert again["revisit_of"] == first["last_id"]
    got = watch.result
    assert got["changed"] and got["versions"] == first["versions"] + 1 == 2
    assert got["last_id"] == again["id"] and got["last_key"] == first["last_key"]


def test_nothing_happening_answers_at_the_timeout_unchanged(home, daemon):
    first = stamp(home)
    began = time.monotonic()
    got = client.call(home, "viewer_watch", {"since": first["seq"], "timeout_ms": 600})
    waited = time.monotonic() - began
    assert 0.55 <= waited < 10, waited  # the 0.6 s timeout, not the 25 s default
    assert got["seq"] == first["seq"] and not got["changed"]
    assert {k: got[k] for k in ("versions", "last_id")} == {
        k: first[k] for k in ("versions", "last_id")
    }


def test_every_watcher_is_woken(home, daemon):
    first = stamp(home)
    watches = [started(home, {"since": first["seq"]}, settle=0) for _ in range(3)]
    time.sleep(0.3)
    assert all(w.is_alive() for w in watches)
    written = archive(home, 2)
    for watch in watches:
        watch.join(15)
        assert watch.error is None and watch.result["seq"] > first["seq"], watch.error
        assert watch.result["versions"] == 1
        assert watch.answered_at - written < 5  # woken, not at the 25 s default timeout


def test_a_waiting_watch_does_not_hold_the_store_thread(home, daemon):
    first = stamp(home)
    watch = started(home, {"since": first["seq"], "timeout_ms": 60_000})
    # The store thread answers reads while the watch waits: answered before the watch is.
    client.call(home, "viewer_changes", {}, timeout=30)
    client.call(home, "search_page", {"pattern": "*"}, timeout=30)
    assert watch.is_alive()  # reads change nothing: still waiting
    archive(home, 3)
    watch.join(30)
    assert watch.result["versions"] == 1 and watch.result["changed"]  # the write's answer


def test_a_stale_since_from_another_daemon_life_is_answered_at_once(home, daemon):
    """Answered within half its timeout (not at it); that no wait at all is made for it is
    held in this process (test_a_stale_since_is_not_waited_for)."""
    first = stamp(home)
    params = {"since": first["seq"] + 1000, "timeout_ms": 60_000}
    got = client.call(home, "viewer_watch", params, timeout=30)
    assert got["changed"] and got["seq"] == first["seq"]


def test_sweep_progress_wakes_the_watch(home, daemon):
    with socket.socket() as sock:  # a port nobody listens on: each check fails fast
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}/gone"
    archive(home, 4, dead)
    seq = stamp(home)["seq"]
    watch = started(home, {"since": seq})
    client.call(home, "liveness_sweep", {})
    watch.join(15)
    assert watch.error is None and watch.result["seq"] > seq, watch.error
    seen = watch.result
    deadline = time.monotonic() + 20
    while seen["sweep"]["running"] or seen["checks"] < 1:  # follow it to the end, pushed
        assert time.monotonic() < deadline, seen
        seen = client.call(home, "viewer_watch", {"since": seen["seq"], "timeout_ms": 5000})
    assert seen["sweep"]["done"] == seen["sweep"]["total"] == 1
    assert seen["last_check_key"] and "127.0.0.1" in seen["last_check_key"]


@pytest.mark.parametrize(
    "params",
    [
        {"since": -1},
        {"since": "3"},
        {"since": True},
        {"since": 1.5},
        {"timeout_ms": -1},
        {"timeout_ms": 10**7},
        {"timeout_ms": "500"},
    ],
)
def test_bad_params_are_typed_errors(home, daemon, params):
    with pytest.raises(InvalidInput, match="since|timeout_ms"):
        client.call(home, "viewer_watch", params)


def test_stop_does_not_wait_for_an_outstanding_watch(home, daemon):
    """Timed in this process (``main.stop``: the shutdown request and the wait for the lock),
    not as a ``pagekeeper stop`` CLI process, whose Python start alone takes seconds under
    load. A stop that waited would take the watch's 60 s (or the session's 30 s wait)."""
    first = stamp(home)
    watch = started(home, {"since": first["seq"], "timeout_ms": 60_000})
    began = time.monotonic()
    assert main.stop(home)["stopped"]
    assert time.monotonic() - began < 10
    watch.join(15)
    assert not watch.is_alive()
