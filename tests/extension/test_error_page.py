"""The real error page (extension/error/) with a scripted background, in plain headless Chromium:
the large button only for a suggestion scored >= 0.5, `suggestion_taken` sent when the user takes
it (and `taken: false` when they pass it over), the archived copy's button, and the page without
the host (how to install it, and the local fixes). test_chromium.py runs the same page for real.
"""

from __future__ import annotations

import json
import re
import time
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from tests.extension.conftest import assert_runs_as_readme_says

pytestmark = pytest.mark.browser

# The page's only channel is runtime.sendMessage; every message goes to Python (`record`, which
# survives the navigation a taken suggestion starts) and nav_error_result gets the scripted answer.
# BACKGROUND changes one message type's answer: {type: {fail: message}} rejects it (no background
# to answer), {type: {delay: ms}} answers it that late and records {type: 'answered'} then.
FAKE_RUNTIME = """
  const background = BACKGROUND;
  globalThis.browser = { runtime: {
    id: 'pk-test', getURL: (p) => 'chrome-extension://pk-test/' + p,
    async sendMessage(message) {
      await globalThis.record(message);
      const how = background[message.type] ?? {};
      if (how.fail) throw new Error(how.fail);
      if (how.delay) {
        await new Promise((resolve) => setTimeout(resolve, how.delay));
        await globalThis.record({ type: 'answered', params: { to: message.type } });
      }
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
        answer: dict,
        url: str = "http://gooogle.com/",
        error="net::ERR_NAME_NOT_RESOLVED",
        t: int = 1795298400000,
        background: dict | None = None,
    ):
        page = context.new_page()
        script = FAKE_RUNTIME.replace("BACKGROUND", json.dumps(background or {}))
        page.add_init_script(script.replace("ANSWER", json.dumps(answer)))
        query = urlencode({"url": url, "error": error, "key": "k1", "t": str(t)})
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
    assert report["rank"] == 0 and report["taken"] is False


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
        # the background takes a moment to answer: the page waits for its address
        page, sent = error_page(answer, background={"open_copy": {"delay": 100}})
        expect(page.locator(".did-you-mean")).to_be_visible()
        page.locator(button).click()
        # the background's address (the daemon's, with its token), not the version's own
        expect(page).to_have_url(f"{modules_url}/icons/icon.svg")
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


def test_the_tab_s_title_and_the_words_name_the_failure_and_its_host(error_page):
    """A name that does not resolve: the tab's title says it, the detail names the host, and
    the button is a plain retry (only an HTTP status or a soft 404 shows the server's page)."""
    page, _ = error_page({"host": True, "result": {"confident": 0.5, "suggestions": []}})
    expect(page).to_have_title("This address does not exist · PageKeeper")
    expect(page.locator("#detail")).to_have_text(re.compile(r"under the name gooogle\.com\."))
    expect(page.locator("#retry")).to_have_text("Try again")
    expect(page.locator("#searching")).to_be_hidden()  # the host answered: no longer looking
    for empty in ("#best", "#archived", "#similar"):  # nothing found: no empty sections
        expect(page.locator(empty)).to_be_hidden()


def test_the_page_marks_how_long_after_the_error_it_was_on_screen(error_page):
    before = int(time.time() * 1000) - 2000  # the error happened 2 s before the page opened
    page, _ = error_page({"host": True, "result": {"confident": 0.5, "suggestions": []}}, t=before)
    shown = int(page.locator("html").get_attribute("data-shown-ms"))
    assert 2000 <= shown < 2000 + 60_000, shown


def test_a_background_that_cannot_answer_is_said_and_the_quick_fixes_are_offered(error_page):
    """runtime.sendMessage rejects when no background listens (the worker failed to start): the
    page says so with the browser's words, stops looking, and offers what needs no host."""
    gone = "Could not establish connection. Receiving end does not exist."
    page, _ = error_page(
        {"host": True, "result": {}},
        "http://gooogle.con/",
        background={"nav_error_result": {"fail": gone}},
    )
    expect(page.locator("html")).to_have_attribute("data-state", "failed")
    expect(page.locator("#trouble")).to_be_visible()
    expect(page.locator("#trouble-detail")).to_have_text(f"Error: {gone}")
    expect(page.locator("#searching")).to_be_hidden()
    expect(page.locator("#others-title")).to_have_text("Quick fixes to try")
    expect(page.locator("#others-list a").first).to_have_attribute("href", "http://gooogle.com/")


ONE_COPY = {"id": "a", "url": "http://gooogle.com/", "version_url": "http://127.0.0.1:1/v/a/x",
            "registered_at": "2026-11-20T10:00:00Z"}  # fmt: skip
ONE_SIMILAR = {"id": "s", "key": "http://gooogle.com/b", "url": "http://gooogle.com/b",
               "similarity": 0.9}  # fmt: skip


@pytest.mark.parametrize(
    ("found", "listed"),
    [
        ({}, "Quick fixes to try"),
        ({"suggestions": [suggestion("http://google.com/", 0.9)]}, None),  # the big button alone
        ({"suggestions": [suggestion("http://google.com/", 0.2)]}, "Possible addresses"),
        ({"archived": [ONE_COPY]}, None),
        ({"similar": [ONE_SIMILAR]}, None),
    ],
)
def test_quick_fixes_come_only_when_the_host_found_nothing(error_page, found, listed):
    """Local fixes are for an answer with nothing in it; a big button with no runner-up, or
    only copies, shows no list of addresses at all."""
    page, _ = error_page({"host": True, "result": {"confident": 0.5, **found}})
    if listed is None:
        expect(page.locator("#others")).to_be_hidden()
    else:
        expect(page.locator("#others")).to_be_visible()
        expect(page.locator("#others-title")).to_have_text(listed)
    if listed == "Quick fixes to try":
        expect(page.locator("#others-list .url").first).to_have_text("https://gooogle.com")


def _taken_rank(page, sent, choice) -> int:
    """Click the choice and return the rank `suggestion_taken` reported for it."""
    page.locator(choice).click(no_wait_after=True)
    for _ in range(50):
        taken = [m["params"] for m in sent if m["type"] == "suggestion_taken"]
        if taken:
            sent.clear()
            return taken[0]["rank"]
        page.wait_for_timeout(50)
    raise AssertionError(f"no suggestion_taken after clicking {choice}: {sent}")


def test_each_choice_is_reported_with_its_place_on_the_page(error_page, modules_url):
    """The rank the host learns from is the place the user saw: the big button is 0, the
    list under it counts on from 1; with no big button the list starts at 0; quick fixes too."""
    there = f"{modules_url}/icons/icon.svg"
    three = {"host": True, "result": {"confident": 0.5, "suggestions": [
        suggestion(f"{there}?a", 0.9), suggestion(f"{there}?b", 0.3), suggestion(f"{there}?c", 0.2)]}}  # fmt: skip
    page, sent = error_page(three)
    assert _taken_rank(page, sent, "#others-list li:nth-child(2) a") == 2
    below = {"host": True, "result": {"confident": 0.5, "suggestions": [
        suggestion(f"{there}?b", 0.3), suggestion(f"{there}?c", 0.2)]}}  # fmt: skip
    page, sent = error_page(below)
    assert _taken_rank(page, sent, "#others-list li:nth-child(1) a") == 0
    page, sent = error_page({"host": True, "result": {"confident": 0.5}}, "http://gooogle.con/")
    assert _taken_rank(page, sent, "#others-list li:nth-child(2) a") == 1
    missing = {"host": False, "error": {"code": "host_missing", "message": "not found"}}
    page, sent = error_page(missing, "http://gooogle.con/")
    assert _taken_rank(page, sent, "#others-list li:nth-child(1) a") == 0


def test_taking_a_choice_waits_for_the_host_to_hear_it_but_not_past_300_ms(error_page, modules_url):
    """The report of a taken suggestion is what the host learns from: the page moves on when the
    background answered it (150 ms here), and after 300 ms whatever happens."""
    target = f"{modules_url}/icons/icon.svg?google"
    answer = {"host": True, "result": {"confident": 0.5, "suggestions": [suggestion(target, 0.9)]}}
    for delay, heard in ((150, True), (2000, False)):
        page, sent = error_page(answer, background={"suggestion_taken": {"delay": delay}})
        started = time.monotonic()
        page.locator(".did-you-mean").click()
        expect(page).to_have_url(target)
        took = time.monotonic() - started
        answered = [m for m in sent if m["type"] == "answered"]
        assert bool(answered) is heard, (delay, sent)
        assert took < 1.5, took  # never the background's 2 s
        sent.clear()


def test_the_big_button_says_why_and_how_sure(error_page):
    answer = {
        "host": True,
        "result": {"confident": 0.5, "suggestions": [suggestion("http://google.com/", 0.734)]},
    }
    page, _ = error_page(answer)
    expect(page.locator("#best .why")).to_have_text("one letter too many · confidence 73%")


@pytest.mark.parametrize(
    ("target", "host", "path"),
    [
        ("http://google.com/maps?q=1", "google.com", "/maps?q=1"),
        ("http://google.com/", "google.com", None),
        ("https://google.com/", "https://google.com", None),  # the scheme is what changed
        ("https://google.com/a", "https://google.com", "/a"),
    ],
)
def test_the_big_button_shows_the_host_large_and_the_path_on_a_line_of_its_own(
    error_page, target, host, path
):
    answer = {"host": True, "result": {"confident": 0.5, "suggestions": [suggestion(target, 0.9)]}}
    page, _ = error_page(answer)
    expect(page.locator(".did-you-mean .target")).to_have_text(host)
    paths = page.locator(".did-you-mean .target-path")
    if path is None:
        expect(paths).to_have_count(0)
    else:
        expect(paths).to_have_text(path)


def test_each_choice_shows_its_address_and_its_score_as_a_meter(error_page):
    """A choice on the failed URL's scheme is shown without it; another scheme is shown whole.
    The meter's width is the score in percent, at least 4 % so that a low score still shows."""
    answer = {"host": True, "result": {"confident": 0.5, "suggestions": [
        suggestion("http://google.com/", 0.434), suggestion("https://gooogle.com/", 0.001),
        {"url": "http://gooogle.org/", "step": "tld"}]}}  # fmt: skip
    page, _ = error_page(answer)
    expect(page.locator("#others-list .url")).to_have_text(
        ["google.com", "https://gooogle.com", "gooogle.org"]
    )
    meters = page.locator("#others-list .meter")
    expect(meters).to_have_count(2)  # no score, no meter
    said = "(ms) => ms.map((m) => [m.title, m.ariaLabel, m.firstChild.style.width])"
    assert meters.evaluate_all(said) == [
        ["score 0.43", "score 0.43", "43%"],  # a screen reader says it too
        ["score 0.00", "score 0.00", "4%"],
    ]


def _copy(ident: str, minute: int) -> dict:
    return {"id": ident, "url": "http://s.example/gone", "registered_at": f"2026-11-20T10:{minute:02}:00Z",
            "version_url": f"http://127.0.0.1:1/v/{ident}/http://s.example/gone"}  # fmt: skip


def test_six_archived_copies_are_shown_the_newest_as_the_button_and_the_count_of_all(error_page):
    copies = [_copy(f"c{i}", 50 - i) for i in range(8)]
    answer = {"host": True, "result": {"confident": 0.5, "suggestions": [], "archived": copies}}
    page, _ = error_page(answer, "http://s.example/gone", "HTTP 404")
    expect(page.locator("#archived")).to_be_visible()
    expect(page.locator("#archived-body .muted")).to_have_text("newest of 8 versions")
    older = page.locator(".archived-more a")
    assert older.evaluate_all("(as) => as.map((a) => a.href)") == [
        c["version_url"] for c in copies[1:6]
    ]
    answer["result"]["archived"] = copies[:1]
    page, _ = error_page(answer, "http://s.example/gone", "HTTP 404")
    expect(page.locator("#archived-body .muted")).to_have_text("the only version you saved")
    expect(page.locator(".archived-more")).to_have_count(0)


def test_six_similar_pages_are_shown_each_with_how_alike_it_is(error_page):
    similar = [{"id": f"s{i}", "key": f"http://s.example/{i}", "url": f"http://s.example/{i}",
                "similarity": 0.96 - i / 100} for i in range(8)]  # fmt: skip
    similar[1].pop("similarity")
    answer = {"host": True, "result": {"confident": 0.5, "suggestions": [], "similar": similar}}
    page, _ = error_page(answer, "http://s.example/gone", "HTTP 404")
    expect(page.locator("#similar")).to_be_visible()
    items = page.locator("#similar-list li")
    expect(items).to_have_count(6)
    expect(items.first.locator(".why")).to_have_text("96% alike")
    expect(items.nth(1).locator(".why")).to_have_count(0)  # no figure, no words
