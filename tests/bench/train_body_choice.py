"""Measure a learned choice of WHERE the body is (which sample of the page) on the TUNING split
of the wide set only (``bench_extract_wide.select(..., "tune")``), cross-validated by site.

Candidates of a page: the body the rules give (the current one) and the page-wide samples
grown from each of the ``CANDIDATES`` largest free blocks (``choose_body``'s bases, in its
order, with no article container and no title check), each passed through the rest of
:func:`find_body` (fallbacks, context model). Each candidate is described by its size, link
density, story share, block count, the char-weighted mean logit of the bundled context
model over its blocks (``engine/html/context.py``: class/id words, element names, repeats)
and its overlap with the current body. A logistic regression over the candidate's features
minus the current body's (weighted by the F1 at stake) scores "this candidate beats the
current body"; the body switches only when the best candidate's probability is over a
threshold (the margin).

``--headroom`` prints the oracle (the best candidate per page); ``--cv`` the F1 gain per source
and page type for each threshold, 5 folds by site (``train_context_model.site_of``).

Run: ``.venv/bin/python tests/bench/train_body_choice.py --headroom --cv`` (about 3 minutes).
"""

from __future__ import annotations

import argparse
import hashlib
import math
import pickle
import random
import sys
import tempfile
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from bench_extract_wide import load_page, scorer, select, truth  # noqa: E402
from train_context_model import FOLDS, fold_of, groups_of, site_of  # noqa: E402

import engine.html.extract as extract_module  # noqa: E402
from engine.html.context import ContextModel, bundled_model, story_share  # noqa: E402
from engine.html.extract import ExtractOptions, find_body  # noqa: E402

CANDIDATES = 4  # page-wide samples of the 4 largest free blocks
FEATURES = (
    "log_chars",
    "link",
    "story",
    "log_blocks",
    "logit",
    "p_share",
    "page_share",
    "start",
    "degree",
    "overlap",
    "rank",
)
DIFFS = 9  # the first 9 features enter as the candidate's minus the current body's


class Scoring(ContextModel):
    """The bundled model, noting the char-weighted mean logit of the body it was given."""

    def __init__(self, model: ContextModel) -> None:
        super().__init__(
            bias=model.bias,
            weights=model.weights,
            margin=model.margin,
            floor=model.floor,
            gate=model.gate,
            max_drop=model.max_drop,
        )
        object.__setattr__(self, "mean", 0.0)

    def keep(self, body, regions):
        chars = [b.chars for b in body]
        logits = self.logits(body, regions) if body else []
        mean = sum(z * c for z, c in zip(logits, chars, strict=True)) / (sum(chars) or 1)
        object.__setattr__(self, "mean", mean)
        return super().keep(body, regions)


def base_samples(blocks, options, title=""):
    """The page-wide samples of choose_body's bases, each grown and widened, in its order."""
    free = [True] * len(blocks)
    order = sorted(range(len(blocks)), key=[-b.chars for b in blocks].__getitem__)
    out = []
    for base in order[: options.max_bases]:
        if not free[base] or blocks[base].chars < options.min_block_chars:
            continue
        lo, hi = extract_module.grow_sample(blocks, base, free, options)
        lo, hi = extract_module.widen_to_container(blocks, lo, hi, free)
        out.append(extract_module._span_blocks(blocks, lo, hi, free, options, title))
        for k in range(lo, hi + 1):
            free[k] = False
    return out


def describe(page, chosen, mean: float, current_ids: set[int] | None, rank: int) -> dict:
    chars = sum(b.chars for b in chosen)
    index = {id(b): k for k, b in enumerate(page.blocks)}
    first = min((index.get(id(b), len(page.blocks)) for b in chosen), default=0)
    page_chars = sum(b.chars for b in page.blocks) or 1
    links = sum(b.link_chars for b in chosen)
    ids = {hash(b.text) for b in chosen}
    overlap = len(ids & current_ids) / (len(ids) or 1) if current_ids is not None else 1.0
    return {
        "log_chars": math.log1p(chars),
        "link": links / (chars or 1),
        "story": story_share(chosen),
        "log_blocks": math.log1p(len(chosen)),
        "logit": mean,
        "p_share": sum(b.chars for b in chosen if b.tag == "p") / (chars or 1),
        "page_share": chars / page_chars,
        "start": first / (len(page.blocks) or 1),
        "degree": extract_module.sample_degree(chosen, page.weights),
        "overlap": overlap,
        "rank": float(rank),
    }


def candidates_of(row: dict, score) -> list[tuple[dict, tuple]]:
    """[(features, tp/fp/fn)] of the current body first, then of each base's sample."""
    html, url = load_page(row["id"]), row.get("url")
    scoring = Scoring(bundled_model())
    options = replace(ExtractOptions(), context_model=scoring)
    page = find_body(html, url, options)
    current = {hash(b.text) for b in page.chosen}
    out = [(describe(page, page.chosen, scoring.mean, None, -1), page_counts(row, page, score))]
    original = extract_module.choose_body
    for k in range(CANDIDATES):

        def kth(blocks, weights, opts, title="", k=k):
            samples = base_samples(blocks, opts, title)
            return samples[k] if k < len(samples) else []

        extract_module.choose_body = kth
        try:
            alt = find_body(html, url, replace(options, article_box_tiers=0))
        finally:
            extract_module.choose_body = original
        if alt.chosen:
            out.append(
                (describe(alt, alt.chosen, scoring.mean, current, k), page_counts(row, alt, score))
            )
    return out


def page_counts(row: dict, page, score) -> tuple:
    return score.tp_fp_fn(row["body"], "\n".join(page.paragraphs))


def cached_pages(score) -> list[dict]:
    sources = [ROOT / "engine" / "html" / n for n in ("context.py", "extract.py", "blocks.py")]
    stamp = hashlib.sha1(b"".join(p.read_bytes() for p in sources)).hexdigest()[:12]
    cache = Path(tempfile.gettempdir()) / f"body_choice_pages_{stamp}.pickle"
    if cache.exists():
        return pickle.loads(cache.read_bytes())
    pages = []
    for row in select(truth(), "tune", None):
        try:
            cands = candidates_of(row, score)
        except Exception:
            continue
        pages.append({"row": row, "site": site_of(row), "cands": cands})
    cache.write_bytes(pickle.dumps(pages))
    return pages


def f1_of(score, counts) -> float:
    return score.aggregate([counts])[2]


def pair_vector(cand: dict, cur: dict) -> list[float]:
    diffs = [cand[f] - cur[f] for f in FEATURES[:DIFFS]]
    return diffs + [cand[f] for f in FEATURES[DIFFS:]]


def fit(pages: list[dict], score, epochs: int = 30, l2: float = 0.01) -> list[float]:
    """Logistic regression (plain SGD, seeded): candidate beats current, weighted by |dF1|."""
    data = []
    for page in pages:
        (cur, cur_counts), *rest = page["cands"]
        base = f1_of(score, cur_counts)
        for cand, counts in rest:
            delta = f1_of(score, counts) - base
            if abs(delta) < 1e-9:
                continue
            data.append((pair_vector(cand, cur), int(delta > 0), abs(delta)))
    w = [0.0] * (len(FEATURES) + 1)
    rng = random.Random(7)
    total = sum(d[2] for d in data) or 1.0
    for epoch in range(epochs):
        rng.shuffle(data)
        rate = 0.5 / (1 + epoch)
        for x, y, weight in data:
            z = w[0] + sum(a * b for a, b in zip(w[1:], x, strict=True))
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            g = (p - y) * weight * len(data) / total
            w[0] -= rate * g
            for i, xi in enumerate(x):
                w[i + 1] -= rate * (g * xi + l2 * w[i + 1])
    return w


def choose(page: dict, w: list[float], threshold: float):
    (cur, cur_counts), *rest = page["cands"]
    best, best_p = cur_counts, threshold
    for cand, counts in rest:
        z = w[0] + sum(a * b for a, b in zip(w[1:], pair_vector(cand, cur), strict=True))
        p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
        if p > best_p:
            best, best_p = counts, p
    return best


def table(score, pages, counts) -> dict[str, float]:
    groups: dict[str, list] = defaultdict(list)
    for page, c in zip(pages, counts, strict=True):
        for g in groups_of(page["row"]):
            groups[g].append(c)
    return {g: score.aggregate(c)[2] for g, c in groups.items()}


def show(label: str, names, now, base) -> None:
    print(label.ljust(16) + "".join(f"{now[n] - base[n]:>+10.4f}" for n in names), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--headroom", action="store_true")
    parser.add_argument("--cv", action="store_true")
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.5, 0.7, 0.8, 0.9, 0.95])
    args = parser.parse_args()
    score = scorer()
    pages = cached_pages(score)
    print(f"{len(pages)} tuning pages")
    base = table(score, pages, [p["cands"][0][1] for p in pages])
    names = sorted(base, key=lambda k: (k == "ALL", k.startswith("type:"), k))
    print("setting".ljust(16) + "".join(f"{n.removeprefix('type:')[:9]:>10}" for n in names))
    print("base".ljust(16) + "".join(f"{base[n]:>10.4f}" for n in names))
    if args.headroom:
        best = [max((c for _, c in p["cands"]), key=lambda c: f1_of(score, c)) for p in pages]
        show("oracle", names, table(score, pages, best), base)
    if args.cv:
        weights = {}
        for fold in range(FOLDS):
            weights[fold] = fit([p for p in pages if fold_of(p["site"]) != fold], score)
        for t in args.thresholds:
            out = [choose(p, weights[fold_of(p["site"])], t) for p in pages]
            show(f"cv t {t:g}", names, table(score, pages, out), base)
        print("weights (all folds):", [round(v, 3) for v in fit(pages, score)])


if __name__ == "__main__":
    main()
