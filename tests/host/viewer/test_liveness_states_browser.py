"""A stored copy with no main text in the viewer, in real Chromium against a real daemon (own
module: it adds a document to the seeded archive, whose fixtures are module-scoped)."""

from __future__ import annotations

import pytest

from engine.archive import registry
from engine.archive.model import Capture, RegisterOptions
from engine.archive.store import ArchiveStore
from tests.conftest import capture_dev_body
from tests.host.viewer.conftest import ARTICLE, T0, free_port, page_bytes, seed

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


def app_shell() -> bytes:
    """The real article's <head> over an empty root a script fills in: no text was saved."""
    page = page_bytes(ARTICLE).decode("utf-8")
    head = page[: page.lower().index("<body")]
    return (head + "<body><div id='root'></div></body></html>").encode("utf-8")


@pytest.fixture(scope="module")
def seeded(tmp_path_factory, live_site):
    home = tmp_path_factory.mktemp("viewer-home")
    port = free_port()
    result = seed(home, live_site, f"http://127.0.0.1:{port}")
    result.port = port
    url = live_site.url("/app.html")
    live_site.pages["/app.html"] = page_bytes(ARTICLE)  # the live page shows the whole text
    store = ArchiveStore.open(home)
    try:
        options = RegisterOptions(base=f"http://127.0.0.1:{port}", now=T0, similar_budget_s=2.0)
        result.shell_id = registry.register(store, Capture(url, app_shell()), options).id
        books = capture_dev_body("http://books.toscrape.com/")
        result.books_id = None
        if books is not None:  # the live page is the stored one, byte for byte
            live_site.pages["/books.html"] = books
            capture = Capture(live_site.url("/books.html"), books)
            result.books_id = registry.register(store, capture, options).id
    finally:
        store.close()
    return result


def test_a_copy_without_main_text_shows_nothing_to_compare(page, daemon, seeded):
    """Check now on it: 'nothing to compare' with the reason, no P and no keyword list, on the
    card, in the toast and in the liveness view; never counted as gone."""
    page.goto(daemon.viewer(f"#/doc/{seeded.shell_id}"))
    expect(page.locator("#conn")).to_have_text("live")
    page.get_by_role("button", name="Check now").click()
    expect(page.locator(".toast").first).to_contain_text("Nothing to compare: ")
    expect(page.locator("#live-state")).to_have_text("nothing to compare")
    card = page.locator(".liveness-card")
    expect(card).to_contain_text("the stored copy has no main text to compare with")
    expect(card.locator(".keywords")).to_have_count(0)
    expect(card.locator(".bar")).to_have_count(0)
    page.get_by_role("link", name="Liveness").click()
    expect(page.locator('#live-counts [data-state="unknown"]')).to_have_text("1")
    expect(page.locator('#live-counts [data-state="gone"]')).to_have_text("0")
    expect(page.locator("#live-counts")).to_contain_text("nothing to compare")
    row = page.locator(".grid-checks tbody tr", has_text="nothing to compare")
    expect(row).to_have_count(1)
    expect(row.locator("td.num")).to_have_text("–")


def test_the_card_shows_the_figure_that_decided_the_verdict(page, daemon, seeded):
    """books.toscrape.com (capture-dev) checked while the live page is the same: the card's
    figure is named for what decided it (the keywords' P, 100%), and the reason leads with it;
    the phrase share (about a fifth: a listing's short lines split its phrases) is named as not
    decisive, never beside "present" as if it were the page's share."""
    if seeded.books_id is None:
        pytest.skip("capture-dev not in the shared data")
    page.goto(daemon.viewer(f"#/doc/{seeded.books_id}"))
    expect(page.locator("#conn")).to_have_text("live")
    page.get_by_role("button", name="Check now").click()
    expect(page.locator(".toast").first).to_contain_text(
        "Live page: present (Keywords found (P): 100%)"
    )
    expect(page.locator("#live-state")).to_have_text("present")
    card = page.locator(".liveness-card")
    expect(card.locator("#live-figure")).to_contain_text("Keywords found (P)")
    expect(card.get_by_role("meter", name="Keywords found (P)")).to_have_attribute(
        "aria-valuenow", "100"
    )
    expect(card).to_contain_text(
        "decided by the keywords: 13/13 keywords found, P=100%; not decisive: "
    )
    expect(card).to_contain_text(
        "of the stored text's phrases found within one block of the live page"
    )
    page.get_by_role("link", name="Liveness").click()  # the report's row: the same figure, named
    row = page.locator(".grid-checks tbody tr", has_text="books.html")
    expect(row.locator("td.num")).to_have_text("P 100%")
    expect(row.locator("td.num abbr")).to_have_attribute("title", "Keywords found (P)")


def test_the_figure_shown_is_the_deciding_one_for_every_decider(page, daemon, seeded):
    """The viewer's own module on each kind of verdict: a state the phrases, the shown text or the
    address decided shows their figure, not P; a status has no figure; a check stored before
    ``decided_by`` existed shows P, named as P."""
    page.goto(daemon.viewer("#/"))
    expect(page.locator("#conn")).to_have_text("live")
    cases = [
        {"decided_by": "keywords", "figure": 1.0, "match": 1.0},
        {"decided_by": "phrases", "figure": 0.05, "match": 1.0},
        {"decided_by": "shown", "figure": 0.97, "match": 0.54},
        {"decided_by": "address", "figure": 0.2, "match": 0.9},
        {"decided_by": "status", "figure": None, "match": 0.0},
        {"match": 0.7},
    ]
    got = page.evaluate(
        """async (cases) => {
          const m = await import(new URL('views/document.js', document.baseURI).href);
          return cases.map((c) => m.decidingFigure(c));
        }""",
        cases,
    )
    assert [g and g["value"] for g in got] == [1.0, 0.05, 0.97, 0.2, None, 0.7]
    assert got[0]["label"] == got[5]["label"] == "Keywords found (P)"
    assert [g["short"] for g in got[:4]] == ["P", "S", "shown", "address"]
    assert len({g["label"] for g in got[:4]}) == 4
