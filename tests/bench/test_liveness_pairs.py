"""The liveness bench's cache of built real pairs: a case read back is the case as built, a
second run reads it instead of building, and any change to what builds it builds anew. And the
class construction: a shop's pages each paired with every sibling."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import bench_liveness  # noqa: E402
import liveness_class  # noqa: E402
import liveness_pairs  # noqa: E402
from liveness_pairs import RealPage, build_real, built_cases, encode_cases, title_of  # noqa: E402

STORY = (
    "The {n} story of {site}: this sentence is long enough to be one of its ground-truth lines.",
    "A second line of the {n} story of {site}, also well over fifty characters of plain text.",
    "A third line closes the {n} story of {site} with yet more words than fifty characters.",
)


def page(site: str, n: str) -> RealPage:
    lines = [line.format(n=n, site=site) for line in STORY]
    body = "".join(f"<p>{line}</p>" for line in lines)
    raw = (
        f"<html><head><title>{n} at {site}</title>"
        f'<link rel="canonical" href="https://{site}/{n}"></head><body>'
        f"<nav><a href='/'>Home of {site}</a></nav><div class='story'>{body}</div>"
        f"<footer>About {site} and its people</footer></body></html>"
    ).encode()
    real = RealPage(f"{site}-{n}", f"https://{site}/{n}", raw, lines, True, "test", "article")
    real.title = title_of(real.text)
    return real


def pages() -> list[RealPage]:
    return [page(site, n) for site in ("a.org", "b.com", "c.net") for n in ("one", "two", "six")]


def same(a: list[dict], b: list[dict]) -> bool:
    """Every field of every case equal, pages by id (the objects of one run)."""
    ids = lambda c: (c["page"].cid, [p.cid for p in c["archived"]])  # noqa: E731
    rest = lambda c: {k: v for k, v in c.items() if k not in ("page", "archived")}  # noqa: E731
    return [(ids(c), rest(c)) for c in a] == [(ids(c), rest(c)) for c in b]


def test_cases_read_from_the_cache_are_the_cases_built(tmp_path):
    ps = pages()
    built = build_real(ps, 11)
    assert len(built) > 20 and {c["kind"] for c in built} >= {"other_article_same_site"}
    first = built_cases(ps, 11, tmp_path)  # built and kept
    again = built_cases(pages(), 11, tmp_path)  # read back over new page objects
    assert same(built, first) and same(built, again)
    assert len(list(tmp_path.iterdir())) == 1


def test_the_figures_are_the_same_with_and_without_the_cache(tmp_path, monkeypatch):
    monkeypatch.setitem(bench_liveness.RUN, "methods", ("ours, one page",))
    ps = pages()
    built_cases(ps, 11, tmp_path)
    cold = bench_liveness.outcomes(build_real(ps, 11))
    warm = bench_liveness.outcomes(built_cases(pages(), 11, tmp_path))
    assert {m: r[0] for m, r in cold.items()} == {m: r[0] for m, r in warm.items()}
    assert set(cold) == {"ours", "ours, one page"}


def refuse(*args):
    raise AssertionError("built, not read from the cache")


def test_a_second_run_reads_the_cache_instead_of_building(tmp_path, monkeypatch):
    built_cases(pages(), 11, tmp_path)
    monkeypatch.setattr(liveness_pairs, "build_real", refuse)
    assert built_cases(pages(), 11, tmp_path)


@pytest.mark.parametrize("change", ["text", "raw", "lines", "title", "order", "seed", "code"])
def test_a_change_to_what_builds_the_cases_builds_them_anew(tmp_path, monkeypatch, change):
    built_cases(pages(), 11, tmp_path)
    ps, seed = pages(), 11
    if change == "text":
        ps[0].text = ps[0].text.replace("About", "All about")
    elif change == "raw":
        ps[0].raw = ps[0].raw.replace(b"canonical", b"alternate")
    elif change == "lines":
        ps[0].lines = ps[0].lines[:2]
    elif change == "title":
        ps[0].title = "Another title"
    elif change == "order":
        ps.reverse()
    elif change == "seed":
        seed = 12
    else:
        monkeypatch.setattr(liveness_pairs, "code_digest", lambda: "another version of the code")
    monkeypatch.setattr(liveness_pairs, "build_real", refuse)
    with pytest.raises(AssertionError, match="not read from the cache"):
        built_cases(ps, seed, tmp_path)


def test_a_new_construction_replaces_the_stale_one_of_its_seed(tmp_path):
    built_cases(pages(), 11, tmp_path)
    built_cases(pages(), 12, tmp_path)
    changed = pages()
    changed[0].title = "Another title"
    built_cases(changed, 11, tmp_path)
    names = sorted(p.name.split("-")[1] for p in tmp_path.iterdir())
    assert names == ["seed11", "seed12"]


def test_without_a_cache_nothing_is_kept(tmp_path):
    assert same(built_cases(pages(), 11, None), build_real(pages(), 11))
    assert not any(tmp_path.iterdir())


def test_a_live_page_that_is_another_page_is_kept_as_its_id():
    ps = pages()
    records = encode_cases(build_real(ps, 11), ps)
    by_kind = {r[0]: r[4][0] for r in records}
    assert by_kind["other_article_same_site"] == "page"
    assert by_kind["moved_to_sibling_template"] == "html"


def test_the_code_digest_follows_the_construction_module_and_the_address_reader(
    tmp_path, monkeypatch
):
    before = liveness_pairs.code_digest()
    for module in (liveness_pairs, liveness_pairs.address_module):
        edited = tmp_path / f"{module.__name__}.py"
        edited.write_text(Path(module.__file__).read_text() + "\n# edited\n")
        with monkeypatch.context() as patch:
            patch.setattr(module, "__file__", str(edited))
            assert liveness_pairs.code_digest() != before
    assert liveness_pairs.code_digest() == before


def shop_pages() -> list[RealPage]:
    """Two shops of three pages (two products and a collection) and a blog of two articles."""
    typed = []
    for site in ("shop-a.com", "shop-b.com", "blog.org"):
        names = ("one", "two") if site == "blog.org" else ("one", "two", "six")
        for n in names:
            real = page(site, n)
            real.page_type = (
                "article" if site == "blog.org" else ("collection" if n == "six" else "product")
            )
            typed.append(real)
    return typed


def test_the_class_pairs_each_page_of_its_types_with_every_sibling():
    ps = shop_pages()
    cases = liveness_class.class_cases(ps, "tune", seeded=frozenset())
    cases += liveness_class.class_cases(ps, "heldout", seeded=frozenset())
    assert {c["page"].page_type for c in cases} == {"product", "collection"}
    pairs = {(c["page"].cid, c["other"]) for c in cases}
    shops = [p for p in ps if p.site != "blog.org"]
    assert pairs == {
        (a.cid, b.cid) for a in shops for b in shops if a.site == b.site and a is not b
    }
    kinds = {c["kind"] for c in cases}
    assert kinds == set(liveness_class.CLASS_KINDS) and "redirect_other_site" not in kinds
    assert {c["box"] for c in cases} == {"whole"}  # every sibling has a box holding all its lines
    for case in cases:
        assert case["page"].cid not in {p.cid for p in case["archived"]}
        assert case["other"] not in {p.cid for p in case["archived"]}
        if case["gone"]:
            assert not liveness_pairs.holds(case["live"], case["page"])
        else:
            assert liveness_pairs.holds_all(case["live"], case["page"])


def test_the_class_marks_the_pairings_a_seeded_construction_built():
    ps = shop_pages()
    product = next(p for p in ps if p.page_type == "product")
    split = liveness_pairs.split_of_site(product.site)
    sibling = next(p for p in ps if p.site == product.site and p is not product)
    seeded = frozenset({("other_article_same_site", product.cid, sibling.cid)})
    cases = liveness_class.class_cases(ps, split, seeded=seeded)
    marked = [(c["kind"], c["page"].cid, c["other"]) for c in cases if c["seeded"]]
    assert marked == [("other_article_same_site", product.cid, sibling.cid)]


def test_the_class_keeps_a_case_only_by_the_construction_rules():
    """A sibling quoting the page is no gone case; a sibling whose text only a script holds
    (its "box" not shown) is no moved case."""
    one, plain = page("shop-q.com", "one"), page("shop-q.com", "two")
    quote, script = page("shop-q.com", "quote"), page("shop-q.com", "json")
    quote.raw = quote.raw.replace(b"</div>", f"<p>{one.lines[0]}</p></div>".encode())
    story = "".join(f"<p>{line}</p>" for line in script.lines).encode()
    data = ('<script type="application/json">' + " ".join(script.lines) + "</script>").encode()
    script.raw = script.raw.replace(b"<div class='story'>" + story + b"</div>", data)
    for p in (quote, script):
        p.text = p.raw.decode()
    ps = [one, plain, quote, script]
    for p in ps:
        p.page_type = "product"
    cases = liveness_class.class_cases(ps, liveness_pairs.split_of_site("shop-q.com"))
    of_one = {(c["kind"], c["other"]) for c in cases if c["page"] is one}
    assert ("other_article_same_site", plain.cid) in of_one
    assert ("other_article_same_site", quote.cid) not in of_one
    assert ("moved_to_sibling_template", plain.cid) in of_one
    assert ("moved_to_sibling_template", script.cid) not in of_one


def split_page(site: str, n: str, loose: bool = False) -> RealPage:
    """A page whose first line is its heading, outside the box of the two others (no element
    but the body holds all three); ``loose``: that line is bare text of the body."""
    real = page(site, n)
    head = real.lines[0] if loose else f"<header><h1>{real.lines[0]}</h1></header>"
    rest = "".join(f"<p>{line}</p>" for line in real.lines[1:])
    raw = real.raw.replace(b"<div class='story'>", f"{head}<div class='story'>".encode(), 1)
    raw = re.sub(rb"<div class='story'>.*?</div>", f"<div class='story'>{rest}</div>".encode(), raw)
    real.raw, real.text = raw, raw.decode()
    return real


def test_a_wider_box_moves_the_text_into_a_sibling_with_no_whole_box():
    one, wide = page("shop-w.com", "one"), split_page("shop-w.com", "two")
    loose = split_page("shop-w.com", "six", loose=True)
    flat = page("shop-w.com", "ten")  # its lines straight in the body: only the body holds 2 of 3
    flat.raw = re.sub(rb"<div class='story'>(.*?)</div>", rb"\1", flat.raw)
    flat.text = flat.raw.decode()
    spanned = split_page(
        "shop-w.com", "nine"
    )  # its heading shown as two words the walk reads as one
    first, rest = spanned.lines[0].split(" ", 1)
    spanned.raw = spanned.raw.replace(
        f"<h1>{spanned.lines[0]}</h1>".encode(), f"<h1><b>{first}</b><i>{rest}</i></h1>".encode()
    )
    spanned.text = spanned.raw.decode()
    ps = [one, wide, loose, flat, spanned]
    for p in ps:
        p.page_type = "product"
    assert liveness_pairs.sibling_template(one, wide) is None
    cases = liveness_class.class_cases(ps, liveness_pairs.split_of_site("shop-w.com"))
    moved = {
        (c["other"], c["box"]) for c in cases if c["page"] is one and c["kind"].startswith("moved_")
    }
    # the loose sibling's heading is the body's own text; the flat one's only box is the body;
    # the spanned one's heading would still be shown
    assert moved == {(wide.cid, "wider")}
    live = next(c["live"] for c in cases if c["page"] is one and c["box"] == "wider")
    assert liveness_pairs.holds_all(live, one) and not liveness_pairs.holds(live, wide)
    assert "<header>" in live and "<footer>" in live  # the sibling's template stays
