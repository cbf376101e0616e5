"""The banner over a served copy (engine/archive/provider.py ``banner_html``, ``with_banner``):
where it goes in the page, what it says, and that a page's address cannot break out of it."""

from __future__ import annotations

from engine.archive.provider import banner_html, with_banner


def test_the_banner_goes_right_after_the_body_tag_and_the_page_is_kept_whole():
    head = b'<!doctype html><html><head><title>A</title></head><BODY class="x">'
    rest = b"<p>Text.</p><script>var s = '<body>';</script></BODY></html>"
    banner = banner_html(0, "https://e.com/").encode()
    assert with_banner(head + rest, 0, "https://e.com/") == head + banner + rest


def test_a_page_that_starts_with_its_body_tag_gets_the_banner_inside_it():
    page = b"<body><p>Text.</p></body>"
    banner = banner_html(0, "https://e.com/").encode()
    assert with_banner(page, 0, "https://e.com/") == b"<body>" + banner + b"<p>Text.</p></body>"


def test_a_page_with_no_body_tag_in_its_first_200000_bytes_gets_the_banner_first():
    banner = banner_html(0, "https://e.com/").encode()
    fragment = b"<p>Text.</p>"
    assert with_banner(fragment, 0, "https://e.com/") == banner + fragment
    late = b"<!--" + b"x" * (200_000 - 4 - 4) + b"<body><p>Text.</p>"  # "<body" ends past it
    assert late.index(b"<body") == 199_996
    assert with_banner(late, 0, "https://e.com/") == banner + late


def test_the_banner_says_the_time_and_the_place_only_when_given():
    assert "registered on 1970-01-01 00:00:00 UTC, links" in banner_html(0, "https://e.com/")
    assert "00:00:00 UTC, links" in with_banner(b"<body>", 0, "https://e.com/").decode()
    placed = banner_html(0, "https://e.com/", "#2 of 3")
    assert "registered on 1970-01-01 00:00:00 UTC (#2 of 3), links" in placed


def test_the_pages_address_is_escaped_in_the_banner():
    url = 'https://e.com/?a=1&b=<script>"x"'
    banner = banner_html(0, url)
    safe = "https://e.com/?a=1&amp;b=&lt;script>&quot;x&quot;"
    assert f'Original: <a href="{safe}">{safe}</a>' in banner
    assert "<script>" not in banner and '"x"' not in banner


def test_the_banner_is_a_shadow_root_that_its_label_hides():
    """A declarative shadow root keeps the page's styles out; the label toggles the checkbox
    (``for`` names its ``id``: both exact, ids are case-sensitive) that hides the bar."""
    banner = banner_html(0, "https://e.com/")
    assert banner.startswith(
        '<div id="pagekeeper-banner" style="all:initial;position:fixed;top:0;left:0;right:0;'
        'z-index:2147483647;display:block"><template shadowrootmode="open"><style>'
    )
    assert '<input type="checkbox" id="hide" aria-label="Hide this notice">' in banner
    assert banner.endswith('<label for="hide" id="hide-label">Hide</label></div></template></div>')
