"""Step 9's nearest paths on a live host's 404: a typo in a page name is a confident
suggestion; another page in the same folder is listed, never the big "Did you mean"."""

from __future__ import annotations

from engine.urls.dictionary import DomainDictionary
from engine.urls.suggest import Suggester, SuggestRequest

PAGES = ["https://example.com/notes/river.html", "https://example.com/docs/installation"]


def _site(url: str) -> list:
    s = Suggester(DomainDictionary.from_domains(["example.com"]))
    s.add_user_urls(PAGES)
    return [f for f in s.suggest(SuggestRequest(url, "http_404")) if f.step == "site"]


def test_a_typo_in_the_page_name_is_a_confident_suggestion():
    found = _site("https://example.com/docs/instalation")
    assert found[0].url == "https://example.com/docs/installation" and found[0].score >= 0.5


def test_another_page_of_the_same_folder_stays_below_the_big_button():
    found = _site("https://example.com/notes/heron.html")
    assert [f.url for f in found] == ["https://example.com/notes/river.html"]
    assert found[0].score < 0.5


def test_a_page_error_never_renames_the_server_that_answered():
    """A 404, 410 or soft 404 is an answer from a server under this very name: no other
    domain (example.org, exmple.com) is offered, only the site's own pages."""
    s = Suggester(DomainDictionary.from_domains(["example.com", "example.org", "exmple.com"]))
    s.add_user_urls(PAGES)
    for error in ("http_404", "http_410", "soft_404"):
        found = s.suggest(SuggestRequest("https://example.com/docs/instalation", error))
        assert found and {f.step for f in found} == {"site"}, (error, found)
    # a network error of the same name still gets its domain repairs
    found = s.suggest(SuggestRequest("https://exmaple.com/docs/instalation", "dns"))
    assert found[0].url.startswith("https://example.com/")
