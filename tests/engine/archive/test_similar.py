"""Similar-page search (engine/archive/similar.py) on real saved pages."""

from __future__ import annotations

import gzip
import heapq
import zlib
from pathlib import Path

import pytest
from selectolax.lexbor import LexborHTMLParser

from engine.archive.similar import (
    SimilarIndex,
    SimilarMatch,
    SimilarOptions,
    VersionFeatures,
    find_similar,
    fingerprint_pieces,
    sketch,
    sketch_bitmap,
    version_features,
)
from engine.html.extract import extract
from engine.html.fingerprint import fingerprint
from engine.html.similarity import PrefilterOptions, SimilarityOptions, similarity

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"
ARTICLE, OTHER_BLOG = "66ccd752a9bb2db9", "85b666998a03fcc0"
CHIP_TEST, CHIP_DOWNLOAD = "f158ac51f8c9d889", "4779762459127ce0"


def still() -> float:
    """A clock that never moves: a budget measured with it never runs out (no wall-clock race)."""
    return 0.0


STILL = SimilarOptions(clock=still)


def page(name: str) -> str:
    return gzip.decompress((PAGES / f"{name}.html.gz").read_bytes()).decode("utf-8", "replace")


def links_of(html: str) -> list[str]:
    return [a.attributes.get("href") or "" for a in LexborHTMLParser(html).css("a[href]")]


def features(id: str, html: str) -> VersionFeatures:
    return version_features(id, fingerprint(html), links_of(html), extract(html).body)


def edited(html: str, n: int) -> str:
    """Version n of the page: its n-th long paragraph reworded."""
    paragraphs = [p.text() for p in LexborHTMLParser(html).css("p") if len(p.text()) > 60]
    old = paragraphs[n % len(paragraphs)]
    return html.replace(old[:50], f"Version {n}: dieser Anfang wurde neu geschrieben", 1)


@pytest.fixture(scope="module")
def site():
    """Versions of one blog article, plus pages of other sites as distractors."""
    article = page(ARTICLE)
    versions = {f"v{n}": features(f"v{n}", edited(article, n)) for n in range(1, 5)}
    versions["other"] = features("other", page(OTHER_BLOG))
    versions["chip1"] = features("chip1", page(CHIP_TEST))
    versions["chip2"] = features("chip2", page(CHIP_DOWNLOAD))
    return features("new", article), versions


def test_finds_the_versions_of_the_page_first(site):
    target, versions = site
    found = find_similar(target, versions.values(), STILL)
    assert {m.id for m in found[:4]} == {"v1", "v2", "v3", "v4"}
    assert all(m.structural > 0.95 and m.content > 0.8 for m in found[:4])
    assert all(isinstance(m, SimilarMatch) and len(m) == 3 for m in found)


def test_results_are_ranked_by_structural_similarity(site):
    target, versions = site
    found = find_similar(target, versions.values(), SimilarOptions(clock=still, min_structural=0.0))
    values = [m.structural for m in found]
    assert values == sorted(values, reverse=True)
    exact = {m.id: similarity(target.fingerprint, versions[m.id].fingerprint) for m in found}
    assert all(m.structural == pytest.approx(exact[m.id], abs=1e-4) for m in found)


def test_link_prefilter_keeps_other_sites_out(site):
    target, versions = site
    loose = SimilarOptions(min_structural=0.0, min_sketch=0, max_exact=50, clock=still)
    assert "chip1" not in {m.id for m in find_similar(target, versions.values(), loose)}
    no_filter = PrefilterOptions(small_total=10**6, min_shared_share=0.0)
    unfiltered = SimilarOptions(
        min_structural=0.0,
        min_sketch=0,
        max_exact=50,
        prefilter=no_filter,
        clock=still,
    )
    assert "chip1" in {m.id for m in find_similar(target, versions.values(), unfiltered)}


def test_the_target_itself_is_excluded(site):
    target, versions = site
    same_id = VersionFeatures("v1", target.sketch, target.links, target.fingerprint, target.text)
    assert find_similar(same_id, versions.values(), STILL)[0].id != "v1"


def test_candidates_load_lazily_and_only_the_best(site):
    target, versions = site
    store = {v.id: (v.fingerprint, v.text) for v in versions.values()}
    light = [VersionFeatures(v.id, v.sketch, v.links) for v in versions.values()]
    loaded = []

    def load(id):
        loaded.append(id)
        return store[id]

    found = find_similar(target, light, SimilarOptions(clock=still, max_exact=2), load)
    assert len(loaded) == 2 and {m.id for m in found} <= set(loaded)
    assert set(loaded) <= {"v1", "v2", "v3", "v4"}


def test_time_budget_bounds_the_exact_stage(site):
    target, versions = site
    ticks = iter(range(10**6))
    spent = SimilarOptions(time_budget=0.5, clock=lambda: float(next(ticks)))
    assert find_similar(target, versions.values(), spent) == []  # the first reading is past it
    assert find_similar(target, versions.values(), SimilarOptions(clock=still))


def test_content_alone_can_qualify_a_page():
    """A redesign keeps the words but not the structure: listed through content similarity."""
    article = page(ARTICLE)
    body = extract(article).body
    cells = "".join(f"<div class=c><span>{para}</span></div>" for para in body.split("\n"))
    redesign = f"<html><body><main>{cells}</main></body></html>"
    target = features("new", article)
    candidate = version_features("redesign", fingerprint(redesign), target.links, body)
    loose = SimilarOptions(clock=still, min_sketch=0)
    [match] = find_similar(target, [candidate], loose)
    assert match.structural < 0.3 and match.content > 0.8
    assert (
        find_similar(
            target, [candidate], SimilarOptions(clock=still, min_sketch=0, min_content=1.1)
        )
        == []
    )


# -- the index --------------------------------------------------------------------------------


def test_index_add_replace_remove(site):
    target, versions = site
    index = SimilarIndex(versions.values())
    assert len(index) == len(versions)
    index.remove("v1")
    index.remove("no-such-id")
    assert len(index) == len(versions) - 1
    assert "v1" not in {m.id for m in index.search(target, STILL)}
    index.add(versions["v1"])
    index.add(versions["v1"])  # replacing keeps one copy
    assert len(index) == len(versions)
    assert "v1" in {m.id for m in index.search(target, STILL)}


def test_ranking_follows_the_sketch_overlap(site):
    target, versions = site
    ranked = SimilarIndex(versions.values()).ranked_candidates(target, SimilarOptions(clock=still))
    overlaps = [len(target.sketch & v.sketch) for v in ranked]
    assert overlaps == sorted(overlaps, reverse=True)
    assert {v.id for v in ranked[:4]} == {"v1", "v2", "v3", "v4"}


# -- the sketch -------------------------------------------------------------------------------


def test_sketch_is_the_bottom_k_of_shingle_crcs():
    fp = fingerprint(page(ARTICLE))
    pieces = fingerprint_pieces(fp)
    assert "".join(pieces) == fp
    shingles = {"".join(pieces[i : i + 4]) for i in range(len(pieces) - 3)}
    expected = sorted(heapq.nsmallest(64, {zlib.crc32(s.encode()) for s in shingles}))
    assert sketch(fp) == expected


def test_sketch_is_json_friendly_and_survives_a_round_trip():
    fp = fingerprint(page(CHIP_TEST))
    stored = list(sketch(fp))
    assert all(isinstance(v, int) for v in stored)
    assert VersionFeatures("x", stored).sketch == frozenset(sketch(fp))


def test_similar_pages_share_more_sketch_hashes():
    a, b = fingerprint(page(ARTICLE)), fingerprint(edited(page(ARTICLE), 1))
    stranger = fingerprint(page(CHIP_TEST))
    shared = len(set(sketch(a)) & set(sketch(b)))
    assert shared > len(set(sketch(a)) & set(sketch(stranger))) + 20


def test_bitmap_counts_shared_hashes():
    a, b = sketch(fingerprint(page(ARTICLE))), sketch(fingerprint(edited(page(ARTICLE), 2)))
    exact = len(set(a) & set(b))
    folded = (sketch_bitmap(a) & sketch_bitmap(b)).bit_count()
    assert exact - 2 <= folded <= exact + 2


def test_tiny_and_empty_fingerprints():
    assert sketch("") == []
    assert len(sketch("<H<h")) == 1
    assert find_similar(version_features("a", ""), [version_features("b", "<H<h")]) == []


def test_a_page_too_big_to_compare_has_no_similar_list(site):
    target, versions = site
    tiny = SimilarOptions(clock=still, similarity=SimilarityOptions(max_automaton=100))
    assert find_similar(target, versions.values(), tiny) == []
