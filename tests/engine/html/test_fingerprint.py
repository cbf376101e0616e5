"""Fingerprints (seed: multi-version server, fig. 7-8) on hand-written and real saved pages."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from engine.html.fingerprint import (
    TAG_CODES,
    VOID_TAGS,
    FingerprintOptions,
    fingerprint,
    fingerprint_tree,
    tag_code,
    text_signature,
)

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"
REAL = ["66ccd752a9bb2db9", "85b666998a03fcc0", "f158ac51f8c9d889", "4779762459127ce0"]


def real_page(name: str) -> bytes:
    return gzip.decompress((PAGES / f"{name}.html.gz").read_bytes())


# -- the seed's worked example (fig. 7-8) ---------------------------------------------------


def test_seed_document_701():
    """<html>…</html> with the text "Hello!": codes in tree order, "he" + chr(64 + 6)."""
    fp = fingerprint("<html><head><title>Hello!</title></head><body><p>Hi</p></body></html>")
    expected = ["<H", "<E", "<N", "heF", "<n", "<e", "<B", "<P", "hiB", "<p", "<b", "<h"]
    assert fp == "".join(expected)


def test_text_signature_length_character():
    """chr(64 + len % 58): 64 is '@', 121 is 'y' (seed), length 58 wraps to '@'."""
    assert text_signature("a" * 57) == "aay"
    assert text_signature("a" * 58) == "aa@"
    assert text_signature("Hello!") == "heF"


def test_text_signature_skips_inner_spaces_and_lowercases():
    assert text_signature("  A b  C ") == "ab" + chr(64 + len("A b  C"))
    assert text_signature(" \n\t ") == ""
    assert text_signature("X") == "xA"


def test_options_change_the_length_character():
    options = FingerprintOptions(length_modulus=10, length_offset=48)
    assert text_signature("Hello!", options) == "he6"
    assert fingerprint("<p>Hello!</p>", options).count("he6") == 1


# -- codes ------------------------------------------------------------------------------------


def test_start_and_end_codes_are_distinct_for_every_tag():
    starts = {"<" + code for code in TAG_CODES.values()}
    ends = {"<" + code.lower() for code in TAG_CODES.values()}
    assert not starts & ends
    assert len(set(TAG_CODES.values())) == len(TAG_CODES), "two tags share a code"


def test_codes_are_short():
    assert all(1 <= len(code) <= 2 for code in TAG_CODES.values())


def test_unknown_tags_get_a_stable_hashed_code():
    code = tag_code("my-widget")
    assert code.startswith("X") and len(code) == 2
    assert tag_code("my-widget") == code
    assert "<" + code in fingerprint("<my-widget>x</my-widget>")


def test_void_elements_have_no_end_code():
    fp = fingerprint("<p>a<br>b<img src=x></p>")
    assert "<R" in fp and "<r" not in fp
    assert "<I" in fp and "<i" not in fp


def test_comments_and_doctype_are_ignored():
    plain = fingerprint("<p>text</p>")
    assert fingerprint("<!doctype html><!-- a comment --><p>text</p>") == plain


def test_delimiter_in_text_is_escaped():
    fp = fingerprint("<p>&lt;3 love</p>")
    assert fp.count("<") == fingerprint("<p>xx love</p>").count("<")
    assert "{3" in fp


def test_whitespace_only_text_is_skipped():
    assert fingerprint("<div>\n   <p>x</p>\n</div>") == fingerprint("<div><p>x</p></div>")


def test_script_text_can_be_left_out():
    html = "<script>var x = 1;</script><p>y</p>"
    assert "va" in fingerprint(html)
    assert "va" not in fingerprint(html, FingerprintOptions(include_script_text=False))


def test_bytes_are_decoded_by_their_declared_charset():
    html = '<meta charset="iso-8859-1"><p>\xc9t\xe9 chaud</p>'
    assert fingerprint(html.encode("latin-1")) == fingerprint(html)
    assert "\xe9t" in fingerprint(html)  # "Été" lower-cased


def test_invalid_bytes_do_not_raise():
    assert fingerprint(b"<p>\xff\xfe\xfa broken</p>").startswith("<H")


def test_deep_nesting_does_not_hit_the_recursion_limit():
    depth = 5000
    fp = fingerprint("<div>" * depth + "x" + "</div>" * depth)
    assert fp.count("<D") == depth and fp.count("<d") == depth


def test_fingerprint_tree_reuses_a_parsed_page():
    html = real_page(REAL[0])
    assert fingerprint_tree(LexborHTMLParser(html.decode("utf-8"))) == fingerprint(html)


# -- real pages ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", REAL)
def test_real_pages_are_small_and_deterministic(name):
    html = real_page(name)
    fp = fingerprint(html)
    assert fp.startswith("<H") and fp.endswith("<h")
    assert len(fp) < len(html) / 10
    assert fp == fingerprint(html)


@pytest.mark.parametrize("name", REAL)
def test_one_delimiter_per_start_and_end_tag(name):
    """Counted independently from lexbor's tree: two codes per element, one per void element."""
    tree = LexborHTMLParser(real_page(name).decode("utf-8", "replace"))
    elements = [n.tag for n in tree.root.traverse() if n.is_element_node]
    expected = sum(1 if tag in VOID_TAGS else 2 for tag in elements)
    assert fingerprint_tree(tree).count("<") == expected


# -- properties ------------------------------------------------------------------------------

_TAGS = st.sampled_from(["div", "p", "span", "a", "ul", "li", "b", "section", "x-y"])
_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


@st.composite
def html_trees(draw, depth=3):
    if depth == 0 or draw(st.booleans()):
        return draw(_TEXT).replace("<", "&lt;").replace("&", "&amp;")
    tag = draw(_TAGS)
    children = draw(st.lists(html_trees(depth=depth - 1), max_size=4))
    return f"<{tag}>{''.join(children)}</{tag}>"


@settings(max_examples=150, deadline=None)
@given(html_trees())
def test_every_page_has_a_well_formed_fingerprint(html):
    fp = fingerprint(html)
    assert fp.startswith("<H<E") and fp.endswith("<b<h")
    elements = len(LexborHTMLParser(html).root.css("*"))
    assert fp.count("<") == 2 * elements
