"""The "not archived" page a link in a copy may lead to: styled, and a way back to the copy."""

from __future__ import annotations

import html
import re
from urllib.parse import quote

from host.daemon.security import sign
from tests.host.daemon.test_security import _archive, raw_get
from tests.host.daemon_fixtures import token_of


def test_missing_page_is_styled_and_leads_back_to_the_copy(daemon, home):
    port, token = daemon["port"], token_of(home)
    reg = _archive(daemon, token)
    target = "http://nonexistent.invalid/next"
    link = f"/gc?url={quote(target, safe='')}&id={reg['id']}&sig={sign(token, 'gc', target, reg['id'])}"
    status, headers, body = raw_get(port, link, {})
    page = body.decode()  # .invalid never resolves (RFC 6761): unreachable, not archived
    assert status == 404 and headers["content-security-policy"][0].startswith("sandbox")
    assert "<style>" in page and "This page is not in your archive" in page
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
