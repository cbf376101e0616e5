"""The liveness bench's cache of built real pairs: a case read back is the case as built, a
second run reads it instead of building, and any change to what builds it builds anew."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import bench_liveness  # noqa: E402
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
