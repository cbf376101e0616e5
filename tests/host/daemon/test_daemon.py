"""The daemon over real sockets: serve/stop/status contract, one per home, /ws protocol, viewer files."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from websockets.sync.client import connect

from host.daemon.app import DEFAULT_PORT
from host.daemon.http_routes import SEALED_CSP
from tests.host.daemon_fixtures import CLI, ROOT, SHARED_CACHE, pk, stop_daemon, token_of

FIXTURE = ROOT / "tests" / "fixtures" / "pages" / "2cf4b812a7cd7f64.html.gz"


def ws_call(state, token, obj, **headers):
    with connect(
        f"ws://127.0.0.1:{state['port']}/ws",
        additional_headers={"Authorization": f"Bearer {token}", **headers},
    ) as ws:
        ws.send(json.dumps(obj))
        return json.loads(ws.recv(timeout=30))


def test_status_contract_and_stop(home):
    assert json.loads(pk(home, "status", "--json").stdout) == {
        "running": False,
        "pid": None,
        "port": None,
        "url": None,
        "home": str(home),
    }
    started = json.loads(pk(home, "serve", "--detach", "--json").stdout)
    status = json.loads(pk(home, "status", "--json").stdout)
    assert status == {  # exactly these fields, nothing more
        "running": True,
        "pid": started["pid"],
        "port": started["port"],
        "url": f"http://127.0.0.1:{started['port']}",
        "home": str(home),
    }
    os.kill(started["pid"], 0)  # a live process
    stopped = json.loads(pk(home, "stop", "--json").stdout)
    assert stopped["stopped"] and not stopped["running"]
    assert not json.loads(pk(home, "status", "--json").stdout)["running"]
    assert not (home / "daemon.json").exists()


def test_second_start_finds_the_first_and_exits_zero(daemon, home):
    again = pk(home, "serve", "--json")  # foreground start: must not serve a second time
    assert again.returncode == 0
    found = json.loads(again.stdout)
    assert found["already_running"] and found["pid"] == daemon["pid"]
    assert found["url"] == daemon["url"]
    detached = json.loads(pk(home, "serve", "--detach", "--json").stdout)
    assert detached["pid"] == daemon["pid"]


def test_home_from_environment(daemon, home):
    env = {**os.environ, "PAGEKEEPER_HOME": str(home)}

    def run(*args: str) -> dict:
        done = subprocess.run(
            [*CLI, *args, "--json"], capture_output=True, text=True, env=env, cwd=ROOT
        )
        return json.loads(done.stdout)

    assert run("status")["pid"] == daemon["pid"]
    again = run("serve", "--detach")
    assert again["pid"] == daemon["pid"] and again["already_running"]
    assert run("stop")["stopped"] and not run("status")["running"]
    assert not (home / "daemon.json").exists()


@pytest.mark.skipif(os.name == "nt", reason="process groups and killpg are POSIX")
def test_daemon_started_by_a_native_host_outlives_it(home):
    """The browser may kill the native host and its process group; the daemon runs in its own."""

    native = subprocess.Popen(
        [sys.executable, "-m", "host.native.relay", "--home", str(home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        start_new_session=True,
    )
    body = json.dumps({"id": 1, "type": "ping"}).encode()
    native.stdin.write(struct.pack("=I", len(body)) + body)
    native.stdin.flush()
    (length,) = struct.unpack("=I", native.stdout.read(4))
    assert json.loads(native.stdout.read(length))["ok"]
    daemon_pid = json.loads((home / "daemon.json").read_text())["pid"]
    assert os.getpgid(daemon_pid) != native.pid
    os.killpg(native.pid, signal.SIGKILL)
    native.wait(timeout=10)
    time.sleep(0.2)
    os.kill(daemon_pid, 0)  # still alive
    assert json.loads(pk(home, "status", "--json").stdout)["pid"] == daemon_pid


def test_killed_daemon_leaves_no_stale_lock(daemon, home):
    os.kill(daemon["pid"], signal.SIGKILL)
    deadline = time.monotonic() + 10
    while json.loads(pk(home, "status", "--json").stdout)["running"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    fresh = json.loads(pk(home, "serve", "--detach", "--json").stdout)
    assert fresh["running"] and fresh["pid"] != daemon["pid"]


def listening_sockets(pid: int, port: int) -> list[tuple[str, str]]:
    """(family, local address) of each socket of process ``pid`` listening on ``port``, read
    from /proc/net/tcp and tcp6 (state 0A is LISTEN), matched by inode to the process's fds."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            link = os.readlink(fd)
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    found = []
    for family in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{family}").read_text().splitlines()[1:]:
            fields = line.split()
            address, port_hex = fields[1].rsplit(":", 1)
            if fields[3] == "0A" and int(port_hex, 16) == port and fields[9] in inodes:
                raw = bytes.fromhex(address)
                # /proc prints each 32-bit word in host byte order (little-endian here)
                words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
                kind = socket.AF_INET if family == "tcp" else socket.AF_INET6
                found.append((family, socket.inet_ntop(kind, words)))
    return found


def outward_addresses() -> list[str]:
    """This machine's addresses other than loopback: IPv4 from /proc/net/fib_trie (its LOCAL
    entries), IPv6 from /proc/net/if_inet6 (link-local ones left out: they need a scope)."""
    found = set()
    lines = Path("/proc/net/fib_trie").read_text().splitlines()
    for before, line in zip(lines, lines[1:], strict=False):
        if line.strip() == "/32 host LOCAL":
            found.add(before.split()[-1])
    for line in Path("/proc/net/if_inet6").read_text().splitlines():
        raw, scope = line.split()[0], line.split()[3]
        if scope == "00":  # global scope
            found.add(socket.inet_ntop(socket.AF_INET6, bytes.fromhex(raw)))
    return sorted(a for a in found if not a.startswith("127.") and a != "::1")


def test_listens_on_loopback_only(daemon):
    """Checked two ways, and failing when it cannot check: the daemon's own listening sockets
    (the kernel's table) are all 127.0.0.1, and no other address of this machine answers."""
    if not Path("/proc/net/tcp").exists():
        pytest.fail("no /proc/net/tcp: this check needs Linux")
    with socket.create_connection(("127.0.0.1", daemon["port"]), timeout=5):
        pass
    bound = listening_sockets(daemon["pid"], daemon["port"])
    assert bound, "the daemon's listening socket was not found in /proc/net"
    assert bound == [("tcp", "127.0.0.1")], bound
    outward = outward_addresses()
    for address in outward:
        try:
            socket.create_connection((address, daemon["port"]), timeout=1).close()
        except OSError:
            continue
        raise AssertionError(f"daemon reachable on {address}")


def test_the_socket_table_reader_sees_a_socket_on_every_address():
    """The reader above must see what it is there to catch: a socket bound to all addresses."""
    with socket.socket() as everywhere:
        everywhere.bind(("0.0.0.0", 0))
        everywhere.listen()
        port = everywhere.getsockname()[1]
        assert listening_sockets(os.getpid(), port) == [("tcp", "0.0.0.0")]
        for address in outward_addresses()[:3]:
            if ":" not in address:
                socket.create_connection((address, port), timeout=2).close()


def test_ping_and_token_over_ws(daemon, home):
    token = token_of(home)
    assert ws_call(daemon, token, {"id": 1, "type": "ping"}) == {
        "id": 1,
        "ok": True,
        "result": {"version": "0.1.0", "protocol": 1},
    }
    got = ws_call(daemon, token, {"id": "t", "type": "get_token"})
    assert got["result"]["token"] == token and got["result"]["url"] == daemon["url"]
    with connect(f"ws://127.0.0.1:{daemon['port']}/ws?token={token}") as ws:
        ws.send(json.dumps({"id": 2, "type": "ping"}))
        assert json.loads(ws.recv(timeout=10))["ok"]


def test_errors_are_typed_and_connection_survives(daemon, home):
    with connect(
        f"ws://127.0.0.1:{daemon['port']}/ws",
        additional_headers={"Authorization": f"Bearer {token_of(home)}"},
    ) as ws:
        for bad, code in [
            ("not json", "bad_request"),
            (json.dumps([1]), "bad_request"),
            (json.dumps({"id": 1}), "bad_request"),
            (json.dumps({"id": 2, "type": "nope"}), "unknown_type"),
            (json.dumps({"id": 3, "type": "versions", "params": {}}), "invalid_input"),
            (
                json.dumps({"id": 4, "type": "similar", "params": {"id": "99990101000000000000"}}),
                "not_found",
            ),
        ]:
            ws.send(bad)
            reply = json.loads(ws.recv(timeout=10))
            assert reply["ok"] is False and reply["error"]["code"] == code, reply
        ws.send(json.dumps({"id": 5, "type": "ping"}))
        assert json.loads(ws.recv(timeout=10))["ok"]


def test_archive_page_versions_get_and_serve_copy(daemon, home):
    token = token_of(home)
    html = gzip.decompress(FIXTURE.read_bytes()).decode("utf-8", "replace")
    url = "https://example.org/articles/one?x=1"
    first = ws_call(
        daemon, token, {"id": 1, "type": "archive_page", "params": {"url": url, "html": html}}
    )
    assert first["ok"], first
    reg = first["result"]
    assert reg["versions"] == 1 and reg["version_url"].startswith(daemon["url"] + "/v/")
    second = ws_call(
        daemon,
        token,
        {"id": 2, "type": "archive_page", "params": {"url": url, "html": html + "<p>more</p>"}},
    )
    assert second["result"]["versions"] == 2
    listed = ws_call(daemon, token, {"id": 3, "type": "versions", "params": {"url": url}})["result"]
    assert [v["id"] for v in listed["versions"]] == [second["result"]["id"], reg["id"]]
    got = ws_call(
        daemon, token, {"id": 4, "type": "get", "params": {"id": reg["id"], "original": True}}
    )
    assert got["result"]["html"] == html

    req = urllib.request.Request(reg["version_url"], headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert resp.headers["Content-Security-Policy"] == SEALED_CSP
        assert b"registered on" in resp.read()


def test_viewer_static_files(daemon):

    with urllib.request.urlopen(f"{daemon['url']}/viewer/", timeout=10) as resp:
        assert resp.status == 200 and b"<html" in resp.read().lower()


def test_cli_client_call_honours_home(daemon, home):
    code = "from host.daemon import client; import sys; print(client.call(sys.argv[1], 'stats')['daemon']['pid'])"
    out = subprocess.run(
        [sys.executable, "-c", code, str(home)], capture_output=True, text=True, cwd=ROOT
    )
    assert int(out.stdout) == daemon["pid"]


def test_token_file_is_private(daemon, home):
    assert (Path(home) / "token").stat().st_mode & 0o777 == 0o600


def test_open_gives_the_viewer_with_the_token(home):

    result = json.loads(pk(home, "open", "--no-browser", "--json").stdout)  # starts the daemon
    state = json.loads(pk(home, "status", "--json").stdout)
    assert state["running"]
    assert result["url"] == f"{state['url']}/viewer/?token={token_of(home)}"
    with urllib.request.urlopen(result["url"], timeout=10) as resp:
        assert resp.status == 200 and "pk_token=" in resp.headers["Set-Cookie"]


def test_a_taken_default_port_gives_way_and_a_chosen_one_does_not(tmp_path):
    """Two users on one machine: the second daemon finds the default port taken, serves on a
    free one and keeps it (config.json); a port the user chose is never silently changed."""

    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"cache_dir": str(SHARED_CACHE)}))  # no port
    blocker = socket.socket()
    try:
        blocker.bind(("127.0.0.1", DEFAULT_PORT))
        blocker.listen()
    except OSError:  # another daemon already holds it: taken just the same
        blocker.close()
    try:
        refused = pk(home, "serve", "--detach", "--port", str(DEFAULT_PORT), "--json", check=False)
        assert refused.returncode != 0
        assert json.loads(refused.stdout)["error"]["code"] == "unavailable"
        state = json.loads(pk(home, "serve", "--detach", "--json").stdout)
        assert state["running"] and state["port"] not in (DEFAULT_PORT, 0)
        config = json.loads((home / "config.json").read_text())
        assert config == {"cache_dir": str(SHARED_CACHE), "port": state["port"]}
    finally:
        stop_daemon(home)
        blocker.close()
