"""Is the stored content still at the live URL? (the page-detection method's detection, step 2–3)

The host fetches the live page. A server that does not answer (refused, timeout,
DNS failure), answers a server error (5xx, 408, 429) or will not show the page to the
check (401, 403, 407: a sign-in, a bot check) is ``unreachable``: a state of its own, never counted as gone, checked again by the next sweep
(:func:`unreachable`). A page over the fetch's size cap was not read, so it is
``too_large`` (:func:`too_large`), never gone either; an address that cannot be fetched at all is
unreachable too (:func:`cannot_fetch`). Any other non-200 answer (404, 410, …) is ``gone``, decided by
the status, with no keyword listed as missing: no page was read (:func:`from_status`). A stored copy with no main text has no words to look for: its check is
``unknown`` (:func:`nothing_to_compare`), never gone. Otherwise the live page is filtered with the same
useless-tag library as extraction, *and without its title* (the page-detection method: a deleted page
often keeps its title), and the stored keywords are matched against what is
left. The match degree ``P = Σ weight(matched) / Σ weight`` lies in 0..1 and the
configurable thresholds turn it into ``present`` / ``changed`` / ``gone``.

When the stored main text is known, its phrasing is checked too: S is the share of its
4-word phrases found on the live page. Another article of the same site often uses the
same words (the site's subject, its template) but never the same sentences, so keywords
found with S < ``phrases_at`` are ``gone``; and S ≥ ``phrases_alone`` shows the text is
there even when keywords weigh too little (a redesign that dropped the byline and the
comments): at least ``changed``.

A stored copy may also carry its visible text and the visible texts of other archived pages
of its site (:class:`StoredText`): phrases those pages show are the site's template, not the
page's content, and are left out of S and R; with the template known, a gone verdict whose
live main text is text the stored page showed (its extraction took a side story) is changed.

>>> stored = [("gema", 0.5), ("zeiger", 0.5)]
>>> judge(stored, "<title>GEMA</title><p>Die GEMA dreht am Zeiger</p>").state
'present'
>>> judge(stored, "<title>GEMA Zeiger</title><p>Seite nicht gefunden</p>").state
'gone'
"""

from __future__ import annotations

import math
import re
import threading
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field

from selectolax.lexbor import LexborHTMLParser

from engine.html.address import declared_address
from engine.html.blocks import BlockOptions, filter_tree, split_blocks
from engine.html.extract import Extraction, decode, main_text, nfc, page_title, title_weights
from engine.html.parse import closed_title
from engine.html.site_name import host_labels, names_site, spells
from engine.html.tokens import tokenize
from engine.html.visible import visible_text
from engine.lru import LRU


@dataclass
class LivenessOptions:
    """Thresholds on the match degree P, and how the live page is read.

    >>> LivenessOptions().present_at > LivenessOptions().changed_at
    True
    """

    present_at: float = 0.8  # P ≥ this → present
    changed_at: float = 0.65  # P ≥ this → changed (content partly there), below → gone
    blocks: BlockOptions = field(default_factory=lambda: BlockOptions(class_hints=False))
    scope: str = "page"  # "page": all filtered text | "body": the live page's extracted body
    phrase_words: int = 4  # a phrase: this many consecutive words
    phrases_at: float = 0.15  # keywords found but S below this → gone (another text)
    # R: the share of the live page's main text (its extracted body) made of the stored text's
    # phrases. The stored text moved into another template is the live page's main text (R high);
    # a teaser of it in a feed, or its template around another article, is not (R low).
    phrases_alone: float = 0.4  # S at least this, with R ≥ main_alone → at least changed
    main_alone: float = 0.3
    main_lift: float = 0.6  # R at least this, with S ≥ main_lift_phrases → at least changed
    main_lift_phrases: float = 0.2
    main_min_phrases: int = 10  # a live main text of fewer phrases says nothing (R unknown)
    # "changed" (keywords partly there) needs S ≥ main_keep_phrases or R ≥ main_keep: else the
    # words found are the site's (a shared box, a quoted lead) around another text → gone.
    main_keep: float = 0.5
    main_keep_phrases: float = 0.5
    # Keywords found but S < phrases_at: if the live main text (read as the stored one was)
    # holds at least this share of the stored phrases, that share is S (the live page's block
    # filter dropped the element the extraction read the text from, such as a <nav>).
    main_holds: float = 0.5
    # Template: phrases that other archived pages of the same site show too (their visible
    # text, ``site_texts``) are the site's, not this page's. They are left out of S and R; a
    # stored main text with fewer own phrases than this is the site's text, and the stored
    # page's visible text without the template is judged instead.
    own_min_phrases: int = 10
    # A "gone" whose live main text without the site's template (known from ``site_texts``) is at
    # least this share text the stored page showed (its visible text): the stored copy's
    # extraction took something else (a side story, a promotion), and the page's content is
    # still there → changed. Without the template no lift: when the content went, the live
    # page's main text is what is left of its template, which the stored page showed too.
    shown_lift: float = 0.7
    # The live page names another address for itself (rel=canonical, RFC 6596 §3; else og:url)
    # than the stored copy named, and shows less than this share of the stored page's visible
    # phrases: another page is served under the URL, whatever words the two share (a shop's
    # footer the extraction took as the main text) → gone. A page that still shows this much of
    # the stored one is that page under a new address (a renamed slug): its text decides.
    other_address_shows: float = 0.9
    # The address rule judges only a stored main text that may be the site's own words (a shop's
    # footer on every page). A stored main text that speaks of its page, holding at least this
    # share of its headline's words (:func:`titled`), is the page's content, and so is what is
    # left of any stored main text once the site's template is known (``site_texts``): when the
    # live page shows it under another address, the site moved the page (redirecting the old
    # URL, redesigned or not), and the text decides.
    titled_at: float = 0.3
    # A site's own words (a footer, a service or privacy notice, an "about" box) name the site:
    # "The Bombas Customer Happiness Team", "Bombas is a Certified B Corporation". A stored main
    # text that never names the site it was stored from (:func:`names_its_site`) is the page's
    # content, whatever its headline says (a section's listing, a home page's feed, a story whose
    # headline is a pun), so the address rule yields to its text. Off: the rule judges every text
    # that does not speak of its page.
    site_named: bool = True


@dataclass
class Verdict:
    """The outcome of one check.

    >>> Verdict("gone", 0.0, False, [], ["x"], "status 404").to_dict()["state"]
    'gone'
    """

    state: str  # "present" | "changed" | "gone" | "unreachable" | "too_large" | "unknown"
    match: float
    present: bool
    matched: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    reason: str = ""
    # What decided the state (:data:`DECIDERS`) and its figure: P for "keywords", S for
    # "phrases", the shown share for "shown", the stored page's share shown for "address"; a
    # status or an unjudged check has no figure. A screen shows this figure beside the state,
    # never a figure that did not decide it.
    decided_by: str = ""
    figure: float | None = None

    def to_dict(self) -> dict:
        """JSON form (the CLI's fields plus details)."""
        return {
            "present": self.present,
            "state": self.state,
            "match": round(self.match, FIGURE_DIGITS),
            "matched": self.matched,
            "missing": self.missing,
            "reason": self.reason,
            "decided_by": self.decided_by,
            "figure": None if self.figure is None else round(self.figure, FIGURE_DIGITS),
        }


# What can decide a judged verdict: the keywords' P (the thresholds), the stored text's
# phrases found (S, with R where it counts: a text under another text's words, or one
# still there when its keywords weigh too little), the live main text the stored page showed,
# the address the live page names for itself, or the HTTP status.
DECIDERS = ("keywords", "phrases", "shown", "address", "status")

# Digits a verdict's figures keep on the wire (``Verdict.to_dict``): a share is written from this
# value, so the reason and every screen that reads the figure say the same percentage.
FIGURE_DIGITS = 4


def percent(share: float) -> str:
    """A share (0–1) as the user reads it everywhere: whole percent, a tie rounded up, from the
    value the JSON carries (the viewer's and the popup's ``Math.round(x * 100)``, ECMA-262
    §21.3.2.28, on the same number; Python's own rounding sends a tie to the even digit).

    >>> percent(0.625), percent(1.0), percent(0.004999), percent(0.19)
    ('63%', '100%', '1%', '19%')
    """
    value = round(share, FIGURE_DIGITS) * 100
    whole = math.floor(value)
    return f"{whole + 1 if value - whole >= 0.5 else whole}%"


# Why a server did not answer, in words a user can act on (never the raw exception text).
UNREACHABLE_REASONS = {
    "dns": "the site's name could not be found (DNS)",
    "refused": "the server refused the connection",
    "timeout": "the server did not answer in time",
    "reset": "the connection was cut off",
    "redirects": "the server sent too many redirects",
    "decode": "the server's answer could not be decoded",
}
RETRY_STATUSES = (408, 429)  # RFC 9110 §15.5.9, RFC 6585 §4: try again later, not gone
RETRY_NOTE = "the site may only be down; the next check tries again"
# RFC 9110 §15.5.2, §15.5.4, §15.5.8: the server will not show the page to this request (it
# wants a sign-in, or turns automated checks away); the content may well be there.
REFUSED_STATUSES = (401, 403, 407)
REFUSED_NOTE = "open it in your browser to see it; the next check tries again"
# States in which no content was judged: never counted as gone, and alerts compare with the
# last state that was judged on content.
UNJUDGED = ("unreachable", "too_large", "unknown")
NOT_READ = "so no page was read and no keyword looked for"
CANNOT_FETCH = (
    "the address cannot be fetched (only a well-formed http or https address can be), "
    "so the live page was not checked"
)
NOTHING_TO_COMPARE = "the stored copy has no main text to compare with, so it was not judged"


def unreachable(kind: str = "network", status: int | None = None) -> Verdict:
    """The verdict when the server did not answer or failed: no keywords judged.

    >>> unreachable("refused").to_dict()["reason"]
    'the server refused the connection; the site may only be down; the next check tries again'
    >>> unreachable(status=503).state, unreachable(status=503).missing
    ('unreachable', [])
    """
    if status in REFUSED_STATUSES:
        cause = f"the server would not show the page to the check (HTTP {status}: it may want a sign-in)"
        return Verdict("unreachable", 0.0, False, [], [], f"{cause}; {REFUSED_NOTE}")
    if status is not None:
        cause = f"the server answered HTTP {status} (a server error or overload)"
    else:
        cause = UNREACHABLE_REASONS.get(kind, "the server could not be reached")
    return Verdict("unreachable", 0.0, False, [], [], f"{cause}; {RETRY_NOTE}")


def too_large(limit: int | None = None) -> Verdict:
    """The verdict when the live page is over the size cap: it was not read, so not judged.

    >>> v = too_large(50 * 1024 * 1024)
    >>> v.state, v.present, v.missing, v.reason
    ('too_large', False, [], 'the live page is larger than the 50 MB cap, so it was not checked')
    """
    size = f"the {limit / 2**20:g} MB cap" if limit else "the size cap"
    return Verdict(
        "too_large",
        0.0,
        False,
        [],
        [],
        f"the live page is larger than {size}, so it was not checked",
    )


def nothing_to_compare() -> Verdict:
    """The verdict when the stored copy has no main text (an image page, a page whose text a
    script wrote in): no stored words to look for, so the live page is not judged either way.

    >>> nothing_to_compare().state, nothing_to_compare().present
    ('unknown', False)
    """
    return Verdict("unknown", 0.0, False, [], [], NOTHING_TO_COMPARE)


# The reason a status verdict was stored with before it said what decided it ("HTTP 404").
_BARE_STATUS = re.compile(r"HTTP (\d{3})")


def as_stored_now(check: dict) -> dict:
    """A stored check read as a check made today: a status verdict stored when it still
    listed every keyword as missing (and said only "HTTP 404") lists none and names its
    decider, as :func:`from_status` does now; any other check is returned as it is.

    >>> old = {"state": "gone", "reason": "HTTP 404", "missing": ["alpha"], "matched": []}
    >>> now = as_stored_now(old)
    >>> now["missing"], now["decided_by"], now["reason"].startswith("decided by the status")
    ([], 'status', True)
    """
    bare = _BARE_STATUS.fullmatch(str(check.get("reason") or ""))
    if check.get("state") != "gone" or not (bare or check.get("decided_by") == "status"):
        return check
    reason = (
        f"decided by the status: the server answered HTTP {bare[1]}, {NOT_READ}" if bare else None
    )
    return {
        **check,
        "decided_by": "status",
        "figure": None,
        "matched": [],
        "missing": [],
        "reason": reason or check.get("reason"),
    }


def from_status(status: int) -> Verdict:
    """The verdict for a non-200 answer: unreachable for 5xx/408/429 and for 401/403/407 (the
    page was not shown to us), else gone, decided by the status. No page was read, so no keyword was looked for: none is listed as missing.

    >>> from_status(404).state, from_status(502).state, from_status(404).missing
    ('gone', 'unreachable', [])
    >>> from_status(410).reason
    'decided by the status: the server answered HTTP 410, so no page was read and no keyword looked for'
    """
    if status >= 500 or status in RETRY_STATUSES or status in REFUSED_STATUSES:
        return unreachable(status=status)
    reason = f"decided by the status: the server answered HTTP {status}, {NOT_READ}"
    return Verdict("gone", 0.0, False, [], [], reason, "status")


def cannot_fetch() -> Verdict:
    """The verdict when the address cannot be fetched at all (not an http(s) URL, a host
    no request can name, a redirect to another scheme): no server was asked, so nothing says
    the content is gone; unreachable, judged on nothing, like a server that does not answer.

    >>> cannot_fetch().state, cannot_fetch().present, cannot_fetch().decided_by
    ('unreachable', False, '')
    """
    return Verdict("unreachable", 0.0, False, [], [], CANNOT_FETCH)


def stored_body(stored: object) -> str:
    """The stored main text, when ``stored`` carries it (an Extraction, or a dict's "body").

    >>> stored_body({"body": "text"}), stored_body([("a", 1.0)])
    ('text', '')
    """
    if isinstance(stored, Extraction):
        return stored.body
    return str(stored.get("body") or "") if isinstance(stored, dict) else ""


def stored_keywords(stored: object) -> list[tuple[str, float]]:
    """Keywords out of an Extraction, its dict form, or a list of (word, weight).

    >>> stored_keywords({"keywords": [["a", 1.0]]})
    [('a', 1.0)]
    """
    if isinstance(stored, Extraction):
        return list(stored.keywords)
    if isinstance(stored, dict):
        stored = stored.get("keywords") or []
    if not isinstance(stored, Iterable):
        raise TypeError(f"stored keywords must be a list of (word, weight), not {stored!r}")
    return [(str(w), float(s)) for w, s in stored]


def live_terms(live_html: bytes | str, options: LivenessOptions | None = None) -> set[str]:
    """Tokens of the live page after the useless-tag filter (title removed with <head>).

    >>> sorted(live_terms("<title>Old</title><p>new text</p><script>old()</script>"))
    ['new', 'text']
    """
    return {t for block in live_blocks(live_html, options) for t in block}


def live_blocks(live_html: bytes | str, options: LivenessOptions | None = None) -> list[list[str]]:
    """The live page's text blocks as token lists, without the title and headings repeating it.

    >>> live_blocks("<title>Old</title><h1>Old</h1><p>new text</p><p>more</p>")
    [['new', 'text'], ['more']]
    """
    return live_read(live_html, options)[0]


def live_read(live_html: bytes | str, options: LivenessOptions | None = None):
    """The live page's text blocks (:func:`live_blocks`) and the address it names for itself
    (:func:`declared_address`; "" when the page is read as its extracted body only).

    >>> live_read("<link rel=canonical href=/b><p>text</p>")
    ([['text']], '/b')
    """
    options = options or LivenessOptions()
    if options.scope == "body":
        return [tokenize(main_text(live_html))], ""
    tree = LexborHTMLParser(closed_title(decode(live_html)))
    title, address = page_title(tree), declared_address(tree)
    blocks = split_blocks(filter_tree(tree, options.blocks), options.blocks)
    # Seed step 2: the title is filtered out, headings repeating it too (h1 of a kept title).
    # NFC, as the stored body's keywords are.
    return [tokenize(nfc(b.text)) for b in blocks if not (title and b.text in title)], address


def phrases(tokens: list[str], n: int) -> set[tuple[str, ...]]:
    """The runs of ``n`` consecutive tokens.

    >>> sorted(phrases(["a", "b", "c"], 2))
    [('a', 'b'), ('b', 'c')]
    """
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def phrase_share(body: str, blocks: list[list[str]], n: int) -> float | None:
    """S: the share of the stored body's n-word phrases found in the live blocks (a phrase
    never spans two blocks); None when the body has no phrase to look for.

    >>> phrase_share("the river rose again", [["the", "river", "rose"], ["again"]], 2)
    0.6666666666666666
    """
    return found_share(text_phrases(body, n), blocks, n)


def found_share(wanted: set, blocks: list[list[str]], n: int, extra: Iterable = ()) -> float | None:
    """The share of ``wanted`` phrases found in the live blocks (or among ``extra`` phrases);
    None when nothing is wanted.

    >>> found_share({("a", "b"), ("c", "d")}, [["a", "b", "c"]], 2)
    0.5
    >>> found_share({("a", "b"), ("c", "d")}, [], 2, {("c", "d")})
    0.5
    """
    if not wanted:
        return None
    found = set().union(*(phrases(block, n) for block in blocks), extra)
    return len(wanted & found) / len(wanted)


def match_keywords(
    keywords: Iterable[tuple[str, float]], present_terms: set[str]
) -> tuple[float, list[str], list[str]]:
    """P = Σ weight of keywords found / Σ weight, with the found and missing words.

    >>> match_keywords([("a", 0.75), ("b", 0.25)], {"a"})
    (0.75, ['a'], ['b'])
    """
    matched, missing, got, total = [], [], 0.0, 0.0
    for word, weight in keywords:
        total += weight
        if word in present_terms:
            matched.append(word)
            got += weight
        else:
            missing.append(word)
    return (got / total if total else 0.0), matched, missing


def decide(match: float, options: LivenessOptions) -> str:
    """present / changed / gone from P and the thresholds.

    >>> decide(0.9, LivenessOptions()), decide(0.7, LivenessOptions()), decide(0.1, LivenessOptions())
    ('present', 'changed', 'gone')
    """
    if match >= options.present_at:
        return "present"
    return "changed" if match >= options.changed_at else "gone"


def judge(
    stored: object, live_html: bytes | str, options: LivenessOptions | None = None
) -> Verdict:
    """Match stored keywords against a live page that answered 200.

    ``stored`` is an Extraction, its ``to_dict()``, or a list of (word, weight); a dict may
    also carry ``visible`` (the stored page's visible text) and ``site_texts`` (visible texts
    of other archived pages of the same site, which tell its template apart) or
    ``site_template`` (their phrases, already read: :class:`TemplateCache`).
    Raises DecodeError when the live body is binary data.
    """
    options = options or LivenessOptions()
    words = stored_keywords(stored)
    if not words:
        return nothing_to_compare()
    blocks, live_address = live_read(live_html, options)
    p, matched, missing = match_keywords(words, {t for block in blocks for t in block})
    text = StoredText.of(stored, options.phrase_words)
    own = text.own(options)
    share = found_share(own, blocks, options.phrase_words)
    live_main: list[set] = []  # the live main text's phrases without the template, when needed

    def main_of() -> float | None:
        if not live_main:
            live_main.append(text.live_main(live_html, options))
        return text.share_of(live_main[0], own, options)

    keyed = decide(p, options)
    if keyed != "gone" and share is not None and share < options.phrases_at:
        main_of()  # S counts the live main text too when it holds the stored text
        held = found_share(own, [], options.phrase_words, live_main[0])
        share = held if (held or 0.0) >= options.main_holds else share
    state = by_phrases(keyed, share, options, main_of)
    decided_by, figure = ("keywords", p) if state == keyed else ("phrases", share)
    shown = None
    if state == "gone" and text.template and text.shown():
        main_of()  # reads the live main text once
        shown = text.share_of(live_main[0], text.shown(), options)
        if (shown or 0.0) >= options.shown_lift:
            state, decided_by, figure = "changed", "shown", shown
    main = main_of() if live_main else None
    clauses = explain(len(matched), len(words), p, share, main, shown)
    elsewhere = (
        None if state == "gone" else another_page(stored, text, live_address, live_html, options)
    )
    if elsewhere:
        clauses = {"address": elsewhere[0], **clauses}
        state, decided_by, figure = "gone", "address", elsewhere[1]
    reason = reason_of(decided_by, clauses)
    return Verdict(state, p, state != "gone", matched, missing, reason, decided_by, figure)


def another_page(
    stored: object, text: StoredText, live_address: str, live_html: bytes | str, options
) -> tuple[str, float] | None:
    """Why the live page is another page than the stored one, with the share of the stored
    page it shows (None when it is not): it names another address for itself than the stored
    copy did (``address``, :func:`declared_address`) and shows less than
    ``other_address_shows`` of the stored page's visible phrases.

    >>> stored = {"address": "/a", "visible": "one two three four five"}
    >>> another_page(stored, StoredText.of(stored, 4), "/b", "<p>six seven eight nine</p>", LivenessOptions())
    ('the live page names another address (/b, not /a) and shows 0% of the stored page', 0.0)
    >>> another_page(stored, StoredText.of(stored, 4), "/b", "<p>one two three four five</p>", LivenessOptions())
    """
    address = str(stored.get("address") or "") if isinstance(stored, dict) else ""
    if not address or not live_address or address == live_address:
        return None
    if text.template or titled(stored) >= options.titled_at:
        return None  # the stored text is the page's own: found under a new address, it moved
    if options.site_named and not names_its_site(stored):
        return None  # not the site's own words either: the page's content, moved
    kept = text_phrases(text.visible_text, text.n)
    if not kept:
        return None
    shows = len(kept & text_phrases(visible_text(live_html), text.n)) / len(kept)
    if shows >= options.other_address_shows:
        return None
    said = f"the live page names another address ({live_address}, not {address}) and shows {percent(shows)} of the stored page"
    return said, shows


def titled(stored: object) -> float:
    """The share of the stored page's headline words (its title without the site's name:
    :func:`headlines`, the best of them; weighted as :func:`title_weights`) that its main text
    holds: how much the text speaks of its page (0.0 without a title or a text).

    >>> titled({"title": "Quarter socks - Bombas", "body": "Bombas gives a pair of socks away"})
    0.5
    >>> page = {"title": "Go Vote! - ShoeMoney Internet Marketing Blog", "body": "Go out and vote"}
    >>> titled(page), titled({**page, "url": "https://www.shoemoney.com/2008/11/04/go-vote/"})
    (0.0, 1.0)
    """
    if not isinstance(stored, dict | Extraction):
        return 0.0
    title = stored.title if isinstance(stored, Extraction) else str(stored.get("title") or "")
    url = str(stored.get("url") or "") if isinstance(stored, dict) else ""
    words = sorted(set(tokenize(nfc(stored_body(stored)))))
    return max(
        sum((w for word, w in title_weights(line).items() if has_form(word, words)), 0.0)
        for line in headlines(title, url)
    )


def names_its_site(stored: object) -> bool:
    """Whether the stored main text names the site it was stored from: the host's own label
    (the one before the public suffix, :func:`engine.html.site_name.host_labels`; not a subdomain
    such as "shop" or "news") as a word, or spelled by up to four words in a row ("The
    Atlantic" for theatlantic.com: :func:`engine.html.site_name.spells`). True when the URL is
    not known (the text may be the site's).

    >>> names_its_site({"url": "https://shop.bombas.com/p", "body": "Bombas is a B Corporation"})
    True
    >>> names_its_site({"url": "https://www.theatlantic.com/x", "body": "an editor at The Atlantic"})
    True
    >>> names_its_site({"url": "https://www.ikea.com/x", "body": "a shelf like a ladder"})
    False
    """
    url = str(stored.get("url") or "") if isinstance(stored, dict) else ""
    labels = host_labels(url)
    return not labels or spells(stored_body(stored), labels[-1])


def has_form(word: str, words: list[str]) -> bool:
    """Whether the sorted ``words`` hold ``word`` or another form of it: a word that starts
    with all but its last three letters (at least four: "birthday" for "birthdays",
    "sovereign" for "sovereignty").

    >>> has_form("birthdays", ["a", "birthday"]), has_form("sovereignty", ["sovereign"])
    (True, True)
    >>> has_form("cats", ["catalogue"]), has_form("vote", ["vote"])
    (False, True)
    """
    stem = word[: max(4, len(word) - 3)]
    at = bisect_left(words, stem)
    return at < len(words) and (words[at] == word or words[at].startswith(stem) and stem != word)


# Between a headline and the site's name in a <title>: a bar, dash, guillemet (double or single)
# or dot between spaces.
TITLE_PARTS = re.compile(r"\s+[|\-\u2013\u2014\u00ab\u00bb\u2039\u203a\u00b7:]+\s+")


def headline(title: str) -> str:
    """The longest part of a title split where sites join their name to it.

    >>> headline("Einschlag in Elmshorn: Es war ein Meteorit | NDR.de - Nachrichten - NDR Info")
    'Einschlag in Elmshorn: Es war ein Meteorit'
    """
    return max(TITLE_PARTS.split(title), key=len)


def headlines(title: str, url: str = "") -> list[str]:
    """The title's headline (:func:`headline`) and, when that part names the site the page
    was stored from (:func:`engine.html.site_name.names_site`: a site's name with its tagline is often longer than
    the page's own headline), the longest part that does not.

    >>> headlines("Cancer and Guilt | Survivorship Partners", "https://survivorshippartners.com/x")
    ['Survivorship Partners', 'Cancer and Guilt']
    >>> headlines("Quarter socks - Bombas", "https://shop.bombas.com/products/q")
    ['Quarter socks']
    """
    parts = TITLE_PARTS.split(title)
    first = max(parts, key=len)
    labels = host_labels(url)
    if not labels or not names_site(first, labels):
        return [first]
    rest = [part for part in parts if not names_site(part, labels)]
    return [first, max(rest, key=len)] if rest else [first]


@dataclass
class StoredText:
    """The stored copy's phrases: its main text's, its visible text's, and the site's template
    (phrases other archived pages of the site show).

    >>> t = StoredText.of({"body": "a b c d e", "site_texts": ["x a b c d"]}, 4)
    >>> sorted(t.template)
    [('a', 'b', 'c', 'd'), ('x', 'a', 'b', 'c')]
    >>> sorted(t.body - t.template)
    [('b', 'c', 'd', 'e')]
    """

    body: set = field(default_factory=set)
    visible: set | None = None  # read from ``visible_text`` when a verdict needs it
    template: set = field(default_factory=set)
    visible_text: str = ""
    n: int = 4

    @classmethod
    def of(cls, stored: object, n: int) -> StoredText:
        extra = stored if isinstance(stored, dict) else {}
        template = extra.get("site_template")  # the phrases already read (TemplateCache)
        if template is None:
            sites = [str(t) for t in extra.get("site_texts") or ()]
            template = set().union(*(text_phrases(t, n) for t in sites))
        visible = str(extra.get("visible") or "")
        return cls(text_phrases(stored_body(stored), n), None, template, visible, n)

    def shown(self) -> set:
        """The stored page's visible phrases without the template (read once, when needed).

        >>> StoredText(template={("a", "b")}, visible_text="a b c", n=2).shown()
        {('b', 'c')}
        """
        if self.visible is None:
            self.visible = text_phrases(self.visible_text, self.n) - self.template
        return self.visible

    def own(self, options: LivenessOptions) -> set:
        """The stored main text's phrases that are not the site's template; when too few are
        left, the main text is the site's own (boilerplate the extraction took) and the stored
        page's visible text without the template stands in.

        >>> t = StoredText({("a",), ("b",)}, {("c",)}, {("a",)})
        >>> t.own(LivenessOptions(own_min_phrases=1)), t.own(LivenessOptions(own_min_phrases=2))
        ({('b',)}, {('c',)})
        """
        if not self.template:
            return self.body
        own = self.body - self.template
        return own if len(own) >= options.own_min_phrases else self.shown()

    def live_main(self, live_html: bytes | str, options: LivenessOptions) -> set:
        """The live page's main-text phrases, without the site's template."""
        return text_phrases(main_text(live_html), options.phrase_words) - self.template

    @staticmethod
    def share_of(live: set, stored: set, options: LivenessOptions) -> float | None:
        """The share of the live phrases found in ``stored``; None under ``main_min_phrases``.

        >>> StoredText.share_of({("a",), ("b",)}, {("a",)}, LivenessOptions(main_min_phrases=2))
        0.5
        """
        if len(live) < max(1, options.main_min_phrases):
            return None
        return len(live & stored) / len(live)


@dataclass
class TemplatePlan:
    """What a check knows of its site's template before reading any text: the stored texts'
    content hashes, the template when that set of texts was read before, the phrase sets
    known, and the hashes whose texts must be read."""

    digests: tuple[str, ...]
    ready: frozenset | None
    known: dict[str, frozenset]
    missing: tuple[str, ...]


class TemplateCache:
    """The site's template (:class:`StoredText`), cached: the phrase set of each stored text
    by its content hash, and the templates (unions) of the last few sets of texts. A hash
    names one text for ever, so nothing goes stale: a capture or a delete on the site changes
    which hashes a check asks for, never what a hash holds. :meth:`plan` hands out
    references, so a set evicted afterwards stays whole for the check holding it.

    >>> cache = TemplateCache()
    >>> plan = cache.plan(("h1", "h2"), 2)
    >>> plan.ready, plan.missing
    (None, ('h1', 'h2'))
    >>> sorted(cache.template(plan, {"h1": "a b c", "h2": "b c d"}, 2))
    [('a', 'b'), ('b', 'c'), ('c', 'd')]
    >>> cache.plan(("h1", "h2"), 2).ready == {("a", "b"), ("b", "c"), ("c", "d")}
    True
    >>> cache.plan(("h2", "h3"), 2).missing  # a new page of the site: only its text is read
    ('h3',)
    """

    def __init__(self, texts: int = 32, templates: int = 8) -> None:
        # ~290 KB per page's phrase set on the wide set (1,744 phrases on average): ~10 MB
        self._texts: LRU[tuple, frozenset] = LRU(texts)  # (hash, n) -> frozenset of phrases
        self._templates: LRU[tuple, frozenset] = LRU(templates)  # (hashes, n) -> their union
        self._lock = threading.Lock()  # the store thread plans, the analysis thread adds

    def plan(self, digests: Iterable[str], n: int) -> TemplatePlan:
        """What is known of these texts' template (call before reading the texts)."""
        digests = tuple(digests)
        with self._lock:
            ready = self._templates.get((digests, n))
            known = {d: p for d in digests if (p := self._texts.get((d, n))) is not None}
        return TemplatePlan(digests, ready, known, tuple(d for d in digests if d not in known))

    def template(self, plan: TemplatePlan, texts: dict[str, str], n: int) -> frozenset:
        """The template of ``plan``'s texts (``texts``: the missing ones, by hash), kept."""
        if plan.ready is not None:
            return plan.ready
        read = {d: frozenset(text_phrases(texts.get(d, ""), n)) for d in plan.missing}
        union = frozenset().union(*plan.known.values(), *read.values())
        with self._lock:
            for digest, found in read.items():
                self._texts.put((digest, n), found)
            self._templates.put((plan.digests, n), union)
        return union


def text_phrases(text: str, n: int) -> set[tuple[str, ...]]:
    """The n-word phrases of a text (NFC, tokenized as everywhere).

    >>> sorted(text_phrases("Der Fluss stieg", 2))
    [('der', 'fluss'), ('fluss', 'stieg')]
    """
    return phrases(tokenize(nfc(text)), n) if text else set()


def explain(
    found: int, total: int, p: float, share: float | None, main: float | None, shown=None
) -> dict[str, str]:
    """The reason's clauses: the keywords, S, R and the share of the live main text the stored
    page showed (when they were measured). S and R are read in opposite directions (S: how much
    of the stored text the live page holds; R: how much of the live page's main text is the
    stored text), so each clause names its whole. S counts a phrase only inside one block of the
    live page, as the verdict does: a listing's short lines (a price, "In stock") split most of
    a text's phrases even on the same page, so the clause says where it looked.

    >>> explain(3, 4, 0.8, 0.5, None)["phrases"]
    "50% of the stored text's phrases found within one block of the live page"
    >>> explain(9, 20, 0.41, 0.3, 1.0, 0.5)["shown"]
    '50% of the live main text is text the stored page showed'
    """
    clauses = {"keywords": f"{found}/{total} keywords found, P={percent(p)}"}
    if share is not None:
        clauses["phrases"] = (
            f"{percent(share)} of the stored text's phrases found within one block of the live page"
        )
    if main is not None:
        clauses["main"] = f"{percent(main)} of the live page's main text comes from the stored text"
    if shown is not None:
        clauses["shown"] = f"{percent(shown)} of the live main text is text the stored page showed"
    return clauses


# Which clauses name the figure that decided, for each decider; the rest are checks that did
# not change the state, said as such.
DECIDING_CLAUSES = {
    "keywords": ("keywords",),
    "phrases": ("phrases", "main"),
    "shown": ("shown",),
    "address": ("address",),
}
DECIDER_NAMES = {
    "keywords": "the keywords",
    "phrases": "the stored text's phrases",
    "shown": "the text the stored page showed",
    "address": "the page's address",
}


# The deciding figure's short name, as a screen's narrow column writes it beside the state
# (the viewer's report table, the CLI's ``check`` lines).
FIGURE_NAMES = {"keywords": "P", "phrases": "S", "shown": "shown", "address": "address"}


def deciding_figure(verdict: dict) -> str:
    """The figure that decided a verdict (its JSON form), with its short name; "–" when none
    did (a status, an unjudged check).

    >>> deciding_figure({"decided_by": "phrases", "figure": 0.05}), deciding_figure({"decided_by": "status"})
    ('S 5%', '–')
    """
    name = FIGURE_NAMES.get(str(verdict.get("decided_by")))
    figure = verdict.get("figure")
    return f"{name} {percent(figure)}" if name and isinstance(figure, int | float) else "–"


def reason_of(decided_by: str, clauses: dict[str, str]) -> str:
    """The verdict's reason: the clauses of the figure that decided first, then the figures
    measured that did not decide it, named as such (a figure beside the verdict that did not
    decide it must not read as if it had).

    >>> c = explain(13, 13, 1.0, 0.19, None)
    >>> reason_of("keywords", c)  # doctest: +NORMALIZE_WHITESPACE
    "decided by the keywords: 13/13 keywords found, P=100%; not decisive: 19% of the stored
    text's phrases found within one block of the live page"
    >>> reason_of("phrases", explain(13, 13, 1.0, 0.05, None))  # doctest: +NORMALIZE_WHITESPACE
    "decided by the stored text's phrases: 5% of the stored text's phrases found within one
    block of the live page; not decisive: 13/13 keywords found, P=100%"
    """
    deciding = DECIDING_CLAUSES[decided_by]
    first = [text for name, text in clauses.items() if name in deciding]
    rest = [text for name, text in clauses.items() if name not in deciding]
    reason = f"decided by {DECIDER_NAMES[decided_by]}: " + "; ".join(first)
    return reason + (f"; not decisive: {'; '.join(rest)}" if rest else "")


def main_share(body: str, live_html: bytes | str, options: LivenessOptions) -> float | None:
    """R: the share of the live page's main text's n-word phrases found in the stored text;
    None when the live main text has fewer than ``main_min_phrases`` phrases.

    >>> text = "The river rose two metres overnight and the lower meadow is under water again."
    >>> main_share(text, f"<p>{text}</p>", LivenessOptions())
    1.0
    >>> main_share(text, f"<p>{text} Two herons stood at the edge of the flood at dawn.</p>", LivenessOptions())
    0.5
    """
    n = options.phrase_words
    return StoredText.share_of(
        text_phrases(main_text(live_html), n), text_phrases(body, n), options
    )


def by_phrases(state: str, share: float | None, options: LivenessOptions, main=lambda: None) -> str:
    """The keyword verdict, corrected by S (the stored text's phrases found live) and, for a
    lift or a "changed" with little of the text, by R (``main()``: the share of the live main
    text made of the stored text).

    >>> o = LivenessOptions()
    >>> by_phrases("present", 0.05, o), by_phrases("present", None, o)
    ('gone', 'present')
    >>> by_phrases("gone", 0.5, o), by_phrases("gone", 0.5, o, lambda: 0.3)
    ('gone', 'changed')
    >>> by_phrases("gone", 0.2, o, lambda: 0.6), by_phrases("gone", 0.2, o, lambda: 0.59)
    ('changed', 'gone')
    >>> by_phrases("changed", 0.3, o, lambda: 0.5), by_phrases("changed", 0.3, o, lambda: 0.49)
    ('changed', 'gone')
    """
    if share is None:
        return state
    if state != "gone" and share < options.phrases_at:
        return "gone"  # the same words, not the same text
    if state == "changed" and share < options.main_keep_phrases:
        return "changed" if (main() or 0.0) >= options.main_keep else "gone"
    if state != "gone":
        return state
    return "changed" if lifted(share, main, options) else "gone"


def lifted(share: float, main, options: LivenessOptions) -> bool:
    """Whether the stored text is there although its keywords weigh too little (a redesign
    dropped the byline and the comments the stored copy held): S and R both high enough.

    >>> lifted(0.25, lambda: 0.9, LivenessOptions()), lifted(0.15, lambda: 1.0, LivenessOptions())
    (True, False)
    """
    if share < min(options.phrases_alone, options.main_lift_phrases):
        return False
    r = main() or 0.0  # no live main text to read: none of it is the stored text
    if share >= options.phrases_alone and r >= options.main_alone:
        return True
    return share >= options.main_lift_phrases and r >= options.main_lift
