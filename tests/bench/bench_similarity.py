"""Benchmark: fingerprint similarity and similar-page search (issue 4, "Must show").

Run: ``.venv/bin/python tests/bench/bench_similarity.py``. Prints its figures and
the ratio to baselines measured in the same run:

* ``bench_pair()``: fingerprint similarity of two ~200 KB real pages with the
  suffix automaton vs. the seed's nested loops (run in full on the similar pair;
  on the dissimilar pair over a prefix of the source, extrapolated per delimiter,
  because the full run takes minutes).
* ``bench_similar_search()``: similar-page search for a new page against 10,000
  versions of the same site (goal <= 100 ms), vs. the exact similarity against
  every candidate that passes the link prefilter (the seed's method), extrapolated
  from a sample.

Both return dicts, so tests/bench/bench_archive.py can call them.
"""

from __future__ import annotations

import gzip
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine.archive.similar import (  # noqa: E402
    SimilarIndex,
    SimilarOptions,
    VersionFeatures,
    sketch,
    version_features,
)
from engine.html.fingerprint import fingerprint  # noqa: E402
from engine.html.similarity import (  # noqa: E402
    DEFAULT_SIMILARITY,
    FingerprintIndex,
    _naive_longest,
    greedy_count,
    matched_spans,
    naive_similarity,
    similarity,
)

DATA = Path(os.environ.get("PAGEKEEPER_SHARED", ROOT.parent / "shared")) / "data" / "extraction-dev"
PAGES = DATA / "pages"
# Three real pages of about 200 KB each (sizes in bytes, uncompressed).
PAIR_PAGES = {
    "typical": ("1bca03b49f5aa2b1", "0e5a001489ec7dfd"),
    "dense": ("37cd40e45909ea62", "2cd2a77b62178428"),
}
NAIVE_PREFIX_DELIMITERS = 150


def load_page(name: str) -> bytes:
    return gzip.decompress((PAGES / f"{name}.html.gz").read_bytes())


def timed(fn, repeat: int = 5) -> tuple[float, object]:
    """Median seconds of ``repeat`` runs, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def edit_fingerprint(fp: str, rng: random.Random, edits: int = 6) -> str:
    """A later version of a page: a few pieces of the fingerprint replaced or dropped."""
    pieces = fp.split("<")
    for _ in range(edits):
        at = rng.randrange(1, max(2, len(pieces) - 1))
        span = rng.randint(1, 30)
        pieces[at : at + span] = rng.choice([[], pieces[at : at + span][::-1], ["PnyQ", "p"]])
    return "<".join(pieces)


def naive_prefix(source: str, target: str, delimiters: int) -> tuple[float, int, int]:
    """Seconds the nested loops spend on the first ``delimiters`` delimiters of the source."""
    budget = [delimiters]

    def longest(i: int) -> int:
        budget[0] -= 1
        return _naive_longest(source, target, i) if budget[0] >= 0 else len(source)

    start = time.perf_counter()
    greedy_count(source, longest, DEFAULT_SIMILARITY)
    spent = time.perf_counter() - start
    visited = _visited_delimiters(source, target)
    return spent, min(delimiters, visited), visited


def _visited_delimiters(source: str, target: str) -> int:
    """How many delimiters the seed's loop visits (counted with the fast matcher)."""
    return len(matched_spans(source, target))


def bench_pair() -> dict:
    """Similarity of ~200 KB real pages: suffix automaton vs. the seed's nested loops.

    Two pairs: "typical" (6-8 K-character fingerprints) and "dense" (15-22 K: pages
    with many small elements), each compared dissimilar (two different pages) and
    similar (a page and an edited copy of its fingerprint).
    """
    return {label: _bench_pages(names) for label, names in PAIR_PAGES.items()}


def _bench_pages(names: tuple[str, str]) -> dict:
    pages = [load_page(name) for name in names]
    fp_time, fps = timed(lambda: [fingerprint(page) for page in pages], repeat=3)
    a, b = fps
    similar = edit_fingerprint(a, random.Random(4))
    fast_dissimilar, value_dissimilar = timed(lambda: similarity(a, b))
    fast_similar, value_similar = timed(lambda: similarity(a, similar))
    naive_start = time.perf_counter()
    naive_value = naive_similarity(a, similar)
    naive_similar = time.perf_counter() - naive_start
    source, target = (a, b) if len(a) <= len(b) else (b, a)
    spent, done, visited = naive_prefix(source, target, NAIVE_PREFIX_DELIMITERS)
    naive_dissimilar = spent / max(done, 1) * visited
    return {
        "page_bytes": [len(page) for page in pages],
        "fingerprint_chars": [len(a), len(b)],
        "fingerprint_ms_per_page": round(fp_time / len(pages) * 1000, 2),
        "similar_pair": {
            "similarity": round(value_similar, 4),
            "fast_ms": round(fast_similar * 1000, 2),
            "naive_ms": round(naive_similar * 1000, 1),
            "naive_agrees": naive_value == value_similar,
            "ratio": round(naive_similar / fast_similar, 1),
        },
        "dissimilar_pair": {
            "similarity": round(value_dissimilar, 4),
            "fast_ms": round(fast_dissimilar * 1000, 2),
            "naive_ms_extrapolated": round(naive_dissimilar * 1000, 1),
            "naive_measured_delimiters": done,
            "delimiters_visited": visited,
            "ratio": round(naive_dissimilar / fast_dissimilar, 1),
        },
    }


# ---------------------------------------------------------------- similar-page search


WORDS = [
    "der",
    "die",
    "das",
    "und",
    "ist",
    "nicht",
    "ein",
    "eine",
    "zu",
    "mit",
    "auf",
    "für",
    "von",
    "den",
    "im",
    "sich",
    "des",
]
TARGETS = (42, 1234, 5000, 7777, 9999)


def site_versions(count: int, seed: int = 7) -> tuple[list[VersionFeatures], dict, list]:
    """``count`` versions of one site: a real page's template around bodies from other real pages.

    Returns the candidates (sketch and links only, like rows read from the store), a
    store-like dict id -> (fingerprint, text), and new pages to search for: each an
    edited copy of one stored version (which the search must rank first).
    """
    rng = random.Random(seed)
    names = sorted(p.name[: -len(".html.gz")] for p in PAGES.glob("*.html.gz"))[:120]
    bodies = [fingerprint(load_page(name)) for name in names]
    template = bodies[0]
    head, tail = template[: len(template) // 3], template[-len(template) // 3 :]
    nav = [f"https://site.example/section/{i}" for i in range(60)]
    store: dict[str, tuple[str, str]] = {}
    candidates, links_of = [], {}
    for i in range(count):
        body = bodies[1 + i % (len(bodies) - 1)]
        cut = rng.randrange(0, max(1, len(body) // 2))
        fp = head + edit_fingerprint(body[cut : cut + 3000], rng, 3) + tail
        links = nav[: rng.randint(40, 60)] + [f"https://site.example/a/{i}/{k}" for k in range(20)]
        text = " ".join(rng.choice(WORDS) for _ in range(300)) + f" artikel {i % 97}"
        vid = f"v{i:05d}"
        store[vid], links_of[vid] = (fp, text), links
        candidates.append(VersionFeatures(vid, frozenset(sketch(fp)), frozenset(links)))
    targets = []
    for n in TARGETS:
        vid = f"v{n % count:05d}"
        fp, text = store[vid]
        new = version_features(vid + "-new", edit_fingerprint(fp, rng, 4), links_of[vid], text)
        targets.append((vid, new))
    return candidates, store, targets


def bench_similar_search(count: int = 10_000, repeat: int = 5) -> dict:
    """Search new pages among ``count`` same-site versions; goal <= 100 ms per search."""
    build_start = time.perf_counter()
    candidates, store, targets = site_versions(count)
    setup = time.perf_counter() - build_start
    index_start = time.perf_counter()
    index = SimilarIndex(candidates)
    index_ms = (time.perf_counter() - index_start) * 1000
    options, load = SimilarOptions(), store.__getitem__
    searches, stage12, found, exact_stage = [], [], 0, []
    for expected, target in targets:
        spent, matches = timed(lambda t=target: index.search(t, options, load), repeat=repeat)
        ranked_time, ranked = timed(lambda t=target: index.ranked_candidates(t, options), repeat)
        searches.append(spent)
        stage12.append(ranked_time)
        exact_stage.append(len(ranked))
        found += bool(matches) and matches[0].id == expected
    exhaustive = _exhaustive_per_candidate(targets[0][1], candidates, store)
    median = statistics.median(searches)
    return {
        "versions": count,
        "setup_s": round(setup, 1),
        "index_build_ms": round(index_ms, 1),
        "searches": len(targets),
        "search_ms_median": round(median * 1000, 1),
        "search_ms_max": round(max(searches) * 1000, 1),
        "stage_1_2_ms_median": round(statistics.median(stage12) * 1000, 1),
        "candidates_reaching_exact_stage": exact_stage,
        "edited_version_ranked_first": f"{found}/{len(targets)}",
        "goal_ms": 100,
        "baseline_exact_all_ms_extrapolated": round(exhaustive * 1000, 1),
        "ratio": round(exhaustive / median, 1),
    }


def _exhaustive_per_candidate(target, candidates, store, sample: int = 40) -> float:
    """Seconds the seed's way would take: exact similarity with every candidate (sampled)."""
    index = FingerprintIndex(target.fingerprint)
    chosen = candidates[:: max(1, len(candidates) // sample)][:sample]
    start = time.perf_counter()
    for version in chosen:
        index.similarity(store[version.id][0])
    return (time.perf_counter() - start) / len(chosen) * len(candidates)


def main() -> None:
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    for label, pair in bench_pair().items():
        print(f"== fingerprint similarity, two ~200 KB pages ({label})")
        for key, value in pair.items():
            print(f"  {key}: {value}")
    search = bench_similar_search()
    print("== similar-page search against 10,000 same-site versions")
    for key, value in search.items():
        print(f"  {key}: {value}")


if __name__ == "__main__":
    main()
