"""The "not archived" page a link in a copy may lead to: styled, and a way back to the copy."""

from __future__ import annotations

import html
import re
from urllib.parse import quote

from host.daemon.security import sign
from tests.extension.capture_site import serve
from tests.host.daemon.test_security import _archive, raw_get
from tests.host.daemon_fixtures import token_of
from tests.host.services.test_fetch import serve as fetch_serve


def test_missing_page_is_styled_and_leads_back_to_the_copy(daemon, home):
    port, token = daemon["port"], token_of(home)
    reg = _archive(daemon, token)
    target = "http://nonexistent.invalid/next"
    link = f"/gc?url={quote(target, safe='')}&id={reg['id']}&sig={sign(token, 'gc', target, reg['id'])}"
    status, headers, body = raw_get(port, link, {})
    page = body.decode()  # .invalid never resolves (RFC 6761): unreachable, not archived
    assert status == 404 and headers["content-security-policy"][0].startswith("sandbox")
    assert "<style>" in page and "This page is not in your archive" in page
    assert "It cannot be reached now" in page
    back = html.unescape(re.search(r'<a class="primary" href="([^"]+)"', page).group(1))
    assert back.startswith(f"/v/{reg['id']}/")
    status, _, copy = raw_get(port, back, {})  # signed: works without the token
    assert status == 200 and b"<html" in copy.lower()
    status, _, other = raw_get(
        port,
        f"/gc?url={quote(target, safe='')}&id=&sig={sign(token, 'gc', target, '')}",
        {},
    )
    assert status == 404 and b'class="primary"' not in other  # no page to go back to


def test_a_page_its_server_says_is_not_there_is_named_so_not_unreachable(daemon, home):
    """A link to a page never archived on a site that is up: the server answered (404), so
    the page says that, with the status, instead of "cannot be reached now"."""
    port, token = daemon["port"], token_of(home)
    reg = _archive(daemon, token)
    server = serve({})  # answers 404 to every path
    target = f"http://127.0.0.1:{server.server_address[1]}/never-archived"
    try:  # followed by the user (token): a loopback address may be asked
        link = f"/gc?url={quote(target, safe='')}&id={reg['id']}&token={token}"
        status, _, body = raw_get(port, link, {})
    finally:
        server.shutdown()
        server.server_close()
    page = body.decode()
    assert status == 404 and "This page is not in your archive" in page
    assert "Its server answered with an error (HTTP 404)" in page
    assert "cannot be reached" not in page


def test_a_server_answering_400_is_an_error_not_a_live_page(daemon, home):
    """Only a status under 400 is a live page to send the user to; 400 itself is the server's
    error, named with its status."""
    port, token = daemon["port"], token_of(home)
    reg = _archive(daemon, token)
    with fetch_serve({"/bad": (400, {"Content-Type": "text/html"}, b"<p>bad</p>")}) as base:
        target = f"{base}/bad"
        link = f"/gc?url={quote(target, safe='')}&id={reg['id']}&token={token}"
        status, _, body = raw_get(port, link, {})
    assert status == 404 and "Its server answered with an error (HTTP 400)" in body.decode()
