"""The real error page (extension/error/) with a scripted background, in plain headless Chromium:
the large button only for a suggestion scored >= 0.5, `suggestion_taken` sent when the user takes
it (and `taken: false` when they pass it over), the archived copy's button, and the page without
the host (how to install it, and the local fixes). test_chromium.py runs the same page for real.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from tests.extension.conftest import assert_runs_as_readme_says

pytestmark = pytest.mark.browser

# The page's only channel is runtime.sendMessage; every message goes to Python (`record`, which
# survives the navigation a taken suggestion starts) and nav_error_result gets the scripted answer.
FAKE_RUNTIME = """
  globalThis.browser = { runtime: {
    id: 'pk-test', getURL: (p) => 'chrome-extension://pk-test/' + p,
    async sendMessage(message) {
      await globalThis.record(message);
      if (message.type === 'nav_error_result') return { ok: true, result: ANSWER };
      return { ok: true, result: { url: location.origin + '/icons/icon.svg' } };
    } } };
"""


@pytest.fixture
def error_page(chromium, modules_url):
    """open(answer, url, error) → the page showing that failure, and the messages it sent."""
    context = chromium.new_context()
    sent: list[dict] = []
    context.expose_function("record", lambda message: sent.append(message))
    pages = []

    def open_page(
        answer: dict, url: str = "http://gooogle.com/", error="net::ERR_NAME_NOT_RESOLVED"
    ):
        page = context.new_page()
        page.add_init_script(FAKE_RUNTIME.replace("ANSWER", json.dumps(answer)))
        query = urlencode({"url": url, "error": error, "key": "k1", "t": "1795298400000"})
        page.goto(f"{modules_url}/error/error.html?{query}")
        expect(page.locator("html")).to_have_attribute("data-state", re.compile("."))
        pages.append(page)
        return page, sent

    yield open_page
    context.close()


def suggestion(url: str, score: float) -> dict:
    return {"url": url, "score": score, "step": "spelling", "reason": "one letter too many"}


def test_a_sure_repair_is_the_big_button_and_taking_it_is_reported(error_page, modules_url):
    target = f"{modules_url}/icons/icon.svg?google"
    answer = {"host": True, "result": {"confident": 0.5, "suggestions": [suggestion(target, 0.5),
                                                       suggestion("http://gogle.com/", 0.2)]}}  # fmt: skip
    page, sent = error_page(answer)
    expect(page.locator("#title")).to_have_text("This address does not exist")
    expect(page.locator("#failed-url")).to_have_text("http://gooogle.com/")
    expect(page.locator(".did-you-mean")).to_have_attribute("href", target)
    expect(page.locator("#others-list .url")).to_have_text(["gogle.com"])
    page.locator(".did-you-mean").click()
    expect(page).to_have_url(target)
    taken = [m["params"] for m in sent if m["type"] == "suggestion_taken"]
    assert taken == [{"url": "http://gooogle.com/", "suggestion": target, "step": "spelling",
                      "score": 0.5, "rank": 0, "taken": True, "retried": False}]  # fmt: skip
    request = next(m["params"] for m in sent if m["type"] == "nav_error_result")
    assert request == {"url": "http://gooogle.com/", "error": "net::ERR_NAME_NOT_RESOLVED",
                       "key": "k1", "time": 1795298400000}  # fmt: skip


def test_below_half_there_is_no_big_button(error_page):
    answer = {
        "host": True,
        "result": {"confident": 0.5, "suggestions": [suggestion("http://google.com/", 0.49)]},
    }
    page, _ = error_page(answer)
    expect(page.locator("#best")).to_be_hidden()
    expect(page.locator(".did-you-mean")).to_have_count(0)
    expect(page.locator("#others-title")).to_have_text("Possible addresses")
    expect(page.locator("#others-list .url")).to_have_text(["google.com"])


def test_passing_over_the_best_suggestion_is_reported_as_not_taken(error_page):
    answer = {
        "host": True,
        "result": {"confident": 0.5, "suggestions": [suggestion("http://google.com/", 0.9)]},
    }
    page, sent = error_page(answer)
    page.locator("#retry").click()
    expect(page.locator("#retry")).to_be_enabled()
    page.wait_for_timeout(200)
    kinds = [(m["type"], m["params"].get("taken")) for m in sent if m["type"] != "nav_error_result"]
    assert ("suggestion_taken", False) in kinds and ("retry", None) in kinds
    # "Try again" is a retry (weak evidence for the host's learning), not a rejection
    (report,) = [m["params"] for m in sent if m["type"] == "suggestion_taken"]
    assert report["retried"] is True and report["suggestion"] == "http://google.com/"


def test_the_archived_copy_gets_its_own_button(error_page):
    copy = {"id": "a1", "url": "http://s.example/gone", "registered_at": "2026-11-20T10:00:00Z",
            "version_url": "http://127.0.0.1:1/v/a1/http://s.example/gone"}  # fmt: skip
    similar = [  # the host lists similar pages by version: one page archived twice comes twice
        {
            "id": "r2",
            "key": "http://s.example/river",
            "url": "http://s.example/river",
            "similarity": 0.96,
        },
        {
            "id": "r1",
            "key": "http://s.example/river",
            "url": "http://s.example/river",
            "similarity": 0.95,
        },
        {
            "id": "o1",
            "key": "http://s.example/other",
            "url": "http://s.example/other",
            "similarity": 0.6,
        },
    ]
    answer = {
        "host": True,
        "result": {"confident": 0.5, "suggestions": [], "archived": [copy], "similar": similar},
    }
    page, _ = error_page(answer, "http://s.example/gone", "HTTP 404")
    expect(page.locator("#similar-list .url")).to_have_text(
        [re.compile(r"^s\.example/river"), re.compile(r"^s\.example/other")]
    )
    expect(page.locator("#title")).to_have_text("This page is not on the server")
    expect(page.locator("#open-archived")).to_have_text(
        re.compile(r"^Open my archived copy \(.*2026.*\)$")
    )
    expect(page.locator("#retry")).to_have_text("Show the server’s page")


def test_older_copies_are_links_named_by_their_time(error_page):
    """Each older copy is one link whose text is its time: no raw daemon address, no stray
    comma from a list turned into text, and copies saved within one minute told apart."""

    def copy(ident: str, at: str) -> dict:
        return {"id": ident, "url": "http://s.example/gone", "registered_at": at,
                "version_url": f"http://127.0.0.1:1/v/{ident}/http://s.example/gone"}  # fmt: skip

    copies = [copy("c3", "2026-11-20T10:00:40Z"), copy("c2", "2026-11-20T10:00:20Z"),
              copy("c1", "2026-11-19T08:00:00Z")]  # fmt: skip
    answer = {"host": True, "result": {"confident": 0.5, "suggestions": [], "archived": copies}}
    page, _ = error_page(answer, "http://s.example/gone", "HTTP 404")
    older = page.locator(".archived-more a")
    expect(older).to_have_count(2)
    assert older.evaluate_all("(as) => as.map((a) => a.href)") == [
        c["version_url"] for c in copies[1:]
    ]
    line = page.locator(".archived-more").inner_text()
    assert "http" not in line, line
    assert re.fullmatch(r"Older: [^·,][^·]* · [^·,][^·]*", line), line  # no stray comma
    # the newest and the older copy of the same minute are told apart (seconds shown)
    newest = page.locator("#open-archived").inner_text()
    assert older.first.inner_text() not in newest, (newest, older.first.inner_text())


# The text of each line an element's text is laid out in (by the top of each character's box).
LINES = """(el) => {
  const text = el.textContent, range = document.createRange(), lines = [];
  let node = el, offset = 0, top = null;
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  while ((node = walker.nextNode())) {
    for (offset = 0; offset < node.length; offset++) {
      range.setStart(node, offset); range.setEnd(node, offset + 1);
      const y = Math.round(range.getBoundingClientRect().top);
      if (y !== top) { lines.push(''); top = y; }
      lines[lines.length - 1] += node.data[offset];
    }
  }
  return lines;
}"""


def test_a_long_name_on_the_big_button_breaks_only_after_a_dot_in_a_narrow_window(error_page):
    """At 360 px "books.toscrape.com" does not fit on one line: it wraps after a dot
    ("books.toscrape." / "com"), never inside a name ("books.toscrape.c" / "om")."""
    answer = {"host": True, "result": {"confident": 0.5, "suggestions": [
        suggestion("http://books.toscrape.com/", 0.99)]}}  # fmt: skip
    page, _ = error_page(answer, "http://bookz.toscrape.com/")
    page.set_viewport_size({"width": 360, "height": 700})
    lines = page.locator(".did-you-mean .target").evaluate(LINES)
    assert "".join(lines) == "books.toscrape.com" and len(lines) > 1, lines
    assert all(line.endswith(".") for line in lines[:-1]), lines


def test_opening_the_archived_copy_says_nothing_about_the_suggestion(error_page, modules_url):
    """A user who opens their copy (or a similar page's) has not said the big button was wrong:
    no `suggestion_taken` goes to the host's learning, neither a rejection nor a retry."""
    copy_url = f"{modules_url}/icons/icon.svg?copy"
    copy = {"id": "a1", "url": "http://gooogle.com/", "registered_at": "2026-11-20T10:00:00Z",
            "version_url": copy_url}  # fmt: skip
    similar = [{"id": "s1", "key": "http://gooogle.com/b", "url": "http://gooogle.com/b",
                "version_url": copy_url + "-similar", "similarity": 0.9}]  # fmt: skip
    answer = {"host": True, "result": {"confident": 0.5, "archived": [copy], "similar": similar,
                                       "suggestions": [suggestion("http://google.com/", 0.9)]}}  # fmt: skip
    for button in ("#open-archived", "#similar-list a"):
        page, sent = error_page(answer)
        expect(page.locator(".did-you-mean")).to_be_visible()
        page.locator(button).click()
        expect(page).to_have_url(re.compile(r"/icons/icon\.svg"))
        page.wait_for_timeout(400)  # a report gets 300 ms before the page moves on
        kinds = [m["type"] for m in sent]
        assert "open_copy" in kinds and "suggestion_taken" not in kinds, (button, kinds)
        sent.clear()


def test_without_the_host_it_says_how_to_install_and_offers_local_fixes(error_page):
    answer = {"host": False, "error": {"code": "host_missing",
                                       "message": "Specified native messaging host not found."}}  # fmt: skip
    page, _ = error_page(answer, "http://ww.example.con/a")
    expect(page.locator("#missing")).to_be_visible()
    expect(page.locator("#missing .install")).to_be_visible()
    assert_runs_as_readme_says(page.locator("#missing .install").inner_text())
    expect(page.locator("#missing-detail")).to_contain_text("not found")
    expect(page.locator("#others-title")).to_have_text("Quick fixes to try")
    fixes = page.locator("#others-list a").evaluate_all("(as) => as.map((a) => a.href)")
    assert fixes[0] == "http://ww.example.com/a"  # the TLD typo first
    assert "http://www.example.con/a" in fixes and "https://ww.example.con/a" in fixes
    expect(page.locator(".did-you-mean")).to_have_count(0)


def test_a_helper_that_did_not_answer_in_time_is_said_in_words_with_what_to_do(error_page):
    """A lookup that timed out (the helper starting on a busy machine) says so in words and
    what to do, not the request's internals ("no answer to nav_error in 4000 ms")."""
    answer = {"host": False, "error": {"code": "timeout",
                                       "message": "no answer to nav_error in 4000 ms"}}  # fmt: skip
    page, _ = error_page(answer, "http://gooogle.com/")
    expect(page.locator("#trouble")).to_be_visible()
    text = page.locator("#trouble").inner_text()
    assert "nav_error" not in text and " ms" not in text, text
    assert "did not answer" in text and "Try again" in text, text
    expect(page.locator("#others-title")).to_have_text("Quick fixes to try")


def test_firefox_s_error_number_is_shown_by_its_name(error_page):
    """Firefox reports a DNS failure as "Error code 2152398878": the page shows its name."""
    answer = {"host": True, "result": {"confident": 0.5, "suggestions": []}}
    page, _ = error_page(answer, "http://gooogle.com/", "Error code 2152398878")
    expect(page.locator("#title")).to_have_text("This address does not exist")
    expect(page.locator("#error-code")).to_have_text("NS_ERROR_UNKNOWN_HOST")
    page, _ = error_page(answer, "http://gooogle.com/", "net::ERR_NAME_NOT_RESOLVED")
    expect(page.locator("#error-code")).to_have_text("net::ERR_NAME_NOT_RESOLVED")


def test_a_soft_404_says_the_archived_content_is_gone(error_page):
    copy = {"id": "a1", "url": "http://s.example/kept", "registered_at": "2026-11-20T10:00:00Z",
            "version_url": "http://127.0.0.1:1/v/a1/http://s.example/kept"}  # fmt: skip
    answer = {
        "host": True,
        "result": {"confident": 0.5, "suggestions": [], "archived": [copy], "similar": []},
    }
    page, _ = error_page(answer, "http://s.example/kept", "soft_404")
    expect(page.locator("#title")).to_have_text("The page you archived is gone")
    # no browser said "soft_404": that is PageKeeper's own name, not a code to show a user
    expect(page.locator("#error-code")).to_be_empty()
    expect(page.locator("#open-archived")).to_be_visible()
    expect(page.locator("#retry")).to_have_text("Show the server’s page")
