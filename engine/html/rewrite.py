"""Rewrite a page's links for the archive (the seed's ``rewriteUrl(baseURL, url)``).

Rules, per attribute:

* navigation (``a``/``area`` ``href``, ``frame``/``iframe`` ``src``) -> the archive's gc
  address ``{base}/gc?url=<quoted absolute>&id=<registration id>``, so a click serves the
  live page if reachable and the stored copy otherwise;
* ``form action`` -> absolute URL on the origin server, never gc: it is the origin's
  logic (the seed's ``<form action="login.jsp">`` example);
* resources (img, script, link, source, video, audio, embed, object, input, track, srcset,
  ``style`` url(...)) -> absolute URLs;
* ``#fragment``, ``javascript:``, ``mailto:``, ``tel:``, ``data:`` and ``about:`` are left alone;
  a ``<base href>`` changes the base for relative URLs (HTML §4.2.3) and is removed from
  the rewritten copy because every URL is absolute afterwards.

>>> r = rewrite_html('<a href="b">x</a><form action="/login"></form>', "https://e.com/a/",
...                  RewriteOptions(archive_base="http://127.0.0.1:47477", reg_id="1"))
>>> r.links
['https://e.com/a/b']
>>> 'action="https://e.com/login"' in r.html, 'gc?url=https%3A%2F%2Fe.com%2Fa%2Fb&amp;id=1' in r.html
(True, True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import ada_url
from selectolax.lexbor import LexborHTMLParser

from engine.archive.model import DEFAULT_BASE, gc_url

NAVIGATION = (("a", "href"), ("area", "href"), ("frame", "src"), ("iframe", "src"))
FORMS = (("form", "action"), ("button", "formaction"), ("input", "formaction"))
RESOURCES = (
    ("img", "src"),
    ("script", "src"),
    ("link", "href"),
    ("source", "src"),
    ("video", "src"),
    ("video", "poster"),
    ("audio", "src"),
    ("embed", "src"),
    ("object", "data"),
    ("input", "src"),
    ("track", "src"),
    ("body", "background"),
)
SRCSETS = (("img", "srcset"), ("source", "srcset"))
_KEEP = ("#", "javascript:", "mailto:", "tel:", "data:", "about:", "blob:")
_CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""")


@dataclass(frozen=True)
class RewriteOptions:
    """Where gc links point and which registration they come from."""

    archive_base: str = DEFAULT_BASE
    reg_id: str | None = None


@dataclass
class Rewritten:
    """The rewritten HTML, the navigation links (absolute, in order, unique) and resources."""

    html: str
    links: list[str] = field(default_factory=list)
    resources: list[str] = field(default_factory=list)


def absolute(url: str, base: str) -> str | None:
    """``url`` resolved against ``base`` (WHATWG, via ada-url), or None if not resolvable.

    URL credentials (``user:pass@``) are cut: a copy never shows or follows them.

    >>> absolute("../c?d#e", "https://e.com/a/b/")
    'https://e.com/a/c?d#e'
    >>> absolute("https://alice:s3cret@bank.example/a", "https://e.com/")
    'https://bank.example/a'
    >>> absolute("http://[bad", "https://e.com/")
    """
    try:
        joined = ada_url.join_url(base, url.strip())
        parts = ada_url.parse_url(joined) if "@" in joined else None
        if parts and (parts["username"] or parts["password"]):
            joined = ada_url.replace_url(joined, username="", password="")
        return joined
    except ValueError:
        return None


def _keep(value: str) -> bool:
    return not value.strip() or value.strip().lower().startswith(_KEEP)


def _document_base(tree: LexborHTMLParser, page_url: str) -> str:
    node = tree.css_first("base[href]")
    if node is None:
        return page_url
    found = absolute(node.attributes.get("href") or "", page_url)
    node.decompose()
    return found or page_url


def _srcset(value: str, base: str) -> str:
    parts = []
    for candidate in value.split(","):
        bits = candidate.strip().split(None, 1)
        if bits and not _keep(bits[0]):
            bits[0] = absolute(bits[0], base) or bits[0]
        parts.append(" ".join(bits))
    return ", ".join(parts)


def css_absolute(css: str, base: str) -> str:
    """Make every ``url(...)`` in CSS absolute.

    >>> css_absolute("a{background:url('i.png')}", "https://e.com/s/")
    "a{background:url('https://e.com/s/i.png')}"
    """

    def repl(match: re.Match) -> str:
        url = match.group(2)
        if _keep(url):
            return match.group(0)
        return f"url({match.group(1)}{absolute(url, base) or url}{match.group(1)})"

    return _CSS_URL.sub(repl, css)


def _selector(pairs) -> str:
    return ", ".join(f"{tag}[{attr}]" for tag, attr in pairs)


class _Rewriter:
    def __init__(self, tree: LexborHTMLParser, base: str, options: RewriteOptions) -> None:
        self.tree, self.base, self.options = tree, base, options
        self.links: dict[str, None] = {}
        self.resources: dict[str, None] = {}

    def each(self, pairs, fix) -> None:
        wanted = {tag: [a for t, a in pairs if t == tag] for tag, _ in pairs}
        for node in self.tree.css(_selector(pairs)):
            for attr in wanted.get(node.tag, ()):
                value = node.attributes.get(attr)
                if value is not None and not _keep(value):
                    fixed = fix(value)
                    if fixed is not None:
                        node.attrs[attr] = fixed

    def navigation(self, value: str) -> str | None:
        url = absolute(value, self.base)
        if url is None:
            return None
        self.links[url] = None
        return gc_url(self.options.archive_base, url, self.options.reg_id)

    def form(self, value: str) -> str | None:
        return absolute(value, self.base)

    def resource(self, value: str) -> str | None:
        url = absolute(value, self.base)
        if url is not None:
            self.resources[url] = None
        return url

    def styles(self) -> None:
        for node in self.tree.css("[style]"):
            style = node.attributes.get("style") or ""
            if "url(" in style:
                node.attrs["style"] = css_absolute(style, self.base)
        for node in self.tree.css("style"):
            text = node.text(deep=True)
            if "url(" in text and node.child is not None:
                node.child.replace_with(css_absolute(text, self.base))


def rewrite_tree(tree: LexborHTMLParser, page_url: str, options: RewriteOptions) -> Rewritten:
    """Rewrite an already parsed tree in place (registration parses once)."""
    rw = _Rewriter(tree, _document_base(tree, page_url), options)
    rw.each(NAVIGATION, rw.navigation)
    rw.each(FORMS, rw.form)
    rw.each(RESOURCES, rw.resource)
    rw.each(SRCSETS, lambda value: _srcset(value, rw.base))
    rw.styles()
    return Rewritten(tree.html or "", list(rw.links), list(rw.resources))


def rewrite_html(html: str, page_url: str, options: RewriteOptions | None = None) -> Rewritten:
    """Parse ``html`` and rewrite it (see the module doc for the rules)."""
    return rewrite_tree(LexborHTMLParser(html), page_url, options or RewriteOptions())
