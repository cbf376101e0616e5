"""Take the viewer screenshots in docs/screenshots/ (not a test): a real daemon, a seeded archive, Chromium.

    .venv/bin/python tests/host/viewer/make_screenshots.py [OUT_DIR]

Seeds the test archive (tests/host/viewer/pages) plus 40 pages of the extraction
development set, and archives a real multi-resource page (books.toscrape.com of
../shared/data/capture-dev, served as if live by its loopback replay server) twice
through the daemon, which fetches the page's stylesheets and images. Checks a few
documents, runs a sweep, and shoots search, document (the styled, sealed copy),
diff, liveness, stats and a narrow window. Needs ../shared and openssl.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from engine.archive import registry  # noqa: E402
from engine.archive.model import Capture, RegisterOptions  # noqa: E402
from engine.archive.store import ArchiveStore  # noqa: E402
from tests.chromium import CHROMIUM, FLAGS  # noqa: E402
from tests.conftest import SHARED_DIR  # noqa: E402
from tests.host.capture_dev import CORPUS, start_replay  # noqa: E402
from tests.host.viewer.conftest import (  # noqa: E402
    T0,
    LiveSite,
    free_port,
    seed,
    start_daemon,
    stop_daemon,
)

DEV = SHARED_DIR / "data" / "extraction-dev"
# A real page of capture-dev: Bootstrap stylesheets and 20 product images (24 resources
# stored); its icon fonts and favicon were never recorded, so the copy lists those as missing.
STYLED = "http://books.toscrape.com/"


def seed_dev_pages(home: Path, base: str, count: int = 40) -> None:
    """More real pages, spread over the months before the test seed."""

    cases = list(json.loads((DEV / "cases.json").read_text("utf-8")).values())
    with ArchiveStore.open(home) as store:
        for i, case in enumerate(c for c in cases if c["url"].startswith("http")):
            if i >= count:
                break
            html = gzip.decompress((DEV / case["page"]).read_bytes())
            when = T0 - timedelta(days=90) + timedelta(hours=49 * i)
            try:
                registry.register(
                    store, Capture(case["url"], html), RegisterOptions(base, now=when)
                )
            except Exception as exc:  # a page the archive refuses is left out of the pictures
                print("skipped", case["url"], exc)


def archive_styled(daemon) -> str:
    """``STYLED`` archived twice through the daemon's own fetch, with its resources; the
    second capture stores no new blob. Returns the latest version's id."""
    for _ in range(2):
        reply = daemon.call("archive_page", {"url": STYLED}, timeout=180)
        assert reply["ok"], reply
    reg_id = reply["result"]["id"]
    resources = daemon.result("version_resources", {"id": reg_id, "limit": 1000})["resources"]
    stored = sum(r["status"] == "stored" for r in resources)
    print(f"{STYLED}: {stored} of {len(resources)} resources stored; missing:")
    for r in resources:
        if r["status"] != "stored":
            print("   ", r["status"], r["url"])
    assert stored >= 20, resources
    daemon.result("check", {"id": reg_id})
    return reg_id


def wait_for_copy(page) -> None:
    """The sealed copy in the document view is shown with its images and fonts loaded."""
    frame = page.frame_locator("#version-frame")
    expect(frame.locator("#pagekeeper-banner")).to_be_visible()
    frame.locator("body").evaluate(
        """async () => { await document.fonts.ready;
        await Promise.all([...document.images].map((i) => i.complete ? 0 : i.decode().catch(() => 0))); }"""
    )
    page.wait_for_timeout(500)


def shoot(out: Path) -> None:
    if not (DEV.is_dir() and (CORPUS / "replay.py").is_file()):
        sys.exit("needs ../shared/data/extraction-dev and ../shared/data/capture-dev")
    site = LiveSite()
    replay = start_replay()
    home = Path(tempfile.mkdtemp(prefix="pk-shots-"))
    port = free_port()
    seeded = seed(home, site, f"http://127.0.0.1:{port}")
    seed_dev_pages(home, f"http://127.0.0.1:{port}")
    # Every fetch but loopback goes to the replay server: the corpus's sites answer as if
    # live, every other site (the dev pages' origins, in the sweep) answers 404.
    daemon = start_daemon(home, port, replay.env())
    try:
        daemon.result("check", {"id": seeded.article_ids[-1]})
        styled = archive_styled(daemon)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800}, locale="en-US")
            page.goto(daemon.viewer("#/search"))
            expect(page.locator("#conn")).to_have_text("live")
            expect(page.locator(".result").first).to_be_visible()
            page.screenshot(path=out / "viewer-search.png")
            page.goto(daemon.viewer(f"#/doc/{styled}"))
            wait_for_copy(page)
            page.screenshot(path=out / "viewer-document.png")
            page.goto(daemon.viewer(f"#/diff/{seeded.article_ids[0]}/{seeded.article_ids[-1]}"))
            expect(page.locator("#diff-table")).to_be_visible()
            page.screenshot(path=out / "viewer-diff.png")
            page.goto(daemon.viewer("#/liveness"))
            # The two local pages hold the sweep open; shot once every other page is checked
            # (through the replay server: the dev pages' sites answer 404 or not at all).
            site.delay_s = 8.0
            page.get_by_role("button", name="Check every document").click()
            expect(page.locator(".sweep label")).to_have_text(re.compile(r"Checking 4[0-9] of"))
            page.screenshot(path=out / "viewer-liveness.png")
            expect(page.locator(".sweep label")).to_contain_text("Last sweep", timeout=60_000)
            site.delay_s = 0.0
            page.goto(daemon.viewer("#/stats"))
            expect(page.locator("#stat-versions")).not_to_have_text("–")
            page.screenshot(path=out / "viewer-stats.png")
            page.set_viewport_size({"width": 420, "height": 860})
            page.goto(daemon.viewer(f"#/doc/{styled}"))
            expect(page.locator(".timeline .version")).to_have_count(2)
            page.screenshot(path=out / "viewer-narrow.png")
            browser.close()
    finally:
        stop_daemon(daemon.proc)
        replay.stop()
        site.stop()


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"
    target.mkdir(parents=True, exist_ok=True)
    shoot(target)
    print("screenshots in", target)
