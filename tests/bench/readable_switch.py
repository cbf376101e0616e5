"""Readability's article (engine/html/readable.py) as a second candidate body, on the wide set's
TUNING split only: the F1 gain per group of switching to it when our body is much shorter and
lies inside it (rule A), or when it is much shorter and lies inside ours (rule B).

Run: ``.venv/bin/python tests/bench/readable_switch.py [--list SHARE INSIDE]``.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from bench_extract_wide import load_page, scorer, select, truth  # noqa: E402
from train_context_model import groups_of, site_of  # noqa: E402

from engine.html.extract import (  # noqa: E402
    ExtractOptions,
    article_title,
    decode,
    find_body,
    nfc,
    page_body,
    page_title,
    site_names,
    title_weights,
)
from engine.html.readable import readable_body  # noqa: E402


def measure(row: dict, options: ExtractOptions) -> dict:
    """Our output, readability's blocks, and how much of our first body lies inside them."""
    html = load_page(row["id"])
    ours = "\n".join(find_body(html, row.get("url"), options).paragraphs)
    tree = LexborHTMLParser(decode(html))
    title = page_title(tree)
    weights = title_weights(article_title(title, site_names(tree, row.get("url"))))
    blocks, chosen, regions = page_body(tree, weights, title, options)
    theirs = readable_body(blocks, regions)
    mine = {id(b) for b in theirs}
    return {
        "ours": ours,
        "theirs": "\n".join(nfc(b.text) for b in theirs),
        "theirs_chars": sum(b.chars for b in theirs),
        "ours_chars": sum(b.chars for b in chosen),
        "shared": sum(b.chars for b in chosen if id(b) in mine),
    }


def switch_a(m: dict, share: float, inside: float) -> bool:
    small = 0 < m["ours_chars"] < share * m["theirs_chars"]
    return small and m["shared"] >= inside * m["ours_chars"]


def switch_b(m: dict, share: float, inside: float) -> bool:
    small = 0 < m["theirs_chars"] < share * m["ours_chars"]
    return small and m["shared"] >= inside * m["theirs_chars"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", nargs=2, type=float, help="list rule A's pages at SHARE INSIDE")
    args = parser.parse_args()
    score, rows, options = scorer(), select(truth(), "tune", None), ExtractOptions()
    found = {row["id"]: measure(row, options) for row in rows}

    def f1(row, text):
        return score.aggregate([score.tp_fp_fn(row["body"], text)])[2]

    def table(rule, share, inside):
        groups, moved = defaultdict(list), []
        for row in rows:
            m = found[row["id"]]
            switched = rule is not None and rule(m, share, inside)
            text = m["theirs"] if switched else m["ours"]
            if switched:
                moved.append((f1(row, text) - f1(row, m["ours"]), row["id"], site_of(row)))
            for g in groups_of(row):
                groups[g].append(score.tp_fp_fn(row["body"], text))
        return {g: score.aggregate(c)[2] for g, c in groups.items()}, moved

    base, _ = table(None, 0, 0)
    names = sorted(base, key=lambda k: (k == "ALL", k.startswith("type:"), k))
    print("rule".ljust(16) + "".join(f"{n.removeprefix('type:')[:8]:>9}" for n in names))
    for label, rule in (("A", switch_a), ("B", switch_b)):
        for share in (0.2, 0.33, 0.5, 0.7):
            for inside in (0.8, 0.95):
                now, moved = table(rule, share, inside)
                up = sum(d > 0.001 for d, *_ in moved)
                down = sum(d < -0.001 for d, *_ in moved)
                cells = "".join(f"{now[n] - base[n]:>+9.4f}" for n in names)
                print(f"{label} {share} {inside}".ljust(16) + cells + f"  +{up} -{down}")
                if label == "A" and args.list and [share, inside] == args.list:
                    for d, pid, site in sorted(moved):
                        print(f"    {d:+.3f} {pid} {site}")


if __name__ == "__main__":
    main()
