"""Page limits measured before parsing, and registration of pages beyond them (real store)."""

from __future__ import annotations

from engine.archive.model import Capture, RegisterOptions
from engine.archive.provider import get, served_copy
from engine.archive.registry import register
from engine.archive.store import ArchiveStore
from engine.html.limits import PageLimits, cut_reason, measure

DEEP = "<html><body>" + "<div>" * 200_000 + "deep" + "</div>" * 200_000  # 2.2 MB
LINKS = "".join(f'<div><a href="/p{n}">page {n}</a></div>' for n in range(60_000))
WIDE = f"<title>Wide</title><body>{LINKS}"  # 120k elements


def test_200k_levels_are_measured_without_parsing_and_cut():
    size = measure(DEEP)
    assert size.depth > PageLimits().max_depth
    assert cut_reason(size, PageLimits()) == "nested more than 4096 levels deep"


def test_depth_ignores_void_and_optional_end_tags():
    flat = "<div>" + "<p>text<br><img src=x><li>item" * 20_000 + "</div>"
    assert measure(flat).depth < 10
    assert cut_reason(measure(flat), PageLimits()) is None


def test_elements_over_the_limit_are_cut():
    size = measure(WIDE, PageLimits(max_elements=100_000))
    assert size.elements == 120_002
    assert "elements (limit 100000)" in cut_reason(size, PageLimits(max_elements=100_000))


def test_a_page_nested_200k_deep_is_kept_with_a_note(tmp_path):
    store = ArchiveStore.open(tmp_path)
    reg = register(store, Capture("https://deep.example/a", DEEP))
    assert reg.note == "not analysed: nested more than 4096 levels deep"
    assert get(store, reg.id, original=True).body == DEEP.encode()
    copy = served_copy(store, reg.id).body.decode()
    assert '<base href="https://deep.example/a">' in copy and "deep" in copy
    assert store.version(reg.id)["analysis"] == reg.note
    assert store.refs(reg.id) == []
    store.close()


def test_a_page_over_the_element_limit_is_kept_unparsed(tmp_path):
    store = ArchiveStore.open(tmp_path)
    options = RegisterOptions(limits=PageLimits(max_elements=100_000))
    reg = register(store, Capture("https://wide.example/", WIDE), options)
    assert reg.note.startswith("not analysed: about 120002 elements")
    assert b"/gc?url=" not in served_copy(store, reg.id).body  # links left as they were
    store.close()


def test_past_the_extract_limit_links_are_rewritten_but_text_is_not_extracted(tmp_path):
    store = ArchiveStore.open(tmp_path)
    options = RegisterOptions(limits=PageLimits(extract_elements=100_000))
    reg = register(store, Capture("https://wide.example/", WIDE), options)
    assert reg.note == "text not extracted: about 120002 elements (limit 100000)"
    assert len(store.refs(reg.id)) == 60_000
    assert b"/gc?url=" in served_copy(store, reg.id).body
    store.close()


def test_a_page_within_the_limits_has_no_note(tmp_path):
    store = ArchiveStore.open(tmp_path)
    page = "<title>Fine</title>" + "<div>" * 1000 + "<p>Some text here.</p>" + "</div>" * 1000
    reg = register(store, Capture("https://fine.example/", page))
    assert reg.note is None and "analysis" not in store.version(reg.id)
    store.close()


def test_a_generated_page_of_6m_elements_is_kept_with_a_note_at_the_default_limits(tmp_path):
    """The hostile page at full size (~48 MB, under the 50 MB cap): kept as captured, not parsed."""
    page = b"<html><body>" + b"<i>a</i>" * 6_000_000 + b"</body></html>"
    store = ArchiveStore.open(tmp_path)
    reg = register(store, Capture("https://huge.example/", page))
    assert reg.note.startswith("not analysed: about 6000")
    assert served_copy(store, reg.id).body.count(b"<i>a</i>") == 6_000_000
    store.close()
