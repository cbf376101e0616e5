"""The viewer on a result set too large for one page or one WARC download (issue 8's
"huge result set (paged)"): a real daemon over 5,200 documents, headless Chromium."""

from __future__ import annotations

import io

import pytest
from warcio.archiveiterator import ArchiveIterator

from tests.host.viewer.conftest import free_port, start_daemon, stop_daemon, synthetic_archive

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

DOCUMENTS = 5_200  # > 5,000: the viewer's one-message WARC download cap


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    """Overrides conftest's: this module's daemon serves the large synthetic archive."""
    home = tmp_path_factory.mktemp("viewer-large")
    synthetic_archive(home, DOCUMENTS)
    running = start_daemon(home, free_port())
    yield running
    stop_daemon(running.proc)


def open_search(page, daemon, hash_="#/search"):
    page.goto(daemon.viewer(hash_))
    expect(page.locator("#conn")).to_have_text("live")


def test_a_huge_result_set_is_paged(page, daemon):
    open_search(page, daemon)
    status, info = page.locator(".search-status"), page.locator(".pager-info")
    expect(status).to_contain_text("5,200 documents")
    expect(info).to_have_text("1–50 of 5,200 · page 1 of 104")
    expect(page.locator(".result-link")).to_have_count(50)
    expect(page.locator(".result-link").first).to_contain_text("Article 5199 ")  # newest first
    page.get_by_role("button", name="Next →").click()
    expect(info).to_have_text("51–100 of 5,200 · page 2 of 104")
    expect(page.locator(".result-link").first).to_contain_text("Article 5149 ")
    assert "page=1" in page.url  # the page is in the address, so back/reload keep it
    # An old link past the end: the last page, saying so, not an empty list.
    page.goto(daemon.viewer("#/search?page=500"))
    expect(status).to_contain_text("There is no page 501: showing the last one.")
    expect(info).to_have_text("5,151–5,200 of 5,200 · page 104 of 104")
    expect(page.get_by_role("button", name="Next →")).to_be_disabled()
    expect(page.locator(".result-link")).to_have_count(50)


def test_export_of_a_huge_result_says_how_to_narrow_it(page, daemon, tmp_path):
    open_search(page, daemon)
    expect(page.locator(".search-status")).to_contain_text("5,200 documents")
    page.get_by_role("button", name="Export results as WARC").click()
    expect(page.locator(".toast-error")).to_contain_text(
        "5200 versions match; export at most 5000 at once (narrow the search)"
    )
    page.get_by_label("URL pattern").fill("*site7.example*")
    expect(page.locator(".search-status")).to_contain_text("52 documents")
    with page.expect_download() as download:
        page.get_by_role("button", name="Export results as WARC").click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    targets = [
        rec.rec_headers.get_header("WARC-Target-URI")
        for rec in ArchiveIterator(io.BytesIO(path.read_bytes()))
        if rec.rec_type == "response"
    ]
    assert len(targets) == 52 and all("//site7.example/" in t for t in targets)


def test_paging_from_the_keyboard_keeps_the_focus_on_the_results(page, daemon):
    """Enter on "Next →" rebuilds the pager: the focus went with the old button, to the page's
    body, and the next Tab started over at the top. It goes to the new page's first result."""
    open_search(page, daemon)
    info = page.locator(".pager-info")
    expect(info).to_have_text("1–50 of 5,200 · page 1 of 104")
    page.get_by_role("button", name="Next →").focus()
    page.keyboard.press("Enter")
    expect(info).to_have_text("51–100 of 5,200 · page 2 of 104")
    first = page.locator(".result-link").first
    expect(first).to_contain_text("Article 5149 ")
    expect(first).to_be_focused()
    page.keyboard.press("ArrowDown")  # the list's own keys work from there
    expect(page.locator(".result-link").nth(1)).to_be_focused()
