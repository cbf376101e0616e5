"""live.js in headless Chromium: pushed updates survive a dropped socket, and an older daemon
without ``viewer_watch`` is still followed (by polling). The socket is routed through
Playwright (``route_web_socket``) to drop it or to answer as an older daemon would."""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.host.viewer.conftest import ARTICLE, page_bytes

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


def version_html(n: int) -> str:
    """The article with one more paragraph: a new version each time."""
    html = page_bytes(ARTICLE).decode("utf-8")
    return html.replace(
        "</body>", f"<p>Nachtrag {n}: noch eine Ergänzung zum Artikel.</p></body>", 1
    )


class Relay:
    """Routes the viewer's /ws through the test: records what the page asks; may drop the
    socket, or answer ``viewer_watch`` as a daemon that does not know it."""

    def __init__(self, page, old_daemon: bool = False) -> None:
        self.sent: list[dict] = []
        self.routes = []
        self.old_daemon = old_daemon
        page.route_web_socket(re.compile(r"/ws(\?|$)"), self.route)

    def route(self, ws) -> None:
        server = ws.connect_to_server()
        self.routes.append(ws)

        def from_page(message) -> None:
            request = json.loads(message)
            self.sent.append({**request, "connection": len(self.routes)})
            if self.old_daemon and request.get("type") == "viewer_watch":
                error = {"code": "unknown_type", "message": "unknown message type 'viewer_watch'"}
                ws.send(json.dumps({"id": request["id"], "ok": False, "error": error}))
            else:
                server.send(message)

        ws.on_message(from_page)

    def asked(self, kind: str) -> list[dict]:
        return [r for r in self.sent if r.get("type") == kind]


def open_document(page, daemon, seeded):
    """The sibling's page in the viewer: its timeline's versions and how many it shows."""
    page.goto(daemon.viewer(f"#/doc/{seeded.sibling_id}"))
    expect(page.locator("#conn")).to_have_text("live")
    versions = page.locator(".timeline .version")
    expect(versions.first).to_be_visible()
    return versions, versions.count()


def test_live_updates_resume_after_the_socket_drops(page, daemon, seeded):
    relay = Relay(page)
    versions, count = open_document(page, daemon, seeded)
    relay.routes[-1].close()  # the socket drops; api.js reconnects after 0.5 s
    daemon.result("archive_page", {"url": seeded.sibling_url, "html": version_html(1)})
    # Registered while the viewer was (most likely) disconnected: seen once it is back, as the
    # first watch on the new socket has no since and is answered at once.
    expect(versions).to_have_count(count + 1, timeout=5000)
    assert len(relay.routes) == 2
    first_after = [r for r in relay.asked("viewer_watch") if r["connection"] == 2][0]
    assert "since" not in first_after["params"], first_after
    daemon.result("archive_page", {"url": seeded.sibling_url, "html": version_html(2)})
    expect(versions).to_have_count(count + 2, timeout=1500)  # pushed again on the new socket
    outstanding = [r for r in relay.asked("viewer_watch") if r["connection"] == 2]
    assert all("since" in r["params"] for r in outstanding[1:]), outstanding


def test_a_daemon_without_viewer_watch_is_polled(page, daemon, seeded):
    relay = Relay(page, old_daemon=True)
    versions, count = open_document(page, daemon, seeded)
    began = time.monotonic()
    daemon.result("archive_page", {"url": seeded.sibling_url, "html": version_html(3)})
    expect(versions).to_have_count(count + 1, timeout=8000)  # the next 3 s poll sees it
    assert len(relay.asked("viewer_watch")) == 1  # asked once, then never again
    assert relay.asked("viewer_changes"), relay.sent
    assert time.monotonic() - began < 8


def test_a_burst_of_registrations_reruns_the_search_a_few_times_and_shows_the_last(
    page, daemon, seeded
):
    """A crawl registers many pages a second: the open search follows it, re-running at most
    every 0.75 s rather than on every pushed change, and the last page is never missed."""
    relay = Relay(page)
    page.goto(daemon.viewer("#/search?pattern=*burst*"))
    expect(page.locator("#conn")).to_have_text("live")
    status = page.locator(".search-status")
    expect(status).to_contain_text("Nothing found")
    before = len(relay.asked("search_page"))
    started = time.monotonic()
    for n in range(30):  # ~2-3 s of registrations, one pushed change each
        url = f"{seeded.sibling_url}?burst={n}"
        daemon.result("archive_page", {"url": url, "html": version_html(n)})
        page.wait_for_timeout(50)  # not time.sleep: the relay only forwards while Playwright runs
    burst_s = time.monotonic() - started
    expect(status).to_contain_text(re.compile(r"^30 documents"), timeout=3000)
    reruns = len(relay.asked("search_page")) - before
    # unthrottled: one search per pushed change (~every 0.1-0.15 s, 15-30 here)
    assert 1 <= reruns <= burst_s / 0.75 + 3, (reruns, burst_s)
