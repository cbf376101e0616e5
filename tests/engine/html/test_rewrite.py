"""Link rewriting rules (seed: rewriteUrl), on hand-written HTML and on a real saved page."""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from selectolax.lexbor import LexborHTMLParser

from engine.archive.resources import ResourceMap
from engine.html.rewrite import (
    RewriteOptions,
    absolute,
    css_absolute,
    resource_urls,
    rewrite_html,
    shadow_roots,
)
from tests.engine.archive.pages import page

BASE = "http://127.0.0.1:47477"
OPTS = RewriteOptions(archive_base=BASE, reg_id="20260101000000000001")

HTML = """<html><head><link rel=stylesheet href="../s.css"><script src="/j.js"></script>
<style>body{background:url('bg.png')}</style></head><body>
<a id=rel href="b/c?d=1#x">rel</a><a id=abs href="https://other.org/p">abs</a>
<a id=frag href="#top">top</a><a id=js href="javascript:void(0)">js</a><a id=mail href="mailto:a@b.c">m</a>
<area id=area href="map.html"><iframe id=ifr src="//cdn.e.com/f"></iframe>
<form id=form action="login.jsp"><input type=image src="go.png"></form>
<img id=img src="i.png" srcset="i1.png 1x, /i2.png 2x"><div id=sty style="background:url(d.png)"></div>
</body></html>"""


def _tree(html: str) -> LexborHTMLParser:
    return LexborHTMLParser(html)


def _gc_target(href: str) -> tuple[str, str]:
    parts = urlsplit(href)
    query = parse_qs(parts.query)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{BASE}/gc"
    return query["url"][0], query["id"][0]


def test_navigation_links_go_to_gc_with_absolute_url_and_id():
    tree = _tree(rewrite_html(HTML, "https://e.com/a/page.html", OPTS).html)
    attr = lambda sel, name: tree.css_first(sel).attributes[name]  # noqa: E731
    assert _gc_target(attr("#rel", "href")) == ("https://e.com/a/b/c?d=1#x", OPTS.reg_id)
    assert _gc_target(attr("#abs", "href"))[0] == "https://other.org/p"
    assert _gc_target(attr("#area", "href"))[0] == "https://e.com/a/map.html"
    assert _gc_target(attr("#ifr", "src"))[0] == "https://cdn.e.com/f"


def test_form_action_is_absolute_on_the_origin_never_gc():
    tree = _tree(rewrite_html(HTML, "https://e.com/a/page.html", OPTS).html)
    assert tree.css_first("#form").attributes["action"] == "https://e.com/a/login.jsp"


def test_resources_become_absolute():
    tree = _tree(rewrite_html(HTML, "https://e.com/a/page.html", OPTS).html)
    assert tree.css_first("link").attributes["href"] == "https://e.com/s.css"
    assert tree.css_first("script").attributes["src"] == "https://e.com/j.js"
    assert tree.css_first("#img").attributes["src"] == "https://e.com/a/i.png"
    assert tree.css_first("#img").attributes["srcset"] == (
        "https://e.com/a/i1.png 1x, https://e.com/i2.png 2x"
    )
    assert tree.css_first("input").attributes["src"] == "https://e.com/a/go.png"
    assert "url(https://e.com/a/d.png)" in tree.css_first("#sty").attributes["style"]
    assert "url('https://e.com/a/bg.png')" in tree.css_first("style").text()


def test_fragments_and_script_links_are_left_alone():
    tree = _tree(rewrite_html(HTML, "https://e.com/a/page.html", OPTS).html)
    assert tree.css_first("#frag").attributes["href"] == "#top"
    assert tree.css_first("#js").attributes["href"] == "javascript:void(0)"
    assert tree.css_first("#mail").attributes["href"] == "mailto:a@b.c"


def test_links_list_is_absolute_unique_and_ordered():
    html = '<a href="x">1</a><a href="/a/x">2</a><a href="y">3</a><form action=f></form>'
    result = rewrite_html(html, "https://e.com/a/", OPTS)
    assert result.links == ["https://e.com/a/x", "https://e.com/a/y"]


def test_base_element_changes_resolution_and_is_removed():
    html = '<head><base href="https://cdn.e.com/root/"></head><a href="p">p</a><img src="i">'
    tree = _tree(rewrite_html(html, "https://e.com/a/", OPTS).html)
    assert tree.css_first("base") is None
    assert _gc_target(tree.css_first("a").attributes["href"])[0] == "https://cdn.e.com/root/p"
    assert tree.css_first("img").attributes["src"] == "https://cdn.e.com/root/i"


def test_unresolvable_href_is_kept_as_is():
    assert absolute("http://[bad", "https://e.com/") is None
    tree = _tree(rewrite_html('<a href="http://[bad">x</a>', "https://e.com/", OPTS).html)
    assert tree.css_first("a").attributes["href"] == "http://[bad"


def test_css_url_quotes_kept():
    assert css_absolute('x{a:url("q.png")}', "https://e.com/") == 'x{a:url("https://e.com/q.png")}'


def test_real_page_every_anchor_rewritten():
    url, body = page("partei")
    original = _tree(body.decode("utf-8"))
    hrefs = [a.attributes.get("href") or "" for a in original.css("a[href]")]
    wanted = [h for h in hrefs if h.strip() and not h.startswith(("#", "javascript:", "mailto:"))]
    result = rewrite_html(body.decode("utf-8"), url, OPTS)
    rewritten = [a.attributes["href"] for a in _tree(result.html).css("a[href]")]
    assert sum(h.startswith(f"{BASE}/gc?url=") for h in rewritten) == len(wanted) > 10
    assert set(result.links) == {absolute(h, url) for h in wanted}


# The capture-dev page feat-cssinjs as the extension's page.js serialized it in Chromium 156:
# two custom elements whose open shadow roots became <template shadowrootmode="open">, one
# styled by a <style> inside the shadow tree with a background image of the site.
CSSINJS = Path(__file__).resolve().parents[2] / "fixtures" / "capture" / "feat-cssinjs.html.gz"
CSSINJS_URL = "https://features.pagekeeper.test/cssinjs.html"


def test_a_sealed_copy_points_declarative_shadow_roots_at_the_version_too():
    html = gzip.decompress(CSSINJS.read_bytes()).decode()
    assert html.count('<template shadowrootmode="open">') == 2
    paths = ResourceMap("20260101000000000001", [])
    out = rewrite_html(html, CSSINJS_URL, RewriteOptions(resources=paths)).html
    assert not re.findall(r"https?://", out)  # nothing the copy could load from outside
    shadow = shadow_roots(LexborHTMLParser(out))
    styles = " ".join(node.text() for root in shadow for node in root.css("style"))
    dots = paths.path("https://features.pagekeeper.test/img/dots.png")
    assert f'url("{dots}")' in styles  # the shadow tree's own stylesheet, rewritten
    # a host-side capture of the same HTML fetches what the shadow trees use
    assert "https://features.pagekeeper.test/img/dots.png" in resource_urls(html, CSSINJS_URL)


def test_inert_templates_are_left_alone_and_nested_shadow_roots_are_reached():
    html = (
        '<div><template shadowrootmode="open"><img src="a.png">'
        '<p><template shadowrootmode="closed"><img src="b.png"><script src="s.js"></script>'
        '</template></p></template></div><template><img src="c.png"></template>'
    )
    out = rewrite_html(html, "https://e.com/", RewriteOptions(resources=ResourceMap("1", [])))
    assert 'src="/v/1/r/0"' in out.html and 'src="/v/1/r/1"' in out.html
    assert "s.js" not in out.html  # sealed in the shadow tree too: no script
    assert '<img src="c.png">' in out.html  # a plain <template> is never rendered
