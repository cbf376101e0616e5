"""The viewer in a real headless Chromium against a real daemon on a seeded archive."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator

from tests.chromium import CHROMIUM, FLAGS
from tests.host.viewer.conftest import ARTICLE, edited_article, page_bytes

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed"),
]
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, daemon):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    context.set_default_timeout(10_000)
    tab = context.new_page()
    errors = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    yield tab
    context.close()
    assert not errors, errors


def open_viewer(page, daemon, hash_="#/search"):
    page.goto(daemon.viewer(hash_))
    expect(page.locator("#conn")).to_have_text("live")


def result_links(page):
    return page.locator(".results .result-link")


def test_search_by_pattern_and_text_as_you_type(page, daemon):
    open_viewer(page, daemon)
    expect(result_links(page)).to_have_count(4)
    assert "token=" not in page.url  # the token leaves the address bar
    page.get_by_label("URL pattern").press_sequentially("*chip.de*", delay=20)
    expect(result_links(page)).to_have_count(2)
    expect(page.locator(".search-status")).to_contain_text("2 documents")
    page.get_by_label("Full text").fill("Steak-Himmel")
    expect(result_links(page)).to_have_count(1)
    expect(result_links(page).first).to_contain_text("Beef-Maker")


def test_malformed_pattern_and_nothing_found(page, daemon):
    open_viewer(page, daemon)
    page.get_by_label("URL pattern").fill("a b")
    expect(page.locator(".search-status")).to_contain_text("That pattern can't be searched")
    expect(result_links(page)).to_have_count(0)
    page.get_by_label("URL pattern").fill("*nowhere.invalid*")
    expect(page.locator(".search-status")).to_contain_text("Nothing found")


def test_keyboard_from_search_to_document(page, daemon, seeded):
    open_viewer(page, daemon)
    page.get_by_label("URL pattern").fill("*ministerium.html")
    expect(result_links(page)).to_have_count(1)
    page.get_by_label("URL pattern").press("ArrowDown")
    expect(result_links(page).first).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"#/doc/"))
    expect(page.locator("#doc-h")).to_contain_text("Ministerium")


def test_document_rewritten_with_banner_then_original(page, daemon, seeded):
    open_viewer(page, daemon, f"#/doc/{seeded.article_ids[-1]}")
    versions = page.locator(".timeline .version")
    expect(versions).to_have_count(2)
    expect(versions.first.locator(".bar-track")).to_have_attribute(
        "aria-valuenow", re.compile(r"\d+")
    )
    frame = page.frame_locator("#version-frame")
    expect(frame.locator("#pagekeeper-banner")).to_contain_text("registered on 2026-04-03 09:30")
    expect(frame.locator("#pagekeeper-banner")).to_contain_text("links rewritten")
    expect(frame.locator("body")).to_contain_text("nun endgültig")
    page.locator(".version").nth(1).get_by_role("button", name="Original").click()
    expect(page.locator("#version-frame")).to_have_attribute("src", re.compile("original=1"))
    expect(frame.locator("body")).to_contain_text("völlig am Zeiger")
    expect(frame.locator("#pagekeeper-banner")).to_have_count(0)


def test_archived_copy_cannot_script_the_viewer(page, daemon, seeded):
    open_viewer(page, daemon, f"#/doc/{seeded.article_ids[-1]}")
    expect(page.frame_locator("#version-frame").locator("#pagekeeper-banner")).to_be_visible()
    child = page.frames[1]
    assert child.evaluate("1 + 1") == 2  # devtools may; the page's own scripts may not
    assert page.locator("#version-frame").get_attribute("sandbox") is not None


def test_similar_pages_are_listed_and_open(page, daemon, seeded):
    open_viewer(page, daemon, f"#/doc/{seeded.article_ids[-1]}")
    sibling = page.locator(".similar a", has_text="ministerium-2.html")
    expect(sibling).to_have_count(1)
    row = page.locator(".similar li", has=page.locator("a", has_text="ministerium-2.html"))
    bars = row.locator("[role=meter]")
    expect(bars).to_have_count(2)
    sibling.click()
    expect(page).to_have_url(re.compile(rf"#/doc/{seeded.sibling_id}"))
    expect(page.locator(".doc-url")).to_contain_text("ministerium-2.html")


def test_diff_between_versions(page, daemon, seeded):
    open_viewer(page, daemon, f"#/doc/{seeded.article_ids[-1]}")
    page.get_by_role("link", name="Diff with previous").click()
    table = page.locator("#diff-table")
    expect(table.locator("del", has_text="völlig")).to_have_count(1)
    expect(table.locator("ins", has_text="nun endgültig")).to_have_count(1)
    expect(table.locator("tr.op-insert")).to_contain_text("Nachtrag")
    expect(page.locator(".diff-stats")).to_contain_text("+1 added")


def test_unknown_id_is_a_clear_message(page, daemon):
    open_viewer(page, daemon, "#/doc/20990101000000000000")
    expect(page.get_by_role("alert").filter(has_text="No such document")).to_be_visible()
    page.goto(daemon.viewer("#/diff/1/2"))
    expect(page.locator(".notice-error")).to_contain_text("No such version")


def test_warc_export_of_a_version_reads_back(page, daemon, seeded, tmp_path):
    open_viewer(page, daemon, f"#/doc/{seeded.article_ids[-1]}")
    expect(page.frame_locator("#version-frame").locator("#pagekeeper-banner")).to_be_visible()
    with page.expect_download() as info:
        page.get_by_role("button", name="Export WARC").click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    responses = [
        (rec.rec_headers.get_header("WARC-Target-URI"), rec.content_stream().read())
        for rec in ArchiveIterator(io.BytesIO(path.read_bytes()))
        if rec.rec_type == "response"
    ]
    assert responses == [(seeded.article_url, edited_article())]


def test_check_now_follows_the_live_site(page, daemon, seeded, live_site):
    open_viewer(page, daemon, f"#/doc/{seeded.article_ids[-1]}")
    state = page.locator("#live-state")
    expect(state).to_have_text("unchecked")
    page.get_by_role("button", name="Check now").click()
    expect(state).to_have_text("present")
    live_site.stop()  # the page is gone from the web
    page.get_by_role("button", name="Check now").click()
    expect(state).to_have_text("gone")
    page.get_by_role("link", name="Liveness").click()
    expect(page.locator('#live-counts [data-state="gone"]')).to_have_text("1")


def test_narrow_window_has_no_horizontal_scroll(page, daemon, seeded):
    page.set_viewport_size({"width": 420, "height": 800})
    open_viewer(page, daemon, f"#/doc/{seeded.article_ids[-1]}")
    expect(page.locator(".timeline .version")).to_have_count(2)
    assert page.evaluate("document.documentElement.scrollWidth") <= 420


def test_sweep_progress_and_counts(page, daemon):
    open_viewer(page, daemon, "#/liveness")
    page.get_by_role("button", name="Check every document").click()
    expect(page.locator(".sweep label")).to_have_text("Last sweep: 4 of 4 checked", timeout=20_000)
    expect(page.locator('#live-counts [data-state="unchecked"]')).to_have_text("0")
    counts = page.locator("#live-counts .stat-value").all_inner_texts()
    assert sum(int(c) for c in counts) == 4
    expect(page.locator("#sweep-progress")).to_have_attribute("value", "4")


def test_live_update_when_a_version_arrives(page, daemon, seeded):
    open_viewer(page, daemon, f"#/doc/{seeded.sibling_id}")
    versions = page.locator(".timeline .version")
    expect(versions).to_have_count(1)
    html = page_bytes(ARTICLE).decode("utf-8")
    daemon.result("archive_page", {"url": seeded.sibling_url, "html": html})
    expect(versions).to_have_count(2)
    page.get_by_role("link", name="Archive", exact=True).click()
    expect(page.locator("#stat-versions")).to_have_text("6")


def test_warc_import_from_the_archive_tab(page, daemon, seeded, tmp_path):
    exported = daemon.result("export_warc", {"ids": [seeded.chip_ids[0]]})
    path = tmp_path / exported["filename"]
    path.write_bytes(base64.b64decode(exported["content_b64"]))
    open_viewer(page, daemon, "#/stats")
    before = int(page.locator("#stat-versions").inner_text())
    page.get_by_label("WARC file (.warc or .warc.gz)").set_input_files(path)
    page.get_by_role("button", name="Import").click()
    expect(page.locator(".import-form > [role=status]")).to_contain_text("Imported 1 page")
    expect(page.locator("#stat-versions")).to_have_text(str(before + 1))
    bad = tmp_path / "bad.warc"
    bad.write_bytes(b"this is not a WARC file")
    page.get_by_label("WARC file (.warc or .warc.gz)").set_input_files(bad)
    page.get_by_role("button", name="Import").click()
    expect(page.locator(".import-form .notice-error")).to_contain_text("not a WARC file")
