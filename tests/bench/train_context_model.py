"""Build and choose the context model of the body's blocks (engine/html/context.py) from the
TUNING split of the wide set only (``bench_extract_wide.select(..., "tune")``).

Labels: a body block is main text when at least half of its 4-token shingles are in the
page's ground truth (1-3 tokens: found there as a run); each block weighs its share of the
body's tokens, so each page weighs one (the scorer's P and R are per page).

``--cv``: 5 folds BY SITE (the registered host of the page's URL; a page without one is a site
of its own): each fold's model is fitted on the other folds' pages, with the class/id words
seen on ``--min-sites`` sites there, and scored on the fold's pages by the set's own scorer;
the grid is the L2 strength, the gate (the body's story share), the margin and the floor of
``ContextModel.decide``. Prints the F1 gain per source and page type of every setting.
``--write L2 GATE MARGIN FLOOR`` fits on every tuning page and writes
``engine/data/context_model.json`` (the same file from the same data: the fit's order is
seeded).

Run: ``.venv/bin/python tests/bench/train_context_model.py --cv`` (about 2 minutes).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import pickle
import random
import re
import sys
import tempfile
from collections import defaultdict
from dataclasses import replace
from itertools import product
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from bench_extract_wide import load_page, scorer, select, truth  # noqa: E402

from engine.html.context import ContextModel, block_features, story_share  # noqa: E402
from engine.html.extract import ExtractOptions, find_body, nfc  # noqa: E402

OUT = ROOT / "engine" / "data" / "context_model.json"
_TOKEN = re.compile(r"\w+")
FOLDS = 5
MAX_DROP = 0.5


class Recorder(ContextModel):
    """Keeps every block; notes the body's blocks, features and story share of each page."""

    def __init__(self) -> None:
        super().__init__(bias=0.0)
        object.__setattr__(self, "seen", None)

    def keep(self, body, regions):
        object.__setattr__(self, "seen", (body, block_features(body, regions)))
        return body


def site_of(row: dict) -> str:
    host = urlsplit(row.get("url") or "").hostname or ""
    if not host:
        return row["id"]
    parts = host.removeprefix("www.").split(".")
    return ".".join(parts[-3:] if len(parts[-1]) == 2 and len(parts) > 2 else parts[-2:])


def shingle_set(tokens: list[str]) -> set[tuple]:
    return {tuple(tokens[i : i + 4]) for i in range(max(1, len(tokens) - 3))}


def label(text: str, truth_shingles: set, truth_joined: str) -> int:
    tokens = _TOKEN.findall(text)
    if not tokens:
        return 0
    if len(tokens) < 4:
        return int(f" {' '.join(tokens)} " in truth_joined)
    grams = [tuple(tokens[i : i + 4]) for i in range(len(tokens) - 3)]
    return int(sum(g in truth_shingles for g in grams) >= 0.5 * len(grams))


def collect(rows: list[dict]) -> list[dict]:
    """Per page: the body's texts, features, labels, weights and story share."""
    recorder = Recorder()
    options = replace(ExtractOptions(), context_model=recorder)
    pages = []
    for row in rows:
        object.__setattr__(recorder, "seen", None)
        try:
            find_body(load_page(row["id"]), row.get("url"), options)
        except Exception:
            continue
        if recorder.seen is None:
            continue
        body, feats = recorder.seen
        true_tokens = _TOKEN.findall(row["body"])
        shingles, joined = shingle_set(true_tokens), f" {' '.join(true_tokens)} "
        ntok = [max(1, len(_TOKEN.findall(b.text))) for b in body]
        total = sum(ntok) or 1
        pages.append(
            {
                "row": row,
                "site": site_of(row),
                "texts": [nfc(b.text) for b in body],
                "chars": [b.chars for b in body],
                "feats": feats,
                "labels": [label(b.text, shingles, joined) for b in body],
                "weights": [n / total for n in ntok],
                "story": story_share(body),
            }
        )
    return pages


def cached_pages() -> list[dict]:
    """:func:`collect` on the tuning split, kept in a scratch file until the features change."""
    sources = [ROOT / "engine" / "html" / n for n in ("context.py", "extract.py", "blocks.py")]
    stamp = hashlib.sha1(b"".join(p.read_bytes() for p in sources)).hexdigest()[:12]
    cache = Path(tempfile.gettempdir()) / f"context_model_pages_{stamp}.pickle"
    if cache.exists():
        return pickle.loads(cache.read_bytes())
    pages = collect(select(truth(), "tune", None))
    cache.write_bytes(pickle.dumps(pages))
    return pages


def fold_of(site: str) -> int:
    return int(hashlib.sha1(site.encode()).hexdigest()[:6], 16) % FOLDS


def vocabulary(pages: list[dict], min_sites: int) -> set[str]:
    """Features seen on ``min_sites`` sites or more (shape features are always kept)."""
    sites: dict[str, set] = defaultdict(set)
    for page in pages:
        for feats in page["feats"]:
            for f in feats:
                sites[f].add(page["site"])
    return {f for f, s in sites.items() if len(s) >= min_sites}


def fit(
    pages: list[dict], vocab: set[str], l2: float, gate: float, epochs: int = 8
) -> ContextModel:
    """Logistic regression by AdaGrad on the blocks of bodies whose story share is >= gate."""
    data = [
        ([f for f in feats if f in vocab], y, w)
        for page in pages
        if page["story"] >= gate and len(page["texts"]) >= 2
        for feats, y, w in zip(page["feats"], page["labels"], page["weights"], strict=True)
    ]
    weights: dict[str, float] = defaultdict(float)
    grad2: dict[str, float] = defaultdict(lambda: 1e-8)
    bias, bias_g2, rate = 0.0, 1e-8, 0.5
    total_w = sum(w for _, _, w in data) or 1.0
    rng = random.Random(7)
    for _ in range(epochs):
        rng.shuffle(data)
        for feats, y, w in data:
            z = bias + sum(weights[f] for f in feats)
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            g = (p - y) * w * len(data) / total_w
            bias_g2 += g * g
            bias -= rate * g / math.sqrt(bias_g2)
            for f in feats:
                gf = g + l2 * 1e-3 * weights[f]
                grad2[f] += gf * gf
                weights[f] -= rate * gf / math.sqrt(grad2[f])
    kept = {f: round(v, 4) for f, v in weights.items() if abs(v) >= 1e-3}
    return ContextModel(bias=round(bias, 4), weights=kept, gate=gate, max_drop=MAX_DROP)


def page_logits(model: ContextModel, page: dict) -> list[float]:
    ws, bias = model.weights, model.bias
    return [bias + sum(ws.get(f, 0.0) for f in feats) for feats in page["feats"]]


def kept_text(page: dict, model: ContextModel | None, logits: list[float] | None) -> str:
    """The page's output with the model's decision (ContextModel.keep on recorded blocks)."""
    texts = page["texts"]
    if model is None or logits is None or len(texts) < 2:
        return "\n".join(texts)
    if model.gate > 0 and page["story"] < model.gate:
        return "\n".join(texts)
    keep = model.decide(logits, page["chars"])
    return "\n".join(t for t, k in zip(texts, keep, strict=True) if k)


def groups_of(row: dict) -> list[str]:
    names = ["ALL", row["source"]]
    if row.get("page_type"):
        names.append("type:" + row["page_type"])
    return names


def table(score, pages: list[dict], outputs: list[str]) -> dict[str, float]:
    counts: dict[str, list] = defaultdict(list)
    for page, text in zip(pages, outputs, strict=True):
        c = score.tp_fp_fn(page["row"]["body"], text)
        for g in groups_of(page["row"]):
            counts[g].append(c)
    return {g: score.aggregate(c)[2] for g, c in counts.items()}


def cross_validate(score, pages: list[dict], args) -> None:
    base = table(score, pages, [kept_text(p, None, None) for p in pages])
    names = sorted(base, key=lambda k: (k == "ALL", k.startswith("type:"), k))
    print("setting".ljust(24) + "".join(f"{n.removeprefix('type:')[:9]:>10}" for n in names))
    print("base".ljust(24) + "".join(f"{base[n]:>10.4f}" for n in names))
    for l2, gate in product(args.l2, args.gates):
        models: list[ContextModel | None] = [None] * FOLDS
        for fold in range(FOLDS):
            train = [p for p in pages if fold_of(p["site"]) != fold]
            models[fold] = fit(train, vocabulary(train, args.min_sites), l2, gate)
        for margin, floor in product(args.margins, args.floors):
            outs = []
            for page in pages:
                model = replace(models[fold_of(page["site"])], margin=margin, floor=floor)
                outs.append(kept_text(page, model, page_logits(model, page)))
            now = table(score, pages, outs)
            cells = "".join(f"{now[n] - base[n]:>+10.4f}" for n in names)
            print(f"l2 {l2:g} g {gate:g} m {margin:g} f {floor:g}".ljust(24) + cells, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cv", action="store_true")
    parser.add_argument("--write", nargs=4, type=float, metavar=("L2", "GATE", "MARGIN", "FLOOR"))
    parser.add_argument("--min-sites", type=int, default=5)
    parser.add_argument("--l2", type=float, nargs="+", default=[1.0])
    parser.add_argument("--gates", type=float, nargs="+", default=[0.0, 0.5])
    parser.add_argument("--margins", type=float, nargs="+", default=[5.0, 6.0, 7.0])
    parser.add_argument("--floors", type=float, nargs="+", default=[0.3])
    args = parser.parse_args()
    pages = cached_pages()
    print(f"{len(pages)} tuning pages, {sum(len(p['texts']) for p in pages)} body blocks")
    if args.cv:
        cross_validate(scorer(), pages, args)
    if args.write:
        l2, gate, margin, floor = args.write
        model = fit(pages, vocabulary(pages, args.min_sites), l2, gate)
        data = {
            "bias": model.bias,
            "margin": margin,
            "floor": floor,
            "gate": gate,
            "max_drop": MAX_DROP,
            "weights": dict(sorted(model.weights.items())),
        }
        OUT.write_text(json.dumps(data, indent=0, ensure_ascii=False) + "\n", "utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}: {len(model.weights)} weights")


if __name__ == "__main__":
    main()
