"""Inputs that used to raise untyped errors (internal, a traceback or HTTP 500) get typed ones."""

from __future__ import annotations

import json
import socket
import subprocess

import pytest
from websockets.sync.client import connect

from tests.host.daemon.test_security import raw_get
from tests.host.daemon_fixtures import make_home, pk, token_of


def call(daemon, home, type_: str, params: dict) -> dict:
    with connect(f"ws://127.0.0.1:{daemon['port']}/ws?token={token_of(home)}") as ws:
        ws.send(json.dumps({"id": 1, "type": type_, "params": params}))
        return json.loads(ws.recv(timeout=60))


def test_search_star_on_an_empty_archive_is_an_empty_list(daemon, home, tmp_path):
    reply = call(daemon, home, "search", {"pattern": "*"})
    assert reply["ok"] and reply["result"]["results"] == [], reply
    alone = make_home(tmp_path / "alone")
    assert json.loads(pk(alone, "archive", "search", "*", "--json").stdout) == []


@pytest.mark.parametrize(
    "params",
    [
        {"html": "<title>a\ud83d</title><p>text</p>"},
        {"html": "<p>text</p>", "title": "t\udc00"},
        {"html": '<a href="/x\ud83d">link</a>'},
    ],
)
def test_a_lone_surrogate_in_html_title_or_link_is_kept_as_u_fffd(daemon, home, params):
    reply = call(daemon, home, "archive_page", {"url": "https://e.org/s", **params})
    assert reply["ok"], reply
    got = call(daemon, home, "get", {"id": reply["result"]["id"], "original": True})
    listed = call(daemon, home, "versions", {"url": "https://e.org/s"})
    assert got["ok"] and listed["ok"], (got, listed)
    assert "\ufffd" in json.dumps([got["result"], listed["result"]], ensure_ascii=False)


@pytest.mark.parametrize("value", [[1], "0.5", float("nan"), 2, True])
def test_only_if_different_must_be_a_number_in_0_1(daemon, home, value):
    params = {"url": "https://e.org/o", "html": "<p>x</p>", "only_if_different": value}
    reply = call(daemon, home, "archive_page", params)
    assert reply["error"]["code"] == "invalid_input", reply


def test_nul_in_a_viewer_path_is_404_not_500(daemon):
    assert raw_get(daemon["port"], "/viewer/%00", {})[0] == 404
    assert raw_get(daemon["port"], "/viewer/a%00b.js", {})[0] == 404


def test_a_duplicated_host_header_is_400_not_500(daemon):
    port = daemon["port"]
    head = f"GET /viewer/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: 127.0.0.1:{port}\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall((head + "Connection: close\r\n\r\n").encode())
        status = int(sock.recv(4096).split(b" ", 2)[1])
    assert status == 400


@pytest.fixture
def readonly_home(tmp_path):
    """A home with an archive in it, seen through a read-only bind mount (chmod does not
    stop root)."""
    home = make_home(tmp_path / "rw")
    page = tmp_path / "page.html"
    page.write_text("<p>kept</p>")
    pk(home, "archive", "add", "https://e.org/kept", "--html", str(page))
    view = tmp_path / "ro"
    view.mkdir()
    mounted = subprocess.run(["mount", "--bind", str(home), str(view)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot bind-mount here (needs root): {mounted.stderr.decode().strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(view)], check=True)
        yield view, page
    finally:
        subprocess.run(["umount", "-l", str(view)], check=False)


def test_add_and_serve_on_a_read_only_home_are_typed(readonly_home):
    home, page = readonly_home
    for argv in (
        ("archive", "add", "https://e.org/new", "--html", str(page), "--json"),
        ("serve", "--json"),
    ):
        done = pk(home, *argv, check=False, timeout=60)
        assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr
        assert json.loads(done.stdout)["error"]["code"] == "storage", done.stdout
    # Reading still works.
    assert json.loads(pk(home, "archive", "versions", "https://e.org/kept", "--json").stdout)


@pytest.mark.parametrize("size", [16, 5 << 20])  # decoded on the event loop / in the worker
def test_a_text_frame_not_utf8_is_bad_request_and_the_connection_stays(daemon, home, size):
    with connect(f"ws://127.0.0.1:{daemon['port']}/ws?token={token_of(home)}") as ws:
        ws.send(b'{"id": 1, "x": "\xff' + b"a" * size + b'"}', text=True)
        reply = json.loads(ws.recv(timeout=60))
        assert not reply["ok"] and reply["error"]["code"] == "bad_request", reply
        assert "utf-8" in reply["error"]["message"], reply
        ws.send(json.dumps({"id": 2, "type": "ping", "params": {}}))
        assert json.loads(ws.recv(timeout=60))["ok"]
