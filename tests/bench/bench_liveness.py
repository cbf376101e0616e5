"""Liveness ("is the saved content still at the URL?") on pairs of real pages, and on cases built
from the development pages.

REAL PAIRS (``--family real``): every page of ../shared/data/extraction-wide (with its URL and
ground-truth main text) and extraction-dev (its must-keep snippets) whose site has another real page
with another title. gone kinds: the URL now serves another real article of the same site (a new
article under the same URL, or a redirect to another page of the site); that page under the stored
page's title (<title> and <h1>); a redirect to a real page of another site. present kinds: the
page's own main text (the wide set's ground truth) moved into the template of another real page
of its site (a redesign: the page keeps its own rel=canonical and og:url, never the sibling's);
the same under a NEW address (a site that moved its URLs, redirecting the old ones, and redesigned:
canonical and og:url name a new path; pages that name an address only); the page with a real
sibling's teaser added. A gone case is kept only if none of the stored page's
ground-truth lines is left in it, a moved case only if all of them are visible. Split by SITE (SHA-1 of
the host name, 30 % held out): a held-out site's pages are never seen while tuning. The stored copy is
judged as the product judges it: its extraction, its visible text, and the visible texts of up to
SITE_PAGES other real pages of its site (the archive's other documents of the host), never the page the
live URL now serves; "ours, no site" is the same judge without those two fields, "ours, one page" the
judge with the stored page as the only archived page of its site (no template: the address rule judged).

BUILT FROM DEV PAGES (``--family built``, the earlier set):

For each development page the stored copy is the page itself; the live answers are made from it.
The article's container is the smallest element holding all of the corpus's own ``with`` snippets
and every line over 50 characters of trafilatura's extraction (articles split over several boxes),
so the construction does not depend on the method under test.

present kinds: template noise, dates/counters changed, comment section added, a body edit
(a paragraph dropped, one added), paragraphs reordered, a full redesign with the same text.
gone kinds: removal notice under the kept template, empty content area, another article under the
same template, the same title kept over another article, the site's home feed, a home feed with a
teaser of the article, a bare 404 (status 404 or 200) or a parked domain page.
A gone case is kept only if none of those snippets and lines is left in it (checked text-wise).

Methods: ours (engine.liveness.judge with body keywords), the seed's title/summary keywords
(same judge, KeywordOptions(mode="seed")), a status-code-only check, and simhash (64-bit,
Hamming distance ≤ 3 means same page, Manku et al. 2007). Run:
``.venv/bin/python tests/bench/bench_liveness.py [--pages N] [--family real|built|all]
[--split tune|heldout|both|fresh|tune-fresh] [--methods "simhash,status only"] [--misses] [--disagree]`` (tune on ``--split tune``;
``--family real --split tune --methods none --misses``: ours alone, its misses listed (``--methods
"ours, one page"``: beside it, and its misses too; ";" separates names that hold a comma); ``--split fresh``:
the held-out sites' pages paired anew, a check frozen before a round's tuning and read at its end;
``--split tune-fresh``: the tuning sites' pages paired anew, more cases to tune on; ``--split
tune-class``: the tuning sites' product, collection and listing pages each paired with every
sibling of its site, ``liveness_class.class_cases``; ``--types product,collection``: list
only those pages' misses). The real
pairs' constructions are kept under build/bench-cache/liveness/ and read back while what builds
them is unchanged (``liveness_pairs.built_cases``); ``--no-cache`` builds them anew.

ADDRESS OF STORED PAGES (``--family address [--pages N]``): what a sweep pays for the address each
stored page names, the old path (parse the original page on every check) beside the kept one.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import os
import random
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from bench_extract import load, split_of  # noqa: E402
from liveness_class import class_cases  # noqa: E402
from liveness_pairs import (  # noqa: E402
    CACHE_DIR,
    HELD_OUT_SITES,
    REAL_GONE,
    REAL_PRESENT,
    TUNE_FRESH_SEEDS,
    built_cases,
    container,
    fresh_cases,
    norm,
    page_text,
    real_pages,
    split_of_site,
)
from selectolax.lexbor import LexborHTMLParser  # noqa: E402

from engine.archive.addresses import address_of, keep_all_addresses, read_address  # noqa: E402
from engine.archive.model import Capture  # noqa: E402
from engine.archive.registry import register  # noqa: E402
from engine.archive.store import ArchiveStore  # noqa: E402
from engine.html.address import declared_address  # noqa: E402
from engine.html.extract import ExtractOptions, decode, extract  # noqa: E402
from engine.html.keywords import KeywordOptions  # noqa: E402
from engine.html.tokens import tokenize  # noqa: E402
from engine.html.visible import visible_text  # noqa: E402
from engine.liveness import (  # noqa: E402
    UNJUDGED,
    LivenessOptions,
    TemplateCache,
    from_status,
    judge,
)

try:  # the bench extras (`make bench` installs them)
    import trafilatura
except ImportError:
    trafilatura = None

PRESENT_KINDS = (
    "template_noise",
    "dates_counters",
    "comments_added",
    "body_edit",
    "reordered",
    "redesign",
)
GONE_KINDS = (
    "removal_notice", "empty_content", "other_article", "same_title_other", "home_feed",
    "feed_with_teaser", "bare_404_or_parked",
)  # fmt: skip

NOT_FOUND = (
    "<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1>"
    "<p>The requested URL was not found on this server.</p><hr><address>Apache Server</address>"
    "</body></html>"
)
PARKED = (
    "<html><head><title>{host}</title></head><body><div class='parked'><h1>{host}</h1>"
    "<p>This domain may be for sale! Buy this domain.</p><ul><li><a href='#'>Related searches</a></li>"
    "<li><a href='#'>Online Degrees</a></li><li><a href='#'>Car Insurance</a></li></ul></div></body></html>"
)
TEASER_MARK = "<!--teaser-->"
# The judge before the live main-text share R (S ≥ phrases_alone alone lifted a verdict), and
# a stored copy without main text was judged gone.
BEFORE = LivenessOptions(main_alone=0.0, main_lift=1.01)
NAME_RULE_OFF = LivenessOptions(site_named=False)
REMOVED = "<p>Dieser Artikel ist leider nicht mehr verfügbar. This article has been removed.</p>"


def content_parts(box) -> list[str]:
    """Outer HTML of the article's top-level parts (descending through lone wrappers)."""
    node = box
    while True:
        kids = [k for k in node.iter() if k.tag and k.tag[0] != "-"]
        if len(kids) != 1:
            break
        node = kids[0]
    parts = []
    for k in node.iter(include_text=True):
        if k.tag == "-text" and norm(k.text_content or ""):
            parts.append(f"<p>{html.escape(k.text_content)}</p>")
        elif k.tag and k.tag[0] != "-" and norm(k.text()):
            parts.append(k.html)
    return parts if len(parts) >= 3 else []


class Page:
    """One development page with what the case builders need."""

    def __init__(self, cid: str, case: dict, raw: bytes) -> None:
        self.cid, self.case, self.raw = cid, case, raw
        self.url = case.get("url") or ""
        self.text = decode(raw)
        self.snippets = [norm(s) for s in case["with"] if norm(s)]
        # trafilatura: an independent extractor's view of the article (bench-only)
        article = trafilatura.extract(raw, include_comments=False) or ""
        self.lines = [n for n in map(norm, article.split("\n")) if len(n) > 50]
        tree = LexborHTMLParser(self.text)
        box = container(tree, self.snippets + self.lines)
        self.ok = box is not None and box.tag not in ("body", "html")
        self.inner = box.inner_html if self.ok else ""
        self.parts = content_parts(box) if self.ok else []
        self.paragraphs = [norm(p.text()) for p in box.css("p")] if self.ok else []
        self.paragraphs = [p for p in self.paragraphs if len(p) > 40]
        title = tree.css_first("title")
        self.title = norm(title.text()) if title else ""

    def with_content(self, inner: str) -> str:
        """This page's template with the article container's content replaced."""
        tree = LexborHTMLParser(self.text)
        box = container(tree, self.snippets + self.lines)
        box.inner_html = inner
        return tree.html


def teaser(page: Page) -> str:
    first = " ".join(page.paragraphs)[:200] or norm(LexborHTMLParser(page.inner).text())[:200]
    return f"<article><h2><a href='#'>{html.escape(page.title)}</a></h2><p>{html.escape(first)}…</p></article>"


def present_case(kind: str, page: Page, other: Page, rnd: random.Random) -> str:
    if kind == "template_noise":
        noise = f"<div class='promo'><a href='#'>{html.escape(other.title)}</a> Angebote der Woche</div>"
        return page.text.replace(
            "<body", noise.join(("<div hidden></div>", "")) + "<body", 1
        ).replace("</body>", noise + "</body>", 1)
    if kind == "dates_counters":
        inner = re.sub(r"\d", lambda m: str(rnd.randint(0, 9)), page.inner)
        return page.with_content("<p>Aktualisiert am 03.02.2031 · 12.345 Aufrufe</p>" + inner)
    if kind == "comments_added":
        comments = "".join(
            f"<div class='c'><p>{html.escape(p)}</p></div>" for p in other.paragraphs[:6]
        )
        return page.with_content(page.inner + f"<section><h3>Kommentare</h3>{comments}</section>")
    if kind == "body_edit":
        parts = list(page.parts)
        # "small" by visible text, not markup: a part of little HTML can hold most of the text.
        sizes = [len(norm(LexborHTMLParser(p).text())) for p in parts]
        small = [i for i, n in enumerate(sizes) if n * 5 <= sum(sizes)]
        if small:
            parts.pop(rnd.choice(small))
        parts.insert(
            rnd.randrange(len(parts) + 1), "<p>Update: Wir haben diesen Beitrag ergänzt.</p>"
        )
        return page.with_content("".join(parts))
    if kind == "reordered":
        parts = list(page.parts)
        rnd.shuffle(parts)
        return page.with_content("".join(parts))
    body = LexborHTMLParser(page.inner).text(separator="\n")
    paras = "".join(f"<p>{html.escape(p)}</p>" for p in body.split("\n") if p.strip())
    return (
        f"<!doctype html><html><head><title>{html.escape(page.title)}</title></head><body>"
        f"<header><nav><a href='/'>Start</a> <a href='/blog'>Blog</a></nav></header><main><article>"
        f"<h1>{html.escape(page.title)}</h1>{paras}</article></main>"
        f"<footer>© 2031 Neues Design GmbH</footer></body></html>"
    )


def gone_case(kind: str, page: Page, others: list[Page], rnd: random.Random) -> tuple[str, int]:
    other = others[0]
    if kind == "removal_notice":
        return page.with_content(REMOVED), 200
    if kind == "empty_content":
        return page.with_content(""), 200
    if kind == "other_article":
        return page.with_content(other.inner), 200
    if kind == "same_title_other":
        return page.with_content(f"<h1>{html.escape(page.title)}</h1>" + other.inner), 200
    if kind == "home_feed":
        return page.with_content("".join(teaser(p) for p in others)), 200
    if kind == "feed_with_teaser":
        feed = [teaser(p) for p in others]
        feed.insert(rnd.randrange(len(feed) + 1), TEASER_MARK)
        return page.with_content("".join(feed)), 200
    if rnd.random() < 0.5:
        return NOT_FOUND, rnd.choice((404, 200))
    host = re.sub(r"^https?://([^/]+).*$", r"\1", page.case["url"])
    return PARKED.format(host=html.escape(host)), 200


def simhash(text: str) -> int:
    """64-bit simhash over word 3-shingles."""
    words = tokenize(text)
    acc = [0] * 64
    for i in range(max(1, len(words) - 2)):
        h = int.from_bytes(
            hashlib.blake2b(" ".join(words[i : i + 3]).encode(), digest_size=8).digest()
        )
        for bit in range(64):
            acc[bit] += 1 if h >> bit & 1 else -1
    return sum(1 << bit for bit in range(64) if acc[bit] > 0)


def build(pages: list[Page], seed: int = 7) -> list[dict]:
    rnd = random.Random(seed)
    cases = []
    for page in pages:
        others = rnd.sample([p for p in pages if p is not page], 8)
        for kind in PRESENT_KINDS:
            cases.append({"page": page, "kind": kind, "gone": False, "status": 200,
                          "live": present_case(kind, page, others[0], rnd)})  # fmt: skip
        for kind in GONE_KINDS:
            live, status = gone_case(kind, page, others, rnd)
            text = norm(page_text(live))
            if any(s in text for s in page.snippets + page.lines):
                continue  # the construction left article text in: not a valid gone case
            live = live.replace(TEASER_MARK, teaser(page))  # the teaser is meant to be there
            cases.append({"page": page, "kind": kind, "gone": True, "status": status, "live": live})
    return cases


def cases_digest(cases: list[dict]) -> str:
    """A short SHA-1 of the cases' (kind, page, other page): which cases a figure is over."""
    keys = sorted(f"{c['kind']} {c['page'].cid} {c['other']}" for c in cases)
    return hashlib.sha1("\n".join(keys).encode()).hexdigest()[:12]


def shown_text(page) -> str:
    """The stored copy's title line and visible text, as the archive keeps them."""
    return f"{page.title}\n{visible_text(page.raw)}"


def stored_copy(case: dict, kept, cache: dict, templates: TemplateCache | None = None) -> dict:
    """What the product judges with: the stored extraction, the stored copy's visible text and
    the visible texts of the site's other archived pages (``archived``; none for built cases),
    read through ``templates`` as the daemon reads them (by page id here, by content hash
    there)."""
    for page in (case["page"], *case.get("archived", ())):
        if page.cid not in cache:
            cache[page.cid] = shown_text(page)
    if ("address", case["page"].cid) not in cache:
        cache["address", case["page"].cid] = declared_address(case["page"].raw)
    address = cache["address", case["page"].cid]
    extract = {**kept.to_dict(), "visible": cache[case["page"].cid], "address": address,
               "url": case["page"].url}  # fmt: skip
    archived = [p.cid for p in case.get("archived", ())]
    if templates is None:
        return {**extract, "site_texts": [cache[cid] for cid in archived]}
    plan = templates.plan(archived, LivenessOptions().phrase_words)
    template = templates.template(plan, cache, LivenessOptions().phrase_words)
    return {**extract, "site_template": template}


def methods(template: bool = True) -> dict:
    seed_opts = ExtractOptions(keywords=KeywordOptions(mode="seed"))
    stored_cache: dict = {}
    shown: dict = {}
    templates = TemplateCache()  # the daemon's cache (host/services/liveness.py)

    def keyword_method(options, judging=None, unknown_is_gone=False, bare=False, alone=False):
        def run(case):
            if alone:  # the site's other pages not archived: no template known
                case = {**case, "archived": ()}
            key = (case["page"].cid, id(options))
            if key not in stored_cache:
                stored_cache[key] = extract(case["page"].raw, options=options)
            if case["status"] != 200:
                return from_status(case["status"]).present
            kept = (
                stored_cache[key]
                if bare
                else stored_copy(case, stored_cache[key], shown, templates)
            )
            verdict = judge(kept, case["live"], judging)
            if verdict.state == "unknown" and unknown_is_gone:
                return False
            return None if verdict.state in UNJUDGED else verdict.present

        return run

    def simhash_method(case):
        if case["status"] != 200:
            return False
        key = ("simhash", case["page"].cid)
        if key not in stored_cache:
            stored_cache[key] = simhash(page_text(case["page"].text))
        return bin(stored_cache[key] ^ simhash(page_text(case["live"]))).count("1") <= 3

    ours = ExtractOptions()
    return {
        "ours": keyword_method(ours),
        "ours, no site": keyword_method(ours, bare=True),
        # The stored page as the only archived page of its site (a user who kept one page of
        # it): its visible text and address, no template. The address rule is judged alone.
        "ours, one page": keyword_method(ours, alone=True),
        # Both before the rule that a stored text never naming its site is the page's own
        # (LivenessOptions.site_named): the baselines of that round, in the same run.
        "ours, name rule off": keyword_method(ours, NAME_RULE_OFF),
        "one page, name rule off": keyword_method(ours, NAME_RULE_OFF, alone=True),
        "ours, before": keyword_method(ours, BEFORE, unknown_is_gone=True, bare=True),
        "seed keywords": keyword_method(seed_opts),
        "status only": lambda case: case["status"] == 200,
        "simhash": simhash_method,
    }


# Which methods run (``--methods``; "ours" always), whether ours's misses are listed
# (``--misses``: a quicker round while tuning) and the cases ours and each other method split on
# (``--disagree``).
RUN = {"methods": (), "misses": False, "disagree": False, "types": ()}
# The moved kinds: the stored text in another template (a redesign), under the same or a new
# address. Their per-type table shows a class of pages (products, collections) apart.
MOVED = ("moved_to_sibling_template", "moved_to_new_address")


def outcomes(cases: list[dict]) -> dict[str, tuple[list[bool | None], float, float]]:
    """Per method: for each case True (right), False (wrong) or None (no verdict on content:
    counted as wrong, and shown apart), and the ms per case, wall and CPU (the first case of
    a stored page also extracts it)."""
    results = {}
    for name, method in methods().items():
        if RUN["methods"] and name != "ours" and name not in RUN["methods"]:
            continue
        start, cpu = time.perf_counter(), time.process_time()
        got = []
        for case in cases:
            said = method(case)
            got.append(None if said is None else said == (not case["gone"]))
        per = 1000 / max(1, len(cases))
        results[name] = (
            got,
            per * (time.perf_counter() - start),
            per * (time.process_time() - cpu),
        )
    return results


def table(cases: list[dict], results: dict, by, title: str, keys=None) -> None:
    """Accuracy per group of cases (``by(case)``), every method side by side."""
    groups = defaultdict(list)
    for i, case in enumerate(cases):
        key = by(case)
        if key is not None:  # None: the case is not in this table
            groups[key].append(i)
    print(f"{title:<28}" + "".join(f"{m:>15}" for m in results))
    for key in keys or sorted(groups):
        idx = groups.get(key, [])
        cells = [sum(results[m][0][i] is True for i in idx) / max(1, len(idx)) for m in results]
        unsure = sum(results["ours"][0][i] is None for i in idx)
        note = f"   n={len(idx)}" + (f", ours no verdict {unsure}" if unsure else "")
        print(f"{key:<28}" + "".join(f"{c:>15.3f}" for c in cells) + note)


def report(cases: list[dict], label: str, kinds=PRESENT_KINDS + GONE_KINDS, groups=()) -> None:
    """Accuracy per kind (and per each of ``groups``: (title, case → key)), overall, worst kind."""
    print(f"\n{label}: {len(cases)} cases")
    results = outcomes(cases)
    table(cases, results, lambda c: c["kind"], "kind", kinds)
    totals = [sum(v is True for v in results[m][0]) / len(cases) for m in results]
    worst = []
    for m in results:
        per = defaultdict(list)
        for case, v in zip(cases, results[m][0], strict=True):
            per[case["kind"]].append(v is True)
        worst.append(min(sum(v) / len(v) for v in per.values()))
    print(f"{'overall':<28}" + "".join(f"{t:>15.4f}" for t in totals))
    judged = [v for v in results["ours"][0] if v is not None]
    print(f"{'ours, unknown left out':<28}{sum(judged) / max(1, len(judged)):>15.4f}"
          f"   ({len(cases) - len(judged)} unknown not counted: NOT the metric)")  # fmt: skip
    print(f"{'worst kind':<28}" + "".join(f"{w:>15.3f}" for w in worst))
    print(f"{'ms/case, wall':<28}" + "".join(f"{results[m][1]:>15.2f}" for m in results))
    print(f"{'ms/case, CPU':<28}" + "".join(f"{results[m][2]:>15.2f}" for m in results))
    for title, by in groups:
        print()
        table(cases, results, by, title)
    for name in results if RUN["misses"] else ():
        if name.startswith("ours"):
            misses(cases, results[name][0], name, RUN["types"])
    for name in results if RUN["disagree"] else ():
        if name != "ours":
            disagreements(cases, results["ours"][0], results[name][0], name)


def misses(cases: list[dict], got: list, name: str, types: tuple[str, ...] = ()) -> None:
    """The cases a method gets wrong (kind, site, page, page type); only pages of ``types``
    when given (``--types product,collection``)."""
    shown = f" of page types {', '.join(types)}" if types else ""
    print(f"\n{name}, misses{shown} (kind, site, page, type):")
    for case, v in zip(cases, got, strict=True):
        kind = getattr(case["page"], "page_type", "")
        if v is not True and (not types or kind in types):
            print(f"  {case['kind']:<28} {getattr(case['page'], 'site', '')} {case['page'].cid}"
                  f" {kind}{'  (no verdict)' if v is None else ''}")  # fmt: skip


def disagreements(cases: list[dict], ours: list, other: list, name: str) -> None:
    """The cases where ours and another method are not both right or both wrong (kind, site,
    page, which one is right): where one method wins over the other, case by case."""
    print(f"\nours vs {name}, cases only one gets right (kind, site, page, right):")
    for case, mine, theirs in zip(cases, ours, other, strict=True):
        if (mine is True) != (theirs is True):
            print(f"  {case['kind']:<28} {getattr(case['page'], 'site', '')} {case['page'].cid}"
                  f"  {'ours' if mine is True else name}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=160)
    parser.add_argument("--family", choices=("real", "built", "all", "address"), default="all")
    parser.add_argument("--split",
                        choices=("tune", "heldout", "both", "fresh", "tune-fresh", "tune-class"),
                        default="both",
                        help="which split to report (tune on 'tune', 'tune-fresh' and "
                             "'tune-class' only; 'fresh': the held-out sites paired anew, "
                             "FRESH_SEEDS; 'tune-fresh': the tuning sites paired anew, "
                             "TUNE_FRESH_SEEDS; 'tune-class': the tuning sites' product, "
                             "collection and listing pages paired with every sibling)")  # fmt: skip
    parser.add_argument("--methods", default="", help="comma-separated methods beside ours")
    parser.add_argument("--misses", action="store_true", help="list the cases ours gets wrong")
    parser.add_argument("--no-cache", action="store_true",
                        help="build the real pairs anew, neither reading nor keeping the cache")  # fmt: skip
    parser.add_argument("--types", default="",
                        help="list only the misses of these page types (comma-separated: "
                             "'product,collection')")  # fmt: skip
    parser.add_argument("--disagree", action="store_true",
                        help="list the cases only one of ours and each other method gets right")  # fmt: skip
    args = parser.parse_args()
    # ";" separates names that hold a comma ("ours, one page;simhash"), else ","
    names = args.methods.split(";" if ";" in args.methods or "ours," in args.methods else ",")
    RUN.update(methods=tuple(filter(None, (n.strip() for n in names))), misses=args.misses,
               disagree=args.disagree,
               types=tuple(filter(None, (t.strip() for t in args.types.split(",")))))  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.2f} (2 shared cores)")
    started, cpu = time.perf_counter(), time.process_time()
    if args.family in ("real", "all"):
        real_main(args.split, None if args.no_cache else CACHE_DIR)
    if args.family in ("built", "all"):
        built_main(args.pages, args.split)
    if args.family == "address":
        address_main(args.pages)
    print(f"\n{time.perf_counter() - started:.0f} s wall, {time.process_time() - cpu:.0f} s CPU")


def real_main(only: str = "both", cache: Path | None = CACHE_DIR) -> None:
    """The real pairs' report; their constructions are read from ``cache`` when kept there
    (``liveness_pairs.built_cases``), else built and kept."""
    pages = real_pages()
    cases = built_cases(pages, cache=cache)
    sites = {c["page"].site for c in cases}
    print(f"\nREAL PAIRS: {len(pages)} real pages; {len(cases)} cases from {len(sites)} sites "
          f"with ≥ 2 pages; held out: {HELD_OUT_SITES:.0%} of sites by SHA-1")  # fmt: skip
    kinds = REAL_PRESENT + REAL_GONE
    groups = (
        ("source", lambda c: c["page"].source),
        ("page type", lambda c: c["page"].page_type),
        ("moved kinds, per page type", moved_by_type),
    )
    for split, label in (("tune", "tuning split"), ("heldout", "held-out split")):
        if only in (split, "both"):
            split_cases = [c for c in cases if c["split"] == split]
            report(split_cases, f"real pairs, {label} ({cases_digest(split_cases)})", kinds, groups)
    if only == "fresh":
        fresh = fresh_cases(pages, cache=cache)
        report(fresh, f"real pairs, fresh held-out pairings ({cases_digest(fresh)})", kinds, groups)
    if only == "tune-fresh":
        more = fresh_cases(pages, "tune", TUNE_FRESH_SEEDS, cache)
        report(more, f"real pairs, tuning sites paired anew ({cases_digest(more)})", kinds, groups)
    if only == "tune-class":
        seeded = frozenset(
            (c["kind"], c["page"].cid, c["other"])
            for seed in (11, *TUNE_FRESH_SEEDS)
            for c in built_cases(pages, seed, cache)
            if c["split"] == "tune"
        )
        shop = class_cases(pages, "tune", seeded=seeded)
        label = f"real pairs, tuning sites' shop pages with every sibling ({cases_digest(shop)})"
        more_groups = (
            ("pairing", lambda c: "seeded" if c["seeded"] else "new"),
            ("moved, box", lambda c: c["box"] if c["kind"] in MOVED else None),
            ("site", lambda c: c["page"].site),
        )
        report(shop, label, kinds[:-1], (*groups, *more_groups))


def moved_by_type(case: dict) -> str | None:
    """A moved case's page type and kind ("product / sibling", "product / new_address"); None
    for the other kinds."""
    if case["kind"] not in MOVED:
        return None
    kind = "sibling" if case["kind"] == MOVED[0] else "new_address"
    return f"{case['page'].page_type} / {kind}"


def address_main(n_pages: int) -> None:
    """What a sweep pays for the address each stored page names (``--family address``): real
    pages registered in a fresh archive, their kept address removed as for versions stored
    before it was kept; per sweep, the old path (parse each original page on every check)
    beside the kept one (the first sweep parses and keeps, later ones read the row), and the
    daemon's migration (``keep_addresses``) instead of the first sweep. Same run, same pages."""
    pages = [p for p in real_pages() if split_of_site(p.site) == "tune"][:n_pages]
    with tempfile.TemporaryDirectory() as tmp:
        store = ArchiveStore.open(Path(tmp))  # fsync on, as the daemon
        ids = [register(store, Capture(p.url, p.raw)).id for p in pages]

        def strip() -> None:
            with store.transaction():
                for reg_id in ids:
                    row = {k: v for k, v in store.row("extracts", reg_id).items() if k != "address"}
                    store.remove_row("extracts", reg_id)
                    store.update("extracts", reg_id, row)

        def timed(label: str, fn) -> tuple[float, float]:
            wall, cpu = time.perf_counter(), time.process_time()
            fn()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            per = 1000 / len(ids)
            print(f"  {label:<50}{per * cpu:>9.3f} ms CPU{per * wall:>9.3f} ms wall per version")
            return cpu, wall

        print(f"\nADDRESS OF STORED PAGES: {len(ids)} real pages (tuning split), one archive")
        strip()
        old = [
            timed(f"old path, sweep {n}", lambda: [read_address(store, i) for i in ids])
            for n in (1, 2)
        ]
        first = timed("kept, sweep 1 (parse and keep)", lambda: [address_of(store, i) for i in ids])
        later = timed("kept, sweep 2 (read the row)", lambda: [address_of(store, i) for i in ids])
        strip()
        timed(
            "migration instead (keep_all_addresses, steps of 50)", lambda: keep_all_addresses(store)
        )
        same = all(address_of(store, i) == read_address(store, i) for i in ids)
        print(f"  later sweeps: {old[1][0] / max(later[0], 1e-9):.0f}x less CPU than the old path "
              f"(first sweep {first[0] / max(old[0][0], 1e-9):.2f}x the old one); addresses equal: {same}")  # fmt: skip
        store.close()


def built_main(n_pages: int, only: str = "both") -> None:
    pages = [Page(cid, case, raw) for cid, case, raw in load(None)]
    usable = [p for p in pages if p.ok and len(p.parts) >= 3]
    rnd = random.Random(1)
    rnd.shuffle(usable)
    usable = usable[:n_pages]
    print(f"\nBUILT FROM DEV PAGES: {len(usable)} usable pages of {len(pages)} "
          "(article container found with ≥ 3 parts)")  # fmt: skip
    cases = build(usable)
    for split, label in (("tune", "tuning split"), ("heldout", "held-out split")):
        if only in (split, "both"):
            report([c for c in cases if split_of(c["page"].cid) == split], label)
    if only == "both":
        report(cases, "all")


if __name__ == "__main__":
    main()
