"""The popup deletes a page's archived versions and undoes it: real Chromium, the built
extension, the real native host and daemon, a local site."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.extension.conftest import pk
from tests.extension.test_chromium import ARTICLE, archive_with_popup, open_article

pytestmark = pytest.mark.browser


def test_delete_from_the_popup_then_undo(browser, site, host):
    _page, url, tab = open_article(browser, site, "/notes/delete.html", "a page to drop", "Once.")
    popup = archive_with_popup(browser, tab)
    archive_with_popup(browser, tab).close()  # a second version
    popup.reload()
    expect(popup.locator("#status")).to_contain_text("2 archived versions")
    popup.get_by_role("button", name="Delete all 2 versions from archive").click()
    expect(popup.locator("#deleted")).to_contain_text("Deleted 2 versions")
    expect(popup.locator("#status")).to_have_text("Not archived yet.")
    expect(popup.locator("#delete")).to_be_hidden()
    popup.get_by_role("button", name="Undo").click()
    expect(popup.locator("#status")).to_contain_text(re.compile("^2 archived versions"))
    expect(popup.locator("#deleted")).to_be_hidden()
    popup.close()


def test_tag_while_archiving(browser, site, host):

    browser.set_option("allowPrivate", True)
    site.pages["/notes/tagged.html"] = (200, ARTICLE.format(title="tagged", extra="With tags."))
    url = site.url("/notes/tagged.html")
    page = browser.context.new_page()
    page.goto(url)
    popup = browser.context.new_page()
    popup.goto(browser.url(f"popup/popup.html?tab={browser.tab_id(url)}"))
    popup.get_by_label("Tags (optional, comma-separated)").fill("Rivers, field notes,")
    popup.get_by_role("button", name=re.compile("Archive")).click()
    expect(popup.locator("#tags-saved")).to_have_text("Tagged: field notes, rivers", timeout=15000)
    found = json.loads(pk(host.home, "--json", "archive", "search", "--tag", "rivers").stdout)
    assert [r["url"] for r in found] == [url]
    popup.close()


RUNNING = """([key, url]) => chrome.storage.session.set({[key]: {phase: 'sending', url,
  bytes_sent: 1, bytes_total: 4, updated_at: Date.now()}})"""
ENDED = "([key, url]) => chrome.storage.session.set({[key]: {phase: 'done', url, updated_at: Date.now()}})"


def test_a_popup_opened_during_a_capture_shows_it_not_the_last_result(browser, site, host):
    """While a capture of the tab runs, the popup shows its progress and never the previous
    capture's result as if it were this one's; that result comes back when the capture ends."""
    _page, url, tab = open_article(browser, site, "/notes/running.html", "running", "Twice.")
    archive_with_popup(browser, tab).close()  # the last result, kept by the background
    key = f"capture:{tab}"
    browser.worker().evaluate(RUNNING, [key, url])
    popup = browser.context.new_page()
    popup.goto(browser.url(f"popup/popup.html?tab={tab}"))
    expect(popup.locator("#capture")).to_be_visible()
    expect(popup.locator("#status")).to_contain_text("1 archived version")
    popup.wait_for_timeout(1000)  # the popup asks for the last result after the versions
    expect(popup.locator("#result")).to_be_hidden()
    browser.worker().evaluate(ENDED, [key, url])
    expect(popup.locator("#result")).to_be_visible()
    expect(popup.locator("#version-label")).to_contain_text("version 1")
    popup.close()
