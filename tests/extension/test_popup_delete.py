"""The popup deletes a page's archived versions and undoes it: real Chromium, the built
extension, the real native host and daemon, a local site."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.extension.test_chromium import ARTICLE, archive_with_popup

pytestmark = pytest.mark.browser


def test_delete_from_the_popup_then_undo(browser, site, host):
    browser.set_option("allowPrivate", True)
    site.pages["/notes/delete.html"] = (200, ARTICLE.format(title="a page to drop", extra="Once."))
    url = site.url("/notes/delete.html")
    page = browser.context.new_page()
    page.goto(url)
    tab = browser.tab_id(url)
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
