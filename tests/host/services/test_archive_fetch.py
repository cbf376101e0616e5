"""``archive_page`` without html: the daemon fetches the page, under the same rules as the CLI.

A non-2xx answer is refused (``invalid_input``) on both paths (one rule:
``host.services.fetch.Fetched.capture``), and URL credentials are used for the fetch but
never stored or echoed. Real daemon, real local HTTP server.
"""

from __future__ import annotations

import json

from websockets.sync.client import connect

from tests.host.daemon_fixtures import pk, token_of
from tests.host.services.test_fetch import Handler, serve

SEEN_AUTH: list[str | None] = []


class Recording(Handler):
    """Handler that remembers the Authorization header of each request."""

    def do_GET(self) -> None:
        SEEN_AUTH.append(self.headers.get("Authorization"))
        super().do_GET()


def ws_call(daemon, home, obj) -> dict:
    with connect(f"ws://127.0.0.1:{daemon['port']}/ws?token={token_of(home)}") as ws:
        ws.send(json.dumps(obj))
        return json.loads(ws.recv(timeout=30))


def archive(daemon, home, url: str) -> dict:
    return ws_call(daemon, home, {"id": 1, "type": "archive_page", "params": {"url": url}})


def test_daemon_refuses_a_non_2xx_page_like_the_cli(daemon, home):
    pages = {"/ok": (200, {"Content-Type": "text/html"}, b"<title>ok</title><p>fine text")}
    with serve(pages) as base:
        gone = archive(daemon, home, f"{base}/gone")  # 404 with an HTML body
        cli = pk(home, "archive", "add", f"{base}/gone", "--json", check=False)
        fine = archive(daemon, home, f"{base}/ok")
    assert gone["ok"] is False and gone["error"]["code"] == "invalid_input", gone
    assert "HTTP 404" in gone["error"]["message"]
    assert cli.returncode != 0 and json.loads(cli.stdout)["error"]["code"] == "invalid_input"
    assert fine["ok"] and fine["result"]["versions"] == 1, fine
    listed = ws_call(daemon, home, {"id": 2, "type": "versions", "params": {"url": f"{base}/gone"}})
    assert listed["result"]["versions"] == []  # nothing of the 404 was stored


def test_fetch_uses_credentials_but_never_stores_them(daemon, home):
    SEEN_AUTH.clear()
    with serve(base_handler=Recording) as base:
        secret_url = base.replace("http://", "http://alice:s3cret@") + "/latin"
        got = archive(daemon, home, secret_url)
    assert got["ok"], got
    assert SEEN_AUTH and SEEN_AUTH[-1] and SEEN_AUTH[-1].startswith("Basic ")  # used for the fetch
    assert "s3cret" not in json.dumps(got) and "alice" not in json.dumps(got)
    assert got["result"]["url"] == f"{base}/latin"
