"""Only the gc links the rewriter produced are signed, and a copy never makes the daemon
fetch a private or loopback address: a real daemon, and a second local server that
records every request it gets."""

from __future__ import annotations

import contextlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from urllib.parse import quote

import pytest

from engine.errors import FetchError
from host.daemon.http_routes import sign_links
from host.daemon.security import sign, sign_path
from host.services.fetch import FetchOptions, fetch
from tests.host.daemon.test_security import raw_get
from tests.host.daemon_fixtures import pk, token_of


@pytest.fixture
def recorder():
    """A server on 127.0.0.1 that answers 200 and records each path it is asked for."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:
            seen.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "2")
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(b"ok")

        do_HEAD = do_GET

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    httpd.shutdown()


def archive(home, tmp_path, url: str, html: str) -> str:
    page = tmp_path / "page.html"
    page.write_text(html)
    return json.loads(pk(home, "archive", "add", url, "--html", str(page), "--json").stdout)["id"]


def copy_links(daemon, home, reg_id: str) -> list[str]:
    """Every gc link in the copy as the daemon serves it (opened by its signed address)."""
    path = f"/v/{reg_id}/x?sig={sign_path(token_of(home), f'/v/{reg_id}/')}"
    status, _, body = raw_get(daemon["port"], path, {})
    assert status == 200
    return [
        link.replace("&amp;", "&") for link in re.findall(r"/gc\?url=[^\"'\s<>]*", body.decode())
    ]


def follow(daemon, link: str) -> int:
    return raw_get(daemon["port"], link, {})[0]


def test_forged_gc_links_are_not_signed_and_fetch_nothing(daemon, home, tmp_path, recorder):
    base, seen = recorder
    forged = f"/gc?url={quote(base + '/forged', safe='')}"
    html = (
        "<title>A public page</title>"
        f"<p>Text that looks like a link: {forged}</p>"
        f'<img alt="{forged}&amp;id=20260101000000000000" src="/logo.png">'
        f'<iframe src="{base}/frame"></iframe>'  # loads with no click: never fetched
        '<a href="https://public.example/next">next</a>'
    )
    reg_id = archive(home, tmp_path, "https://public.example/page", html)
    links = copy_links(daemon, home, reg_id)
    unsigned = [link for link in links if "sig=" not in link]
    signed = [link for link in links if "sig=" in link]
    assert len(unsigned) == 2 and all("forged" in link for link in unsigned), links
    assert len(signed) == 2 and not [link for link in signed if "forged" in link], links
    for link in unsigned:
        assert follow(daemon, link) == 403
    for link in signed:
        assert follow(daemon, link) in (302, 404)  # the stored copy, or "not archived"
    assert seen == []  # the local server never heard from the daemon


def test_a_lan_page_own_links_are_still_checked_live(daemon, home, tmp_path, recorder):
    base, seen = recorder
    reg_id = archive(home, tmp_path, base + "/home", f'<a href="{base}/next">next</a>')
    (link,) = copy_links(daemon, home, reg_id)
    assert "sig=" in link
    assert follow(daemon, link) == 302
    assert "/next" in seen  # the user archived a page of that host: its links are probed


def test_a_lan_page_seen_again_probes_its_links_as_its_version_does(
    daemon, home, tmp_path, recorder
):
    base, seen = recorder
    html = f'<a href="{base}/next">next</a>'
    first = archive(home, tmp_path, base + "/home", html)
    again = archive(home, tmp_path, base + "/home", html)  # unchanged: a revisit
    assert again != first
    (link,) = copy_links(daemon, home, again)
    assert f"id={again}" in link and "sig=" in link
    assert follow(daemon, link) == 302
    assert "/next" in seen  # judged by the revisit's page, a LAN one, as its version is


def test_the_user_may_ask_for_a_loopback_gc_with_the_token(daemon, home, recorder):
    base, seen = recorder
    link = f"/gc?url={quote(base + '/asked', safe='')}"
    status, headers, _ = raw_get(
        daemon["port"], link, {"Authorization": f"Bearer {token_of(home)}"}
    )
    assert status == 302 and headers["location"] == [base + "/asked"]
    assert seen == ["/asked"]


def test_sign_links_signs_only_this_page_links_to_its_recorded_targets():

    app = SimpleNamespace(token="t" * 43)
    target = "https://e.org/a"
    html = "".join(
        f'<a href="/gc?url={quote(url, safe="")}&amp;id={page}">x</a>'
        for url, page in ((target, "P1"), ("http://127.0.0.1:9/", "P1"), (target, "P2"))
    )
    out = sign_links(app, html, "P1", {target})
    assert out.count("sig=") == 1
    assert f"&amp;sig={sign(app.token, 'gc', target, 'P1')}" in out


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]"])
def test_a_public_only_fetch_refuses_loopback(recorder, host):

    base, seen = recorder
    url = base.replace("127.0.0.1", host) + "/x"
    with pytest.raises(FetchError, match="private or loopback"):
        fetch(url, FetchOptions(public_only=True))
    assert seen == []
