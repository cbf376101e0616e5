"""The real popup and options pages with a scripted background, tabs and storage.sync, in plain
headless Chromium: what the popup shows after "Archive this page" (version N, registered at,
similarity to the previous version, similar pages, the viewer link) and without the host; every
item of the options page and what it writes to storage.sync. test_chromium.py runs both pages
against the real host.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.extension.conftest import assert_runs_as_readme_says

pytestmark = pytest.mark.browser

# Every runtime message, tabs.create and storage.sync.set goes to Python (`record`); the
# background's answers come from REPLIES by message type (a list: one reply per call, in order).
FAKE_API = """
  const replies = REPLIES;
  const stored = {};
  globalThis.browser = {
    runtime: { id: 'pk-test', getURL: (p) => 'chrome-extension://pk-test/' + p,
      async sendMessage(m) { await globalThis.record(m); const r = replies[m.type];
      return (Array.isArray(r) ? r.shift() : r) ?? { ok: true, result: null }; } },
    tabs: { async get(id) { return { id, url: 'https://docs.example/guide', title: 'The guide' }; },
            async query() { return [{ id: 4, url: 'https://docs.example/guide', title: 'The guide' }]; },
            async create(o) { await globalThis.record({ type: 'tabs.create', params: o }); return o; },
            async update(id, o) { await globalThis.record({ type: 'tabs.update', params: { id, ...o } }); return o; } },
    storage: { sync: { async get() { return { ...stored }; },
                       async set(v) { Object.assign(stored, v); await globalThis.record({ type: 'sync.set', params: v }); } },
               session: { async get() { return {}; } } },  // no capture under way in these tests
  };
"""

VERSIONS = [
    {
        "id": "v2",
        "registered_at": "2026-11-21T22:00:00Z",
        "version_url": "http://127.0.0.1:1/v/v2/x",
    },
    {
        "id": "v1",
        "registered_at": "2026-11-01T09:00:00Z",
        "version_url": "http://127.0.0.1:1/v/v1/x",
    },
]
ARCHIVED = {
    "id": "v2",
    "url": "https://docs.example/guide",
    "version": 2,
    "count": 2,
    "registered_at": "2026-11-21T22:00:00Z",
    "version_url": "http://127.0.0.1:1/v/v2/https://docs.example/guide",
    "similarity": 0.93,
    "content_similarity": 0.88,
    "similar": [
        {"id": "s1", "url": "https://docs.example/other", "similarity": 0.71,
         "version_url": "http://127.0.0.1:1/v/s1/https://docs.example/other"},
    ],
}  # fmt: skip
VIEWER = {"ok": True, "result": {"url": "http://127.0.0.1:1/viewer/?token=t#/doc/v2"}}


@pytest.fixture
def open_page(chromium, modules_url):
    """open(path, replies) → (page, messages sent) for extension/<path> with FAKE_API."""
    context = chromium.new_context()
    sent: list[dict] = []
    context.expose_function("record", lambda message: sent.append(message))

    def open_(path: str, replies: dict):
        page = context.new_page()
        page.add_init_script(FAKE_API.replace("REPLIES", json.dumps(replies)))
        page.goto(f"{modules_url}/{path}")
        return page, sent

    yield open_
    context.close()


def of_type(sent: list[dict], kind: str) -> list:
    return [m["params"] for m in sent if m["type"] == kind]


def test_popup_after_archiving_shows_version_time_similarity_similar_and_viewer(open_page):
    replies = {
        "versions": {"ok": True, "result": VERSIONS},
        "archive_tab": {"ok": True, "result": ARCHIVED},
        "viewer": VIEWER,
    }
    page, sent = open_page("popup/popup.html?tab=4", replies)
    expect(page.locator("#status")).to_contain_text("2 archived versions")
    page.get_by_role("button", name="Archive this page").click()
    expect(page.locator("#version-label")).to_have_text(
        re.compile(r"^Saved as version 2\s*2 in total$")
    )
    expect(page.locator("#registered-at")).to_contain_text("2026")
    expect(page.locator("#similarity-term")).to_have_text("Similarity to v1")
    expect(page.locator("#similarity")).to_have_text("93% structure · text 88%")
    expect(page.locator("#similar-list li")).to_have_text(
        [re.compile(r"docs\.example/other\s*71%")]
    )
    assert of_type(sent, "archive_tab") == [{"tabId": 4}]
    page.locator("#viewer-link").click()
    expect(page.locator("#error")).to_be_hidden()
    page.wait_for_timeout(200)
    assert of_type(sent, "viewer") == [{"hash": "#/doc/v2"}]
    assert of_type(sent, "tabs.create") == [{"url": VIEWER["result"]["url"]}]


def test_a_page_archived_earlier_opens_its_newest_copy_from_the_popup(open_page):
    """Opened on a page archived in an earlier session (no capture result to show), the popup
    says "2 archived versions" and offers the newest copy and the page's versions in the viewer,
    each signed in through the background, as the capture result's links are."""
    copy = {"ok": True, "result": {"url": "http://127.0.0.1:1/auth?next=/v/v2/x"}}
    replies = {"versions": {"ok": True, "result": VERSIONS}, "open_copy": copy, "viewer": VIEWER}
    page, sent = open_page("popup/popup.html?tab=4", replies)
    expect(page.locator("#status")).to_contain_text("2 archived versions")
    expect(page.locator("#result")).to_be_hidden()
    page.get_by_role("link", name="Open the newest copy").click()
    page.get_by_role("link", name="All versions in the viewer").click()
    page.wait_for_timeout(200)
    assert of_type(sent, "open_copy") == [{"version_url": VERSIONS[0]["version_url"]}]
    assert of_type(sent, "viewer") == [{"hash": "#/doc/v2"}]
    assert of_type(sent, "tabs.create") == [copy["result"], {"url": VIEWER["result"]["url"]}]
    expect(page.locator("#error")).to_be_hidden()


def test_a_page_not_archived_offers_no_copy(open_page):
    page, _ = open_page("popup/popup.html?tab=4", {"versions": {"ok": True, "result": []}})
    expect(page.locator("#status")).to_have_text("Not archived yet.")
    expect(page.get_by_role("link", name="Open the newest copy")).to_be_hidden()


def test_a_failed_archive_again_does_not_show_the_last_result_as_saved(open_page):
    """The popup opens with the last capture's result; when archiving the page again fails (the
    helper stopped meanwhile), it says why, and no "Saved as version 2" stays beside the error as
    if this capture were saved."""
    stopped = {"ok": False, "error": {"code": "unavailable", "message": "PageKeeper is stopped"}}
    replies = {
        "versions": [{"ok": True, "result": VERSIONS}, stopped],
        "last_archive": {"ok": True, "result": ARCHIVED},
        "archive_tab": stopped,
    }
    page, _ = open_page("popup/popup.html?tab=4", replies)
    expect(page.locator("#version-label")).to_contain_text("Saved as version 2")
    page.get_by_role("button", name="Archive this page").click()
    expect(page.locator("#error")).to_have_text("PageKeeper is stopped")
    expect(page.locator("#result")).to_be_hidden()


def test_a_key_profile_the_host_refuses_is_not_kept(open_page):
    refused = {"ok": False, "error": {"code": "host_missing", "message": "not found"}}
    page, sent = open_page("options/options.html", {"key_profile": refused})
    expect(page.locator("html")).to_have_attribute("data-ready", "true")
    page.select_option("#profile", "safe")
    expect(page.locator("#profile-note")).to_contain_text("Not changed")
    expect(page.locator("#profile")).to_have_value("archive")
    assert of_type(sent, "key_profile")[-1] == {"profile": "safe"}
    assert not [w for w in of_type(sent, "sync.set") if "profile" in w]


def test_popup_without_the_host_says_how_to_install_it(open_page):
    missing = {"ok": False, "error": {"code": "host_missing", "message": "not found"}}
    page, _ = open_page("popup/popup.html?tab=4", {"versions": missing})
    expect(page.locator("#missing")).to_be_visible()
    # the words the shortcut's badge and notification use too (lib/messages.js)
    expect(page.locator("#missing-title")).to_have_text(
        "The PageKeeper helper app is not installed."
    )
    assert_runs_as_readme_says(page.locator("#missing .install").inner_text())
    expect(page.locator("#archive")).to_be_disabled()


def test_a_helper_too_slow_to_answer_is_said_in_words(open_page):
    """A request's own timeout names the request ("no answer to archive_tab in 120000 ms"):
    the popup (and the badge, which share lib/messages.js) says what happened and what to do."""
    slow = {"ok": False, "error": {"code": "timeout", "message": "no answer to archive_tab in 120000 ms"}}  # fmt: skip
    replies = {"versions": {"ok": True, "result": VERSIONS}, "archive_tab": slow}
    page, _ = open_page("popup/popup.html?tab=4", replies)
    page.get_by_role("button", name="Archive this page").click()
    expect(page.locator("#error")).to_have_text(
        "The PageKeeper helper did not answer in time (it may still be starting). Try again in a moment."
    )


def test_popup_warns_of_a_soft_404_and_opens_our_page_for_it(open_page):
    gone = {"url": "https://docs.example/guide", "state": "gone", "reason": "text missing"}
    replies = {
        "versions": {"ok": True, "result": VERSIONS},
        "liveness": {"ok": True, "result": gone},
    }
    page, sent = open_page("popup/popup.html?tab=4", replies)
    expect(page.locator("#liveness")).to_contain_text("no longer on this page")
    page.locator("#soft-404").click()
    page.wait_for_timeout(300)
    (update,) = of_type(sent, "tabs.update")
    assert update["id"] == 4
    assert update["url"].startswith("chrome-extension://pk-test/error/error.html?")
    assert "url=https%3A%2F%2Fdocs.example%2Fguide&error=soft_404&" in update["url"]


def test_options_show_every_item_with_safe_defaults_and_save_to_storage_sync(open_page):
    status = {"version": "0.1.0", "protocol": 1, "round_trip_ms": 3, "archived_pages": 5}
    profiles = ["safe", "archive", "aggressive"]
    rekeyed = {"profile": "safe", "rekeyed": 3, "documents": 2, "profiles": profiles}
    replies = {
        "host_status": {"ok": True, "result": status},
        "viewer": VIEWER,
        "key_profile": [
            {"ok": True, "result": {"profile": "aggressive", "profiles": profiles}},
            {"ok": True, "result": rekeyed},
        ],
    }
    page, sent = open_page("options/options.html", replies)
    expect(page.locator("html")).to_have_attribute("data-host", "connected")
    expect(page.locator("#host-status")).to_have_text(
        "Connected · PageKeeper 0.1.0 (protocol 1), answered in 3 ms · 5 pages archived"
    )
    # Defaults: error pages on, private addresses off, history on, liveness off, auto-archive off.
    checked = {name: page.locator(f"input[name={name}]").is_checked()
               for name in ("errorPages", "allowPrivate", "historyUse", "badge", "liveness")}  # fmt: skip
    assert checked == {"errorPages": True, "allowPrivate": False, "historyUse": True,
                       "badge": True, "liveness": False}  # fmt: skip
    expect(page.locator("#autoMode")).to_have_value("off")
    # The key profile is the host's (one per archive), not this browser's stored default.
    expect(page.locator("#profile")).to_have_value("aggressive")

    page.locator("input[name=historyUse]").click()
    page.locator("textarea[name=excluded]").fill("Bank.example\n\nmail.example.com ")
    page.locator("textarea[name=excluded]").dispatch_event("change")
    page.select_option("#profile", "safe")
    expect(page.locator("#profile-note")).to_have_text(
        "Done: 3 archived versions regrouped, 2 pages now."
    )
    page.select_option("#autoMode", "older")
    page.locator("#autoDays").fill("30")
    page.locator("#autoDays").dispatch_event("change")
    expect(page.locator("#saved")).to_have_text("Saved.")
    page.wait_for_timeout(200)
    writes = of_type(sent, "sync.set")
    assert all(len(w) == 1 for w in writes)  # each control writes its own setting only
    merged = {k: v for w in writes for k, v in w.items()}
    assert merged == {
        "historyUse": False,
        "excluded": ["bank.example", "mail.example.com"],
        "profile": "safe",
        "autoArchive": {"mode": "older", "days": 30, "sites": []},
    }
    page.locator("#viewer-link").click()
    page.wait_for_timeout(200)
    assert of_type(sent, "tabs.create") == [{"url": VIEWER["result"]["url"]}]
    assert of_type(sent, "key_profile") == [{}, {"profile": "safe"}]


@pytest.mark.parametrize(
    ("field", "typed", "kept"),
    [("resourceMB", "-5", 1), ("pageMB", "99999", 20000), ("resourceMB", "2.6", 3)],
)
def test_a_number_setting_is_kept_whole_within_its_fields_range(open_page, field, typed, kept):
    """A size cap out of its field's min..max (or not whole) is saved as the
    nearest allowed whole number, and the field shows what was saved."""
    page, sent = open_page("options/options.html", {})
    page.wait_for_selector("html[data-ready=true]")
    page.locator(f"#{field}").fill(typed)
    page.locator(f"#{field}").dispatch_event("change")
    expect(page.locator("#saved")).to_have_text("Saved.")
    expect(page.locator(f"#{field}")).to_have_value(str(kept))
    name = page.locator(f"#{field}").get_attribute("name")
    group, key = name.split(".")
    assert of_type(sent, "sync.set")[-1][group][key] == kept


def test_options_without_the_host(open_page):
    missing = {"installed": False, "error": {"code": "host_missing", "message": "not found"}}
    page, _ = open_page("options/options.html", {"host_status": {"ok": True, "result": missing}})
    expect(page.locator("html")).to_have_attribute("data-host", "missing")
    expect(page.locator("#host-status")).to_have_text("Not installed")
    expect(page.locator("#host-help")).to_be_visible()
    assert_runs_as_readme_says(page.locator("#host-help .install").inner_text())


def test_options_with_the_host_installed_but_stopped_say_why_not_how_to_install(open_page):
    paused = {"installed": True, "error": {"code": "unavailable", "message":
              "PageKeeper is stopped until the next login (pagekeeper stop --until-login)"}}  # fmt: skip
    page, _ = open_page("options/options.html", {"host_status": {"ok": True, "result": paused}})
    expect(page.locator("html")).to_have_attribute("data-host", "missing")
    expect(page.locator("#host-status")).to_have_text(
        re.compile(r"^Installed, but not answering: PageKeeper is stopped until the next login")
    )
    expect(page.locator("#host-help")).to_be_hidden()


@pytest.mark.parametrize(
    ("state", "says"),
    [
        ("unreachable", "could not reach this site"),
        ("too_large", "too large for PageKeeper to check"),
        ("unknown", "no text of this page to compare with"),
    ],
)
def test_popup_shows_a_check_that_judged_nothing_with_its_reason_never_as_gone(
    open_page, state, says
):
    reason = {
        "unreachable": "the server refused the connection; the site may only be down",
        "too_large": "the live page is larger than the 50 MB cap, so it was not checked",
        "unknown": "the stored copy has no main text to compare with, so it was not judged",
    }[state]
    verdict = {"state": state, "reason": reason, "checked_at": "2026-11-21T22:00:00Z"}
    replies = {
        "versions": {"ok": True, "result": VERSIONS},
        "liveness": {"ok": True, "result": verdict},
    }
    page, sent = open_page("popup/popup.html?tab=4", replies)
    notice = page.locator("#liveness")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text(says)
    expect(notice).to_contain_text(f"{reason}.")
    expect(notice).to_contain_text("2026")
    expect(notice).not_to_contain_text("no longer on this page")
    expect(page.locator("#soft-404")).to_have_count(0)
    assert of_type(sent, "liveness") == [{"tabId": 4, "url": "https://docs.example/guide"}]


INSTALL_LOOK = """() => {
  const box = document.querySelector('.install');
  const code = box.matches('code') ? box : box.querySelector('code');
  const b = getComputedStyle(box), c = getComputedStyle(code);
  return { display: b.display, background: b.backgroundColor, padding: b.padding, radius: b.borderRadius,
           select: b.userSelect, whiteSpace: b.whiteSpace, font: c.fontFamily, weight: c.fontWeight,
           size: c.fontSize, width: box.getBoundingClientRect().width };
}"""


def test_the_install_hint_is_one_command_block_on_every_page(open_page):
    """The helper's install command looks the same on the error page, the popup and the options
    page: a block of its own, shaded, in the monospace font, selected whole by a click."""
    missing = {"ok": False, "error": {"code": "host_missing", "message": "not found"}}
    pages = {
        "error": ("error/error.html?url=http%3A%2F%2Fa.example%2F&error=net%3A%3AERR_NAME_NOT_RESOLVED",
                  {"nav_error_result": {"ok": True, "result": {"host": False, "error": missing["error"]}}},
                  "#missing"),
        "popup": ("popup/popup.html?tab=4", {"versions": missing}, "#missing"),
        "options": ("options/options.html", {"host_status": {"ok": True, "result": {
            "installed": False, "error": missing["error"]}}}, "#host-help"),
    }  # fmt: skip
    looks = {}
    for name, (path, replies, section) in pages.items():
        page, _ = open_page(path, replies)
        expect(page.locator(f"{section} .install")).to_be_visible()
        looks[name] = page.evaluate(INSTALL_LOOK)
    for name, look in looks.items():
        assert look["display"] == "block", (name, look)
        assert look["background"] not in ("rgba(0, 0, 0, 0)", "transparent"), (name, look)
        assert look["padding"] == "10px 14px" and look["radius"] == "8px", (name, look)
        assert look["select"] == "all" and look["whiteSpace"] == "pre", (name, look)
        assert "mono" in look["font"].lower() and look["weight"] == "600", (name, look)
        assert look["width"] > 150, (name, look)  # a block, not a word squeezed into a line
    shared = {k: v for k, v in looks["error"].items() if k != "width"}
    for name in ("popup", "options"):
        assert {k: v for k, v in looks[name].items() if k != "width"} == shared, name
