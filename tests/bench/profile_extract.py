"""Per-step CPU time of ``main_text`` and ``visible_text`` on the wide set's pages, warm, in one
process (the profile a speed round starts from).

Run: ``.venv/bin/python tests/bench/profile_extract.py [--split tune] [--every 1] [--passes 3]
[--cprofile 25]``.

Each step is a module-level function of the extractor, wrapped in a timer for the run (a step's
time includes the steps it calls: ``page_body`` holds ``split_regions``). The figures are the
best pass's CPU ms a page (``process_time``), after one warm-up pass; the load is printed beside
them. ``--cprofile N`` also prints cProfile's top N functions by own time over one pass.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

import bench_extract_wide as wide  # noqa: E402

from engine.html import blocks, context, extract, visible  # noqa: E402

# (module, function name, label): each is timed where its callers look it up.
STEPS = (
    # visible_text parses with extract's parse_page: these three count both parses
    (extract, "decode", "decode (both)"),
    (extract, "closed_title", "closed_title (both)"),
    (extract, "LexborHTMLParser", "parse (both)"),  # extract never tests isinstance with it
    (extract, "page_title", "page_title"),
    (extract, "may_declare_product", "may_declare_product"),
    (extract, "declared_descriptions", "declared_descriptions"),
    (extract, "site_words", "site_words"),
    (extract, "title_weights", "title_weights"),
    (extract, "page_body", "page_body (all below)"),
    (extract, "is_product_page", "  is_product_page"),
    (extract, "drop_useless", "  drop_useless"),
    (extract, "drop_reviews", "  drop_reviews"),
    (extract, "drop_policies", "  drop_policies"),
    (extract, "best_box", "  best_box"),
    (extract, "drop_labelled", "  drop_labelled"),
    (extract, "split_regions", "  split_regions"),
    (extract, "body_blocks", "  body_blocks"),
    (extract, "cut_comments", "  cut_comments"),
    (extract, "drop_repeats", "  drop_repeats"),
    (extract, "paragraph_baseline", "paragraph_baseline"),
    (extract, "page_text_blocks", "page_text_blocks"),
    (extract, "whole_tables", "whole_tables"),
    (extract, "with_card_titles", "with_card_titles"),
    (extract, "anchor_description", "anchor_description"),
    (extract, "nfc", "nfc"),
    (visible, "parse_page", "visible: parse_page"),
    (visible, "hidden_nodes", "visible: hidden_nodes"),
    (visible, "split_shown", "visible: split_shown"),
)


class Timers:
    """CPU seconds and calls per label, of the functions :data:`STEPS` names."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def wrap(self, label: str, fn):
        seconds = self.seconds
        seconds.setdefault(label, 0.0)
        clock = time.process_time

        def timed(*args, **kwargs):
            start = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                seconds[label] += clock() - start

        return timed

    def install(self) -> None:
        for module, name, label in STEPS:
            setattr(module, name, self.wrap(label, getattr(module, name)))
        keep = context.ContextModel.keep
        context.ContextModel.keep = self.wrap("context model", keep)


def run_pass(pages: list[tuple[str, str | None]]) -> tuple[float, float]:
    """CPU seconds of ``main_text`` and of ``visible_text`` over every page."""
    main = vis = 0.0
    for html, url in pages:
        start = time.process_time()
        extract.main_text(html, url)
        middle = time.process_time()
        visible.visible_text(html)
        vis += time.process_time() - middle
        main += middle - start
    return main, vis


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="tune", choices=("heldout", "tune", "all"))
    parser.add_argument("--every", type=int, default=1, help="every Nth page of the split")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--cprofile", type=int, default=0, help="top N functions by own time")
    args = parser.parse_args()
    rows = wide.select(wide.truth(), args.split, None)[:: args.every]
    pages = [(wide.load_page(r["id"]), r.get("url")) for r in rows]
    n = len(pages)
    run_pass(pages)  # warm: caches, the bundled model, lexbor's allocator
    plain = min((run_pass(pages) for _ in range(args.passes)), key=sum)
    print(f"{n} pages ({args.split} split, every {args.every}), load {os.getloadavg()[0]:.2f}")
    print(f"untimed: main_text {plain[0] / n * 1000:.3f} ms CPU a page, visible_text "
          f"{plain[1] / n * 1000:.3f}")  # fmt: skip
    if args.cprofile:
        profile = cProfile.Profile()
        profile.runcall(run_pass, pages)
        pstats.Stats(profile).sort_stats("tottime").print_stats(args.cprofile)
    timers = Timers()
    timers.install()
    best: dict[str, float] = {}
    for _ in range(args.passes):
        timers.seconds.update(dict.fromkeys(timers.seconds, 0.0))
        run_pass(pages)
        for label, seconds in timers.seconds.items():
            best[label] = min(best.get(label, seconds), seconds)
    for label, seconds in best.items():
        print(f"{label:28} {seconds / n * 1000:7.3f} ms a page")
    print(f"load {os.getloadavg()[0]:.2f}; blocks module {blocks.__name__}")


if __name__ == "__main__":
    main()
