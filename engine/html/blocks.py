"""Steps 2 and 3 of the page-detection method: filter useless tags, then cut the text into blocks.

Filter (the page-detection method, step c.i): a library of useless tags (head, script, media,
decoration, form inputs, link blocks) is removed *with its content*; of what
remains only region tags (div, p, td, li, …) still divide the text. Inline tags
(a, span, b, …) are kept as text.

Blocks (the page-detection method, step c.ii): the text between two region tags is a block. The
distance from a block to the next one is the weighted count of region tags
(opening and closing) between them, ``d = Σ n_tag × w_tag``; weights come from
:class:`BlockOptions` and can be configured.

>>> from selectolax.lexbor import LexborHTMLParser
>>> tree = LexborHTMLParser("<div><p>one</p><script>x()</script><p>two <a>link</a></p></div>")
>>> [(b.text, b.gap) for b in split_blocks(filter_tree(tree))]
[('one', 2.0), ('two link', 0.0)]
"""

from __future__ import annotations

import re
from collections.abc import Set
from dataclasses import dataclass, field
from functools import cache, lru_cache

from selectolax.lexbor import LexborHTMLParser, LexborNode

from engine.html.tokens import text_length

# Seed step c.i: head, program, multimedia, decoration, form-input and link classes.
# <noscript> stays: lexbor parses it as markup (scripting off), and Blogger and lazy-loading
# themes put the article itself there (bench_extract: F1 +0.001 tuning, +0.002 held out).
# HTML5 <aside> (tangential content) and <footer> join the link blocks (tuning F1 +0.001).
USELESS_TAGS = (
    "head", "title", "script", "style", "template", "link", "meta", "base",
    "object", "embed", "applet", "iframe", "frame", "frameset", "svg", "math", "canvas",
    "video", "audio", "source", "track", "picture", "img", "map", "area",
    "input", "select", "option", "optgroup", "textarea", "button", "label", "datalist",
    "output", "progress", "meter", "dialog",
    "nav", "menu", "figcaption", "rt", "rp", "aside", "footer",
)  # fmt: skip

# Region tags and their weight in the distance between two blocks.
REGION_WEIGHTS = {
    "p": 1.0, "div": 1.0, "section": 1.5, "article": 2.0, "main": 2.0, "aside": 2.0,
    "header": 1.5, "footer": 1.5, "form": 1.5, "table": 1.5, "tbody": 0.5, "thead": 0.5,
    "tfoot": 0.5, "tr": 0.5, "td": 0.5, "th": 0.5, "ul": 1.0, "ol": 1.0, "dl": 1.0,
    "li": 0.5, "dt": 0.5, "dd": 0.5, "h1": 1.0, "h2": 1.0, "h3": 1.0, "h4": 1.0,
    "h5": 1.0, "h6": 1.0, "blockquote": 1.0, "pre": 1.0, "figure": 1.0,
    "figcaption": 0.5, "address": 1.0, "center": 1.0, "hr": 1.0, "details": 1.0,
    "summary": 0.5, "fieldset": 1.0, "caption": 0.5, "body": 2.0, "html": 2.0,
}  # fmt: skip

HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))

# Class/id words of boilerplate containers (from readability's "unlikely candidates" and
# trafilatura's boilerplate xpaths), matched at the start of a class/id word. Each was measured
# alone on the tuning split (bench_extract.py); kept only those that raised F1. Dropped because
# they cost recall: sidebar, widget, social, banner, ads, menu, header, nav, date, pagination.
NOISE_WORDS = (
    "comment", "disqus", "foot", "breadcrumb", "share", "sharing", "related", "newsletter",
    "subscribe", "cookie", "advert", "popup", "modal", "signup", "navigation", "postmeta",
    "post-meta", "toolbar", "author", "caption", "cta", "consent",
)  # fmt: skip
NOISE_HINT = re.compile(r"(?:^|[\s_-])(?:" + "|".join(map(re.escape, NOISE_WORDS)) + ")", re.I)
# Lexbor pre-selects candidates in C (case-insensitive substring, ~0.1 ms/page); the regex
# then checks that the word starts a class/id word.
NOISE_SELECTOR = ",".join(f"[{a}*={w} i]" for w in NOISE_WORDS for a in ("class", "id"))
CONTENT_HINT = re.compile(r"article|content|main|post-?body|entry|story|text", re.I)


# A story: at least STORY_SHARE of its text in paragraphs of STORY_PARAGRAPH_CHARS or more
# (here story_node, in extract.is_story over blocks); a page of cards has less.
STORY_SHARE = 0.5
STORY_PARAGRAPH_CHARS = 150


@dataclass
class BlockOptions:
    """How the page is filtered and cut into blocks.

    >>> BlockOptions().weights["p"]
    1.0
    """

    useless_tags: tuple[str, ...] = USELESS_TAGS
    weights: dict[str, float] = field(default_factory=lambda: dict(REGION_WEIGHTS))
    class_hints: bool = True
    # A hinted container holding this share of the page's text is a page-wide wrapper
    # (id="navigation-container" around the whole page), not a boilerplate box: it stays.
    hint_max_share: float = 0.8
    drop_dialogs: bool = True  # see DIALOG_SELECTOR
    # Elements hidden by the CSS utility class ``hidden`` go with the class/id hints (see
    # hidden_label), unless together they hold this share of the page's text: then they are
    # the content a script shows one part at a time (a slide show, tabs). 0: off.
    hidden_max_share: float = 0.4
    # A section whose id is its heading's anchor ("sharing-with-a-single-developer" over
    # "Sharing with a single developer") is named by its title, not by its role: it stays
    # (see section_anchor).
    section_anchors: bool = True
    # A section of one or two words stays when its heading links to it ("commentary" over
    # "Commentary¶" and its permalink "#commentary", see permalinked_section).
    permalinked_sections: bool = True
    # A section of three words or more that opens with a heading and that a link of the page
    # points to ("#SQL-FOR-UPDATE-SHARE" over "The Locking Clause") is cited as a part of
    # the text: it stays (see cited_section).
    cited_sections: bool = True
    # A class word that a boilerplate word opens is boilerplate even when a content word
    # follows ("newsletter-widget__text__new-story-page", see named_content).
    noise_opens_label: bool = True
    # An element whose id numbers a blog post ("post-4955": WordPress themes print the post's
    # id so) is the post, whatever a theme's class calls it (see numbered_post).
    numbered_posts: bool = True
    # A heading's link to a place on its own page (MDN's <h2><a href="#defining_functions">,
    # Sphinx's "Workers¶") is its anchor, not link text (see own_anchor).
    heading_anchors: bool = True
    # A screen-reader-only element that is a block of its own and this short is a label for
    # screen readers ("Article content" over each part of a story, "Author of the article:"),
    # not text a reader sees (see screen_reader_label). Inline ones (a shop's "Regular price"
    # in a <span>) stay. 0: off.
    screen_reader_label_chars: int = 40
    # A teaser card inside a story is a pointer to another story, not the story's text (the
    # "Mehr zu ..." cards of the German broadcasters: a linked headline, a blurb, a kicker, a
    # duration): an element whose class/id word opens with "teaser" and that holds a linked
    # heading, inside the page's article container, goes with the class/id hints. Only beside
    # a story (see beside_story): at least ``story_share`` of the container's text in ``<p>``s
    # of ``story_paragraph_chars`` or more (extract.is_story's values), the cards less than
    # that share. On a listing or a service page the cards are the content, and stay.
    article_teasers: bool = True
    story_share: float = STORY_SHARE
    story_paragraph_chars: int = STORY_PARAGRAPH_CHARS


@dataclass(slots=True)
class Block:
    """A run of text between region tags, with its distance to the next block."""

    text: str
    chars: int
    link_chars: int
    tag: str
    gap: float = 0.0
    path: tuple[int, ...] = ()  # ids of the enclosing region elements, outermost first
    noise: int = -1  # cache of extract.site_noise: -1 not known yet, 0 no, 1 yes
    links: int = 0  # <a> elements with text in the block
    joint: int = (
        -1
    )  # cache of extract.card_depth: elements shared with the next block, -1 not known

    # Written out, not generated: a dataclass's generated __init__ is Python code even in
    # the compiled build (mypyc leaves it to the dataclasses module), and the walk makes
    # ~125 blocks a page; this one compiles to a native constructor. The same fields, order
    # and defaults as the declarations above (a test holds them equal).
    def __init__(
        self,
        text: str,
        chars: int,
        link_chars: int,
        tag: str,
        gap: float = 0.0,
        path: tuple[int, ...] = (),
        noise: int = -1,
        links: int = 0,
        joint: int = -1,
    ) -> None:
        self.text = text
        self.chars = chars
        self.link_chars = link_chars
        self.tag = tag
        self.gap = gap
        self.path = path
        self.noise = noise
        self.links = links
        self.joint = joint

    def __reduce__(self) -> tuple[type[Block], tuple]:
        """Copied and pickled through the constructor: a native class whose ``__init__``
        takes arguments cannot be made empty first, as ``copy`` and ``pickle`` otherwise do.

        >>> import copy
        >>> copy.copy(Block("ab", 2, 1, "p", path=(1,))) == Block("ab", 2, 1, "p", path=(1,))
        True
        """
        return Block, (
            self.text, self.chars, self.link_chars, self.tag, self.gap, self.path, self.noise,
            self.links, self.joint,
        )  # fmt: skip

    @property
    def link_density(self) -> float:
        """Share of the block's characters inside links.

        >>> Block("ab", 2, 1, "p").link_density
        0.5
        """
        return self.link_chars / self.chars if self.chars else 0.0


def filter_tree(tree: LexborHTMLParser, options: BlockOptions | None = None) -> LexborNode | None:
    """Remove the useless tags with their content, then dialogs and boilerplate containers;
    return the body (or root).

    >>> filter_tree(LexborHTMLParser("<p>a<style>b</style></p>")).text()
    'a'
    """
    options = options or BlockOptions()
    root = drop_useless(tree, options)
    if root is not None:
        drop_labelled(root, options)
    return root


def drop_useless(tree: LexborHTMLParser, options: BlockOptions) -> LexborNode | None:
    """Remove the useless tags with their content; return the body (or root).

    >>> drop_useless(LexborHTMLParser("<p>a<script>b</script></p>"), BlockOptions()).text()
    'a'
    """
    if tree.root is not None:
        detach(useless_nodes(tree.root, useless_set(options.useless_tags)))
    return tree.body or tree.root


@cache
def useless_set(tags: tuple[str, ...]) -> frozenset[str]:
    """The useless tags as a set.

    >>> sorted(useless_set(("script", "style")))
    ['script', 'style']
    """
    return frozenset(tags)


# Tag names by lexbor tag id: a known HTML tag has a small fixed id, a custom element an id
# of its own document (its name's address), never cached. Looking an id up here costs a
# third of reading ``node.tag``, which builds a new string each time.
_TAG_NAMES: dict[int, str] = {}
_KNOWN_TAG_IDS = 4096


def tag_name(node: LexborNode) -> str:
    """``node.tag``, cached by tag id for known tags.

    >>> tag_name(LexborHTMLParser("<p>x</p>").css_first("p"))
    'p'
    """
    tid = node.tag_id
    name = _TAG_NAMES.get(tid)
    if name is None:
        name = node.tag or ""
        if tid < _KNOWN_TAG_IDS:
            _TAG_NAMES[tid] = name
    return name


def useless_nodes(root: LexborNode, useless: frozenset[str]) -> list[LexborNode]:
    """The outermost descendants of ``root`` whose tag is in ``useless``, in document order.

    One walk in Python that does not enter what it finds (a selector list of 45 tags costs
    lexbor 45 tests per node: ~0.5 ms on a 100 KB page, this walk ~0.27 ms, and half the
    nodes to detach).

    >>> tree = LexborHTMLParser("<div><nav><img></nav><p>x<script></script></p></div>")
    >>> [n.tag for n in useless_nodes(tree.body, frozenset(("nav", "img", "script")))]
    ['nav', 'script']
    """
    found: list[LexborNode] = []
    stack: list[LexborNode | None] = []
    names, node = _TAG_NAMES, root.child
    text_id = _TEXT_ID if "-text" not in useless else -1  # a text node: no children, kept
    while True:
        if node is None:
            if not stack:
                return found
            node = stack.pop()
            continue
        tid = node.tag_id
        if tid == text_id:
            node = node.next
            continue
        name = names.get(tid)
        if name is None:
            name = tag_name(node)
        if name in useless:
            found.append(node)
            node = node.next
            continue
        child = node.child
        if child is not None:
            stack.append(node.next)
            node = child
            continue
        node = node.next


def detach(nodes: list[LexborNode]) -> None:
    """Take ``nodes`` out of the tree with their content. Detached nodes stay allocated until
    the document goes, so a node inside an already detached one is safe to touch (any order).

    >>> tree = LexborHTMLParser("<div><p>x</p></div><p>y</p>")
    >>> detach(tree.css("div, p")); tree.body.text()
    ''
    """
    for node in nodes:
        node.decompose(False)


# WAI-ARIA dialogs (role=dialog/alertdialog, aria-modal): cookie and consent layers, sign-in
# and newsletter pop-ups, laid over the page and never part of its content.
DIALOG_SELECTOR = '[role="dialog" i], [role="alertdialog" i], [aria-modal="true" i]'
DIALOG_ROLES = frozenset(("dialog", "alertdialog"))
# Every element a dialog or class/id rule can name, found in one pass (lexbor's 88 substring
# selectors of NOISE_WORDS cost ~1.9 ms on a 250 KB page; this pass ~0.15 ms, and each
# distinct class/id label is checked once by regex).
# One :is(): lexbor returns a node once per selector of a list it matches (a div with a class
# and an id twice: 418 nodes a page for 377).
LABELLED_SELECTOR = ":is([class], [id], [role], [aria-modal])"


def is_dialog(attrs: dict) -> bool:
    """True for a WAI-ARIA dialog's attributes.

    >>> is_dialog({"role": "Dialog"}), is_dialog({"aria-modal": "true"}), is_dialog({"role": "main"})
    (True, True, False)
    """
    role = attrs.get("role")
    if role and role.lower() in DIALOG_ROLES:
        return True
    modal = attrs.get("aria-modal")
    return modal is not None and modal.lower() == "true"


def drop_labelled(
    root: LexborNode,
    options: BlockOptions,
    keep: LexborNode | None = None,
    within: LexborNode | None = None,
) -> LexborNode | None:
    """Dialogs (``drop_dialogs``), then boilerplate containers named by class/id
    (``class_hints``, see :func:`drop_hits`), from one selector pass. A container holding
    ``keep`` (the page's article container) stays; ``keep`` is returned unless a dialog held it.
    Teaser cards go only inside ``within``, the page's article container (``article_teasers``).

    >>> tree = LexborHTMLParser('<div role="dialog">a</div><div class="comments">b</div><p>c</p>')
    >>> drop_labelled(tree.body, BlockOptions()); tree.body.text()
    'c'
    """
    if not (options.drop_dialogs or options.class_hints):
        return keep
    dialogs, hits, hidden = [], [], []
    dialog_rule, hints, known = options.drop_dialogs, options.class_hints, _LABEL_PARTS
    hidden_rule, anchors = options.hidden_max_share > 0, options.section_anchors
    permalinks, opened = options.permalinked_sections, options.noise_opens_label
    numbered, reader = options.numbered_posts, options.screen_reader_label_chars
    cited = options.cited_sections
    story = {within.mem_id} if within is not None and options.article_teasers else None
    teasers: list[LexborNode] = []
    for node in root.css(LABELLED_SELECTOR):
        attrs = node.attributes
        if dialog_rule and ("role" in attrs or "aria-modal" in attrs) and is_dialog(attrs):
            dialogs.append(node)
            continue
        if not hints:
            continue
        cls, ident = attrs.get("class") or "", attrs.get("id") or ""
        one = known.get(cls) or label_part(cls)
        two = known.get(ident) or label_part(ident)
        if one[1] or two[1]:
            continue
        if not opened and (one[2] or two[2]):
            continue
        if one[0] or two[0]:
            tag = tag_name(node)  # only a node a rule names: most labelled nodes are not
            if tag in _PAGE_TAGS:
                continue
            if anchors and ident.count("-") >= 2 and section_anchor(node, ident):
                continue
            if cited and ident.count("-") >= 2 and cited_section(root, node, ident):
                continue
            if numbered and numbered_post(ident):
                continue
            if not (permalinks and ident and tag in _SECTIONS and permalinked_section(node, ident)):
                hits.append(node)
        elif hidden_rule and "hidden" in cls and hidden_label(cls):
            if tag_name(node) in _PAGE_TAGS:
                continue
            hits.append(node)
            hidden.append(node)
        elif reader and screen_reader_label(node, cls, reader):
            hits.append(node)
        elif (
            story and ("easer" in cls or "easer" in ident) and teaser_card(node, cls, ident, story)
        ):
            teasers.append(node)
    if teasers and within is not None and beside_story(within, teasers, options):
        hits.extend(teasers)
    if dialogs:
        detach(dialogs)
        ids = {node.mem_id for node in dialogs}
        hits = [node for node in hits if not has_ancestor_in(node, ids)]
        if keep is not None and (keep.mem_id in ids or has_ancestor_in(keep, ids)):
            keep = None
    if hidden and shown_by_script(root, hidden, options.hidden_max_share):
        shown = {node.mem_id for node in hidden}
        hits = [node for node in hits if node.mem_id not in shown]
    if hits:
        drop_hits(root, hits, options.hint_max_share, ancestor_ids(keep))
    return keep


def numbered_post(ident: str) -> bool:
    """True for an id naming a blog post by its number, as WordPress themes print it on the
    post's element (``id="post-<?php the_ID(); ?>"``): the post itself, even in a theme whose
    class for it is a boilerplate word ("post-meta").

    >>> numbered_post("post-4955"), numbered_post("post-meta"), numbered_post("post-4955-comments")
    (True, False, False)
    """
    return ident[:5] == "post-" and ident[5:].isdigit()


_NOT_SLUG = re.compile(r"[\W_]+")


def section_anchor(node: LexborNode, ident: str) -> bool:
    """True when the element's id is the anchor of the heading that opens it: the id a
    documentation generator (Sphinx, MkDocs) or a wiki derives from a section's title, whose
    words may be a boilerplate hint's ("sharing-…", "comments-on-…", "related-work").

    >>> tree = LexborHTMLParser('<div id="sharing-with-one-developer"><h2>Sharing with one developer¶</h2></div>')
    >>> section_anchor(tree.css_first("div"), "sharing-with-one-developer")
    True
    """
    if ident.count("-") < 2:  # a title of three words or more: a role name is one or two
        return False
    heading = node.css_first("h1, h2, h3, h4, h5, h6")
    if heading is None:
        return False
    return _NOT_SLUG.sub("-", heading.text().lower()).strip("-") == ident.lower()


def cited_section(root: LexborNode, node: LexborNode, ident: str) -> bool:
    """True when the element opens with a heading and a link of the page points to its id
    (``#id`` or ``page.html#id``): a cross-reference cites it as a part of the text, as a
    DocBook manual cites its sections by hand-written anchors whose last word may be a
    boilerplate hint ("SQL-FOR-UPDATE-SHARE" over "The Locking Clause"). Callers pass ids of
    three words or more: "#comments" or "#share-bar" links name a role, not a section.

    >>> tree = LexborHTMLParser('<a href="#SQL-FOR-SHARE">see</a><div id="SQL-FOR-SHARE"><h3>Locking</h3></div>')
    >>> cited_section(tree.root, tree.css_first("div"), "SQL-FOR-SHARE")
    True
    """
    if '"' in ident or "\\" in ident:  # not quotable in a selector: no section id holds these
        return False
    first = node.child
    while first is not None and first.tag == "-text":
        first = first.next
    if first is None or first.tag not in HEADINGS:
        return False
    return root.css_first(f'a[href$="#{ident}"]') is not None


_PAGE_TAGS = frozenset(("body", "html"))  # never a boilerplate container


# The elements documentation generators give a section's anchor to: Sphinx's <section id>
# (older releases: <div class="section" id>), MkDocs's and Docusaurus's headings themselves.
_SECTIONS = frozenset(("section", "div", "h1", "h2", "h3", "h4", "h5", "h6"))


def permalinked_section(node: LexborNode, ident: str) -> bool:
    """True when the element's id is the slug of its opening heading and that heading links
    to it: a documentation generator's section (Sphinx's and MkDocs's "¶" headerlink) named
    by a title of one or two words that is also a boilerplate hint ("Commentary",
    "Footnotes"). A comment thread's heading ("12 Comments") is not its id's slug.

    >>> tree = LexborHTMLParser('<section id="commentary"><h3>Commentary<a href="#commentary">¶</a></h3></section>')
    >>> permalinked_section(tree.css_first("section"), "commentary")
    True
    """
    heading = node.css_first("h1, h2, h3, h4, h5, h6")
    if heading is None:
        return False
    if _NOT_SLUG.sub("-", heading.text().lower()).strip("-") != ident.lower():
        return False
    target = "#" + ident
    return any(link.attributes.get("href") == target for link in heading.css("a"))


def shown_by_script(root: LexborNode, hidden: list[LexborNode], share: float) -> bool:
    """True when the ``hidden`` elements (document order) together hold ``share`` of the
    page's text: a slide show or tabs whose parts a script shows one at a time, not a
    hidden layer.

    >>> tree = LexborHTMLParser('<div class="hidden">One slide</div><div class="hidden">Two</div><p>x</p>')
    >>> shown_by_script(tree.body, tree.css(".hidden"), 0.4)
    True
    """
    ids = {node.mem_id for node in hidden}
    size = sum(len(node.text()) for node in hidden if not has_ancestor_in(node, ids))
    return size >= share * len(root.text())


def ancestor_ids(node: LexborNode | None) -> set[int]:
    """The mem_ids of a node's ancestors (empty for None).

    >>> tree = LexborHTMLParser("<div><p>x</p></div>")
    >>> tree.css_first("div").mem_id in ancestor_ids(tree.css_first("p"))
    True
    """
    ids: set[int] = set()
    parent = node.parent if node is not None else None
    while parent is not None:
        ids.add(parent.mem_id)
        parent = parent.parent
    return ids


def drop_outermost(nodes: list[LexborNode]) -> None:
    """Decompose ``nodes``, outermost first and each once (a node inside a removed one is
    already freed: touching it would read freed memory).

    >>> tree = LexborHTMLParser('<div role="dialog"><p role="dialog">x</p></div><p>y</p>')
    >>> drop_outermost(tree.css("[role=dialog]")); tree.body.text()
    'y'
    """
    ids = {node.mem_id for node in nodes}
    doomed = [node for node in nodes if not has_ancestor_in(node, ids)]
    for node in doomed:
        node.decompose()


# WordPress's post_class() lists the post's categories and tags as classes of the article
# element ("category-newsletter", "tag-cookies"): they name the topic, not the container.
TAXONOMY_CLASS = re.compile(r"(?:^|\s)(?:category|tag|post_tag|topic)-\S*", re.I)


@lru_cache(maxsize=8192)
def noise_label(label: str) -> bool:
    """True when a "class id" label names a boilerplate container (cached: pages repeat labels).

    >>> noise_label("comments-area "), noise_label("category-comments post"), noise_label("share content")
    (True, False, False)
    """
    if not NOISE_HINT.search(label):
        return False
    return bool(NOISE_HINT.search(TAXONOMY_CLASS.sub(" ", label))) and not CONTENT_HINT.search(
        label
    )


_LABEL_PARTS: dict[str, tuple[bool, bool, bool]] = {}


def label_part(part: str) -> tuple[bool, bool, bool]:
    """(names boilerplate, names content, names content only in class words that a
    boilerplate word opens) for one class or id value, cached: the page's labels are
    checked by dict look-up (:func:`noise_label` of "class id" is
    ``(a[0] or b[0]) and not (a[1] or b[1])`` for its two parts a and b).

    >>> label_part("comments-area"), label_part("category-comments"), label_part("share content")
    ((True, False, False), (False, False, False), (True, True, False))
    >>> label_part("newsletter-widget__text__new-story-page")
    (True, False, True)
    """
    if len(_LABEL_PARTS) > 100_000:
        _LABEL_PARTS.clear()
    low = part.lower()  # then case-sensitive patterns: re.I costs 2-3x the time
    noisy = bool(_NOISE_LOW.search(low)) and bool(_NOISE_LOW.search(_TAXONOMY_LOW.sub(" ", low)))
    content = led = bool(_CONTENT_LOW.search(low))
    if content:
        content = not noisy or any(named_content(word) for word in low.split())
        led = not content
    found = _LABEL_PARTS[part] = (noisy, content, led)
    return found


# BEM and its kin name an element after the block it belongs to, the block first:
# "newsletter-widget__text__new-story-page" is the newsletter's text on a story page, and
# "comment-content" a comment's body. A content word in a class word that a boilerplate
# word opens names where the box sits, not what it is.
_NOISE_OPENS = re.compile("(?:" + "|".join(map(re.escape, NOISE_WORDS)) + ")")


def named_content(word: str) -> bool:
    """True when a lower-cased class word names content and no boilerplate word opens it.

    >>> named_content("article-content"), named_content("comment-content"), named_content("share")
    (True, False, False)
    """
    return _CONTENT_LOW.search(word) is not None and _NOISE_OPENS.match(word) is None


# The CSS frameworks' utility class that hides an element (Bootstrap's and Tailwind's
# ``.hidden {display: none}``): a paywall's or sign-up layer's pitch, a screen-reader's
# "Author of the article:", a closed search box. A value holding a responsive variant
# (Tailwind's ``hidden md:block``) shows the element on a wide screen: it stays.
HIDDEN_CLASS = re.compile(r"(?:^|\s)hidden(?:\s|$)")


def hidden_label(value: str) -> bool:
    """True for a class value that hides its element on every screen (class names are
    case-sensitive in CSS: ``.hidden`` does not match "Hidden").

    >>> hidden_label("intro-body__premium hidden"), hidden_label("hidden md:block"), hidden_label("hidden-xs")
    (True, False, False)
    """
    return ":" not in value and HIDDEN_CLASS.search(value) is not None


# The screen-reader-only utility classes of Bootstrap (``visually-hidden``, ``sr-only``),
# WordPress (``screen-reader-text``) and HTML5 Boilerplate (``visuallyhidden``).
SCREEN_READER_CLASS = re.compile(
    r"(?:^|\s)(?:visually-?hidden|sr-only|screen-reader-text)(?:\s|$)", re.IGNORECASE
)
_READER_BLOCKS = frozenset(("div", "p", "h2", "h3", "h4", "h5", "h6"))


def screen_reader_label(node: LexborNode, cls: str, most: int) -> bool:
    """True for a screen-reader-only element that is a block of its own with at most ``most``
    characters: a label read aloud, not shown.

    >>> tree = LexborHTMLParser('<div class="visually-hidden">Article content</div>')
    >>> screen_reader_label(tree.css_first("div"), "visually-hidden", 40)
    True
    >>> tree = LexborHTMLParser('<span class="visually-hidden">Regular price</span>')
    >>> screen_reader_label(tree.css_first("span"), "visually-hidden", 40)
    False
    """
    if not ("idden" in cls or "sr-only" in cls or "reader" in cls):  # most classes: no regex
        return False
    if not SCREEN_READER_CLASS.search(cls):
        return False
    return tag_name(node) in _READER_BLOCKS and len(node.text(strip=True)) <= most


def beside_story(box: LexborNode, teasers: list[LexborNode], options: BlockOptions) -> bool:
    """True when the teaser cards in ``box`` sit beside a story: ``box`` is one
    (:func:`story_node`) and the cards hold less than ``options.story_share`` of its text.

    >>> tree = LexborHTMLParser("<div><p>" + "word " * 40 + "</p><p class=teaser><a href=/x>x</a></p></div>")
    >>> beside_story(tree.css_first("div"), tree.css("p.teaser"), BlockOptions())
    True
    """
    total = len(box.text(strip=True))
    outer = [n for n in teasers if not has_ancestor_in(n, {t.mem_id for t in teasers})]
    cards = sum(len(n.text(strip=True)) for n in outer)
    return cards < options.story_share * total and story_node(box, options)


def story_node(node: LexborNode, options: BlockOptions) -> bool:
    """True when at least ``options.story_share`` of an element's text sits in ``<p>``s of
    ``options.story_paragraph_chars`` or more: a story, not a page of cards.

    >>> story_node(LexborHTMLParser("<div><p>" + "word " * 40 + "</p><a>x</a></div>").css_first("div"), BlockOptions())
    True
    >>> story_node(LexborHTMLParser("<div><p>short</p><a>a card</a></div>").css_first("div"), BlockOptions())
    False
    """
    total = len(node.text(strip=True))
    least = options.story_paragraph_chars
    long = sum(n for p in node.css("p") if (n := len(p.text(strip=True))) >= least)
    return total > 0 and long >= options.story_share * total


# A card's headline is a heading that links to its story, or a link around a heading.
LINKED_HEADING = ":is(h1, h2, h3, h4, h5, h6) a[href], a[href] :is(h1, h2, h3, h4, h5, h6)"
TEASER_WORD = re.compile(r"(?:^|[\s_-])teaser", re.IGNORECASE)


def teaser_card(node: LexborNode, cls: str, ident: str, box: set[int]) -> bool:
    """True for a card pointing to another story inside the article container (mem_id in
    ``box``): its class/id names a teaser (:func:`teaser_label`) and it holds a linked heading.

    >>> tree = LexborHTMLParser('<article><div class="teaser"><h2><a href="/b">B</a></h2></div></article>')
    >>> teaser_card(tree.css_first("div"), "teaser", "", {tree.css_first("article").mem_id})
    True
    """
    if not teaser_label(cls, ident) or not has_ancestor_in(node, box):
        return False
    return node.css_first(LINKED_HEADING) is not None


def teaser_label(cls: str, ident: str) -> bool:
    """True when a class or id word opens with "teaser" (``teaser``, ``teaserpadding``,
    ``c-teaser__title``): the name of a card pointing to another page.

    >>> teaser_label("teaser teaser-small", ""), teaser_label("box", "article-teaser"), teaser_label("story", "")
    (True, True, False)
    """
    if "easer" not in cls and "easer" not in ident:  # most labels: no regex
        return False
    return TEASER_WORD.search(cls) is not None or TEASER_WORD.search(ident) is not None


_NOISE_LOW = re.compile(NOISE_HINT.pattern)
_CONTENT_LOW = re.compile(CONTENT_HINT.pattern)
_TAXONOMY_LOW = re.compile(TAXONOMY_CLASS.pattern)


def is_noise(node: LexborNode) -> bool:
    """True when a node's class or id names a boilerplate container.

    >>> is_noise(LexborHTMLParser('<div class="comments">x</div>').css_first("div"))
    True
    """
    attrs = node.attributes
    return noise_label(f"{attrs.get('class') or ''} {attrs.get('id') or ''}")


def drop_hinted(root: LexborNode, selector: str = NOISE_SELECTOR, max_share: float = 1.01) -> None:
    """Remove containers whose class/id marks them as boilerplate (``selector`` pre-selects).

    >>> tree = LexborHTMLParser('<div class="share-bar">x</div><p>y</p>')
    >>> drop_hinted(tree.body); tree.body.text()
    'y'
    """
    hits = [n for n in root.css(selector) if n.tag not in ("body", "html") and is_noise(n)]
    drop_hits(root, hits, max_share)


def drop_hits(
    root: LexborNode, hits: list[LexborNode], max_share: float = 1.01, kept: Set[int] = frozenset()
) -> None:
    """Detach the boilerplate containers ``hits`` (document order), skipping those inside one
    already dropped. A hit holding ``max_share`` of the page's text is kept (a page-wide
    wrapper such as id="navigation-container"; hits inside it still go), and so is one whose
    mem_id is in ``kept`` (it holds the article container: class="share_wrapper" around
    the whole story).
    """
    doomed: set[int] = set()
    total = -1  # the page's text length, measured only when a big hit needs it
    for node in hits:
        if node.mem_id in kept or node.mem_id in doomed:
            continue
        if doomed and has_ancestor_in(node, doomed):
            continue
        if max_share <= 1.0 and not _overlay(node):
            size = len(node.text())
            if size >= 1000:  # a smaller container is never a page-wide wrapper worth a look
                total = len(root.text()) if total < 0 else total
                if size >= max_share * total:
                    continue
        doomed.add(node.mem_id)
    detach([node for node in hits if node.mem_id in doomed])


# Customer reviews on a product page (class/id words starting "review": "reviews-list",
# "customer-reviews", "pipf-seo-reviews__review"): what buyers say about the product, not its
# description, like a comment section under a story. Only on a product page: a review
# article's own container is named the same way.
REVIEW_HINT = re.compile(r"(?:^|[\s_-])review")
REVIEW_SELECTOR = "[class*=review i], [id*=review i]"


def drop_reviews(root: LexborNode, max_share: float = 1.01) -> None:
    """Remove the customer-review containers of a product page (see REVIEW_HINT); one
    holding ``max_share`` of the page's text stays (see :func:`drop_hits`).

    >>> tree = LexborHTMLParser('<div class="product-reviews">Great!</div><p>A mug.</p>')
    >>> drop_reviews(tree.body); tree.body.text()
    'A mug.'
    """
    drop_named(root, REVIEW_SELECTOR, REVIEW_HINT, max_share)


def drop_named(root: LexborNode, selector: str, hint: re.Pattern, max_share: float) -> None:
    """Remove the containers ``selector`` pre-selects whose lower-cased "class id" label
    ``hint`` finds, but the page itself; one holding ``max_share`` of the page's text stays
    (see :func:`drop_hits`).

    >>> tree = LexborHTMLParser('<div class="reviews">Great!</div><p>A mug.</p>')
    >>> drop_named(tree.body, "[class]", re.compile("review"), 1.01); tree.body.text()
    'A mug.'
    """
    hits = []
    for node in root.css(selector):
        attrs = node.attributes
        label = f"{attrs.get('class') or ''} {attrs.get('id') or ''}".lower()
        if node.tag not in _PAGE_TAGS and hint.search(label):
            hits.append(node)
    drop_hits(root, hits, max_share)


# A shop's shipping, delivery and returns terms on a product page (class/id words starting
# "shipping", "delivery" or "return": Etsy's "shipping_and_returns", Amazon's
# "deliveryBlockContainer" and "returnsInfoFeature_feature_div"): the shop's policy, the same
# on each of its pages, not the product. WooCommerce's post_class() marks the product's own
# element "shipping-taxable" (a tax state, not a box): that class is no hint. Only on a
# product page: a service page's or an article's "delivery" names its subject.
POLICY_HINT = re.compile(r"(?:^|[\s_-])(?:shipping(?!-taxable)|delivery|return)")
_POLICY_PARTS = (
    f"[{attr}*={word} i]" for word in ("shipping", "delivery", "return") for attr in ("class", "id")
)
POLICY_SELECTOR = f":is({', '.join(_POLICY_PARTS)})"


def drop_policies(root: LexborNode, max_share: float = 1.01) -> None:
    """Remove the shipping, delivery and returns containers of a product page (see
    POLICY_HINT); one holding ``max_share`` of the page's text stays (see :func:`drop_hits`).

    >>> tree = LexborHTMLParser('<div id="shipping_and_returns">Ships from Israel</div><p>A mug.</p>')
    >>> drop_policies(tree.body); tree.body.text()
    'A mug.'
    """
    drop_named(root, POLICY_SELECTOR, POLICY_HINT, max_share)


OVERLAY_HINT = re.compile(r"cookie|popup|modal|consent|dsgvo|gdpr|privacy", re.I)


def _overlay(node: LexborNode) -> bool:
    """A cookie/consent/popup layer: it may hold most of a page's text (legal notices)."""
    attrs = node.attributes
    return bool(OVERLAY_HINT.search(f"{attrs.get('class') or ''} {attrs.get('id') or ''}"))


def has_ancestor_in(node: LexborNode, ids: set[int]) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.mem_id in ids:
            return True
        parent = parent.parent
    return False


class _Cutter:
    """Accumulates text and region-tag weights while walking the tree."""

    __slots__ = (
        "weights", "blocks", "parts", "link_chars", "pending", "tag", "path", "opened", "marked",
        "links", "blank", "anchors", "regions", "shown", "hidden", "hidden_br", "useless",
    )  # fmt: skip

    def __init__(self, weights: dict[str, float], anchors: bool = True) -> None:
        self.weights = weights
        # A negative weight marks a tag the walk checks before it enters (see split_shown):
        # NOT_SHOWN never, CHECKED unless the element shows no child, HIDDEN_TAG unless it
        # is also ``hidden``; an element it enters weighs its ``shown`` weight.
        self.shown = weights
        self.hidden: set[int] = set()
        self.hidden_br = False  # a hidden <br> (no children) ends no line
        self.useless: frozenset[str] = frozenset()
        self.anchors = anchors  # see own_anchor
        self.blocks: list[Block] = []
        self.parts: list[str] = []
        self.link_chars = 0
        self.links = 0
        self.pending = 0.0
        self.tag = "div"
        self.path: list[int] = []
        self.opened = 0
        self.marked = [-1, -1]  # blocks [start, end) inside the marked element
        self.blank = False  # whitespace was seen since the last block (see flush)
        self.regions: list[LexborNode] = []  # region element n of a path is regions[n - 1]

    def flush(self) -> None:
        """End the current block. Whitespace alone makes no block, but still ends the links
        counted so far (the walk only notes it in ``blank``: two in three region ends of a
        real page follow whitespace alone, and joining it cost a third of the walk)."""
        if not self.parts:
            if self.blank:
                self.blank = False
                self.link_chars = 0
                self.links = 0
            return
        self.blank = False
        parts, blocks = self.parts, self.blocks
        text = " ".join("".join(parts).split())
        parts.clear()  # the walk holds this list
        if text:
            if blocks:
                blocks[-1].gap = self.pending
            chars = len(text) - text.count(" ")  # text_length: split() left single spaces only
            link = self.link_chars if self.link_chars < chars else chars
            blocks.append(Block(text, chars, link, self.tag, 0.0, tuple(self.path), -1, self.links))
            self.pending = 0.0
        self.link_chars = 0
        self.links = 0


def split_blocks(root: LexborNode | None, options: BlockOptions | None = None) -> list[Block]:
    """Cut the filtered tree into text blocks with weighted distances.

    >>> tree = LexborHTMLParser("<p>a</p><div><p>b</p></div>")
    >>> [(b.text, b.gap) for b in split_blocks(tree.body)]
    [('a', 3.0), ('b', 0.0)]
    """
    return split_marked(root, None, options)[0]


def split_marked(
    root: LexborNode | None, mark: LexborNode | None, options: BlockOptions | None = None
) -> tuple[list[Block], tuple[int, int]]:
    """:func:`split_blocks`, plus the range [start, end) of the blocks inside ``mark``.

    >>> tree = LexborHTMLParser("<p>a</p><article><p>b</p><p>c</p></article><p>d</p>")
    >>> split_marked(tree.body, tree.css_first("article"))[1]
    (1, 3)
    """
    blocks, span, _ = split_regions(root, mark, options)
    return blocks, span


def split_regions(
    root: LexborNode | None, mark: LexborNode | None, options: BlockOptions | None = None
) -> tuple[list[Block], tuple[int, int], list[LexborNode]]:
    """:func:`split_marked`, plus the region elements the walk opened: the element a
    block's ``path`` names by ``n`` is ``regions[n - 1]`` (the context a block model reads).

    >>> tree = LexborHTMLParser('<div class="post"><p>a</p></div>')
    >>> blocks, _, regions = split_regions(tree.body, None)
    >>> [regions[n - 1].attributes.get("class") for n in blocks[0].path]
    ['post', None]
    """
    if root is None:
        return [], (0, 0), []
    options = options or BlockOptions()
    cutter = _Cutter(options.weights, options.heading_anchors)
    _walk(root, cutter, (mark.mem_id, tag_name(mark)) if mark is not None else None)
    cutter.flush()
    start, end = cutter.marked
    return cutter.blocks, ((start, end) if start >= 0 and end >= 0 else (0, 0)), cutter.regions


NOT_SHOWN = -1.0
CHECKED = -2.0
HIDDEN_TAG = -3.0


def split_shown(
    root: LexborNode | None, options: BlockOptions, hidden: list[LexborNode]
) -> list[Block]:
    """:func:`split_blocks` of what is left once the ``options.useless_tags`` elements and
    the ``hidden`` nodes go with their content, read without changing the tree (so another
    reader can take the same parse afterwards): the walk does not enter them, nor a region
    element or link that would have no child left (``<div><img></div>``: it ends no line).

    >>> tree = LexborHTMLParser("<p>a<script>x</script>b</p><div hidden><p>c</p></div><p>d<br hidden>e</p>")
    >>> options = BlockOptions(useless_tags=("script",))
    >>> [b.text for b in split_shown(tree.body, options, tree.css("[hidden]"))]
    ['ab', 'de']
    >>> tree.body.css_first("script") is not None
    True
    >>> tree = LexborHTMLParser("<a href=/a><div><img></div>Car</a> <a href=/b><div><img></div>Rental</a>")
    >>> [b.text for b in split_shown(tree.body, BlockOptions(useless_tags=("img",)), [])]
    ['Car Rental']
    """
    if root is None:
        return []
    marked = dict.fromkeys(options.weights, CHECKED)
    marked["a"] = CHECKED
    marked.update(dict.fromkeys((tag_name(node) for node in hidden), HIDDEN_TAG))
    marked.update(dict.fromkeys(options.useless_tags, NOT_SHOWN))
    cutter = _Cutter(marked, options.heading_anchors)
    cutter.shown = options.weights
    cutter.hidden = {node.mem_id for node in hidden}
    cutter.hidden_br = marked.get("br") == HIDDEN_TAG
    cutter.useless = useless_set(options.useless_tags)
    _walk(root, cutter)
    cutter.flush()
    return cutter.blocks


def shows_child(child: LexborNode | None, cut: _Cutter) -> bool:
    """Whether ``child`` or a sibling after it is shown: a text or comment node, or an
    element that is neither a useless tag nor hidden (see :func:`split_shown`)."""
    useless, hidden, names = cut.useless, cut.hidden, _TAG_NAMES
    while child is not None:
        tid = child.tag_id
        if tid == _TEXT_ID:
            return True
        name = names.get(tid) or tag_name(child)
        if name not in useless and child.mem_id not in hidden:
            return True
        child = child.next
    return False


def own_anchor(link: LexborNode) -> bool:
    """A link to a place on its own page (``href="#…"``): in a heading, the heading's anchor
    or permalink, which docs generators put on every section heading, not a link away.

    >>> own_anchor(LexborHTMLParser('<a href="#usage">Usage</a>').css_first("a"))
    True
    >>> own_anchor(LexborHTMLParser('<a href="/docs/usage">Usage</a>').css_first("a"))
    False
    """
    return (link.attrs.get("href") or "")[:1] == "#"


_MARK_END = "#mark"
# lexbor's fixed tag ids of a text node and of <br>, read from a parsed page (the block walk
# compares a node's id with them before looking its name up).


def tag_id(name: str) -> int:
    """lexbor's tag id of the first node called ``name`` in a small page ("-text": a text node).

    >>> tag_id("-text") != tag_id("br")
    True
    """
    nodes = LexborHTMLParser("<p>a<br></p>").css("p")
    return next(n.tag_id for p in nodes for n in p.traverse(include_text=True) if n.tag == name)


_TEXT_ID, _BR_ID = tag_id("-text"), tag_id("br")


def _walk(root: LexborNode, cut: _Cutter, mark: tuple[int, str] | None = None) -> None:
    """Depth-first walk without recursion; closing markers replay region ends. ``mark`` is
    the (mem_id, tag name) of the element whose blocks are noted (only an element of that
    tag has its mem_id read).

    Siblings are followed in a loop and only an element with children pushes (its next
    sibling, then its closing marker); the region steps of :class:`_Cutter` are inlined
    (one call per text block): this loop runs once per node of the page.
    """
    weights, parts, path, names = cut.weights, cut.parts, cut.path, _TAG_NAMES
    regions, shown, hidden, hidden_br = cut.regions, cut.shown, cut.hidden, cut.hidden_br
    text_id, br_id = _TEXT_ID, _BR_ID
    mark_id, mark_tag = mark if mark is not None else (None, None)
    stack: list[tuple] = []
    pop, push = stack.pop, stack.append
    node, in_link, region = root.child, False, "div"
    anchors = cut.anchors
    while True:
        if node is None:
            if not stack:
                return
            node, closing, in_link, region = pop()
            if closing is None:
                continue
            if parts:
                cut.flush()
            elif cut.blank:  # whitespace alone: no block, but it ends the links counted
                cut.blank, cut.link_chars, cut.links = False, 0, 0
            if closing is _MARK_END:
                cut.marked[1] = len(cut.blocks)
            else:  # the region element ``closing`` ends; the text after it is in ``region``
                cut.pending += shown[closing]
                cut.tag = region
                if path:
                    path.pop()
            continue
        tid = node.tag_id
        if tid == text_id:  # most nodes: compared by id, before any name look-up
            text = node.text_content
            if text:
                if parts or not text.isspace():
                    parts.append(text)
                    if in_link:
                        cut.link_chars += text_length(text)
                else:
                    cut.blank = True
        elif tid == br_id:
            if hidden_br and node.mem_id in hidden:
                node = node.next
                continue
            if parts:
                parts.append("\n")
            else:
                cut.blank = True
        elif (
            (tag := names.get(tid) or tag_name(node))
            and tag[0] != "-"
            and (child := node.child) is not None
        ):
            weight = weights.get(tag)
            if weight is not None and weight < 0.0:  # see split_shown
                if (
                    weight == NOT_SHOWN
                    or (weight == HIDDEN_TAG and node.mem_id in hidden)
                    or (child.tag_id != text_id and not shows_child(child, cut))
                ):
                    node = node.next
                    continue
                weight = shown.get(tag)
            push((node.next, None, in_link, region))
            if tag == mark_tag and node.mem_id == mark_id:
                if parts:
                    cut.flush()
                elif cut.blank:
                    cut.blank, cut.link_chars, cut.links = False, 0, 0
                cut.marked[0] = len(cut.blocks)
                push((None, _MARK_END, in_link, region))
            if weight is not None:  # a region element opens; its end restores ``region``
                if parts:
                    cut.flush()
                elif cut.blank:
                    cut.blank, cut.link_chars, cut.links = False, 0, 0
                cut.pending += weight
                push((None, tag, in_link, region))
                cut.tag = region = tag
                cut.opened += 1
                path.append(cut.opened)
                regions.append(node)
            # An <a> without href is a placeholder, not a link; a heading's own anchor neither.
            if (
                tag == "a"
                and "href" in node.attrs
                and not (anchors and region in HEADINGS and own_anchor(node))
            ):
                cut.links += 1
                in_link = True
            node = child  # read once: each read of .child builds a new node object
            continue
        node = node.next
