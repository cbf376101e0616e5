"""Rule ablation of the extraction under cross-validation by site, on the wide set's TUNING
split only (``bench_extract_wide.select(..., "tune")``).

Each rule or threshold of the extraction that an option turns off (``ABLATIONS``) is measured
twice over the same pages: as it is, and off. For each rule the script prints

- its gain per group (source and page type): F1 with the rule minus F1 without it, by the set's
  own scorer (for a moved threshold, ``NAME=value``: F1 at the current value minus F1 at
  that one, so a negative gain means the moved value does better);
- the sites it moves (a site is ``train_context_model.site_of``: the registered host), up and
  down by page F1, and the share of its page-level gain that its two best sites carry;
- the gain left without those two sites (``w/o top2``): a rule whose gain is carried by one or
  two sites, and that loses on the rest, fits those sites, not the web;
- the cross-validated choice: in 5 folds by site (``train_context_model.fold_of``), the rule is
  kept for a fold's pages when, on the other folds' pages, it raises the mean F1 of the groups;
  ``cv`` is the gain of those per-fold choices against keeping the rule everywhere (0 when
  every fold keeps it; negative when folds that drop it lose by it).

Run: ``.venv/bin/python tests/bench/ablate_extract.py [--only NAME,...] [--limit N]`` (about
10 s of CPU per rule on 1,882 pages). ``--per-page NAME`` lists that rule's pages by gain.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from bench_extract_wide import load_page, scorer, select, truth  # noqa: E402
from train_context_model import FOLDS, fold_of, groups_of, site_of  # noqa: E402

from engine.html.extract import ExtractOptions, main_text  # noqa: E402

BASE = ExtractOptions()


def _blocks(**changes) -> ExtractOptions:
    return replace(BASE, blocks=replace(BASE.blocks, **changes))


# name -> the options with that rule off (or its threshold moved).
ABLATIONS: dict[str, ExtractOptions] = {
    "linked_titles": replace(BASE, linked_titles=False),
    "linked_paragraph": replace(BASE, linked_paragraph_min_chars=0),
    "linked_prose": replace(BASE, linked_prose_min_chars=0),
    "linked_sentence": replace(BASE, linked_sentence_min_chars=0),
    "link_index": replace(BASE, link_index_min_lists=0),
    "link_index_min_lists=1": replace(BASE, link_index_min_lists=1),
    "container": replace(BASE, container=False),
    "drop_title": replace(BASE, drop_title=False),
    "orphan_headings": replace(BASE, orphan_headings=False),
    "section_headings": replace(BASE, section_headings=False),
    "trim_edges": replace(BASE, trim_chars=0),
    "trim_plain_stays": replace(BASE, trim_plain_stays=False),
    "article_box": replace(BASE, article_box_tiers=0),
    "box_keeps": replace(BASE, box_keeps_tiers=0),
    "box_refill": replace(BASE, box_refill_tiers=0),
    "lead_blocks": replace(BASE, lead_blocks=0),
    "lead_after_headline": replace(BASE, lead_after_headline=False),
    "standfirst": replace(BASE, standfirst_min_chars=0),
    "credit": replace(BASE, credit_max_chars=0),
    "notice": replace(BASE, notice_max_chars=0),
    "template_lines": replace(BASE, template_lines=False),
    "rival": replace(BASE, rival_factor=0),
    "fallback_bare": replace(BASE, fallback_min_chars=0),
    "paragraph_fallback": replace(BASE, paragraph_fallback=False),
    "text_fallback": replace(BASE, text_fallback_max_chars=0),
    "cut_comments": replace(BASE, comments_after_share=0),
    "counted_thread": replace(BASE, comments_count_min_chars=0),
    "whole_tables": replace(BASE, whole_tables=False),
    "teaser_part": replace(BASE, teaser_part_max_chars=0),
    "card_grid": replace(BASE, card_grid_min_cards=0),
    "context_model": replace(BASE, context_model=None),
    "class_hints": _blocks(class_hints=False),
    "dialogs": _blocks(drop_dialogs=False),
    "hidden_label": _blocks(hidden_max_share=0),
    "section_anchors": _blocks(section_anchors=False),
    "permalinked_sections": _blocks(permalinked_sections=False),
    "cited_sections": _blocks(cited_sections=False),
    "noise_opens_label": _blocks(noise_opens_label=False),
    "numbered_posts": _blocks(numbered_posts=False),
    "heading_anchors": _blocks(heading_anchors=False),
    "screen_reader_label": _blocks(screen_reader_label_chars=0),
    "article_teasers": _blocks(article_teasers=False),
    "max_link_density=0.3": replace(BASE, max_link_density=0.3),
    "max_link_density=0.45": replace(BASE, max_link_density=0.45),
    "growth_threshold=4": replace(BASE, growth_threshold=4.0),
    "growth_threshold=6": replace(BASE, growth_threshold=6.0),
    "article_box_min_share=0.3": replace(BASE, article_box_min_share=0.3),
    "article_box_min_share=0.5": replace(BASE, article_box_min_share=0.5),
    "title_threshold=0.3": replace(BASE, title_threshold=0.3),
    "title_threshold=0.8": replace(BASE, title_threshold=0.8),
    "credit_max_chars=200": replace(BASE, credit_max_chars=200),
    "credit_max_chars=300": replace(BASE, credit_max_chars=300),
}


def page_f1s(score, rows: list[dict], pages: dict[str, str], options: ExtractOptions) -> list:
    """(tp, fp, fn) of every page with these options (a page that raises scores as empty)."""
    counts = []
    for row in rows:
        try:
            text = main_text(pages[row["id"]], row.get("url"), options)
        except Exception:
            text = ""
        counts.append(score.tp_fp_fn(row["body"], text))
    return counts


def group_table(score, rows: list[dict], counts: list, keep=None) -> dict[str, float]:
    by_group: dict[str, list] = defaultdict(list)
    for i, (row, c) in enumerate(zip(rows, counts, strict=True)):
        if keep is None or keep(i):
            for g in groups_of(row):
                by_group[g].append(c)
    return {g: score.aggregate(c)[2] for g, c in by_group.items()}


def mean_of_groups(table: dict[str, float]) -> float:
    values = [v for g, v in table.items() if g != "ALL"]
    return sum(values) / max(1, len(values))


def page_f1(score, c) -> float:
    return score.aggregate([c])[2]


def cross_validated(score, rows, folds, with_rule, without) -> dict[str, float]:
    """Per fold, keep the rule when it raises the mean group F1 on the other folds' pages;
    returns the group table of those choices."""
    chosen = list(with_rule)
    for fold in range(FOLDS):

        def outside(i, f=fold):
            return folds[i] != f

        on = mean_of_groups(group_table(score, rows, with_rule, outside))
        off = mean_of_groups(group_table(score, rows, without, outside))
        if off > on:
            for i, f in enumerate(folds):
                if f == fold:
                    chosen[i] = without[i]
    return group_table(score, rows, chosen)


def report(score, rows, folds, sites, name, base, off, per_page: bool) -> None:
    full_on, full_off = group_table(score, rows, base), group_table(score, rows, off)
    by_site: dict[str, float] = defaultdict(float)
    moved = []
    for i, row in enumerate(rows):
        delta = page_f1(score, base[i]) - page_f1(score, off[i])
        if abs(delta) > 1e-9:
            by_site[sites[i]] += delta
            moved.append((delta, row["id"], sites[i]))
    up = sorted((s for s in by_site if by_site[s] > 0), key=lambda s: -by_site[s])
    down = [s for s in by_site if by_site[s] < 0]
    top2 = set(up[:2])
    gain_total = sum(by_site.values())
    rest_on = group_table(score, rows, base, lambda i: sites[i] not in top2)
    rest_off = group_table(score, rows, off, lambda i: sites[i] not in top2)
    cv = cross_validated(score, rows, folds, base, off)
    groups = ("ALL", "dragnet", "fundus", "readability")
    cells = " ".join(f"{g[:5]} {full_on.get(g, 0) - full_off.get(g, 0):+.4f}" for g in groups)
    rest = mean_of_groups(rest_on) - mean_of_groups(rest_off)
    worst = min(full_on, key=lambda g: full_on[g] - full_off[g])
    print(
        f"{name:<26} {cells} | worst {worst} {full_on[worst] - full_off[worst]:+.4f}"
        f" | mean {mean_of_groups(full_on) - mean_of_groups(full_off):+.4f}"
        f" w/o top2 {rest:+.4f} | sites +{len(up)} -{len(down)}"
        f" top2 {', '.join(up[:2]) or '-'} ({sum(by_site[s] for s in top2):+.2f} of"
        f" {gain_total:+.2f}) | cv {mean_of_groups(cv) - mean_of_groups(full_on):+.4f}",
        flush=True,
    )
    if per_page:
        for delta, pid, site in sorted(moved):
            print(f"    {delta:+.3f} {pid} {site}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated rule names (default: every one)")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--per-page", action="store_true", help="list each moved page")
    args = parser.parse_args()
    score, rows = scorer(), select(truth(), "tune", args.limit)
    pages = {row["id"]: load_page(row["id"]) for row in rows}
    sites = [site_of(row) for row in rows]
    folds = [fold_of(s) for s in sites]
    names = args.only.split(",") if args.only else list(ABLATIONS)
    print(f"{len(rows)} tuning pages, load average {os.getloadavg()[0]:.2f}")
    print("gain of each rule = F1 with it minus F1 without it (tuning split)")
    base = page_f1s(score, rows, pages, BASE)
    for name in names:
        off = page_f1s(score, rows, pages, ABLATIONS[name])
        report(score, rows, folds, sites, name, base, off, args.per_page)


if __name__ == "__main__":
    main()
