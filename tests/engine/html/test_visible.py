"""Visible text (search and diff) beside main text (liveness and keywords), on real HTML."""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from engine.html.extract import extract
from engine.html.visible import visible_text
from tests.engine.archive.pages import page

HOME = (
    "<html><head><title>Daily</title><style>p{}</style><script>var x</script></head><body>"
    "<nav><a href=/>Home</a> <a href=/world>World</a></nav>"
    "<h2><a href=/a>Bridge reopens after storm damage</a></h2>"
    "<p>The old bridge over the river reopened on Monday after <b>three weeks</b> of repairs.</p>"
    "<p hidden>Subscriber-only teaser</p><div style='display:none'>Cookie banner</div>"
    "<noscript>Please enable JavaScript</noscript><template><p>Template row</p></template>"
    "</body></html>"
)


def test_visible_text_keeps_link_headlines_menus_and_inline_text_on_one_line():
    lines = visible_text(HOME).splitlines()
    assert lines == [
        "Home World",
        "Bridge reopens after storm damage",
        "The old bridge over the river reopened on Monday after three weeks of repairs.",
    ]


def test_what_a_browser_does_not_render_is_not_visible_text():
    seen = visible_text(HOME)
    for unseen in ("var x", "p{}", "Daily", "Subscriber", "Cookie", "JavaScript", "Template"):
        assert unseen not in seen


def test_a_parsed_tree_is_read_not_changed():
    tree = LexborHTMLParser(HOME)
    before = tree.html
    assert "Bridge reopens" in visible_text(tree)
    assert tree.html == before


def test_real_page_visible_text_holds_the_linked_headline_main_text_drops():
    url, body = page("partei")
    main, seen = extract(body, url).body, visible_text(body)
    assert "Steuerdarling – Die PARTEI als Ehestifter" in seen  # the next article's link
    assert "Steuerdarling" not in main
    assert "Das Ministerium für Club-Kultur informiert" in seen  # the headline
    for line in main.splitlines():  # the main text is part of what is visible
        assert line[:40] in seen
