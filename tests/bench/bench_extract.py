"""Main-text extraction on the development corpus: F1 and ms/page, ours vs trafilatura and readability.

Scoring follows the corpus authors' convention (trafilatura's tests/comparison.py): whitespace of
the output is collapsed; each ``with`` snippet found is a true positive, each missing one a false
negative; each ``without`` snippet found is a false positive, each absent one a true negative;
precision/recall/F1 over all snippets of all pages.

The pages are split by a hash of their id into a tuning part (70 %) and a held-out part (30 %);
only the tuning part was looked at while choosing thresholds and signals, so the held-out F1 is
the honest figure. Run: ``.venv/bin/python tests/bench/bench_extract.py [--engines ours,...]
[--limit N] [--ablate]``.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import json
import os
import re
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# after what is there: a caller that chose the compiled copy (host/compiled.py) keeps it first
sys.path.append(str(ROOT))

from engine.html.blocks import BlockOptions  # noqa: E402
from engine.html.extract import ExtractOptions, extract, main_text  # noqa: E402

# The baselines (the bench extras: `make bench` installs them); bench_liveness uses this
# module's helpers (load, split_of) without them.
try:
    import lxml.html
    import trafilatura
    from readability import Document
except ImportError:
    lxml = trafilatura = Document = None

DATA = Path(os.environ.get("PAGEKEEPER_SHARED", ROOT.parent / "shared")) / "data" / "extraction-dev"


def split_of(case_id: str) -> str:
    """'heldout' for ~30 % of ids (stable hash), 'tune' for the rest."""
    return "heldout" if int(hashlib.sha1(case_id.encode()).hexdigest()[:4], 16) % 10 < 3 else "tune"


def load(limit: int | None) -> list[tuple[str, dict, bytes]]:
    cases = json.loads((DATA / "cases.json").read_text("utf-8"))
    items = sorted(cases.items())[:limit]
    return [(cid, case, gzip.decompress((DATA / case["page"]).read_bytes())) for cid, case in items]


def score(text: str | None, case: dict) -> tuple[int, int, int, int]:
    """(tp, fn, fp, tn) of one page's output."""
    text = re.sub(r"\s+", " ", text or "")
    keep = [s for s in case["with"] if s]
    drop = [s for s in case["without"] if s]
    tp = sum(1 for s in keep if s in text)
    fp = sum(1 for s in drop if s in text)
    return tp, len(keep) - tp, fp, len(drop) - fp


def prf(counts: tuple[int, int, int, int]) -> tuple[float, float, float]:
    tp, fn, fp, _ = counts
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def run_ours(options: ExtractOptions | None = None):
    """Our main text alone (the work trafilatura.extract does)."""

    def run(raw: bytes, url: str | None = None) -> str:
        return main_text(raw, url, options)

    run.takes_url = True  # type: ignore[attr-defined]
    return run


def run_ours_keywords(raw: bytes, url: str | None = None) -> str:
    """The whole extraction (main text, summary, keywords), for its time per page."""
    return extract(raw, url).body


run_ours_keywords.takes_url = True  # type: ignore[attr-defined]


def run_trafilatura(raw: bytes) -> str | None:
    return trafilatura.extract(raw, include_comments=False)


def run_readability(raw: bytes) -> str | None:
    summary = Document(raw).summary()
    return lxml.html.fromstring(summary).text_content() if summary else ""


def evaluate(name, fn, pages) -> dict:
    totals = {"all": [0, 0, 0, 0], "tune": [0, 0, 0, 0], "heldout": [0, 0, 0, 0]}
    elapsed, cpu, errors = 0.0, 0.0, 0
    for cid, case, raw in pages:
        start, start_cpu = time.perf_counter(), time.process_time()
        try:
            out = fn(raw, case["url"]) if getattr(fn, "takes_url", False) else fn(raw)
        except Exception:  # a baseline crashing on a page scores as empty output
            out, errors = None, errors + 1
        elapsed += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
        for key in ("all", split_of(cid)):
            totals[key] = [a + b for a, b in zip(totals[key], score(out, case), strict=True)]
    n = max(1, len(pages))
    row = {"engine": name, "ms_per_page": 1000 * elapsed / n, "cpu_ms": 1000 * cpu / n}
    row["errors"] = errors
    for key, counts in totals.items():
        row[key] = prf(tuple(counts))
    return row


def show(row: dict) -> None:
    p, r, f = row["all"]
    print(
        f"{row['engine']:<28} F1 {f:.3f} (P {p:.3f} R {r:.3f})  tune F1 {row['tune'][2]:.3f}  "
        f"held-out F1 {row['heldout'][2]:.3f}  {row['ms_per_page']:6.2f} ms/page "
        f"(CPU {row['cpu_ms']:.2f})" + (f"  errors {row['errors']}" if row["errors"] else "")
    )


def options_of(name: str) -> ExtractOptions:
    """The options an engine named ``ours@key=value;key=value`` sets (Python literals)."""
    changes = {}
    for pair in filter(None, name.removeprefix("ours@").split(";")):
        key, _, value = pair.partition("=")
        changes[key] = ast.literal_eval(value)
    return replace(ExtractOptions(), **changes)


def ablations() -> dict[str, ExtractOptions]:
    base = ExtractOptions()
    return {
        "ours: no class/id hints": replace(base, blocks=BlockOptions(class_hints=False)),
        "ours: no link density": replace(base, max_link_density=1.01),
        "ours: seed growth (Mavg)": replace(base, growth="seed"),
        "ours: no title check": replace(base, title_threshold=0.0),
        "ours: no article container": replace(base, article_box_tiers=0),
        "ours: no notice filter": replace(base, notice_max_chars=0),
        "ours: no rival sample": replace(base, rival_factor=0.0),
        "ours: no hint-free fallback": replace(base, fallback_min_chars=0),
        "ours: no heading standfirst": replace(base, standfirst_min_chars=0),
        "ours: no paragraph fallback": replace(base, paragraph_fallback=False),
        "ours: no comment-section cut": replace(base, comments_after_share=0.0),
        "ours: lead before the headline": replace(base, lead_after_headline=False),
        "ours: no linked paragraphs": replace(base, linked_paragraph_min_chars=0),
        "ours: no context model": replace(base, context_model=None),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="ours,ours+keywords,trafilatura,readability")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--ablate", action="store_true", help="also score ours without each signal")
    args = parser.parse_args()
    pages = load(args.limit)
    print(f"{len(pages)} pages, load average {os.getloadavg()[0]:.2f} (2 shared cores)")
    engines = {
        "ours": run_ours(),
        "ours-context": run_ours(replace(ExtractOptions(), context_model=None)),
        "ours+keywords": run_ours_keywords,
        "trafilatura": run_trafilatura,
        "readability": run_readability,
    }
    rows = [
        evaluate(n, engines[n] if n in engines else run_ours(options_of(n)), pages)
        for n in args.engines.split(",")
    ]
    if args.ablate:
        rows += [evaluate(n, run_ours(o), pages) for n, o in ablations().items()]
    for row in rows:
        show(row)
    by = {r["engine"]: r for r in rows}
    if "ours" in by and "trafilatura" in by:
        ours, traf = by["ours"], by["trafilatura"]
        print(
            f"ratio ours/trafilatura: F1 {ours['all'][2] / max(traf['all'][2], 1e-9):.3f}, "
            f"speed x{traf['ms_per_page'] / max(ours['ms_per_page'], 1e-9):.1f} "
            f"(CPU x{traf['cpu_ms'] / max(ours['cpu_ms'], 1e-9):.1f})"
        )


if __name__ == "__main__":
    main()
