"""Benchmark: the "same page" judgement that validates learned URL rules, on real pages.

Run: ``.venv/bin/python tests/bench/bench_same_page.py``. Data: the main texts of
``../shared/data/extraction-wide`` (2,687 real pages, 8 corpora; the thresholds came from
tests/fixtures/pages and the tuning half). Pages are split by a hash of their id; both
halves are measured in the same run and printed apart: *tuning* and *held-out*.

For each page, the pairs a URL rule could produce:

- *identical*: the same text under two URLs (``story?id=x`` / ``story_x``): to be merged;
- *recaptured*: one paragraph replaced by another page's (a rotating teaser between two
  captures): the same page, to be merged (pages with >= 10 lines);
- *sorted the other way*: its paragraphs in reverse order (``sort=descending``, ``/desc``):
  another page, never to be merged (pages with >= 3 lines);
- *shows a fifth more*: a fifth more paragraphs appended (``comments=1``, ``/comments``):
  another page, never to be merged (pages with >= 5 lines);
- *another page*: the next page of the same corpus: never to be merged.

Two tables, each beside its baseline measured in the same run:

1. **Pairs.** The share judged "the same page" by the shared judgement
   (engine/archive/same_page.py: shingles >= 0.85 AND line order >= 0.95) and by the old
   DUST check (shingle resemblance >= 0.8 alone), with the CPU time per pair of each.
2. **DUST rules.** Pairs of one kind, four at a time, become URLs ``/p<n>`` and
   ``/p<n>/more`` of one site; ``dust.learn_rules`` runs on them (candidates, sampling,
   validation) and the share of groups where a rule merges the ``/more`` URLs is printed,
   beside the old validation (6 pairs sampled, shingles >= 0.8, a quarter may differ) on
   the same groups. *3 identical + 1 other* mixes three identical pairs with one pair of
   two different pages: a rule that must not be learned. Goal: 0 on every class that is
   another page; identical always learned.
"""

from __future__ import annotations

import json
import os
import sys
import time
import zlib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine.archive.dust import DustOptions, apply_rules, learn_rules  # noqa: E402
from engine.archive.same_page import SamePage, SamePageOptions, spread  # noqa: E402
from engine.html.similarity import content_similarity  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "extraction-wide" / "truth.jsonl"
KINDS = ("identical", "recaptured", "sorted the other way", "shows a fifth more", "another page")
MIXED = "3 identical + 1 other"
GROUP = 4  # pairs per simulated rule
HALVES = ("tuning", "held-out")


def half_of(page_id: str) -> str:
    return HALVES[zlib.crc32(page_id.encode()) % 2]


def _option(name: str, default: float) -> float:
    flag = f"--{name}="
    return next((float(a[len(flag) :]) for a in sys.argv if a.startswith(flag)), default)


OPTIONS = SamePageOptions(
    same_content=_option("same-content", SamePageOptions.same_content),
    same_order=_option("same-order", SamePageOptions.same_order),
)


def load() -> dict[tuple[str, str], list[dict]]:
    """(half, source) -> pages with a main text."""
    found: dict[tuple[str, str], list[dict]] = defaultdict(list)
    with DATA.open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if row["body"].strip():
                found[half_of(row["id"]), row["source"]].append(row)
    return found


def pairs(rows: list[dict]):
    """(kind, text a, text b) for every page of one source."""
    for n, row in enumerate(rows):
        lines = [line for line in row["body"].splitlines() if line.strip()]
        other = rows[(n + 1) % len(rows)]["body"]
        other_lines = [line for line in other.splitlines() if line.strip()] or ["-"]
        text = "\n".join(lines)
        yield "identical", text, text
        if len(lines) >= 10:
            changed = lines[:]
            changed[len(lines) // 2] = other_lines[len(other_lines) // 2]
            yield "recaptured", text, "\n".join(changed)
        if len(lines) >= 3:
            yield "sorted the other way", text, "\n".join(reversed(lines))
        if len(lines) >= 5:
            extra = max(1, len(lines) // 5)
            yield "shows a fifth more", text, "\n".join(lines + (other_lines * extra)[:extra])
        if len(rows) > 1:
            yield "another page", text, other


def judge_ours(a: str, b: str) -> bool:
    texts = {"a": (a, ""), "b": (b, "")}
    return bool(SamePage(texts.__getitem__, OPTIONS).same("a", "b"))


def judge_baseline(a: str, b: str) -> bool:
    return content_similarity(a, b) >= 0.8


def groups(by_kind: dict[str, list[tuple[str, str]]]):
    """(class, [(text a, text b)] * GROUP): the simulated rules of one source."""
    for kind in KINDS:
        found = by_kind[kind]
        for at in range(0, len(found) - GROUP + 1, GROUP):
            yield kind, found[at : at + GROUP]
    same, other = by_kind["identical"], by_kind["another page"]
    for at in range(0, min(len(same) // (GROUP - 1), len(other))):
        yield MIXED, [*same[at * (GROUP - 1) : (at + 1) * (GROUP - 1)], other[at]]


def dust_learns(group: list[tuple[str, str]]) -> bool:
    """The real learner on ``/p<n>`` and ``/p<n>/more``: is ``/more`` merged away?"""
    content, urls = {}, []
    for n, (a, b) in enumerate(group):
        url = f"https://bench.example/p{n}"
        content[url], content[f"{url}/more"] = (a, ""), (b, "")
        urls += [url, f"{url}/more"]
    rules = learn_rules(urls, SamePage(content.__getitem__, OPTIONS), DustOptions())
    return apply_rules("https://bench.example/p9/more", rules) != "https://bench.example/p9/more"


def dust_baseline(group: list[tuple[str, str]]) -> bool:
    """The old validation: 6 pairs sampled, shingles >= 0.8, >= 2 checked, a quarter may differ."""
    sample = spread(group, 6)
    valid = sum(content_similarity(a, b) >= 0.8 for a, b in sample)
    return len(sample) >= 2 and valid >= 0.75 * len(sample)


def measure(rows: list[dict], cpu: dict) -> tuple[dict, dict]:
    """Per kind [n, ours, baseline] for pairs, and per class [n, ours, baseline] for rules."""
    by_pair: dict = defaultdict(lambda: [0, 0, 0])
    by_kind: dict[str, list] = defaultdict(list)
    for kind, a, b in pairs(rows):
        by_kind[kind].append((a, b))
        _count(by_pair[kind], a, b, (("pair ours", judge_ours), ("pair base", judge_baseline)), cpu)
    by_rule: dict = defaultdict(lambda: [0, 0, 0])
    for kind, group in groups(by_kind):
        _count(
            by_rule[kind],
            group,
            None,
            (("rule ours", _rule(dust_learns)), ("rule base", _rule(dust_baseline))),
            cpu,
        )
    return by_pair, by_rule


def _rule(check):
    return lambda group, _: check(group)


def _count(cell: list, a, b, judges, cpu: dict) -> None:
    cell[0] += 1
    for at, (name, judge) in enumerate(judges, start=1):
        started = time.process_time()
        cell[at] += judge(a, b)
        cpu[name] += time.process_time() - started


def report(title: str, table: dict, kinds: tuple[str, ...], columns: str) -> None:
    print(f"\n{title}")
    print(f"{'half':<9} {'source':<12} {'class':<22} {'n':>5} {columns}")
    for half in HALVES:
        total: dict = defaultdict(lambda: [0, 0, 0])
        for (row_half, source), cells in sorted(table.items()):
            if row_half != half:
                continue
            for kind in kinds:
                n, ours, base = cells[kind]
                total[kind] = [t + v for t, v in zip(total[kind], cells[kind], strict=True)]
                if n:
                    print(
                        f"{half:<9} {source:<12} {kind:<22} {n:>5} {ours / n:>9.3f} {base / n:>9.3f}"
                    )
        for kind in kinds:
            n, ours, base = total[kind]
            if n:
                print(f"{half:<9} {'ALL':<12} {kind:<22} {n:>5} {ours / n:>9.3f} {base / n:>9.3f}")


def main() -> None:
    if not DATA.exists():
        print(f"no data at {DATA}: skipped")
        return
    cpu: dict = defaultdict(float)
    wall = time.perf_counter()
    by_pair, by_rule = {}, {}
    for key, rows in sorted(load().items()):
        by_pair[key], by_rule[key] = measure(rows, cpu)
    print(f"extraction-wide, both halves; {OPTIONS}; load {os.getloadavg()[0]:.1f}")
    report("Pairs judged the same page", by_pair, KINDS, f"{'ours':>9} {'>=0.8':>9}")
    report(
        f"DUST rules learned ({GROUP} pairs each)",
        by_rule,
        (*KINDS, MIXED),
        f"{'ours':>9} {'old':>9}",
    )
    judged = sum(c[k][0] for c in by_pair.values() for k in KINDS)
    rules = sum(c[k][0] for c in by_rule.values() for k in (*KINDS, MIXED))
    print(
        f"\nCPU per pair: ours {1000 * cpu['pair ours'] / judged:.2f} ms, baseline "
        f"{1000 * cpu['pair base'] / judged:.2f} ms (ratio {cpu['pair ours'] / cpu['pair base']:.2f}); "
        f"per DUST rule: learn_rules {1000 * cpu['rule ours'] / rules:.2f} ms, old validation "
        f"{1000 * cpu['rule base'] / rules:.2f} ms; wall {time.perf_counter() - wall:.0f} s"
    )


if __name__ == "__main__":
    main()
