"""Visible text (search and diff) beside main text (liveness and keywords), on real HTML."""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from engine.html.blocks import BlockOptions, split_blocks, split_shown
from engine.html.extract import extract, parse_page
from engine.html.visible import UNSEEN_TAGS, VISIBLE_OPTIONS, hidden_nodes, shown_text, visible_text
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


SHAPES = (
    "<body><div class=a><p>One <a href=/x>link</a></p><section hidden><p>gone</p></section>"
    "<ul><li>two</li><li style='visibility: hidden'>no</li></ul><svg><text>chart</text></svg>"
    "<table><tr><td>cell</td><td hidden>x</td></tr></table><span hidden>inline</span>"
    "<p>three<br hidden>four<br>five</p><div><select><option>opt</option></select>six</div>"
    "<aside><h2>side</h2></aside><a href=/c><div><img></div>Car</a> <a href=/d><div><img>"
    "</div>Rental</a><div><div hidden>x</div></div>seven</div></body>"
)


def test_one_parse_gives_the_visible_text_and_the_extraction_of_two():
    for html in (HOME, SHAPES, page("partei")[1]):
        parsed = parse_page(html)
        assert shown_text(parsed.tree) == visible_text(html)
        assert extract(parsed, "https://example.org/") == extract(html, "https://example.org/")


def test_an_element_left_with_nothing_shown_ends_no_line():
    assert (
        visible_text("<a href=/c><div><img></div>Car</a> <a href=/d><div><img></div>Rental</a>")
        == "Car Rental"
    )


def test_a_hidden_line_break_ends_no_line():
    assert visible_text("<p>three<br hidden>four<br>five</p>") == "threefour five"


def test_the_blocks_around_what_is_not_shown_are_those_of_the_page_without_it():
    """The walk that skips hidden and unseen elements cuts the same blocks, with the same
    gaps and region paths, as the walk over the tree they were taken out of."""
    shown = parse_page(SHAPES).tree
    cut = parse_page(SHAPES).tree
    for node in hidden_nodes(cut) + cut.css(",".join(UNSEEN_TAGS)):
        node.decompose(False)
    options = BlockOptions(useless_tags=UNSEEN_TAGS, weights=VISIBLE_OPTIONS.weights)
    walked = split_shown(shown.body, options, hidden_nodes(shown))
    assert [(b.text, b.gap, b.path, b.tag) for b in walked] == [
        (b.text, b.gap, b.path, b.tag) for b in split_blocks(cut.body, options)
    ]


def test_a_hidden_body_or_root_shows_nothing():
    assert visible_text("<body hidden><p>a</p></body>") == ""
    assert visible_text("<html style='display:none'><p>a</p></html>") == ""
