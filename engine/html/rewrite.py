"""Rewrite a page's links for the archive (the multi-version server method's ``rewriteUrl(baseURL, url)``).

Rules, per attribute:

* navigation (``a``/``area`` ``href``, ``frame``/``iframe`` ``src``) -> the archive's gc
  address ``{base}/gc?url=<quoted absolute>&id=<registration id>``, so a click serves the
  live page if reachable and the stored copy otherwise;
* ``form action`` -> absolute URL on the origin server, never gc: it is the origin's
  logic (the multi-version server method's ``<form action="login.jsp">`` example);
* resources (img, script, link, source, video, audio, embed, object, input, track, srcset,
  ``style`` url(...) and ``@import``, SVG ``use``/``image`` href), in the document and in
  every declarative shadow root (``<template shadowrootmode>``) -> absolute URLs, or, when
  the copy is *sealed* (``RewriteOptions.resources`` given), the daemon path of the stored
  resource (``/v/<id>/r/<n>``), iframes included when their frame was captured; a sealed copy
  also loses what would reach the network on its own: scripts, ``<link rel=preconnect|
  dns-prefetch|prefetch|prerender|modulepreload>``, ``<meta http-equiv=refresh>``, ``ping``;
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
from typing import Protocol

import ada_url
from selectolax.lexbor import LexborHTMLParser

from engine.archive.model import DEFAULT_BASE, gc_url

NAVIGATION = (("a", "href"), ("area", "href"), ("frame", "src"), ("iframe", "src"))
FORMS = (("form", "action"), ("button", "formaction"), ("input", "formaction"))
RESOURCES = (
    ("img", "src"),
    ("script", "src"),
    ("source", "src"),
    ("video", "src"),
    ("video", "poster"),
    ("audio", "src"),
    ("embed", "src"),
    ("object", "data"),
    ("input", "src"),
    ("track", "src"),
    ("body", "background"),
    ("table", "background"),
    ("td", "background"),
)
SVG_REFS = "use, image, feimage"  # href / xlink:href (SVG 2 and 1.1)
# <link> relations whose target the browser loads to render the page; other relations
# (canonical, alternate, …) are addresses, made absolute.
RENDER_RELS = frozenset(
    {"stylesheet", "icon", "shortcut", "apple-touch-icon", "mask-icon", "preload"}
)
# Relations that make the browser connect or fetch by themselves: gone from a sealed copy.
NETWORK_RELS = frozenset({"preconnect", "dns-prefetch", "prefetch", "prerender", "modulepreload"})
SRCSETS = (("img", "srcset"), ("source", "srcset"))
_KEEP = ("#", "javascript:", "mailto:", "tel:", "data:", "about:", "blob:")
_CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""")
_CSS_IMPORT = re.compile(r"""(@import\s+)(['"])([^'"]+)\2""", re.I)


class ResourcePaths(Protocol):
    """Where a sealed copy's resources live: see engine/archive/resources.py ``ResourceMap``."""

    def path(self, url: str) -> str: ...

    def frame_path(self, url: str) -> str | None: ...


@dataclass(frozen=True)
class RewriteOptions:
    """Where gc links point and which registration they come from; ``resources`` seals the copy."""

    archive_base: str = DEFAULT_BASE
    reg_id: str | None = None
    resources: ResourcePaths | None = None
    keep_scripts: bool = False  # a sealed copy keeps <script> (its CSP still runs none)


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


def srcset_urls(value: str) -> list[str]:
    """The candidate URLs of a ``srcset`` (descriptors dropped).

    >>> srcset_urls("a.png 1x, b.png 2x")
    ['a.png', 'b.png']
    """
    return [c.strip().split(None, 1)[0] for c in value.split(",") if c.strip()]


def _srcset(value: str, fix) -> str:
    parts = []
    for candidate in value.split(","):
        bits = candidate.strip().split(None, 1)
        if bits and not _keep(bits[0]):
            bits[0] = fix(bits[0]) or bits[0]
        parts.append(" ".join(bits))
    return ", ".join(parts)


def css_rewrite(css: str, fix) -> str:
    """Replace every ``url(...)`` and ``@import "..."`` target of CSS with ``fix(target)``
    (None keeps it); ``data:`` and fragment targets stay.

    >>> css_rewrite('@import "a.css"; b{c:url(d.png)}', str.upper)
    '@import "A.CSS"; b{c:url(D.PNG)}'
    """

    def in_url(match: re.Match) -> str:
        url = match.group(2)
        fixed = None if _keep(url) else fix(url.strip())
        quote = match.group(1)
        return match.group(0) if fixed is None else f"url({quote}{fixed}{quote})"

    def in_import(match: re.Match) -> str:
        fixed = None if _keep(match.group(3)) else fix(match.group(3).strip())
        return (
            match.group(0)
            if fixed is None
            else f"{match.group(1)}{match.group(2)}{fixed}{match.group(2)}"
        )

    return _CSS_IMPORT.sub(in_import, _CSS_URL.sub(in_url, css))


def css_urls(css: str, base: str) -> list[str]:
    """Absolute URLs a stylesheet loads (``url()`` and ``@import``), in order, unique.

    >>> css_urls("@import url(a.css); b{c:url('/i.png')}", "https://e.com/s/")
    ['https://e.com/s/a.css', 'https://e.com/i.png']
    """
    found: dict[str, None] = {}

    def note(url: str) -> None:
        resolved = absolute(url, base)
        if resolved:
            found[resolved] = None

    css_rewrite(css, note)
    return list(found)


def css_absolute(css: str, base: str) -> str:
    """Make every ``url(...)`` (and ``@import``) in CSS absolute.

    >>> css_absolute("a{background:url('i.png')}", "https://e.com/s/")
    "a{background:url('https://e.com/s/i.png')}"
    """
    return css_rewrite(css, lambda url: absolute(url, base))


def _selector(pairs) -> str:
    return ", ".join(f"{tag}[{attr}]" for tag, attr in pairs)


def shadow_roots(node) -> list:
    """The content of every declarative shadow root (``<template shadowrootmode>``, or the
    older ``shadowroot``) under ``node``, nested ones included: parsed into a template's
    content, which is not part of the document tree, so ``css()`` on the document never
    reaches it, yet the browser renders it (HTML §4.12.3, declarative shadow roots).
    A plain ``<template>`` is inert: left alone.

    >>> tree = LexborHTMLParser('<p><template shadowrootmode=open><img src=a.png>'
    ...                         '<b><template shadowroot=closed><img src=b.png></template></b>'
    ...                         '</template><template><img src=c.png></template>')
    >>> [img.attributes["src"] for root in shadow_roots(tree) for img in root.css("img")]
    ['a.png', 'b.png']
    """
    found = []
    for fragment in node.template_fragments():
        attrs = fragment.parent.attributes
        if "shadowrootmode" in attrs or "shadowroot" in attrs:
            found += [fragment, *shadow_roots(fragment)]
    return found


class _Rewriter:
    def __init__(self, tree: LexborHTMLParser, base: str, options: RewriteOptions) -> None:
        self.tree, self.base, self.options = tree, base, options
        self.roots = [tree, *shadow_roots(tree)]
        self.links: dict[str, None] = {}
        self.resources: dict[str, None] = {}

    def css(self, selector: str) -> list:
        """Matching nodes of the document and of every declarative shadow root in it."""
        return [node for root in self.roots for node in root.css(selector)]

    def each(self, pairs, fix) -> None:
        wanted = {tag: [a for t, a in pairs if t == tag] for tag, _ in pairs}
        for node in self.css(_selector(pairs)):
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

    def frame(self, value: str) -> str | None:
        """An iframe/frame: its captured copy when the copy is sealed and it was captured."""
        url = absolute(value, self.base)
        sealed = self.options.resources
        found = sealed.frame_path(url) if sealed is not None and url else None
        if found is None or url is None:
            return self.navigation(value)
        self.resources[url] = None
        return found

    def resource(self, value: str) -> str | None:
        url = absolute(value, self.base)
        if url is None:
            return None
        self.resources[url] = None
        sealed = self.options.resources
        return url if sealed is None else sealed.path(url)

    def svg(self) -> None:
        for node in self.css(SVG_REFS):
            for attr in ("href", "xlink:href"):
                value = node.attributes.get(attr)
                if value and not _keep(value):
                    fixed = self.resource(value)
                    if fixed is not None:
                        node.attrs[attr] = fixed

    def links_of_head(self) -> None:
        for node in self.css("link[href]"):
            rels = set((node.attributes.get("rel") or "").lower().split())
            value = node.attributes.get("href") or ""
            if self.options.resources is not None and rels & NETWORK_RELS:
                node.decompose()
            elif not _keep(value):
                fixed = self.resource(value) if rels & RENDER_RELS else self.form(value)
                if fixed is not None:
                    node.attrs["href"] = fixed

    def styles(self) -> None:
        fix = self.resource
        for node in self.css("[style]"):
            style = node.attributes.get("style") or ""
            if "url(" in style:
                node.attrs["style"] = css_rewrite(style, fix)
        for node in self.css("style"):
            text = node.text(deep=True)
            if ("url(" in text or "@import" in text) and node.child is not None:
                node.child.replace_with(css_rewrite(text, fix))

    def seal(self) -> None:
        """Drop what would reach the network by itself (no CSP directive stops these)."""
        for node in self.css("script, meta[http-equiv]"):
            equiv = (node.attributes.get("http-equiv") or "").lower()
            if (node.tag == "script" and not self.options.keep_scripts) or equiv == "refresh":
                node.decompose()
        for node in self.css("[ping]"):
            del node.attrs["ping"]


def rewrite_tree(tree: LexborHTMLParser, page_url: str, options: RewriteOptions) -> Rewritten:
    """Rewrite an already parsed tree in place (registration parses once)."""
    rw = _Rewriter(tree, _document_base(tree, page_url), options)
    if options.resources is not None:
        rw.seal()
    rw.each(NAVIGATION[:2], rw.navigation)
    rw.each(NAVIGATION[2:], rw.frame)
    rw.each(FORMS, rw.form)
    rw.links_of_head()  # stylesheets first: under a page cap they matter most
    rw.each(RESOURCES, rw.resource)
    rw.svg()
    rw.each(SRCSETS, lambda value: _srcset(value, rw.resource))
    rw.styles()
    return Rewritten(tree.html or "", list(rw.links), list(rw.resources))


def rewrite_html(html: str, page_url: str, options: RewriteOptions | None = None) -> Rewritten:
    """Parse ``html`` and rewrite it (see the module doc for the rules)."""
    return rewrite_tree(LexborHTMLParser(html), page_url, options or RewriteOptions())


@dataclass(frozen=True)
class _Recorder:
    """Sealing paths that keep URLs as they are: what a sealed copy would load."""

    frames: bool = False

    def path(self, url: str) -> str:
        return url

    def frame_path(self, url: str) -> str | None:
        return url if self.frames else None


def resource_urls(html: str, page_url: str, frames: bool = False) -> list[str]:
    """The http(s) resources a sealed copy of the page loads (no scripts): stylesheets and
    icons first, then images and media, then srcset candidates and CSS in the page
    (``frames``: iframe documents too, first).

    >>> resource_urls('<img src=i.png><link rel=stylesheet href=s.css><script src=j.js>',
    ...               "https://e.com/")
    ['https://e.com/s.css', 'https://e.com/i.png']
    """
    options = RewriteOptions(resources=_Recorder(frames))
    found = rewrite_tree(LexborHTMLParser(html), page_url, options).resources
    return [u for u in found if u.startswith(("http://", "https://"))]
