"""Take the viewer screenshots in docs/screenshots/ (not a test): a real daemon, a seeded archive, Chromium.

    .venv/bin/python tests/host/viewer/make_screenshots.py [OUT_DIR]

Seeds the test archive (tests/host/viewer/pages) plus, when ../shared is there,
40 pages of the extraction development set, checks a few documents, runs a
sweep, and shoots search, document, diff, liveness, stats and a narrow window.
"""

from __future__ import annotations

import gzip
import json
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
from tests.host.viewer.conftest import (  # noqa: E402
    T0,
    LiveSite,
    free_port,
    seed,
    start_daemon,
    stop_daemon,
)

DEV = SHARED_DIR / "data" / "extraction-dev"


def seed_dev_pages(home: Path, base: str, count: int = 40) -> None:
    """More real pages, spread over the months before the test seed."""

    if not DEV.is_dir():
        return
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


def shoot(out: Path) -> None:

    site = LiveSite()
    home = Path(tempfile.mkdtemp(prefix="pk-shots-"))
    port = free_port()
    seeded = seed(home, site, f"http://127.0.0.1:{port}")
    seed_dev_pages(home, f"http://127.0.0.1:{port}")
    daemon = start_daemon(home, port)
    try:
        daemon.result("check", {"id": seeded.article_ids[-1]})
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800}, locale="en-US")
            page.goto(daemon.viewer("#/search"))
            expect(page.locator("#conn")).to_have_text("live")
            expect(page.locator(".result").first).to_be_visible()
            page.screenshot(path=out / "viewer-search.png")
            page.goto(daemon.viewer(f"#/doc/{seeded.article_ids[-1]}"))
            expect(
                page.frame_locator("#version-frame").locator("#pagekeeper-banner")
            ).to_be_visible()
            page.wait_for_timeout(300)
            page.screenshot(path=out / "viewer-document.png")
            page.goto(daemon.viewer(f"#/diff/{seeded.article_ids[0]}/{seeded.article_ids[-1]}"))
            expect(page.locator("#diff-table")).to_be_visible()
            page.screenshot(path=out / "viewer-diff.png")
            page.goto(daemon.viewer("#/liveness"))
            site.delay_s = 4.0  # the two local pages hold the sweep open: shot while it runs
            page.get_by_role("button", name="Check every document").click()
            expect(page.locator(".sweep label")).to_contain_text("Checking 4")
            page.screenshot(path=out / "viewer-liveness.png")
            expect(page.locator(".sweep label")).to_contain_text("Last sweep", timeout=60_000)
            site.delay_s = 0.0
            page.goto(daemon.viewer("#/stats"))
            expect(page.locator("#stat-versions")).not_to_have_text("–")
            page.screenshot(path=out / "viewer-stats.png")
            page.set_viewport_size({"width": 420, "height": 860})
            page.goto(daemon.viewer(f"#/doc/{seeded.article_ids[-1]}"))
            expect(page.locator(".timeline .version")).to_have_count(2)
            page.screenshot(path=out / "viewer-narrow.png")
            browser.close()
    finally:
        stop_daemon(daemon.proc)
        site.stop()


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"
    target.mkdir(parents=True, exist_ok=True)
    shoot(target)
    print("screenshots in", target)
