"""The viewer's full-text search in relevance order (BM25) with marked snippets, and the sort
switched to newest first and back, in real Chromium against a real daemon (own module: it
adds pages to the module's seeded archive)."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

PAGES = [  # oldest first; the oldest is the best match, the newest the second best
    ("kingfisher-field-guide", "Kingfisher", "The kingfisher dives. A kingfisher nests by rivers."),
    ("river-walk", "A river walk", "Herons, ducks and, once, a kingfisher by the weir."),
    ("pond-notes", "Pond notes", "A kingfisher came twice; the kingfisher fished the pond."),
]


def html(title: str, body: str) -> str:
    prose = " ".join(["The path runs along the water for a while."] * 6)
    return (
        f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
        f"<p>{body}</p><p>{prose}</p></article></body></html>"
    )


@pytest.fixture(scope="module")
def birds(daemon):
    urls = []
    for slug, title, body in PAGES:
        url = f"https://birds.example/{slug}"
        daemon.result("archive_page", {"url": url, "html": html(title, body)})
        urls.append(url)
    return urls


def result_urls(page) -> list[str]:
    return page.locator(".results .result-url").all_inner_texts()


def test_full_text_results_come_best_first_and_sort_by_newest_on_request(page, daemon, birds):
    oldest, middle, newest = birds
    page.goto(daemon.viewer("#/search"))
    expect(page.locator("#conn")).to_have_text("live")
    page.get_by_label("Full text").fill("kingfisher")
    expect(page.locator(".results .result-link")).to_have_count(3)
    assert result_urls(page) == [oldest, newest, middle]  # BM25: title and 2 words, then 2 words
    expect(page.get_by_label("Sort by")).to_have_value("relevance")
    expect(page.locator(".result-snippet").first.locator("mark").first).to_have_text(
        "kingfisher", ignore_case=True
    )
    page.locator(".filters summary").click()
    page.get_by_label("Sort by").select_option("time")
    expect(page.locator(".results .result-url").first).to_have_text(newest)
    assert result_urls(page) == [newest, middle, oldest]
    page.get_by_label("Sort by").select_option("relevance")
    expect(page.locator(".results .result-url").first).to_have_text(oldest)
    assert result_urls(page) == [oldest, newest, middle]
    assert "sort=" not in page.url  # best match is the default with a full text
    page.get_by_label("Site").fill("birds.example")  # a filter too: the same order
    expect(page).to_have_url(re.compile("site=birds"))
    assert result_urls(page) == [oldest, newest, middle]
