"""Archived copies in a real headless Chromium: sandboxed (no script runs), and their gc links work
inside the sandbox without the token (signed per target), while a fresh browser without it is refused."""

from __future__ import annotations

import json
import os
import re

import pytest
from playwright.sync_api import sync_playwright
from websockets.sync.client import connect

from tests.chromium import CHROMIUM, FLAGS
from tests.host.daemon_fixtures import token_of

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed"),
]


def archive(daemon, token, url: str, html: str) -> dict:
    with connect(f"ws://127.0.0.1:{daemon['port']}/ws?token={token}") as ws:
        ws.send(json.dumps({"id": 1, "type": "archive_page", "params": {"url": url, "html": html}}))
        reply = json.loads(ws.recv(timeout=30))
    assert reply["ok"], reply
    return reply["result"]


@pytest.fixture
def browser():

    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield launched
        launched.close()


def test_sandboxed_copy_follows_its_signed_gc_link(daemon, home, browser):
    token = token_of(home)
    target = archive(
        daemon, token, "https://gone.invalid/b", "<title>B</title><p id=b>page B body</p>"
    )
    source = archive(
        daemon,
        token,
        "https://gone.invalid/a",
        "<title>A</title><a id=link href='/b'>to b</a>"
        "<script>document.title = 'pwned'; fetch('/ws')</script>",
    )
    page = browser.new_page()
    assert page.goto(f"{daemon['url']}/viewer/?token={token}").status == 200  # sets the cookie
    page.evaluate(
        """src => { const f = document.createElement('iframe');
                    f.id = 'copy'; f.setAttribute('sandbox', ''); f.src = src;
                    document.body.appendChild(f); }""",
        f"/v/{source['id']}/https://gone.invalid/a",
    )
    frame = page.frame_locator("#copy")
    link = frame.locator("#link")
    link.wait_for(timeout=15000)
    assert "sig=" in link.get_attribute("href")
    copy = next(f for f in page.frames if "/v/" in f.url)
    assert copy.title() == "A"  # the copy's script never ran
    frame.locator("#hide-label").click()  # the banner floats over the copy's top: hide it first
    link.click()
    frame.locator("#b").wait_for(timeout=15000)  # gc: live unreachable -> the stored copy of B
    landed = next(f for f in page.frames if f.url and f"/v/{target['id']}/" in f.url)
    assert re.search(r"[?&]sig=[0-9a-f]{32}", landed.url)
    assert token not in landed.url


def test_a_browser_without_the_token_is_refused(daemon, home, browser):
    token = token_of(home)
    reg = archive(daemon, token, "https://gone.invalid/c", "<title>C</title><p>secret notes</p>")
    page = browser.new_page()
    response = page.goto(f"{daemon['url']}/v/{reg['id']}/https://gone.invalid/c")
    assert response.status == 403 and "secret notes" not in page.content()
