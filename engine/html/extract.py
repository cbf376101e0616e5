"""Main text, summary and keywords of a page (the page-detection method's extraction, improved).

The steps, each its own function below, follow the page-detection method document
(``page-info-detection.txt``, steps b–d):

1. :func:`page_title` and :func:`title_weights`: the title, tokenized (CJK as bigrams).
2. :func:`engine.html.blocks.filter_tree`: the useless-tag library, removed with content.
3. :func:`engine.html.blocks.split_blocks`: blocks and their weighted distances.
4. :func:`grow_sample`: the largest block grows while chars/distance ≥ M, then ≥ Mavg.
5. :func:`verify_sample` / :func:`choose_body`: P′ = Σ count(title word) × weight ≥ M′,
   else the next-largest block (distances kept); no sample passes → no body.
6. :func:`pick_summary`: the longest paragraph matching the title (P″ > 0).
7. :func:`engine.html.keywords.keywords`: weighted keywords for the whole body.

>>> page = b"<title>Cats nap</title><body><div>Menu</div><p>Cats nap a lot, cats nap all day long.</p></body>"
>>> extract(page).summary
'Cats nap a lot, cats nap all day long.'
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache

from selectolax.lexbor import LexborHTMLParser, LexborNode

from engine.errors import DecodeError
from engine.html.blocks import (
    HEADINGS,
    STORY_PARAGRAPH_CHARS,
    STORY_SHARE,
    Block,
    BlockOptions,
    drop_labelled,
    drop_policies,
    drop_reviews,
    drop_useless,
    split_regions,
)
from engine.html.context import ContextModel, bundled_model
from engine.html.keywords import KeywordOptions, detect_language, keywords, stopwords, terms
from engine.html.parse import closed_title, decode_html, looks_binary
from engine.html.product import (
    DescriptionOptions,
    declared_descriptions,
    described_blocks,
    may_declare_product,
    with_description,
)
from engine.html.site_name import site_words
from engine.html.tokens import count_tokens, is_cjk, tokenize


@dataclass
class ExtractOptions:
    """Thresholds of the page-detection method (M, M′, minimum block) and the refinements beyond it.

    >>> ExtractOptions().min_block_chars
    20
    """

    blocks: BlockOptions = field(default_factory=BlockOptions)
    keywords: KeywordOptions = field(default_factory=KeywordOptions)
    min_block_chars: int = 20  # seed: "for example not less than 20 characters"
    growth_threshold: float = 5.0  # M: chars / distance of a neighbour to join
    growth: str = "lookahead"  # "seed" (bar = Mavg) | "lookahead" (bar = M, skip short blocks)
    lookahead: int = 30  # blocks a lookahead growth may jump over
    title_threshold: float = 0.5  # M′: weighted title-word count a sample needs
    max_bases: int = 8  # largest blocks tried as a sample base
    max_link_density: float = 0.35  # blocks of the body mostly made of link text are dropped
    # ... unless they title the content after them (see titles_content): a linked title of
    # ``linked_title_min_chars``+ over a block of ``teaser_min_chars``+ that is not link text.
    linked_titles: bool = True
    linked_title_min_chars: int = 15
    teaser_min_chars: int = 40
    # ... or a paragraph of the story between two plain ones (see linked_paragraph). 0: off.
    linked_paragraph_min_chars: int = 100
    linked_paragraph_max_density: float = 0.8
    # ... or a sentence with links in a list or run of paragraphs whose other items are plain
    # text (see linked_prose): a docs page's "X automates data ingestion." item. 0: off.
    linked_prose_min_chars: int = 30
    linked_prose_min_plain: int = 20  # characters outside its links
    linked_prose_max_density: float = 0.8
    # ... or a sentence with links between two plain blocks of the span (see
    # linked_sentence): "Enables session support. See the session documentation." under its
    # <dt>, "This element includes the global attributes." under its heading. 0: off.
    linked_sentence_min_chars: int = 20
    linked_sentence_min_plain: int = 5  # characters outside its links
    # ... or an item of a link list that a heading or sentence of its own element introduces,
    # when the span holds ``link_index_min_lists``+ such lists (see link_index_items): a docs
    # hub's or a tutorial index's sections, each a heading and its pages. 0: off.
    link_index_min_lists: int = 2
    link_index_intro_chars: int = 80  # a plain <p> this long introduces a list too (0: no)
    title_reach: int = 3  # blocks after the title, in its item (same parent element), searched
    # Seed: no sample passes the title check → no body. Off by default: generic or
    # site-heavy titles then cost the whole body; the best-matching sample is used instead.
    require_title_match: bool = False
    # Beyond the page-detection method: widen the sample to the smallest region element holding all of it
    # (catches the lead, list items and subheads the chars/distance growth stops short of).
    container: bool = True
    drop_title: bool = True  # the title heading is not body text (it is the title)
    orphan_headings: bool = True  # a heading over a dropped link list ("Related") goes too
    orphan_max_chars: int = 80  # a longer "heading" is a lead set in h2/h3, never an orphan
    section_headings: bool = True  # ... nor one right over its first subheading (opens_subsection)
    trim_chars: int = 40  # short blocks at either end of the body (dates, "Related") are cut
    trim_plain_stays: bool = True  # ... unless a plain <p> (no digits, no links): see edge_noise
    # Beyond the page-detection method: the page's article container (see article_box), when it holds enough
    # text, is the body as a whole (minus link lists). 0 tiers turns it off.
    article_box_tiers: int = 5
    article_box_min_chars: int = 250
    article_box_min_share: float = 0.4  # of the sample's characters
    # A boilerplate-named container (class/id hint) holding the article container of a tier
    # under this stays (class="share_wrapper" around the story). 0: off.
    box_keeps_tiers: int = 3
    # An empty article container (a slot a script fills) gives way to one holding text of a
    # tier under this (see best_box). 0: off (the empty one stands: the page-wide sample).
    box_refill_tiers: int = 3
    lead_blocks: int = 6  # seed-sample blocks this close before the container join it
    lead_after_headline: bool = True  # ... if after the story's headline (see after_headline)
    # ... and so do sentence-long h2-h6 there (a standfirst set as a heading between the
    # title and the article element). 0: off.
    standfirst_min_chars: int = 50
    credit_max_chars: int = 120  # blocks this short matching CREDIT are not body (0: off)
    notice_max_chars: int = 160  # blocks this short matching NOTICE are not body (0: off)
    # Blocks opening with a blog platform's template line or a reprint notice (see
    # template_line) are not body text at any length.
    template_lines: bool = True
    # After trafilatura's compare_extraction: a later sample that also passes the title check
    # and is this many times larger joins the first one (page-builder layouts and tables cut
    # the article into parts far apart; the largest block's sample is then one part). 0: off.
    rival_factor: float = 1.5
    # After trafilatura's MIN_EXTRACTED_SIZE (250) and compare_extraction (factor 2): a body
    # this short is extracted again without the class/id hints (a "share-zone" or "comment"
    # class around the article itself); the second body wins if it is twice as long. Still
    # that short: trafilatura's baseline, every paragraph of the page, wins if twice as long.
    # 0: off.
    fallback_min_chars: int = 250
    fallback_factor: float = 2.0
    paragraph_fallback: bool = True  # the baseline step of the fallback above
    # A body still under this (no sentence or two: a page made of links) gives way to the page's
    # text without menu items (see page_text_blocks) when that is twice as long. 0: off.
    text_fallback_max_chars: int = 100
    # A comment section's opener ("18 Comments", "Leave a reply", see COMMENTS_OPENER) of up
    # to ``comments_max_chars`` after this share of the body's text ends the body: the thread
    # under a story is not its main text. 0: off.
    comments_after_share: float = 0.5
    comments_max_chars: int = 40
    # ... or, for an opener counting the comments ("104 Comments"), after this many characters
    # of the body, however long the thread (see counted_thread). 0: off.
    comments_count_min_chars: int = 250
    # On a product page (og:type "product…"), customer-review containers go (see
    # engine.html.blocks.drop_reviews): buyers' reviews are not the product's description.
    product_reviews: bool = True
    # ... and so do the shop's shipping, delivery and returns containers (see
    # engine.html.blocks.drop_policies): terms the shop prints on every product.
    product_policies: bool = True
    # On a product page, a body block (not a list item) repeating an earlier one of this many
    # characters goes (see drop_repeats): a shop prints its description once per screen
    # size. 0: off.
    product_repeat_min_chars: int = 20
    # A data table the body holds cells of is taken whole (see whole_tables).
    whole_tables: bool = True
    # A short block of a teaser card (see teaser_part): a block of up to teaser_part_max_chars
    # whose smallest enclosing element around another block is more than teaser_card_density
    # link text, in a body that is a story (story_share_min of its plain text in paragraphs of
    # story_paragraph_chars+). 0: off.
    teaser_part_max_chars: int = 120
    teaser_card_density: float = 0.5
    story_share_min: float = STORY_SHARE
    story_paragraph_chars: int = STORY_PARAGRAPH_CHARS
    # A body under card_grid_body_max_chars (a shop's sale banner or a count of results) beside
    # a grid of card_grid_min_cards+ product cards (see card_titles) takes the cards' titles:
    # they are the listing's own text. 0: off.
    card_grid_body_max_chars: int = 600
    card_grid_min_cards: int = 6
    # A page that declares a product in schema.org data (engine.html.product): a body that
    # holds none of the blocks of its declared description takes them (see
    # anchor_description). None: off.
    product_description: DescriptionOptions | None = field(default_factory=DescriptionOptions)
    # A learned keep/drop score of the body's blocks from their context (class/id words and
    # element names around them, repeated structure; see engine/html/context.py): the
    # bundled weights, None when absent or off.
    context_model: ContextModel | None = field(default_factory=bundled_model)


@dataclass
class Extraction:
    """What :func:`extract` finds in a page.

    >>> Extraction("T", "B", "B", [("b", 1.0)]).to_dict()["keywords"]
    [['b', 1.0]]
    """

    title: str
    body: str
    summary: str
    keywords: list[tuple[str, float]]
    language: str = "en"

    def to_dict(self) -> dict:
        """The CLI/JSON form: title, body, summary, keywords as [word, weight] pairs."""
        return {
            "title": self.title,
            "body": self.body,
            "summary": self.summary,
            "keywords": [[w, s] for w, s in self.keywords],
        }


# --- decoding -------------------------------------------------------------------------------


def decode(html: bytes | str) -> str:
    """Page bytes as text, decoded as a browser would (see :mod:`engine.html.parse`).

    Raises DecodeError only for data that is clearly not text (see :func:`looks_binary`).

    >>> decode(b'<meta charset="latin-1"><p>caf\\xe9')[-4:]
    'café'
    """
    if isinstance(html, str):
        return html
    if looks_binary(html):
        raise DecodeError("not a text page (binary data)")
    return decode_html(html).text


@dataclass(slots=True)
class ParsedPage:
    """A page decoded and parsed once (an unclosed ``<title>`` ended, see
    :func:`closed_title`): its text and its tree. The extraction changes the tree: whatever
    else reads the same parse (:func:`engine.html.visible.shown_text`) reads it first."""

    text: str
    tree: LexborHTMLParser


def parse_page(html: bytes | str) -> ParsedPage:
    """Decode a page, end an unclosed title, and parse it with lexbor.

    >>> parse_page("<title>T<p>x</p>").tree.body.text()
    'x'
    """
    text = closed_title(decode(html))
    return ParsedPage(text, LexborHTMLParser(text))


def parse(html: bytes | str) -> LexborHTMLParser:
    """Decode and parse a page with lexbor.

    >>> parse(b"<p>x</p>").body.text()
    'x'
    """
    return LexborHTMLParser(decode(html))


# --- step 1: the title ----------------------------------------------------------------------

GENERIC_TITLES = frozenset(
    [
        "home",
        "homepage",
        "startseite",
        "index",
        "untitled",
        "news",
        "blog",
        "accueil",
        "inicio",
        "welcome",
        "willkommen",
        "article",
        "artikel",
        "page",
        "seite",
        "首页",
        "主页",
    ]
)
_SEPARATORS = re.compile(r"\s+[|–—»·:•/-]\s+|\s*\|\s*|\s+::\s+")


def _meta_content(tree: LexborHTMLParser | LexborNode, selector: str) -> str:
    node = tree.css_first(selector)
    return " ".join((node.attributes.get("content") or "").split()) if node else ""


def _node_text(tree: LexborHTMLParser, selector: str) -> str:
    node = tree.css_first(selector)
    return " ".join(node.text().split()) if node else ""


_TITLE_SOURCES = (
    (_node_text, "title"),
    (_meta_content, 'meta[property="og:title"]'),
    (_node_text, "h1"),
)


def is_generic(title: str) -> bool:
    """True for an empty title or one that names no content ("Home", "Startseite").

    >>> is_generic("Startseite"), is_generic("Die GEMA dreht am Zeiger")
    (True, False)
    """
    words = tokenize(title)
    return not words or (len(words) <= 2 and " ".join(words) in GENERIC_TITLES)


def page_title(tree: LexborHTMLParser) -> str:
    """<title>, else og:title, else the first h1 (the page-detection method, step b, with fallbacks).

    >>> page_title(LexborHTMLParser("<title>Home</title><h1>Real news</h1>"))
    'Real news'
    """
    for read, selector in _TITLE_SOURCES:  # each searched only when the one before is generic
        title = read(tree, selector)
        if not is_generic(title):
            return title
    return ""


# What a stored title keeps: real <title>s on the wide set are 58 characters (median), 188 at most.
TITLE_CHARS = 300
HTML_SPACE = re.compile(r"[\t\n\f\r ]+")  # ASCII whitespace (WHATWG Infra)


def tab_title(text: str, limit: int = TITLE_CHARS) -> str:
    """A title as a browser's tab holds it: ASCII whitespace stripped and collapsed (HTML's
    ``document.title``), clipped at a word to ``limit`` characters with "…": a <title> with no
    </title> holds the whole rest of the page, markup and all.

    >>> tab_title("  Die GEMA\\n dreht  ")
    'Die GEMA dreht'
    >>> tab_title("one two three", 9)
    'one two…'
    """
    text = HTML_SPACE.sub(" ", text).strip(" ")
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if text[limit - 1] != " " and " " in cut:  # a word cut in two: left out
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ") + "…"


def title_weights(title: str) -> dict[str, float]:
    """Title words without stop words, each weighted 1/n (the page-detection method, formula 1's weights).

    A CJK title yields bigrams.

    >>> title_weights("网页信息探测")
    {'网页': 0.2, '页信': 0.2, '信息': 0.2, '息探': 0.2, '探测': 0.2}
    """
    words = terms(title, stopwords(detect_language(tokenize(title))), 2)
    unique = list(dict.fromkeys(words))
    return {w: 1.0 / len(unique) for w in unique}


def article_title(title: str, site: set[str]) -> str:
    """The title without the segments that only name the site ("Story | Site").

    >>> article_title("Scherenschnitt (3) | gnaddrig ad libitum", {"gnaddrig"})
    'Scherenschnitt (3)'
    """
    segments = [seg for seg in _SEPARATORS.split(title) if seg.strip()]
    kept = [seg for seg in segments if not (set(tokenize(seg)) & site)]
    return " ".join(kept) if kept and len(segments) > 1 else title


# --- steps 4 and 5: body sample and its verification ---------------------------------------


def _ratio(blocks: list[Block], edge: int, j: int) -> float:
    lo, hi = min(edge, j), max(edge, j)
    distance = sum(blocks[k].gap for k in range(lo, hi))
    return blocks[j].chars / max(distance, 0.5)


def _first_ratio(blocks: list[Block], base: int, step: int, free: list[bool]) -> tuple[int, float]:
    j = base + step
    while 0 <= j < len(blocks) and not free[j]:
        j += step
    if not 0 <= j < len(blocks):
        return -1, 0.0
    return j, _ratio(blocks, base, j)


def growth_bar(m1: float, m2: float, threshold: float) -> float | None:
    """The page-detection method's Mavg: mean of M1 and M2 when both pass M, of the passing one and M, else None.

    >>> growth_bar(12.0, 20.0, 8.0), growth_bar(12.0, 1.0, 8.0), growth_bar(1.0, 2.0, 8.0)
    (16.0, 10.0, None)
    """
    passing = [m for m in (m1, m2) if m >= threshold]
    if not passing:
        return None
    return sum(passing) / 2 if len(passing) == 2 else (passing[0] + threshold) / 2


def _extend(blocks, edge, step, bar, free, reach) -> int:
    """Move ``edge`` outwards while a block within ``reach`` passes chars/distance ≥ bar."""
    size = len(blocks)
    while True:  # the distance edge..j grows as j moves (gaps are multiples of 0.5: exact sums)
        nxt, j, seen, distance = None, edge + step, 0, 0.0
        while 0 <= j < size and seen < reach:
            distance += blocks[j if step < 0 else j - 1].gap
            if free[j]:
                seen += 1
                if blocks[j].chars / max(distance, 0.5) >= bar:
                    nxt = j
                    break
            j += step
        if nxt is None:
            return edge
        edge = nxt


def grow_sample(
    blocks: list[Block], base: int, free: list[bool], options: ExtractOptions
) -> tuple[int, int]:
    """Seed step c.iii: the span [lo, hi] grown from ``base`` up and down.

    ``free[k]`` is False for blocks of a discarded sample: they are skipped but their
    distances still count (the page-detection method: "keep the distances of block A").
    """
    m = options.growth_threshold
    up, m1 = _first_ratio(blocks, base, -1, free)
    down, m2 = _first_ratio(blocks, base, 1, free)
    if options.growth == "seed":
        bar = growth_bar(m1, m2, m)
        if bar is None:
            return base, base
        lo = _extend(blocks, up, -1, bar, free, 1) if m1 >= m else base
        hi = _extend(blocks, down, 1, bar, free, 1) if m2 >= m else base
        return lo, hi
    reach = options.lookahead
    return _extend(blocks, base, -1, m, free, reach), _extend(blocks, base, 1, m, free, reach)


def common_path(blocks: list[Block], lo: int, hi: int) -> tuple[int, ...]:
    """The path of the innermost region element enclosing blocks lo..hi: that of the first
    and the last block, as blocks are in document order (an element encloses a contiguous
    run of the page, so one enclosing both ends encloses every block between them).

    >>> common_path([Block("a", 1, 0, "p", path=(1, 2, 3)), Block("b", 1, 0, "p", path=(1, 2, 5))], 0, 1)
    (1, 2)
    """
    first, last = blocks[lo].path, blocks[hi].path
    n, size = 0, min(len(first), len(last))
    while n < size and first[n] == last[n]:
        n += 1
    return first[:n]


def widen_to_container(blocks: list[Block], lo: int, hi: int, free: list[bool]) -> tuple[int, int]:
    """Extend [lo, hi] to every free block inside the sample's common region element."""
    prefix = common_path(blocks, lo, hi)
    if len(prefix) < 2:  # the container would be the whole page
        return lo, hi
    size = len(prefix)
    while lo > 0 and free[lo - 1] and blocks[lo - 1].path[:size] == prefix:
        lo -= 1
    while hi + 1 < len(blocks) and free[hi + 1] and blocks[hi + 1].path[:size] == prefix:
        hi += 1
    return lo, hi


def match_degree(text_counts, weights: dict[str, float]) -> float:
    """P′ (the page-detection method, formula 1): Σ count(title word in text) × weight(word).

    >>> match_degree({"cats": 3, "nap": 1}, {"cats": 0.5, "nap": 0.5})
    2.0
    """
    return sum(text_counts.get(w, 0) * v for w, v in weights.items())


def verify_sample(text: str, weights: dict[str, float], options: ExtractOptions) -> bool:
    """Seed step c.iv: the sample is the body when P′ ≥ M′ (no title → always).

    >>> verify_sample("cats nap", {"cats": 1.0}, ExtractOptions())
    True
    """
    if not weights:
        return True
    return match_degree(count_tokens(text), weights) >= options.title_threshold


def _is_linky(block: Block, options: ExtractOptions) -> bool:
    """A block mostly made of link text (a menu, a link list); a <pre> block is code or a man
    page whose names link to their pages ("awk(1), cmp(1), diff(1)"), never a link list.

    >>> menu, see_also = Block("Home News", 9, 9, "p"), Block("awk(1), sed(1)", 14, 12, "pre")
    >>> _is_linky(menu, ExtractOptions()), _is_linky(see_also, ExtractOptions())
    (True, False)
    """
    return block.link_density > options.max_link_density and block.tag not in _CODE


def _orphan_heading(
    blocks: list[Block], k: int, hi: int, options: ExtractOptions, title: str = ""
) -> bool:
    """A heading whose next block is a link list or another heading heads no body text,
    unless that heading opens its first subsection (see :func:`opens_subsection`).

    A "heading" longer than ``orphan_max_chars`` is a lead set in h2/h3, not a heading.
    """
    if blocks[k].tag not in HEADINGS or k >= hi or blocks[k].chars > options.orphan_max_chars:
        return False
    nxt = blocks[k + 1]
    if _is_linky(nxt, options):
        return True
    return nxt.tag in HEADINGS and not opens_subsection(blocks, k, hi, options, title)


def opens_subsection(
    blocks: list[Block], k: int, hi: int, options: ExtractOptions, title: str = ""
) -> bool:
    """Whether heading ``k`` (h2-h6) is right over a heading of a lower level that heads
    text itself (a linked one is ruled out by :func:`_orphan_heading` first): a section whose first subsection starts at once ("Our
    pillars" over "Consolidation and curation" and its paragraph). An <h1> over a heading is
    the page's headline over a kicker or a subtitle, and a heading over the story's headline
    (a subheading ``title`` holds) is a date or a kicker: both stay as they were.
    ``options.section_headings`` False: off.

    >>> h2, h3 = Block("Pricing", 7, 0, "h2"), Block("Free plan", 9, 0, "h3")
    >>> text = Block("The free plan holds three projects.", 35, 0, "p")
    >>> opens_subsection([h2, h3, text], 0, 2, ExtractOptions()), opens_subsection([h3, h2, text], 0, 2, ExtractOptions())
    (True, False)
    """
    tag, nxt = blocks[k].tag, blocks[k + 1]
    if not options.section_headings or tag == "h1" or nxt.tag not in HEADINGS:
        return False
    if nxt.tag <= tag:  # h2 < h3: the same or a higher level
        return False
    if title and nxt.text in title:
        return False
    return not _orphan_heading(blocks, k + 1, hi, options, title)


# Beyond the page-detection method: short blocks that are site notices, not article text: "related"/"read more"
# leads, share and rating prompts, newsletter and subscription calls, ad and affiliate
# disclosures, copyright lines, reCAPTCHA, cookie and ad-blocker notices, PHP warnings, the
# Wayback Machine's banner. Matched only in blocks up to ``notice_max_chars``.
NOTICE = re.compile(
    r"\b(?:"
    # related / read more (de, en, fr, es, it, pt, pl, nl); "read more about X in Y" is a
    # sentence of the text pointing to further reading, not a teaser's label
    r"das könnte (?:sie|dich) auch interessieren|auch interessant|mehr zum thema|ähnliche beiträge"
    r"|weitere (?:nachrichten|artikel|beiträge)|lesen sie auch|zum weiterlesen|schon gelesen"
    r"|related (?:articles?|posts?|stories)|read more(?! about)|you may also like|more from"
    r"|à lire aussi|lire aussi|leer también|contenido relacionado|leggi anche|veja também"
    r"|zobacz również|lees ook"
    # share / rate / comment prompts; a share prompt opens its line ("Share this article",
    # "Read or Share this story:"), a text's sentence shares in mid-line ("we'd like to
    # share this logic between …")
    r"|(?:artikel|beitrag|news|seite) teilen|mit freunden teilen|(?:^|or )share this|teilen:"
    r"|war (?:der|dieser) (?:artikel|beitrag) (?:nützlich|hilfreich)|was this (?:article|page) helpful"
    r"|eingeloggt sein um|logged in to (?:post|comment)"
    # newsletter / subscription / app
    r"|newsletter|sign(?:ing)? up|subscribe|abonnieren|e-mail-adresse ein|download the .{0,40}apps?"
    r"|create (?:an|a free) account|sign in to (?:continue|unlock|read)|already have an account"
    r"|(?:log ?in|sign in) to (?:save|set|add|see|view|post|reply|comment|vote|follow|like|rate)"
    r"|unlimited (?:digital|online) access|to unlock (?:more|this) articles?"
    r"|follow (?:us|the \w+) on|folgen sie uns|síguenos|siguenos"
    # ads, affiliate, copyright, captcha, cookies, ad blockers; a consent notice speaks of
    # cookies ("We use cookies", "enable targeting cookies"): a text's "cookie" is a thing it
    # names (an HTTP cookie's SameSite attribute, a cookie sheet)
    r"|advertis(?:ement|ing disclosure)|anzeige|affiliate|werbung"
    r"|all rights reserved|alle rechte vorbehalten|tous droits réservés|todos los derechos"
    r"|recaptcha|cookies|adblock|ad blocker|werbeblocker"
    # what a browser without scripts shows: "Please turn on JavaScript", "… requires JavaScript"
    r"|javascript (?:is )?(?:disabled|enabled|required)|(?:enable|turn on) (?:your |browser'?s? )?javascript"
    r"|requires? javascript|relies on javascript"
    # consent lines under sign-up and comment forms, embed placeholders
    r"|agree to (?:our|the|its) (?:terms|user agreement|privacy|conditions)|our privacy (?:policy|notice)"
    r"|unserer? datenschutz|datenschutzeinstellungen"
    # PHP warnings and the Wayback Machine
    r"|(?:warning|deprecated|notice|fatal error): .{0,200} on line \d+|wayback machine"
    # update stamps, embed-consent placeholders, comment and support prompts
    r"|aktualisiert am|zuletzt aktualisiert|last updated|last modified|ultima modifica|mis à jour(?: le| à|\s?:)"
    r"|actualizado(?: a| el|:)|aggiornat[oa](?: alle| il|:)|atualizad[oa](?: em| às|:)|最終更新"
    r"|externer inhalt|empfohlener redaktioneller inhalt|weiterlesen"
    r"|um (?:einen )?kommentare? zu schreiben|leave a (?:comment|reply)|kommentar schreiben"
    r"|support (?:us|our journalism|local news)|we rely on your support|unterstütze"
    # a thread's quote and post chrome: XenForo's "Click to expand...", vBulletin's "Originally
    # Posted by X", Stack Exchange's "answered Mar 28, 2014 at 22:52"
    r"|click to expand|originally posted by|(?:asked|answered|edited) \w+ \d+, \d{4} at \d"
    # a shop's or a blog's buttons and sign-up pitches ("Rate this post", "Enter your email address:",
    # "Enter your email for 15% off your order"; not "we rate this camera", "enter your email and password")
    r"|rate this (?:article|post|page|book|product|recipe|story|review)|add to (?:wish ?list|favou?rites)"
    r"|enter your e-?mail(?: address)?(?: ?:|$| for | to (?:get|receive|subscribe|join|sign up))"
    r"|\d+ ?% off your (?:first )?order"
    r")"
)  # matched against lower-cased text: re.I on this alternation costs 3-4x the time


def top_alternatives(pattern: str) -> list[str]:
    """A regex's top-level alternatives (split at "|" outside groups, classes and escapes).

    >>> top_alternatives(r"a(?:b|c)|[|]d|e\\|f")
    ['a(?:b|c)', '[|]d', 'e\\\\|f']
    """
    parts, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c in "()":
            depth += 1 if c == "(" else -1
        elif c == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    return parts + [pattern[start:]]


def by_first_letter(pattern: str) -> str:
    """The same alternation, its alternatives that open with a plain letter grouped by it
    ("ab|ac|d+" -> "a(?:b|c)|d+"): the same texts match, but re tries one branch per first
    letter instead of every alternative at each position.

    >>> by_first_letter("read more|related posts|newsletter|(?:a|b)c")
    'r(?:ead more|elated posts)|n(?:ewsletter)|(?:a|b)c'
    """
    groups: dict[str, list[str]] = {}
    rest = []
    for alt in top_alternatives(pattern):
        if len(alt) > 1 and alt[0].isalpha() and alt[1] not in "*+?{":
            groups.setdefault(alt[0], []).append(alt[1:])
        else:
            rest.append(alt)
    return "|".join([f"{c}(?:{'|'.join(alts)})" for c, alts in groups.items()] + rest)


def _grouped_notice(pattern: str) -> re.Pattern:
    """NOTICE with its alternatives grouped by first letter (see by_first_letter), when it
    has its ``\b(?:…)`` form; NOTICE itself otherwise."""
    head, tail = r"\b(?:", ")"
    inner = pattern[len(head) : -len(tail)]
    if (
        not (pattern.startswith(head) and pattern.endswith(tail))
        or len(top_alternatives(inner)) < 2
    ):
        return re.compile(pattern)
    return re.compile(head + by_first_letter(inner) + tail)


NOTICE_GROUPED = _grouped_notice(NOTICE.pattern)  # ~40 % faster than NOTICE, same matches


# Photo credits and captions left outside <figcaption>: "© AFP / X", "Foto: Andina".
CREDIT = re.compile(
    r"©|\(c\) ?\d{4}|getty ?images|shutterstock|istock|picture[- ]alliance"
    r"|\b(?:fotos?|photos?|bild|bilder|credits?|crédits? photos?|titelbild|beitragsbild"
    r"|bildquelle|image|imagen) ?:"
)


def is_credit(block: Block, max_chars: int, low: str | None = None) -> bool:
    """True for a short photo credit or caption line (``low``: the block's text lower-cased,
    when the caller has it).

    >>> is_credit(Block("Marco Odermatt, Ski-Star. © AFP / MARCO BERTORELLO", 44, 0, "p"), 160)
    True
    """
    if block.chars > max_chars:
        return False
    low = block.text.lower() if low is None else low
    return has_credit_mark(low) and CREDIT.search(low) is not None


# Every alternative of CREDIT holds one of these (a test checks it): a block holding none is
# no credit, and the pattern, which Python's re tries at every position of the text, need not
# run (it costs ~0.3 ms a page; most blocks hold no mark).
CREDIT_MARKS = ("©", "(c)", ":", "getty", "shutterstock", "istock", "picture")
# The marks as one pattern of literals: one search in C (a generator over the marks cost
# ~1.3 µs a block, this ~0.6).
_CREDIT_MARK = re.compile("|".join(map(re.escape, CREDIT_MARKS)))


def has_credit_mark(low: str) -> bool:
    """True when lower-cased text holds one of CREDIT_MARKS.

    >>> has_credit_mark("foto: dpa"), has_credit_mark("the bridge reopened")
    (True, False)
    """
    return _CREDIT_MARK.search(low) is not None


# A block opening with PHP's error output is the server's noise at any length.
PHP_ERROR = re.compile(
    r"(?:warning|deprecated|notice|fatal error|parse error): .{0,300}? on line \d+"
)


# Lines a blog platform's theme or a publisher's template prints under every post, whatever
# its length, lower-cased and matched at the start of a block: WordPress's default themes'
# post metadata ("This entry was posted on <date> and is filed under <categories>. You can
# follow any responses to this entry through the RSS 2.0 feed."), its comment form's notes
# ("You can use these HTML tags and attributes: ..."), the closed-thread line, the "What
# Would Seth Godin Do" plugin's greeting, and the reprint notice of Dow Jones papers
# ("This copy is for your personal, non-commercial use only.").
TEMPLATE_LINE = re.compile(
    r"this entry was posted (?:on|in) "
    r"|you can follow any responses to this entry"
    r"|you (?:can|may) use these html tags|your email address will not be published"
    r"|(?:both )?comments (?:and pings )?are (?:now |currently )?closed"
    r"(?: for this (?:post|article|story))?\.?$"
    r"|if you enjoyed this post, please consider"
    r"|(?:dow jones reprints: )?this copy is for your personal, non-commercial use"
)


def template_line(block: Block, low: str | None = None) -> bool:
    """True for a block opening with a blog theme's or a publisher's template line (``low``:
    the block's text lower-cased, when the caller has it).

    >>> template_line(Block("You can follow any responses to this entry through the RSS 2.0 feed.", 60, 0, "p"))
    True
    >>> template_line(Block("We posted this entry on Monday, as promised.", 40, 0, "p"))
    False
    """
    text = block.text
    head = low if low is not None and len(text) <= 120 else text[:120].lower()
    return TEMPLATE_LINE.match(head) is not None


def is_notice(block: Block, max_chars: int, low: str | None = None) -> bool:
    """True for a short block that is a site notice ("Mehr zum Thema", "© … All rights reserved"),
    or a block of any length opening with a PHP error (``low``: the block's text lower-cased,
    when the caller has it).

    >>> is_notice(Block("Das könnte Sie auch interessieren", 30, 0, "p"), 200)
    True
    """
    text = block.text
    if block.chars <= max_chars:
        return NOTICE_GROUPED.search(text.lower() if low is None else low) is not None
    head = low if low is not None and len(text) <= 400 else text[:400].lower()
    return PHP_ERROR.match(head) is not None


def titles_content(blocks: list[Block], k: int, hi: int, options: ExtractOptions) -> bool:
    """A link-dense block that titles the content right after it (a listing item's linked
    headline over its teaser, a docs section's heading that is its own anchor): kept, unlike
    a link list. A title is a heading, or one link of ``linked_title_min_chars``+ (a share
    bar or a menu is several links; a table cell may be shorter); the content is a block of
    ``teaser_min_chars``+ plain text right after it, or within ``title_reach`` blocks of the
    same item (its parent element: a table row, a list item).

    >>> title = Block("Bridge reopens after the storm", 26, 26, "h3", links=1)
    >>> teaser = Block("The old bridge over the river reopened on Monday after repairs.", 54, 0, "p")
    >>> titles_content([title, teaser], 0, 1, ExtractOptions()), titles_content([title, title], 0, 1, ExtractOptions())
    (True, False)
    """
    if not options.linked_titles or k >= hi:
        return False
    block = blocks[k]
    if block.tag not in HEADINGS and (
        block.links != 1
        or (block.chars < options.linked_title_min_chars and block.tag not in _LABELS)
    ):
        return False
    parent = block.path[:-1]
    for j in range(k + 1, min(hi, k + options.title_reach) + 1):
        nxt = blocks[j]
        if j > k + 1 and nxt.path[:-1] != parent:  # beyond the next block: the same item only
            return False
        if nxt.chars >= options.teaser_min_chars and not _is_linky(nxt, options):
            return True
    return False


def linked_paragraph(
    blocks: list[Block], k: int, lo: int, hi: int, options: ExtractOptions
) -> bool:
    """A link-dense block that is a story's paragraph: a <p> of ``linked_paragraph_min_chars``+
    whose links hold at most ``linked_paragraph_max_density`` of it, between two plain
    paragraphs of the span (after trafilatura, which tests link density on short paragraphs
    only). A link list or a teaser is not set between two paragraphs of running text.

    >>> plain = Block("The mayor said the bridge would reopen on Monday after repairs.", 54, 0, "p")
    >>> linked = Block("Critics, among them the council and two groups, said the repairs came late.", 64, 30, "p", links=2)
    >>> linked_paragraph([plain, linked, plain], 1, 0, 2, ExtractOptions(linked_paragraph_min_chars=60))
    True
    """
    block, least = blocks[k], options.linked_paragraph_min_chars
    if not least or not lo < k < hi or block.tag != "p" or block.chars < least:
        return False
    if block.link_density > options.linked_paragraph_max_density:
        return False
    return all(
        b.tag == "p" and b.chars >= options.teaser_min_chars and not _is_linky(b, options)
        for b in (blocks[k - 1], blocks[k + 1])
    )


_CELLS = frozenset(("td", "th"))
# A table row's one-link label cell ("Salvage") and a definition list's term over its
# description (MDN's "Promise.all()" over "Fulfills when all of the promises fulfill") may be
# short.
_LABELS = frozenset(("td", "th", "dt"))


def site_noise(block: Block, options: ExtractOptions) -> bool:
    """A site notice or a photo credit (see :func:`is_notice`, :func:`is_credit`), computed
    once per block: every sample tried re-reads the same blocks. A <pre> block is code or
    preformatted text, never either (``image: nginx`` in a manifest is no photo credit).

    >>> site_noise(Block("Foto: dpa", 8, 0, "p"), ExtractOptions())
    True
    >>> site_noise(Block("db: image: postgres:18", 22, 0, "pre"), ExtractOptions())
    False
    """
    if block.noise < 0:
        notice, credit = options.notice_max_chars, options.credit_max_chars
        text = block.text  # lower-cased once for the three rules (a long one: only its head)
        low = text.lower() if len(text) <= 400 or block.chars <= max(notice, credit) else None
        noisy = block.tag not in _CODE and (
            (notice and is_notice(block, notice, low))
            or (credit and is_credit(block, credit, low))
            or (options.template_lines and template_line(block, low))
        )
        block.noise = 1 if noisy else 0
    return block.noise == 1


_CODE = frozenset(("pre",))


# The first line of a comment section under a story, alone in its block: "Comments", "18 Comments +",
# "{ 1 trackback }", "12 Responses to “Title”", "Leave a Reply", "Kommentare (3)"; lower-cased.
COMMENTS_OPENER = re.compile(
    r"[{(\[]? ?\d+ (?:comments?|responses?|replies|trackbacks?)\b"
    r"|(?:(?:reader|recent|user) )?(?:comments|kommentare|leserkommentare|commentaires"
    r"|comentarios|commenti|reacties|trackbacks?)\W*\d*\W*$"
    r"|(?:post|leave|add|write|submit) (?:a|your|new) (?:comment|reply|response)\b"
    r"|(?:join|start) the (?:discussion|conversation)\b"
)


def cut_comments(body: list[Block], options: ExtractOptions) -> list[Block]:
    """The body without the comment section under it: the one short block opening one (see
    COMMENTS_OPENER) past ``comments_after_share`` of the body's text ends the body. A thread
    that opens the page (a forum's) is its content, and so is a Q&A page whose answers
    each carry "3 Comments": more than two openers ("18 Comments", "Add a comment") cut
    nothing.

    >>> story, opener = Block("x" * 300, 300, 0, "p"), Block("18 Comments", 11, 0, "h3")
    >>> reply = Block("Great post, thanks for sharing this with us.", 44, 0, "p")
    >>> [b.chars for b in cut_comments([story, opener, reply], ExtractOptions())]
    [300]
    """
    share, total = options.comments_after_share, sum(b.chars for b in body)
    if not share:
        return body
    openers = [
        k
        for k, block in enumerate(body)
        if block.chars <= options.comments_max_chars and COMMENTS_OPENER.match(block.text.lower())
    ]
    if not openers or len(openers) > 2:
        return body
    k = openers[0]
    before = sum(b.chars for b in body[:k])
    if before >= share * total or counted_thread(body[k], before, options):
        return body[:k]
    return body


# A comment section's count ("104 Comments +", "{ 2 comments… read them below or add one }",
# "12 Responses to “Title”"), lower-cased: printed once, over the thread under a story.
COMMENTS_COUNT = re.compile(r"[{(\[]? ?\d+ (?:comments?|responses?|replies)\b")


def counted_thread(opener: Block, before: int, options: ExtractOptions) -> bool:
    """Whether ``opener`` counts the comments under a story of ``before`` characters
    (``comments_count_min_chars``+, 0: off): the thread ends the body even when it is longer
    than the story, unlike a bare "Comments" heading, which a forum's first post may sit
    under.

    >>> counted_thread(Block("104 Comments +", 14, 0, "div"), 640, ExtractOptions())
    True
    >>> counted_thread(Block("Comments", 8, 0, "h3"), 640, ExtractOptions())
    False
    """
    least = options.comments_count_min_chars
    return bool(least) and before >= least and COMMENTS_COUNT.match(opener.text.lower()) is not None


_PROSE_TAGS = frozenset(("p", "li"))


def prose_candidate(block: Block, options: ExtractOptions) -> bool:
    """A link-dense <p> or <li> that may still be a sentence: ``linked_prose_min_chars``+,
    ``linked_prose_min_plain``+ characters outside its links, links at most
    ``linked_prose_max_density`` of it.

    >>> item = Block("BigQuery Data Transfer Service automates data ingestion.", 56, 30, "li", links=1)
    >>> prose_candidate(item, ExtractOptions()), prose_candidate(Block("Home", 4, 4, "li"), ExtractOptions())
    (True, False)
    """
    return (
        options.linked_prose_min_chars > 0
        and block.tag in _PROSE_TAGS
        and block.chars >= options.linked_prose_min_chars
        and block.chars - block.link_chars >= options.linked_prose_min_plain
        and block.link_density <= options.linked_prose_max_density
    )


# How a sentence ends (a CJK full stop too).
_SENTENCE_END = (".", ":", "!", "?", "\u3002")


def linked_sentence(blocks, k, lo, hi, free, options: ExtractOptions) -> bool:
    """A link-dense <p>/<li> that is a sentence of the running text: it ends as a sentence,
    holds ``linked_sentence_min_chars``+ characters with ``linked_sentence_min_plain``+
    outside its links, and the span's blocks just before and after it are plain text (not
    link-dense). Docs point to other pages in the middle of their text ("Enables session
    support. See the session documentation."); a list of teasers or a menu has link-dense
    neighbours, and a headline no full stop.

    >>> dt = Block("SessionMiddleware", 17, 0, "dt")
    >>> see = Block("Enables session support. See the session documentation.", 55, 21, "p", links=1)
    >>> h3 = Block("Site framework", 14, 0, "h3")
    >>> linked_sentence([dt, see, h3], 1, 0, 2, [True] * 3, ExtractOptions())
    True
    >>> linked_sentence([dt, see, Block("Home", 4, 4, "li")], 1, 0, 2, [True] * 3, ExtractOptions())
    False
    """
    block = blocks[k]
    least = options.linked_sentence_min_chars
    if not least or block.tag not in _PROSE_TAGS or block.chars < least:
        return False
    if block.chars - block.link_chars < options.linked_sentence_min_plain:
        return False
    text = block.text
    if not text.rstrip().endswith(_SENTENCE_END) or "www." in text or "://" in text:
        return False
    before, after = _free_neighbour(free, k, lo, -1), _free_neighbour(free, k, hi, 1)
    return (
        before is not None
        and after is not None
        and not _is_linky(blocks[before], options)
        and not _is_linky(blocks[after], options)
    )


def _free_neighbour(free: list[bool], k: int, end: int, step: int) -> int | None:
    """The nearest index from ``k`` towards ``end`` (inclusive) whose block is free."""
    j = k + step
    while (j - end) * step <= 0:
        if free[j]:
            return j
        j += step
    return None


def plain_items(blocks, lo, hi, free, options: ExtractOptions) -> set[tuple]:
    """(parent path, tag) of the span's plain <p>/<li> items of ``teaser_min_chars``+: the
    lists and runs of paragraphs that hold running text.

    >>> plain = Block("Learn about datasets, the top-level container of tables.", 56, 8, "li", path=(1, 2, 3))
    >>> plain_items([plain], 0, 0, [True], ExtractOptions())
    {((1, 2), 'li')}
    """
    return {
        (b.path[:-1], b.tag)
        for b, ok in zip(blocks[lo : hi + 1], free[lo : hi + 1], strict=True)
        if ok
        and b.tag in _PROSE_TAGS
        and b.chars >= options.teaser_min_chars
        and not _is_linky(b, options)
    }


def linked_prose(block: Block, plain: set[tuple], options: ExtractOptions) -> bool:
    """A link-dense sentence (see :func:`prose_candidate`) in a list or run of paragraphs that
    also holds plain text (``plain``: see :func:`plain_items`) is prose with links, as docs
    write it ("See the messages documentation.", "X automates data ingestion."), not a link
    list: a list whose every item is link-dense (related stories, a ranking, a thread's
    headers) stays out. After trafilatura, which tests link density on the whole list.

    >>> item = Block("BigQuery Data Transfer Service automates data ingestion.", 56, 30, "li", path=(1, 2, 4))
    >>> linked_prose(item, {((1, 2), "li")}, ExtractOptions()), linked_prose(item, set(), ExtractOptions())
    (True, False)
    """
    return (block.path[:-1], block.tag) in plain and prose_candidate(block, options)


def introduces(block: Block, options: ExtractOptions) -> bool:
    """A plain block that opens a list: a heading, text ending with a colon, or a paragraph
    of ``link_index_intro_chars``+ (a tutorial index's "A model that makes decisions by
    asking a series of simple questions…" over its pages).

    >>> introduces(Block("For more information, see:", 26, 0, "p"), ExtractOptions())
    True
    """
    if _is_linky(block, options):
        return False
    if block.tag in HEADINGS or block.text.rstrip().endswith(":"):
        return True
    least = options.link_index_intro_chars
    return bool(least) and block.tag == "p" and block.chars >= least


def running_text(blocks, lo, hi, free, options: ExtractOptions) -> set[tuple]:
    """The elements that hold the span's plain paragraphs (<p> of ``teaser_min_chars``+, not
    link-dense): where the running text is.

    >>> running_text([Block("x" * 50, 50, 0, "p", path=(1, 5))], 0, 0, [True], ExtractOptions())
    {(1,)}
    """
    return {
        b.path[:-1]
        for b, ok in zip(blocks[lo : hi + 1], free[lo : hi + 1], strict=True)
        if ok and b.tag == "p" and b.chars >= options.teaser_min_chars and not _is_linky(b, options)
    }


def list_end(blocks: list[Block], k: int, hi: int) -> int:
    """The last block of the list whose item block ``k`` is (the <li>s of its element).

    >>> item = Block("Overview", 8, 8, "li", path=(1, 3, 4))
    >>> list_end([item, item, Block("x", 1, 0, "p", path=(1, 5))], 0, 2)
    1
    """
    parent = blocks[k].path[:-1]
    while k < hi and blocks[k + 1].tag == "li" and blocks[k + 1].path[:-1] == parent:
        k += 1
    return k


def introduced_list(blocks, k, end, free, options: ExtractOptions, prose: set[tuple]) -> bool:
    """Whether the list of blocks ``k``..``end`` is a link list introduced in running text:
    every item a link-dense <li>, the block before it one that introduces it (see
    :func:`introduces`) in the list's own element, an element that holds running text
    (``prose``, see :func:`running_text`).

    >>> intro, item = Block("Lists", 5, 0, "h3", path=(1, 2)), Block("Overview", 8, 8, "li", path=(1, 3, 4))
    >>> introduced_list([intro, item], 1, 1, [True] * 2, ExtractOptions(), {(1,)})
    True
    """
    holder, intro = blocks[k].path[:-2], blocks[k - 1]
    return (
        all(free[j] and _is_linky(blocks[j], options) for j in range(k, end + 1))
        and intro.path[:-1] == holder
        and holder in prose
        and introduces(intro, options)
    )


def link_index_items(blocks, lo, hi, free, options: ExtractOptions) -> set[int]:
    """The items of the span's introduced link lists (see :func:`introduced_list`) when it
    holds ``link_index_min_lists``+ of them. One such list is a story's "More stories:" box;
    several, each a heading or a sentence and its links, are an index: a docs hub's "Strings"
    and its two pages, a tutorial index's chapters.

    >>> intro, text = Block("Lists", 5, 0, "h3", path=(1, 2)), Block("x" * 50, 50, 0, "p", path=(1, 5))
    >>> item = Block("Overview of Redis lists", 23, 23, "li", path=(1, 3, 4))
    >>> sorted(link_index_items([text, intro, item, intro, item], 0, 4, [True] * 5, ExtractOptions()))
    [2, 4]
    """
    prose = running_text(blocks, lo, hi, free, options)
    lists: list[range] = []
    k = lo + 1  # the first block of the span has no introduction in it
    while k <= hi:
        if blocks[k].tag != "li" or not free[k]:
            k += 1
            continue
        end = list_end(blocks, k, hi)
        if introduced_list(blocks, k, end, free, options, prose):
            lists.append(range(k, end + 1))
        k = end + 1
    if len(lists) < options.link_index_min_lists:
        return set()
    return {j for items in lists for j in items}


def _span_blocks(blocks, lo, hi, free, options, title: str = "") -> list[Block]:
    plain: set[tuple] | None = None
    index: set[int] | None = None

    def listed(k: int) -> bool:
        nonlocal index
        if not options.link_index_min_lists or blocks[k].tag != "li":
            return False
        if index is None:
            index = link_index_items(blocks, lo, hi, free, options)
        return k in index

    def prose(k: int) -> bool:
        nonlocal plain
        if linked_sentence(blocks, k, lo, hi, free, options):
            return True
        if not prose_candidate(blocks[k], options):
            return False
        if plain is None:
            plain = plain_items(blocks, lo, hi, free, options)
        return linked_prose(blocks[k], plain, options)

    story: list[bool] = []
    cards: dict[tuple[int, ...], bool] = {}
    short = options.teaser_part_max_chars  # only a block this short may be a teaser part

    def teaser(k: int) -> bool:
        if not story:
            story.append(is_story(blocks[lo : hi + 1], options))
        return story[0] and teaser_part(blocks, k, lo, hi, options, cards)

    # One loop with the options read once: it runs once per block of every sample tried;
    # the tests and their order are the rule's.
    kept: list[Block] = []
    orphans = options.orphan_headings
    in_title = bool(options.drop_title and title)
    for k in range(lo, hi + 1):
        if not free[k]:
            continue
        block = blocks[k]
        chars = block.chars
        if (
            _is_linky(block, options)
            and not titles_content(blocks, k, hi, options)
            and not linked_paragraph(blocks, k, lo, hi, options)
            and not prose(k)
            and not listed(k)
        ):
            continue
        if site_noise(block, options) or (
            orphans
            and _orphan_heading(blocks, k, hi, options, title if in_title else "")
            and not (k < hi and listed(k + 1))  # it introduces an index's link list
        ):
            continue
        if (in_title and block.text in title) or (chars <= short and teaser(k)):
            continue
        kept.append(block)
    return trim_edges(kept, options.trim_chars, options.trim_plain_stays)


def shared_depth(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """How many enclosing elements two block paths share (outermost first).

    >>> shared_depth((1, 2, 3), (1, 2, 4)), shared_depth((1,), (2,))
    (2, 0)
    """
    depth = min(len(a), len(b))
    while depth and a[:depth] != b[:depth]:  # neighbours differ in their last few elements
        depth -= 1
    return depth


def card_depth(blocks: list[Block], k: int, lo: int, hi: int) -> int:
    """The depth of the smallest element around block ``k`` that holds another block of the
    span ``lo``..``hi`` (its card, list item or paragraph run): the most enclosing elements
    it shares with a neighbour. 0 if none.

    >>> story = Block("x" * 300, 300, 0, "p", path=(1, 8))
    >>> date = Block("May 5, 2023", 11, 0, "p", path=(1, 5, 7))
    >>> card_depth([story, date], 1, 0, 1), card_depth([story, date], 1, 1, 1)
    (1, 0)
    """
    return max(joint(blocks, k - 1) if k > lo else 0, joint(blocks, k) if k < hi else 0)


def joint(blocks: list[Block], k: int) -> int:
    """The enclosing elements block ``k`` shares with the next one, cached on the block: the
    samples of a page re-read the same blocks.

    >>> joint([Block("a", 1, 0, "p", path=(1, 2)), Block("b", 1, 0, "p", path=(1, 3))], 0)
    1
    """
    block = blocks[k]
    if block.joint < 0:
        block.joint = shared_depth(block.path, blocks[k + 1].path)
    return block.joint


def card_of(blocks: list[Block], k: int, lo: int, hi: int) -> tuple[int, int]:
    """The blocks (first, last) of block ``k``'s card (see :func:`card_depth`), (k, k) if none.

    >>> head = Block("Bridge reopens", 14, 14, "h4", path=(1, 5, 6))
    >>> date = Block("May 5, 2023", 11, 0, "p", path=(1, 5, 7))
    >>> story = Block("x" * 300, 300, 0, "p", path=(1, 8))
    >>> card_of([story, head, date], 2, 0, 2)
    (1, 2)
    """
    depth = card_depth(blocks, k, lo, hi)
    first, last = k, k
    while depth and first > lo and joint(blocks, first - 1) >= depth:
        first -= 1
    while depth and last < hi and joint(blocks, last) >= depth:
        last += 1
    return first, last


def teaser_part(
    blocks: list[Block],
    k: int,
    lo: int,
    hi: int,
    options: ExtractOptions,
    cards: dict | None = None,
) -> bool:
    """A short block of a teaser card: up to ``teaser_part_max_chars``, in a card (see
    :func:`card_of`) whose text is more than ``teaser_card_density`` link text. A related
    story's date, photo credit or kicker beside its linked headline is not the story's text,
    though the headline's link filter leaves it alone. ``cards`` caches each card's answer
    by its element's path (the blocks of a span share few cards).

    >>> head = Block("Bridge reopens after the storm", 30, 30, "h4", path=(1, 5, 6))
    >>> date = Block("May 5, 2023 | 11:54", 19, 0, "p", path=(1, 5, 7))
    >>> story = Block("x" * 300, 300, 0, "p", path=(1, 8))
    >>> teaser_part([story, head, date], 2, 0, 2, ExtractOptions())
    True
    >>> teaser_part([story, date], 1, 0, 1, ExtractOptions())
    False
    """
    block, most = blocks[k], options.teaser_part_max_chars
    if not most or block.chars > most:
        return False
    depth = card_depth(blocks, k, lo, hi)
    if not depth:
        return False
    key = block.path[:depth]
    if cards is not None and key in cards:
        return cards[key]
    first, last = card_of(blocks, k, lo, hi)
    card = blocks[first : last + 1]
    linky = sum(b.link_chars for b in card) > options.teaser_card_density * sum(
        b.chars for b in card
    )
    if cards is not None:
        cards[key] = linky
    return linky


def is_story(blocks: list[Block], options: ExtractOptions) -> bool:
    """True when ``story_share_min`` of the blocks' plain text (not link-dense) is in paragraphs
    of ``story_paragraph_chars``+: a story with cards beside it, not a listing of cards.

    >>> story, date = Block("x" * 300, 300, 0, "p"), Block("May 5, 2023", 11, 0, "p")
    >>> is_story([story, date], ExtractOptions()), is_story([date, date], ExtractOptions())
    (True, False)
    """
    plain = long = 0
    density, least = options.max_link_density, options.story_paragraph_chars
    for b in blocks:
        if (b.link_chars / b.chars if b.chars else 0.0) <= density:  # not _is_linky
            plain += b.chars
            if b.tag == "p" and b.chars >= least:
                long += b.chars
    return long >= options.story_share_min * plain > 0


_DIGIT = re.compile(r"\d")


def edge_noise(block: Block) -> bool:
    """A short block at a body's edge is cut unless it is a plain paragraph: a <p> without
    digits or links (dates, bylines, counters and "Related" links are not).

    >>> edge_noise(Block("May 5", 5, 0, "p")), edge_noise(Block("Die Stadt steht schwarz", 20, 0, "p"))
    (True, False)
    """
    return block.tag != "p" or block.link_chars > 0 or _DIGIT.search(block.text) is not None


def trim_edges(sample: list[Block], min_chars: int, plain_stays: bool = True) -> list[Block]:
    """Cut short blocks (see :func:`edge_noise`) and headings off the ends of a sample
    (bylines, dates, "Related"). ``plain_stays=False`` cuts every short block.

    >>> [b.text for b in trim_edges([Block("May 5", 4, 0, "p"), Block("x" * 50, 50, 0, "p"),
    ...  Block("More", 4, 0, "h2")], 40)]
    ['xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx']
    """

    def cut(block: Block) -> bool:
        return block.chars < min_chars and (not plain_stays or edge_noise(block))

    lo, hi = 0, len(sample)
    while lo < hi and cut(sample[lo]):
        lo += 1
    while hi > lo and (cut(sample[hi - 1]) or sample[hi - 1].tag in HEADINGS):
        hi -= 1
    return sample[lo:hi] or sorted(sample, key=lambda b: -b.chars)[:1]


def choose_body(
    blocks: list[Block], weights: dict[str, float], options: ExtractOptions, title: str = ""
) -> list[Block]:
    """Samples from the largest blocks down until one passes the title check.

    The first passing sample is the body; a later base (outside it) whose passing sample is
    ``rival_factor`` times larger adds that sample to it (see :class:`ExtractOptions`).

    >>> choose_body([Block("x" * 30, 30, 0, "p")], {}, ExtractOptions())[0].chars
    30
    """
    free = [True] * len(blocks)
    order = sorted(range(len(blocks)), key=[-b.chars for b in blocks].__getitem__)
    best: tuple[float, list[Block]] = (-1.0, [])
    first: tuple[int, list[Block]] | None = None
    covered = range(0)  # the first passing sample's span
    degrees: dict = {}
    for base in order[: options.max_bases]:
        if not free[base] or blocks[base].chars < options.min_block_chars or base in covered:
            continue
        lo, hi = grow_sample(blocks, base, free, options)
        if options.container:
            lo, hi = widen_to_container(blocks, lo, hi, free)
        sample = _span_blocks(blocks, lo, hi, free, options, title)
        degree = sample_degree(sample, weights, degrees, options.title_threshold)
        if not weights or degree >= options.title_threshold:
            size = sum(b.chars for b in sample)
            if first is not None and size > options.rival_factor * first[0]:
                return merge_samples(blocks, first[1], sample)
            if first is None:
                if not options.rival_factor:
                    return sample
                first, covered = (size, sample), range(lo, hi + 1)
            continue
        best = max(best, (degree, sample), key=lambda pair: pair[0])
        for k in range(lo, hi + 1):
            free[k] = False
    if first is not None:
        return first[1]
    return [] if options.require_title_match else best[1]


def merge_samples(blocks: list[Block], first: list[Block], rival: list[Block]) -> list[Block]:
    """The blocks of both samples, once each, in page order.

    >>> a, b, c = Block("a", 1, 0, "p"), Block("b", 1, 0, "p"), Block("c", 1, 0, "p")
    >>> [x.text for x in merge_samples([a, b, c], [c], [a, c])]
    ['a', 'c']
    """
    chosen = {id(b) for b in first} | {id(b) for b in rival}
    return [b for b in blocks if id(b) in chosen]


def title_counter(weights: dict[str, float]):
    """A function text -> {title word: count}, the title words' part of
    ``count_tokens(text)``: a title word must be a whole token (no letter or digit on either
    side), found by substring search (a regex per title costs its compilation on every page);
    tokenization for CJK.

    >>> title_counter({"cats": 0.5, "nap": 0.5})("Cats nap; bobcats don't nap")
    Counter({'nap': 2, 'cats': 1})
    """
    if any(is_cjk(w) or not w.isalnum() for w in weights):
        return lambda text: Counter(t for t in tokenize(text) if t in weights)
    words = tuple(weights)

    def count(text: str) -> Counter:
        low, found = text.lower(), Counter[str]()
        for word in words:
            if word in low:
                n = whole_words(low, word)
                if n:
                    found[word] = n
        return found

    return count


def whole_words(text: str, word: str) -> int:
    """How often ``word`` occurs in ``text`` as a whole token (no letter or digit beside it).

    >>> whole_words("cats, bobcats and cats2 and cats", "cats")
    2
    """
    n, start, size, end = 0, text.find(word), len(word), len(text)
    while start >= 0:
        stop = start + size
        if (start == 0 or not text[start - 1].isalnum()) and (
            stop == end or not text[stop].isalnum()
        ):
            n += 1
        start = text.find(word, stop if stop > start else start + 1)
    return n


def sample_degree(
    sample: list[Block],
    weights: dict[str, float],
    cache: dict | None = None,
    enough: float | None = None,
) -> float:
    """P′ of a sample (0 when there is no title). Each block's title-word counts are found
    once when ``cache`` (id(block) -> counts, "count" -> the counter) is shared between
    samples; P′ is taken on their sum, as on the sample's whole text. With ``enough``, the
    counting stops at the first block where the P′ of the blocks so far reaches it: P′ only
    grows with more text (counts and weights are ≥ 0, and float products and sums are
    monotone), so the sample passes a bar of ``enough`` either way; that partial P′ is returned.

    >>> blocks = [Block("cats nap", 8, 0, "p"), Block("cats", 4, 0, "p")]
    >>> sample_degree(blocks, {"cats": 0.5}), sample_degree(blocks, {"cats": 0.5}, enough=0.5)
    (1.0, 0.5)
    """
    if not weights:
        return 0.0
    cache = {} if cache is None else cache
    count = cache.get("count")
    if count is None:
        count = cache["count"] = title_counter(weights)
    total: Counter = Counter()
    for block in sample:
        found = cache.get(id(block))
        if found is None:
            found = cache[id(block)] = count(block.text)
        if found:
            total.update(found)
            if enough is not None and match_degree(total, weights) >= enough:
                break
    return match_degree(total, weights)


# --- step 6: summary ------------------------------------------------------------------------


def pick_summary(paragraphs: list[str], weights: dict[str, float]) -> str:
    """Seed step d.②: the longest paragraph with P″ > 0, else the longest one.

    >>> pick_summary(["a long paragraph about dogs", "cats here"], {"cats": 1.0})
    'cats here'
    """
    ranked = sorted(paragraphs, key=len, reverse=True)
    for paragraph in ranked:
        if not weights or match_degree(count_tokens(paragraph), weights) > 0:
            return paragraph
    return ranked[0] if ranked else ""


def template_text(blocks: list[Block], body: list[Block]) -> str:
    """The page's text outside the body (menus, sidebars, footers, teasers).

    >>> a, b = Block("menu", 4, 4, "li"), Block("story", 5, 0, "p")
    >>> template_text([a, b], [b])
    'menu'
    """
    inside = {id(b) for b in body}
    return " ".join(b.text for b in blocks if id(b) not in inside)


# --- beyond the page-detection method: the article container ---------------------------------------------

_BOX_TAGS = frozenset(("article", "div", "main", "section"))


# Tiers of the containers CMSs put the article in, most specific first, after trafilatura's
# BODY_XPATH (htmlprocessing/xpaths.py): substrings of class/id (tiers 0, 2, 3), <article>
# (tier 1), <main> (tier 4), and the itemprop / role attributes.
_TIER_OF_WORD = {
    **dict.fromkeys(
        [
            "post-text",
            "post_text",
            "post-body",
            "post-entry",
            "postentry",
            "post-content",
            "post_content",
            "postcontent",
            "article-text",
            "articletext",
            "entry-content",
            "article-content",
            "article__content",
            "article-body",
            "article__body",
            "articlebody",
            "page-content",
            "text-content",
            "body-text",
            "article__container",
            "art-content",
        ],
        0,
    ),
    **dict.fromkeys(
        [
            "storycontent",
            "story-content",
            "story-body",
            "single-content",
            "single-post",
            "blog-content",
            "field-body",
            "fulltext",
        ],
        2,
    ),
    **dict.fromkeys(
        [
            "content-main",
            "content_main",
            "content-body",
            "contentbody",
            "content__body",
            "main-content",
        ],
        3,
    ),
}
# Lower-cased label, case-sensitive pattern: re.I on a 35-word alternation is 5x slower.
_TIER_WORDS = re.compile("|".join(map(re.escape, _TIER_OF_WORD)))
_CONTENT_WORD = re.compile(r"(?:^|\s)content(?:\s|$)")
_TAG_TIER = {"article": 1, "main": 4}
BOX_TIERS = 5
# The candidates: <article> and <main>, and a <div>/<section> with an attribute that can
# give it a tier (any other one has none). One :is() pair, not eight "tag[attr]" selectors:
# lexbor tests each node against each selector of a list, and returns a node once per
# selector it matches (a div with a class and an id twice).
_BOX_SELECTOR = "article, main, :is(div, section):is([class], [id], [itemprop], [role])"


def box_tier(tag: str, attrs: dict) -> int:
    """The tier (0 = most specific) of an article-container candidate, BOX_TIERS if none.

    >>> box_tier("div", {"class": "entry-content"}), box_tier("div", {"id": "content"})
    (0, 3)
    """
    if attrs.get("itemprop") == "articleBody":
        return 0
    tier = _TAG_TIER.get(tag, BOX_TIERS)
    role = attrs.get("role")
    if role:
        tier = min(tier, _ROLE_TIER.get(role, BOX_TIERS))
    cls, ident = attrs.get("class"), attrs.get("id")
    if cls or ident:  # ~200 candidates a page: comparisons, not min()
        label = label_tier(cls or "", ident or "")
        if label < tier:
            tier = label
    return tier


_ROLE_TIER = {"article": 2, "main": 4}


@lru_cache(maxsize=8192)
def label_tier(cls: str, ident: str) -> int:
    """The tier a class and id give (cached: a page repeats its labels), BOX_TIERS if none.

    >>> label_tier("Entry-Content", ""), label_tier("", "content"), label_tier("menu", "")
    (0, 3, 5)
    """
    tier, cls, ident = BOX_TIERS, cls.lower(), ident.lower()
    label = f"{cls} {ident}"
    if holds_tier_mark(label):
        for hit in _TIER_WORDS.finditer(label):
            tier = min(tier, _TIER_OF_WORD[hit.group()])
    if tier > 3 and (ident == "content" or ("content" in cls and _CONTENT_WORD.search(cls))):
        tier = 3
    return tier


# Every word of _TIER_OF_WORD holds one of these (a test checks it): a label holding none
# names no tier, and _TIER_WORDS, tried at every position of it, need not run (most labels
# of a page are new to the cache, and the search was ~0.12 ms a page).
_TIER_MARKS = ("content", "text", "body", "entry", "container", "single-post")


def holds_tier_mark(low: str) -> bool:
    """True when a lower-cased label holds one of _TIER_MARKS.

    >>> holds_tier_mark("post-body main"), holds_tier_mark("sidebar widget")
    (True, False)
    """
    for mark in _TIER_MARKS:  # noqa: SIM110 - a loop: any() builds a generator (~0.03 ms a page)
        if mark in low:
            return True
    return False


# The candidates that can have a tier under BOX_TIERS: <article>, <main>, and a <div>/<section>
# with an itemprop, a role, or a class/id holding one of _TIER_MARKS (every tier word holds
# one, and so does "content"). lexbor's ``i`` folds ASCII letters; Python's lower() also
# folds two non-ASCII letters to ASCII ("K" Kelvin sign to "k", "İ" to "i" and a combining
# dot), and neither can make a mark. Any other candidate has tier BOX_TIERS and never wins:
# lexbor tests each <div> and <section> here, and the tiers of ~40 candidates a page are read
# in Python, not of ~175.
_TIER_SELECTOR = "article, main, :is(div, section):is([itemprop], [role], {})".format(
    ", ".join(f"[{attr}*={mark} i]" for mark in _TIER_MARKS for attr in ("class", "id"))
)


def article_box(root: LexborNode | None, tiers: int = BOX_TIERS) -> LexborNode | None:
    """The page's article container: the first element of the most specific tier found.

    One lexbor query for the candidate tags, the tiers checked in Python (~0.1 ms/page;
    the same test as 60 attribute selectors took ~0.9 ms).

    >>> article_box(LexborHTMLParser("<main>m</main><div class='post-content'>x</div>").body).tag
    'div'
    """
    return best_box(root, tiers)[0]


def best_box(
    root: LexborNode | None, tiers: int = BOX_TIERS, refill: int = 0
) -> tuple[LexborNode | None, int]:
    """:func:`article_box` and its tier (``tiers`` when there is none).

    An empty candidate (no text: a slot a script fills, a widget's mount point inside the
    story) gives way to a candidate holding text of a tier under ``refill`` (an article
    container, not the page's generic content area); with none, or ``refill`` 0, it stands,
    and holding no blocks it leaves the body to the page-wide sample.

    >>> best_box(LexborHTMLParser("<main>m</main><article>x</article>").body)[1]
    1
    >>> page = LexborHTMLParser("<article>Story</article><div class='page-content'></div>")
    >>> best_box(page.body)[1], best_box(page.body, refill=3)[1]
    (0, 1)
    """
    if root is None or tiers <= 0:
        return None, tiers
    best, best_tier = None, tiers  # the best candidate, empty or not (the old rule)
    full, full_tier = None, tiers  # the best candidate holding text
    for node in root.css(_TIER_SELECTOR if tiers <= BOX_TIERS else _BOX_SELECTOR):
        tier = box_tier(node.tag or "", node.attributes)
        if tier >= best_tier and (tier >= full_tier or tier >= refill):
            continue
        holds = holds_text(node) if refill else True
        if tier < best_tier:
            best, best_tier = node, tier
        if holds and tier < full_tier:
            full, full_tier = node, tier
        if tier == 0 and holds:
            break
    if full is not None and full_tier < refill:
        return full, full_tier
    return best, best_tier


def holds_text(node: LexborNode) -> bool:
    """Whether ``node`` holds any text (stops at the first).

    >>> box = LexborHTMLParser("<div class='page-content'> <i></i> </div><p>x</p>").css_first("div")
    >>> holds_text(box), holds_text(LexborHTMLParser("<div><b> x</b></div>").css_first("div"))
    (False, True)
    """
    for child in node.traverse(include_text=True):
        text = child.text_content if child.tag == "-text" else None
        if text and not text.isspace():
            return True
    return False


def body_blocks(blocks, span, weights, options, title) -> list[Block]:
    """The whole article container (minus link lists) when it holds enough text, else the
    method's sample from the whole page.

    The container must hold ``article_box_min_share`` of the page-detection method sample's text: a match on
    the first post of a thread or on one paragraph is too narrow.
    """
    start, end = span
    inside = blocks[start:end]
    page_wide = choose_body(blocks, weights, options, title)
    size = sum(b.chars for b in inside)
    if size < options.article_box_min_chars:
        return page_wide
    if size < options.article_box_min_share * sum(b.chars for b in page_wide):
        return page_wide
    chosen = _span_blocks(inside, 0, len(inside) - 1, [True] * len(inside), options, title)
    if chosen and options.lead_blocks:
        lead = lead_before(blocks, start, page_wide, options.lead_blocks)
        if options.standfirst_min_chars:
            lead = merge_samples(blocks, lead, standfirst_before(blocks, start, options, title))
        if options.lead_after_headline:
            lead = after_headline(blocks, start, lead, options.lead_blocks, title)
        chosen = lead + chosen
    return chosen or page_wide


def after_headline(
    blocks: list[Block], start: int, lead: list[Block], reach: int, title: str
) -> list[Block]:
    """The lead blocks after the story's headline (the last heading repeating the title among
    the ``reach`` blocks before the container): what comes before it is the site's header (a
    blog's description, a consent layer), not the story's lead.

    >>> blurb = Block("A blog about healthcare IT, written every day by its CIO.", 50, 0, "p")
    >>> head, lead = Block("Bridge reopens", 14, 0, "h1"), Block("The bridge reopened.", 20, 0, "p")
    >>> [b.text for b in after_headline([blurb, head, lead], 3, [blurb, lead], 6, "Bridge reopens | News")]
    ['The bridge reopened.']
    """
    for k in range(start - 1, max(0, start - reach) - 1, -1):
        if title and blocks[k].tag in HEADINGS and blocks[k].text in title:
            header = {id(b) for b in blocks[:k]}
            return [b for b in lead if id(b) not in header]
    return lead


def lead_before(blocks: list[Block], start: int, sample: list[Block], reach: int) -> list[Block]:
    """Blocks of the page-detection method sample among the ``reach`` blocks just before the container: the
    lead or standfirst that many CMSs print above the article body's element.

    >>> a, b, c = Block("lead", 4, 0, "p"), Block("menu", 4, 4, "li"), Block("body", 4, 0, "p")
    >>> [x.text for x in lead_before([b, a, c], 2, [a, c], 6)]
    ['lead']
    """
    window = {id(b) for b in blocks[max(0, start - reach) : start]}
    return [b for b in sample if id(b) in window]


def standfirst_before(
    blocks: list[Block], start: int, options: ExtractOptions, title: str = ""
) -> list[Block]:
    """Sentence-long subheadings (h2-h6, ``standfirst_min_chars``+, not links, not the title)
    among the ``lead_blocks`` blocks just before the container: a standfirst set as a heading.

    >>> lead = Block("Why the town wants a new bridge over the river now", 50, 0, "h2")
    >>> label = Block("Advertisement", 13, 0, "h3")
    >>> body = Block("x" * 300, 300, 0, "p")
    >>> [b.text[:8] for b in standfirst_before([lead, label, body], 2, ExtractOptions())]
    ['Why the ']
    """
    window = blocks[max(0, start - options.lead_blocks) : start]
    return [
        b
        for b in window
        if b.tag in HEADINGS
        and b.tag != "h1"
        and b.chars >= options.standfirst_min_chars
        and not _is_linky(b, options)
        and not (title and b.text in title)
    ]


def paragraph_baseline(blocks: list[Block], options: ExtractOptions) -> list[Block]:
    """Every <p> of the page that is not link text, a site notice or a photo credit: the
    fallback for a page whose body came out too short (after trafilatura's baseline()).

    >>> menu, story = Block("Home", 4, 4, "p"), Block("Cats nap all day long.", 22, 0, "p")
    >>> [b.text for b in paragraph_baseline([menu, story], ExtractOptions())]
    ['Cats nap all day long.']
    """
    notice, credit = options.notice_max_chars, options.credit_max_chars
    return [
        b
        for b in blocks
        if b.tag == "p"
        and not _is_linky(b, options)
        and not (notice and is_notice(b, notice))
        and not (credit and is_credit(b, credit))
    ]


def page_text_blocks(blocks: list[Block], options: ExtractOptions) -> list[Block]:
    """Every block of the filtered page but menu items (link text under
    ``linked_title_min_chars``) and site noise: the last fallback, for a page made of links
    (a link aggregator, a schedule, a job board) where no block is body text by itself.

    >>> menu, item = Block("Home", 4, 4, "a", links=1), Block("Bridge reopens after the storm", 26, 26, "td")
    >>> [b.text for b in page_text_blocks([menu, item], ExtractOptions())]
    ['Bridge reopens after the storm']
    """
    return [
        b
        for b in blocks
        if not (_is_linky(b, options) and b.chars < options.linked_title_min_chars)
        and not site_noise(b, options)
    ]


def nfc(text: str) -> str:
    """Text in Unicode NFC, as readers and search expect it (a page may hold Bengali য় as
    the excluded precomposed U+09DF, or Latin accents decomposed).

    >>> nfc("Cafe\u0301") == "Café"
    True
    """
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


# --- the pipeline ---------------------------------------------------------------------------

# HTML5 <aside> is tangential content, but some themes wrap the post itself in one
# (<aside class="blogPost">): the second pass of a too-short body keeps it.
SECOND_PASS_KEEPS = frozenset(("aside",))


def bare_blocks(options: BlockOptions) -> BlockOptions:
    """The block options of the second pass: no class/id hints, <aside> kept.

    >>> "aside" in bare_blocks(BlockOptions()).useless_tags, bare_blocks(BlockOptions()).class_hints
    (False, False)
    """
    kept = tuple(t for t in options.useless_tags if t not in SECOND_PASS_KEEPS)
    return replace(options, class_hints=False, useless_tags=kept)


def is_product_page(tree: LexborHTMLParser) -> bool:
    """True when the page says it is a product's page (Open Graph ``og:type`` "product",
    "product.item", …, in the head) or, unless it declares itself an article (the search
    for a cart costs a walk of the page), holds a control that adds an item to a cart (see
    :func:`sells_an_item`).

    >>> is_product_page(LexborHTMLParser('<meta property="og:type" content="Product">'))
    True
    """
    head = tree.head
    kind = _meta_content(head, 'meta[property="og:type"]') if head is not None else ""
    kind = kind.lower()
    return kind.startswith("product") or (kind != "article" and sells_an_item(tree))


# The id, name or action of a form or control that puts the item in a cart: "add-to-cart",
# "addToCart", "add_to_cart_8183", "submit.add-to-basket"; lower-cased.
ADD_TO_CART = re.compile(r"add[-_ ]?to[-_ ]?(?:cart|basket|bag)")
_CART_ATTRS = ("id", "name", "action")


def sells_an_item(tree: LexborHTMLParser) -> bool:
    """True when a <form>, <button> or <input> is named for adding the item to a cart (its
    id, name or action; see ADD_TO_CART): a shop's product page that does not declare
    ``og:type`` (Amazon, Steam, WooCommerce's ``name="add-to-cart"``).

    >>> sells_an_item(LexborHTMLParser('<form id="addToCart"><input type="submit"></form>'))
    True
    >>> sells_an_item(LexborHTMLParser('<form id="search"><button name="go">Go</button></form>'))
    False
    """
    for node in tree.css("form, button, input"):
        attrs = node.attributes
        for name in _CART_ATTRS:
            value = attrs.get(name)
            if value and ADD_TO_CART.search(value.lower()):
                return True
    return False


def page_body(
    tree: LexborHTMLParser, weights: dict[str, float], title: str, options: ExtractOptions
) -> tuple[list[Block], list[Block], list[LexborNode]]:
    """Steps 2-6 on a parsed page: all its blocks, those of the body, and the region elements
    the blocks' paths name (filters ``tree``).

    >>> tree = LexborHTMLParser("<nav>Menu</nav><p>Cats nap a lot, cats nap all day.</p>")
    >>> [b.text for b in page_body(tree, {}, "", ExtractOptions())[1]]
    ['Cats nap a lot, cats nap all day.']
    """
    product = options.product_reviews and options.blocks.class_hints and is_product_page(tree)
    root = drop_useless(tree, options.blocks)
    if product and root is not None:
        drop_reviews(root, options.blocks.hint_max_share)
        if options.product_policies:
            drop_policies(root, options.blocks.hint_max_share)
    box, tier = best_box(root, options.article_box_tiers, options.box_refill_tiers)
    if root is not None and tier < options.box_keeps_tiers:
        box = drop_labelled(root, options.blocks, keep=box, within=box)
    elif root is not None:
        drop_labelled(root, options.blocks, within=box)
        if box is not None and not attached(box, root):
            box = best_box(root, options.article_box_tiers, options.box_refill_tiers)[0]
    blocks, span, regions = split_regions(root, box, options.blocks)
    body = cut_comments(body_blocks(blocks, span, weights, options, title), options)
    if product and options.product_repeat_min_chars:
        body = drop_repeats(body, options.product_repeat_min_chars)
    return blocks, body, regions


def drop_repeats(body: list[Block], min_chars: int) -> list[Block]:
    """The body without blocks of ``min_chars``+ that repeat an earlier block's text: a shop's
    page prints its description once for the phone layout and once for the desktop one, and
    a script shows one. List items stay: parallel cards (pricing plans, variants) repeat
    the same features, and each card is content.

    >>> a, b = Block("A wheel thrown mug in white speckle.", 36, 0, "p"), Block("Handmade.", 9, 0, "p")
    >>> [x.text for x in drop_repeats([a, b, a, b], 20)]
    ['A wheel thrown mug in white speckle.', 'Handmade.', 'Handmade.']
    """
    seen: set[str] = set()
    kept = []
    for block in body:
        if block.chars >= min_chars and block.tag != "li":
            if block.text in seen:
                continue
            seen.add(block.text)
        kept.append(block)
    return kept


def attached(node: LexborNode, root: LexborNode) -> bool:
    """True when ``node`` is still inside ``root`` (no ancestor was detached). The filter
    only removes nodes, so a container that is still attached is still the first of the best
    tier: the page need not be searched again.

    >>> tree = LexborHTMLParser("<div><p>x</p></div>")
    >>> p = tree.css_first("p"); attached(p, tree.body)
    True
    >>> tree.css_first("div").decompose(False); attached(p, tree.body)
    False
    """
    top = root.mem_id
    parent = node.parent
    while parent is not None:
        if parent.mem_id == top:
            return True
        parent = parent.parent
    return False


@dataclass
class PageBody:
    """Steps 1-6 of a page: its title, title-word weights, all its blocks and the body's."""

    title: str
    weights: dict[str, float]
    blocks: list[Block]
    chosen: list[Block]

    @property
    def paragraphs(self) -> list[str]:
        """The body's blocks as NFC text, one per paragraph."""
        return [nfc(b.text) for b in self.chosen]


def find_body(html: bytes | str | ParsedPage, url: str | None, options: ExtractOptions) -> PageBody:
    """The title and the body's blocks, with the fallbacks for a too-short body (the one
    path of :func:`extract` and :func:`main_text`).

    >>> find_body("<title>Zeiger</title><p>Die GEMA dreht völlig am Zeiger.</p>", None, ExtractOptions()).title
    'Zeiger'
    """
    page = html if isinstance(html, ParsedPage) else parse_page(html)
    text, tree = page.text, page.tree
    title = page_title(tree)
    described = options.product_description and may_declare_product(text)
    declared = declared_descriptions(tree) if described else []
    site = site_words(_meta_content(tree, 'meta[property="og:site_name"]'), url)
    weights = title_weights(article_title(title, site))
    blocks, chosen, regions = page_body(tree, weights, title, options)
    size = sum(b.chars for b in chosen)
    if options.blocks.class_hints and size < options.fallback_min_chars:
        bare = replace(options, blocks=bare_blocks(options.blocks))
        again = page_body(LexborHTMLParser(text), weights, title, bare)
        if sum(b.chars for b in again[1]) > options.fallback_factor * size:
            blocks, chosen, regions = again
            size = sum(b.chars for b in chosen)
    if options.paragraph_fallback and size < options.fallback_min_chars:
        baseline = paragraph_baseline(blocks, options)
        if sum(b.chars for b in baseline) > options.fallback_factor * size:
            chosen = baseline
            size = sum(b.chars for b in chosen)
    if size < options.text_fallback_max_chars:
        whole = page_text_blocks(blocks, options)
        if sum(b.chars for b in whole) > options.fallback_factor * size:
            chosen = whole
    if options.whole_tables:
        chosen = whole_tables(blocks, chosen, options)
    if options.card_grid_min_cards and size < options.card_grid_body_max_chars:
        chosen = with_card_titles(blocks, chosen, options)
    if options.context_model is not None:
        chosen = options.context_model.keep(chosen, regions)
    if declared:  # after the model: a declared description is never dropped by it
        chosen = anchor_description(blocks, chosen, declared, options)
    return PageBody(title, weights, blocks, chosen)


def anchor_description(
    blocks: list[Block], body: list[Block], declared: list[str], options: ExtractOptions
) -> list[Block]:
    """The body with the blocks of the product's declared description (texts from
    :func:`engine.html.product.declared_descriptions`) when it holds none of them: a shop's
    page whose body came from its brand story or a second layout still gives the product's
    own words. Link text is never the description.

    >>> about = Block("Hand thrown in our studio from speckled clay, glazed white.", 59, 0, "p")
    >>> story = Block("Our studio opened in 2015 by the sea and sells online.", 54, 0, "p")
    >>> declared = ["Hand thrown in our studio from speckled clay, glazed white."]
    >>> [b.text[:11] for b in anchor_description([about, story], [story], declared, ExtractOptions())]
    ['Hand thrown', 'Our studio ']
    """
    if options.product_description is None:
        return body
    plain = [b for b in blocks if not _is_linky(b, options)]
    described = described_blocks(plain, declared, options.product_description)
    return with_description(blocks, body, described)


_CELLS = frozenset(("td", "th"))


def whole_tables(blocks: list[Block], body: list[Block], options: ExtractOptions) -> list[Block]:
    """The body with the other cells of each data table (one with ``<th>`` header cells) it
    holds cells of: a product's spec table ("Capacity | 64GB (4 x 16GB)") is cut into cells
    too short to join the sample one by one. Cells that are link text or site noise stay
    out; a layout table (no header cell) is not completed.

    >>> head = Block("Capacity", 8, 0, "th", path=(1, 2, 3))
    >>> cell = Block("64GB (4 x 16GB)", 15, 0, "td", path=(1, 2, 4))
    >>> text = Block("Push the limits of your system with this memory kit.", 52, 0, "td", path=(1, 5, 6))
    >>> [b.text for b in whole_tables([head, cell, text], [text], ExtractOptions())]
    ['Capacity', '64GB (4 x 16GB)', 'Push the limits of your system with this memory kit.']
    """
    tables = {b.path[:-2] for b in body if b.tag in _CELLS and len(b.path) > 2}
    if tables:
        tables &= {b.path[:-2] for b in blocks if b.tag == "th"}
    if not tables:
        return body
    chosen = {id(b) for b in body}
    extra = [
        b
        for b in blocks
        if b.tag in _CELLS
        and b.path[:-2] in tables
        and id(b) not in chosen
        and not _is_linky(b, options)
        and not site_noise(b, options)
    ]
    if not extra:
        return body
    index = {id(b): k for k, b in enumerate(blocks)}
    return sorted(body + extra, key=lambda b: index.get(id(b), -1))


# A price as a shop prints it: a currency sign or code beside a number ("$99+", "USD 55.25",
# "12,99 €", "349 kr").
PRICE = re.compile(
    r"(?:[$€£¥₹₩]|\b(?:USD|EUR|GBP|CHF|CAD|AUD|JPY|SEK|NOK|DKK|PLN|CZK|BGN|RON|HUF|INR|Rs\.?)\b)"
    r"\s?\d|\d[\d.,]*\s?(?:[$€£¥₹₩]|\b(?:USD|EUR|GBP|CHF|kr|zł|Kč|лв|руб|Ft|lei)\b)"
)
_PRICE_MAX_CHARS = 60  # a price line, not a sentence that names a price


def is_price(block: Block) -> bool:
    """True when ``block`` is a short line holding a price (see PRICE).

    >>> is_price(Block("$349+", 5, 0, "p")), is_price(Block("Ships in 3 days", 15, 0, "p"))
    (True, False)
    """
    return block.chars <= _PRICE_MAX_CHARS and PRICE.search(block.text) is not None


def card_titles(blocks: list[Block], min_cards: int) -> list[Block]:
    """The titles of the largest grid of product cards on the page: link blocks of 2+ words
    (a card's heading before the links under it) followed by a price, grouped by tag and depth (one card
    template repeated); [] when no grid has ``min_cards`` cards.

    >>> card = lambda name, k: [Block(name, len(name), len(name), "a", path=(1, 2, k, 9)),
    ...                         Block("$99+", 4, 0, "p", path=(1, 2, k, 8))]
    >>> grid = [b for k in range(6) for b in card(f"Desk drawer {k}", k)]
    >>> [b.text for b in card_titles(grid, 6)][:2], card_titles(grid[:10], 6)
    (['Desk drawer 0', 'Desk drawer 1'], [])
    """
    groups: dict[tuple, list[Block]] = {}
    title = None
    for block in blocks:
        if is_price(block):
            if title is not None:
                groups.setdefault((title.tag, len(title.path)), []).append(title)
            title = None
        elif block.link_chars >= 0.8 * block.chars and len(block.text.split()) >= 2:
            title = block if keeps_title(title, block) else title
    best = max(groups.values(), key=len, default=[])
    return best if len(best) >= min_cards else []


def keeps_title(title: Block | None, block: Block) -> bool:
    """Whether link ``block`` becomes its card's title in place of ``title``: a card's heading
    stays its title over the links under it ("ad by Etsy seller"), not over the next heading.

    >>> head, seller = Block("Leather wallet", 14, 14, "h2"), Block("ad by seller", 12, 12, "p")
    >>> keeps_title(head, seller), keeps_title(seller, head), keeps_title(None, seller)
    (False, True, True)
    """
    return title is None or title.tag not in HEADINGS or block.tag in HEADINGS


def in_cards(body: list[Block], titles: list[Block]) -> bool:
    """True when a body block sits inside one of the cards of ``titles``: deeper in a title's
    enclosing elements than the grid that holds two titles (the body was read from the cards
    themselves: a course list's first description).

    >>> titles = [Block("Course A", 8, 8, "h3", path=(1, 2, k, 3)) for k in (5, 6)]
    >>> about = Block("Learn probability.", 18, 0, "div", path=(1, 2, 5, 4))
    >>> banner = Block("Sale ends soon.", 15, 0, "p", path=(1, 7))
    >>> in_cards([about], titles), in_cards([banner], titles)
    (True, False)
    """
    if len(titles) < 2:
        return False
    grid = min(shared_depth(a.path, b.path) for a, b in zip(titles, titles[1:], strict=False))
    return any(shared_depth(b.path, t.path) > grid for b in body for t in titles)


def with_card_titles(
    blocks: list[Block], body: list[Block], options: ExtractOptions
) -> list[Block]:
    """The body with the titles of the page's product cards (see card_titles) in page order,
    when they hold more text than the body and it lies outside the cards: on a shop's listing the body found is a banner
    ("Spring Setup Sale ... Use coupon code SPRING") and the page's own text is its cards.

    >>> cards = [Block(f"Standing desk model {k}", 20, 20, "a", path=(1, k, 2)) for k in range(6)]
    >>> prices = [Block("$599+", 5, 0, "p", path=(1, k, 3)) for k in range(6)]
    >>> page = [b for pair in zip(cards, prices) for b in pair]
    >>> banner = Block("Sale ends soon.", 15, 0, "p", path=(0, 1))
    >>> len(with_card_titles([banner, *page], [banner], ExtractOptions()))
    7
    """
    titles = card_titles(blocks, options.card_grid_min_cards)
    if in_cards(body, titles) or sum(b.chars for b in titles) <= sum(b.chars for b in body):
        return body
    chosen = {id(b) for b in body}
    index = {id(b): k for k, b in enumerate(blocks)}
    extra = [b for b in titles if id(b) not in chosen]
    return sorted(body + extra, key=lambda b: index.get(id(b), -1))


def main_text(
    html: bytes | str, url: str | None = None, options: ExtractOptions | None = None
) -> str:
    """The page's main text alone: :func:`extract`'s ``body`` without its summary and
    keywords (for callers that need only the text, and the work trafilatura does).

    >>> main_text("<title>Zeiger</title><nav>Menu</nav><p>Die GEMA dreht völlig am Zeiger.</p>")
    'Die GEMA dreht völlig am Zeiger.'
    """
    return "\n".join(find_body(html, url, options or ExtractOptions()).paragraphs)


def extract(
    html: bytes | str | ParsedPage, url: str | None = None, options: ExtractOptions | None = None
) -> Extraction:
    """Title, body, summary and weighted keywords of a page.

    ``url`` is accepted for callers that have it (future site-specific hints); the
    extraction itself uses the page only. A :class:`ParsedPage` is taken as parsed (and its
    tree changed). Raises DecodeError for binary data.

    >>> extract("<title>Zeiger</title><p>Die GEMA dreht völlig am Zeiger, sagt man.</p>").body
    'Die GEMA dreht völlig am Zeiger, sagt man.'
    """
    options = options or ExtractOptions()
    page = find_body(html, url, options)
    title, weights = page.title, page.weights
    paragraphs = page.paragraphs
    body = "\n".join(paragraphs)
    summary = pick_summary(paragraphs, weights)
    template = template_text(page.blocks, page.chosen)
    tokens = tokenize(body)
    language = detect_language(tokens) if body else "en"
    words = keywords(body, title, options.keywords, summary, template, language, tokens)
    return Extraction(title, body, summary, words, language)
