"""Bookmarks in, from the extension: the tree as pages with folder tags (the real module in
Chromium), and, with the bookmarks permission granted, a new bookmark archived at once and the
browser's bookmarks archived on request (real extension, native host, daemon, local site)."""

from __future__ import annotations

import json
import os
import re
import shutil
import time

import pytest
from playwright.sync_api import expect

from tests.extension.conftest import Browser, launch, pk
from tests.extension.test_chromium import ARTICLE

pytestmark = pytest.mark.browser

TREE = [
    {"id": "0", "title": "", "children": [
        {"id": "1", "parentId": "0", "title": "Bookmarks bar", "children": [
            {"id": "4", "parentId": "1", "title": "A", "url": "https://a.example/"},
            {"id": "5", "parentId": "1", "title": "Recipes", "children": [
                {"id": "6", "parentId": "5", "title": "Soup", "url": "https://soup.example/"},
                {"id": "7", "parentId": "5", "title": "Winter", "children": [
                    {"id": "8", "parentId": "7", "title": "A again", "url": "https://a.example/"},
                    {"id": "9", "parentId": "7", "title": "bm", "url": "javascript:void(0)"},
                ]},
            ]},
        ]},
        {"id": "2", "parentId": "0", "title": "Other bookmarks", "children": [
            {"id": "10", "parentId": "2", "title": "Old", "url": "http://old.example/"},
        ]},
    ]},
]  # fmt: skip


def test_the_tree_becomes_pages_with_folder_tags(chromium, modules_url):
    page = chromium.new_page()
    page.goto(f"{modules_url}/icons/icon.svg")
    pages = page.evaluate(
        "async (tree) => (await import('/lib/bookmark-tree.js')).bookmarkPages(tree)", TREE
    )
    assert pages == [
        {"url": "https://a.example/", "title": "A", "tags": ["recipes", "winter"]},
        {"url": "https://soup.example/", "title": "Soup", "tags": ["recipes"]},
        {"url": "http://old.example/", "title": "Old", "tags": []},
    ]
    chain = [TREE[0]["children"][0]["children"][1]["children"][1], TREE[0]["children"][0]["children"][1],
             TREE[0]["children"][0], TREE[0]]  # fmt: skip
    assert page.evaluate(
        "async (c) => (await import('/lib/bookmark-tree.js')).chainTags(c)", chain
    ) == ["recipes", "winter"]
    page.close()


@pytest.fixture(scope="module")
def granted(playwright_instance, extension_dir, host, tmp_path_factory):
    """The extension with the optional bookmarks permission already granted: the built
    manifest with "bookmarks" among the granted permissions, standing for the user's
    "Allow" (headless Chromium shows the prompt to no one)."""
    copy = tmp_path_factory.mktemp("granted") / "extension"
    shutil.copytree(extension_dir, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["permissions"].append("bookmarks")
    manifest["optional_permissions"].remove("bookmarks")
    (copy / "manifest.json").write_text(json.dumps(manifest))
    profile = tmp_path_factory.mktemp("profile")
    pk(host.home, "install", "--browser", "chromium", "--profile-dir", str(profile))
    context = launch(
        playwright_instance, copy, profile, {**os.environ, "PAGEKEEPER_HOME": str(host.home)}
    )
    try:
        yield Browser(context, profile)
    finally:
        context.close()


def tagged(host, tag: str, want: int) -> list[str]:
    for _ in range(60):
        found = json.loads(pk(host.home, "--json", "archive", "search", "--tag", tag).stdout)
        if len(found) >= want:
            return sorted(r["url"] for r in found)

        time.sleep(0.5)
    return sorted(r["url"] for r in found)


def test_the_manifest_asks_for_bookmarks_only_as_optional(extension_dir):
    manifest = json.loads((extension_dir / "manifest.json").read_text())
    assert manifest["optional_permissions"] == ["bookmarks"]
    assert "bookmarks" not in manifest["permissions"]


def test_bookmarking_a_page_archives_it_with_its_folder_as_tag(granted, site, host):
    granted.set_option("allowPrivate", True)
    granted.set_option("archiveBookmarks", True)
    site.pages["/notes/marked.html"] = (200, ARTICLE.format(title="bookmarked", extra="Marked."))
    url = site.url("/notes/marked.html")
    options = granted.context.new_page()
    options.goto(granted.url("options/options.html"))
    options.wait_for_selector("html[data-ready=true]")
    expect(options.locator("input[name=archiveBookmarks]")).to_be_checked()
    options.evaluate(
        """async (url) => {
             const folder = await chrome.bookmarks.create({parentId: '1', title: 'Field notes'});
             await chrome.bookmarks.create({parentId: folder.id, title: 'marked', url});
           }""",
        url,
    )
    assert tagged(host, "field notes", 1) == [url]
    options.close()


def test_archive_the_browsers_bookmarks_from_the_options_page(granted, site, host):
    granted.set_option("archiveBookmarks", False)  # not archived on creation: by the import
    urls = []
    for n in range(3):
        site.pages[f"/notes/old-{n}.html"] = (200, ARTICLE.format(title=f"old {n}", extra="Kept."))
        urls.append(site.url(f"/notes/old-{n}.html"))
    options = granted.context.new_page()
    options.goto(granted.url("options/options.html"))
    options.wait_for_selector("html[data-ready=true]")
    options.evaluate(
        """async (urls) => {
             const folder = await chrome.bookmarks.create({parentId: '2', title: 'Reading'});
             for (const url of urls) await chrome.bookmarks.create({parentId: folder.id, title: url, url});
           }""",
        urls,
    )
    options.get_by_role("button", name="Archive my browser bookmarks now").click()
    expect(options.locator("#import-status")).to_contain_text("3 archived", timeout=30000)
    assert tagged(host, "reading", 3) == sorted(urls)
    options.get_by_role("button", name="Archive my browser bookmarks now").click()  # again:
    expect(options.locator("#import-status")).to_contain_text("0 archived", timeout=30000)
    options.close()


def test_an_alert_becomes_a_notification_that_opens_the_document(granted, site, host):
    """A tagged page found gone by the host's check is notified once; the notification's
    click opens that document in the viewer."""
    granted.set_option("allowPrivate", True)
    site.pages["/notes/fleeting.html"] = (200, ARTICLE.format(title="fleeting", extra="Soon gone."))
    url = site.url("/notes/fleeting.html")
    added = json.loads(pk(host.home, "--json", "archive", "add", url).stdout)
    pk(host.home, "archive", "tag", url, "+watch")
    site.pages.pop("/notes/fleeting.html")
    assert json.loads(pk(host.home, "--json", "check", url).stdout)["gone"] == 1
    page = granted.context.new_page()
    page.goto(granted.url("options/options.html"))
    page.wait_for_selector("html[data-ready=true]")
    send = "(m) => chrome.runtime.sendMessage(m)"
    created = page.evaluate(send, {"type": "check_alerts"})["result"]
    assert [c.split(":")[1] for c in created] == [added["id"]]
    shown = page.evaluate("() => chrome.notifications.getAll()")
    assert created[0] in shown
    assert page.evaluate(send, {"type": "check_alerts"})["result"] == []  # never twice
    with granted.context.expect_page() as opened:
        page.evaluate(send, {"type": "open_alert", "params": {"id": created[0]}})
    viewer = opened.value
    expect(viewer).to_have_url(re.compile(f"/viewer/#/doc/{added['id']}$"))
    page.close()
    viewer.close()
