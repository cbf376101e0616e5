"""The daemon's client: what it tells a user when no daemon runs."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine.errors import Unavailable
from host.daemon import client
from host.home import HOME_ENV, Home, default_home
from tests.host.daemon_fixtures import make_home, pk, stop_daemon


@pytest.fixture
def spawn_home(tmp_path):
    """A tmp home whose daemon, if a test starts one, is stopped afterwards."""
    path = make_home(tmp_path)
    yield path
    stop_daemon(path)


def test_no_daemon_names_a_start_command_that_runs_as_typed(tmp_path):
    """``make run`` installs ``pagekeeper`` in .venv/bin/, which is not on PATH: the message
    names the command by the path a user can type in any folder, and the home it was about
    (a bare ``serve`` would start the daemon of another archive)."""
    home = make_home(tmp_path)
    with pytest.raises(Unavailable) as raised:
        client.connect(home)
    program, *args = shlex.split(re.search(r"`([^`]+)`", str(raised.value)).group(1))
    assert args == ["--home", str(home), "serve", "--detach"] and Path(program).is_absolute()
    assert os.access(program, os.X_OK)


def test_the_default_home_is_not_named_and_any_other_is(tmp_path, monkeypatch):
    """Only the platform's folder goes unnamed: a home from ``$PAGEKEEPER_HOME`` (the browser's
    helper has it from its launcher) is named, since the user's shell may not set it."""
    assert "--home" not in client.own_command(default_home())
    assert "--home" not in client.own_command()
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "mine"))
    assert client.own_command(tmp_path / "mine").endswith(f" --home {tmp_path / 'mine'}")
    other = tmp_path / "an other"
    assert client.own_command(other).endswith(f" --home {shlex.quote(str(other))}")


def test_a_start_killed_half_way_does_not_fail_the_next_one(spawn_home):
    """A daemon.json left by a start that was killed before it was ready (its pid gone) is
    not the daemon ``serve --detach`` spawns: that one starts, and the command says so."""
    home = spawn_home
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (home / "daemon.json").write_text(json.dumps({"pid": dead.pid, "port": 1, "home": str(home)}))
    started = json.loads(pk(home, "serve", "--detach", "--json").stdout)
    assert started["running"] and started["pid"] != dead.pid


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


@pytest.fixture
def held_lock(tmp_path):
    """The home's daemon lock held by this process, as a daemon that started holds it."""
    home = make_home(tmp_path)
    lock = Home(home).lock()
    assert lock.acquire()
    yield home
    lock.release()


@pytest.fixture
def other_process():
    """A live process that is not this one (the daemon being stopped)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield proc
    proc.kill()
    proc.wait()


def test_a_stop_ends_when_a_daemon_started_since_holds_the_lock(held_lock, other_process):
    # The daemon asked to stop (other_process) is alive, but daemon.json and the lock are
    # another's (this process: a start asked for during the stop): the stop is done.
    state = {"pid": os.getpid(), "home": str(held_lock), "ready": False, "phase": "warming"}
    client.state_path(held_lock).write_text(json.dumps(state))
    client.wait_stopped(held_lock, other_process.pid, stall=0.5)


def test_a_stop_ends_when_its_daemon_is_gone_whoever_holds_the_lock(held_lock, other_process):
    other_process.kill()
    other_process.wait()
    client.wait_stopped(held_lock, other_process.pid, stall=0.5)


def test_a_daemon_that_holds_the_lock_and_says_nothing_has_not_begun_to_stop(
    held_lock, other_process
):
    with pytest.raises(Unavailable, match=f"daemon pid {other_process.pid} did not begin to stop"):
        client.wait_stopped(held_lock, other_process.pid, stall=0.5)


def test_a_stop_is_waited_for_while_its_own_daemon_holds_the_lock(held_lock, other_process):
    # daemon.json is the stopping daemon's own (its pid): not a new daemon; no progress → typed.
    state = {"pid": other_process.pid, "stopping": True, "phase": "closing the archive"}
    client.state_path(held_lock).write_text(json.dumps({**state, "progress": 3}))
    with pytest.raises(Unavailable, match="stopped making progress while stopping"):
        client.wait_stopped(held_lock, other_process.pid, stall=0.5)


def test_a_stop_that_stalls_names_its_phase_and_the_logs(held_lock, other_process):
    state = {"pid": other_process.pid, "stopping": True, "phase": "closing the archive"}
    client.state_path(held_lock).write_text(json.dumps(state))
    with pytest.raises(Unavailable) as raised:
        client.wait_stopped(held_lock, other_process.pid, stall=0.3)
    assert "(closing the archive)" in str(raised.value)
    assert f"see {Home(held_lock).logs}" in str(raised.value)


def test_a_daemon_that_never_begins_to_stop_names_the_logs(held_lock, other_process):
    with pytest.raises(Unavailable) as raised:
        client.wait_stopped(held_lock, other_process.pid, stall=0.3)
    assert str(raised.value).endswith(f"see {Home(held_lock).logs}")


class PublishingClock:
    """``client.time`` for a wait whose clock moves only as it sleeps (no thread, no machine
    speed: a loaded machine cannot make a step late): ``each(now)`` runs as the clock passes
    every ``step`` seconds, as another process publishing its progress would."""

    def __init__(self, step: float, each) -> None:
        self.now, self.step, self.each, self.next = 0.0, step, each, 0.0
        self.time = time.time

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        while self.now >= self.next:
            self.each(self.next)
            self.next += self.step


def test_a_stop_is_waited_for_past_the_stall_limit_while_it_makes_progress(
    held_lock, other_process, monkeypatch
):
    """The limit is on a stall, not on the whole stop: a stopping daemon that publishes new
    progress within every limit is waited for until it is gone, however long that takes."""
    stall, step, steps = 0.4, 0.15, 8  # a step every 0.15 s: 1.2 s in all, three limits
    published: list[float] = []

    def stopping(now: float) -> None:
        if len(published) < steps:
            state = {"pid": other_process.pid, "stopping": True, "phase": "flush"}
            client.state_path(held_lock).write_text(
                json.dumps({**state, "progress": len(published)})
            )
            published.append(now)
        elif other_process.poll() is None:
            other_process.kill()
            other_process.wait()  # not a zombie: gone

    clock = PublishingClock(step, stopping)
    monkeypatch.setattr(client, "time", clock)
    client.wait_stopped(held_lock, other_process.pid, stall=stall)
    assert len(published) == steps and clock.now >= steps * step > 2 * stall


def test_a_stop_without_a_limit_given_uses_the_default_stall_limit(
    held_lock, other_process, monkeypatch
):
    monkeypatch.setattr(client, "STALL_S", 0.3)
    with pytest.raises(Unavailable, match=r"did not begin to stop in 0s"):
        client.wait_stopped(held_lock, other_process.pid)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_start_is_failed_only_by_its_own_never_ready_daemon_gone(other_process):
    """``wait_ready``'s "died while starting": a daemon.json that never became ready, of a pid
    that is gone, and that is the daemon we spawned (or, when we spawned none, whichever
    daemon was starting). A leftover of an earlier start killed half-way, beside the daemon we
    spawned, is not our start failing."""
    dead, ours = _dead_pid(), other_process
    assert client._died_starting({"pid": dead}, None)
    assert not client._died_starting({"pid": dead}, ours)  # a leftover; ours replaces it
    assert not client._died_starting(None, None) and not client._died_starting({}, None)
    assert not client._died_starting({"pid": dead, "ready": True}, None)  # it was ready
    assert not client._died_starting({"pid": ours.pid}, None)  # alive: still starting
    ours.kill()
    ours.wait()
    assert client._died_starting({"pid": ours.pid}, ours)  # ours, gone before it was ready


def test_only_progress_published_while_stopping_holds_off_the_stall_limit(
    held_lock, other_process, monkeypatch
):
    """A daemon asked to stop that keeps publishing a start's progress (its phase moves, but
    it never says ``stopping``) has not begun to stop: the limit runs from the request."""
    stall, phases = 0.3, 120  # a new phase every 0.05 s for 6 s, twenty limits

    def still_starting(now: float) -> None:
        step = round(now / 0.05)
        if step < phases:  # new phases, never "stopping"
            state = {"pid": other_process.pid, "ready": False, "phase": f"warming {step}"}
            client.state_path(held_lock).write_text(json.dumps(state))

    clock = PublishingClock(0.05, still_starting)
    monkeypatch.setattr(client, "time", clock)
    with pytest.raises(Unavailable, match="did not begin to stop"):
        client.wait_stopped(held_lock, other_process.pid, stall=stall)
    assert clock.now < stall + 0.1  # at the limit from the request, not held off by the phases


def test_a_stop_that_has_ended_is_seen_within_one_short_poll(tmp_path, other_process, monkeypatch):
    """``pagekeeper stop`` returns as soon as the lock is free, give or take one short poll
    (at most 50 ms between two looks at the lock), not a second later: counted sleeps, no
    clock."""
    home = make_home(tmp_path)
    state = {"pid": other_process.pid, "stopping": True, "phase": "flush", "progress": 1}
    client.state_path(home).write_text(json.dumps(state))
    looks = iter([True, True, True, False])  # the lock is freed at the fourth look
    monkeypatch.setattr(client, "lock_held", lambda _home: next(looks))
    naps: list[float] = []
    monkeypatch.setattr(client.time, "sleep", naps.append)
    client.wait_stopped(home, other_process.pid, stall=60)
    assert len(naps) == 3
    assert all(0 < nap <= 0.05 for nap in naps), naps


# -- one look at a home's daemon (glance) and what running() decides on it, in process ------


@pytest.fixture
def held_home(tmp_path):
    """A home whose daemon lock this process holds, as a daemon that has just started does,
    before it writes daemon.json."""
    home = make_home(tmp_path)
    lock = Home(home).lock()
    assert lock.acquire()
    yield home
    lock.release()


def _write_state(home: Path, **state) -> None:
    client.state_path(home).write_text(json.dumps({"pid": os.getpid(), **state}))


def test_a_glance_at_a_home_with_no_daemon_sees_no_lock_no_state_and_no_age(tmp_path):
    home = make_home(tmp_path)
    _write_state(home, port=1, ready=True)  # a daemon.json left by a daemon that is gone
    seen = client.glance(home)
    assert seen == client.Glance(False, None, 0.0)
    assert (seen.serving, seen.starting) == (None, False)


def test_a_lock_held_before_daemon_json_is_written_is_a_start_with_no_note_yet(held_home):
    seen = client.glance(held_home)
    assert seen == client.Glance(True, None, 0.0)
    assert seen.starting and seen.serving is None


def test_a_glance_ages_daemon_json_from_its_last_write(held_home):
    _write_state(held_home, ready=False, phase="building the dictionary index")
    assert 0.0 <= client.glance(held_home).age < 1.0
    old = time.time() - 100
    os.utime(client.state_path(held_home), (old, old))
    assert 99.0 < client.glance(held_home).age < 102.0


def test_a_daemon_serves_when_it_holds_the_lock_is_ready_and_alive(held_home):
    ready = {"pid": os.getpid(), "port": 1, "ready": True}
    assert client.Glance(True, ready, 0.0).serving == ready
    assert client.Glance(False, ready, 0.0).serving is None  # its lock is free: it is gone
    assert client.Glance(True, {**ready, "ready": False}, 0.0).serving is None
    assert client.Glance(True, {**ready, "pid": _dead_pid()}, 0.0).serving is None
    assert not client.Glance(True, ready, 0.0).starting  # serving is not starting


def test_a_start_is_starting_up_to_the_limit_a_client_waits_and_not_after(held_home):
    warming = {"pid": os.getpid(), "ready": False, "phase": "building the dictionary index"}
    assert client.Glance(True, warming, client.STALL_S).starting  # the limit itself: waited
    assert not client.Glance(True, warming, client.STALL_S + 0.5).starting
    assert client.Glance(True, {"pid": os.getpid()}, client.SPAWN_S).starting  # no phase yet
    assert not client.Glance(True, {"pid": os.getpid()}, client.SPAWN_S + 0.5).starting
    assert not client.Glance(True, {**warming, "pid": _dead_pid()}, 0.0).starting


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(done.stdout)


def test_running_waits_for_a_starting_daemon_only_when_asked_to(held_home):
    """A command must not take a starting daemon for none (it would open the store beside
    it): ``running`` waits until it is ready; ``wait=False`` answers at once."""
    _write_state(held_home, ready=False, phase="building the dictionary index")
    assert client.running(held_home, wait=False) is None
    ready = threading.Timer(0.3, _write_state, (held_home,), {"port": 1, "ready": True})
    ready.start()
    try:
        state = client.running(held_home)
    finally:
        ready.join()
    assert state == {"pid": os.getpid(), "port": 1, "ready": True}
    assert client.running(held_home, wait=False) == state  # ready: no wait either way


def _exited(code: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", f"raise SystemExit({code})"])
    proc.wait()
    return proc


def test_a_start_that_stalls_fails_after_the_stall_limit_the_caller_gives(held_home):
    _write_state(held_home, ready=False, phase="building the dictionary index")
    began = time.monotonic()
    with pytest.raises(Unavailable, match=r"stopped making progress while starting \(building"):
        client.wait_ready(held_home, None, stall=0.3)
    assert time.monotonic() - began < 20  # the caller's limit, not STALL_S (60 s)


def test_a_spawned_process_that_exits_0_has_handed_over_and_one_that_fails_is_named(held_home):
    """``serve --detach``'s first process exits 0 once the daemon runs on its own: not a
    failure. Any other exit is, with the typed error the daemon printed last."""
    ready = threading.Timer(0.3, _write_state, (held_home,), {"port": 1, "ready": True})
    ready.start()
    try:
        assert client.wait_ready(held_home, _exited(0))["ready"]
    finally:
        ready.join()
    _write_state(held_home, ready=False, phase="building the dictionary index")
    out = Home(held_home).daemon_output
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(client.START_MARK + b"pagekeeper: invalid_input: bad port\n")
    with pytest.raises(Unavailable, match=r"daemon exited with 1 \(invalid_input: bad port\)"):
        client.wait_ready(held_home, _exited(1))


def test_with_no_daemon_and_nothing_spawned_there_is_nothing_to_wait_for(tmp_path):
    home = make_home(tmp_path)
    with pytest.raises(Unavailable) as raised:
        client.wait_ready(home, None, stall=60)
    assert str(raised.value) == f"no daemon is starting for {home}; see {Home(home).logs}"


def test_a_daemon_json_never_ready_of_a_pid_gone_is_a_start_that_died(held_home):
    dead = _dead_pid()
    _write_state(held_home, pid=dead, ready=False, phase="building the dictionary index")
    with pytest.raises(Unavailable) as raised:
        client.wait_ready(held_home, None, stall=60)
    logs = Home(held_home).logs
    assert str(raised.value) == f"daemon pid {dead} died while starting; see {logs}"


def test_a_leftover_daemon_json_of_another_pid_does_not_fail_the_start_waited_for(held_home):
    """We spawned ``proc``; a daemon.json of another, dead pid is an earlier start's leftover,
    which ours replaces: waited past, not taken for our start's death."""
    _write_state(held_home, pid=_dead_pid(), ready=False, phase="old")
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    ready = threading.Timer(0.3, _write_state, (held_home,), {"port": 1, "ready": True})
    ready.start()
    try:
        assert client.wait_ready(held_home, proc, stall=60)["ready"]
    finally:
        ready.join()
        proc.kill()
        proc.wait()


def test_before_its_first_note_a_start_has_the_spawn_limit_not_the_stall_limit(held_home):
    ready = threading.Timer(0.8, _write_state, (held_home,), {"port": 1, "ready": True})
    ready.start()
    try:  # no daemon.json for 0.8 s, longer than the stall limit given
        assert client.wait_ready(held_home, None, stall=0.2)["ready"]
    finally:
        ready.join()


@pytest.mark.parametrize(
    "state, said",
    [
        ({"ready": False}, "while starting: nothing for 0s"),
        ({"ready": False, "phase": "indexing"}, "while starting (indexing): nothing for 0s"),
        ({"ready": False, "stopping": True, "phase": "closing"}, "while stopping (closing)"),
    ],
)
def test_a_stall_names_what_the_daemon_was_doing(held_home, state, said):
    _write_state(held_home, **state)
    heard: list[dict] = []
    with pytest.raises(Unavailable) as raised:
        client.wait_ready(held_home, None, stall=0.2, notify=heard.append)
    assert f"the daemon stopped making progress {said}" in str(raised.value)
    assert heard == [{"pid": os.getpid(), **state}]  # told of the state it saw, once


def test_an_exit_with_no_last_words_is_named_by_its_code_alone(held_home):
    _write_state(held_home, ready=False, phase="indexing")
    with pytest.raises(Unavailable) as raised:
        client.wait_ready(held_home, _exited(3))
    assert str(raised.value) == f"daemon exited with 3; see {Home(held_home).logs}"


def test_a_start_is_polled_in_short_naps(held_home, monkeypatch):
    """Counted sleeps, no clock: ready at the fourth look, three naps of at most 50 ms."""
    states = iter([None, {"pid": os.getpid()}, {"pid": os.getpid(), "phase": "x"}])
    ready = {"pid": os.getpid(), "port": 1, "ready": True}
    monkeypatch.setattr(client, "read_state", lambda _home: next(states, ready))
    naps: list[float] = []
    monkeypatch.setattr(client.time, "sleep", naps.append)
    assert client.wait_ready(held_home, None, stall=60) == ready
    assert len(naps) == 3 and all(0 < nap <= 0.05 for nap in naps), naps
