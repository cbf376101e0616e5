"""Benchmark: the "same page" test that validates a learned query parameter, on real pages.

Run: ``.venv/bin/python tests/bench/bench_param_rules.py``. Data: the main texts of
``../shared/data/extraction-wide`` (2,687 real pages, 8 corpora; none of it was used to
choose the thresholds, which came from tests/fixtures/pages). Pages are split by a hash
of their id; the figures are for the held-out half (the other half is left for tuning).

For each page, three pairs a parameter could produce:

- *recaptured*: the page with one paragraph replaced by another page's (a rotating
  teaser between two captures): the same page, to be merged (pages with >= 10 lines);
- *sorted the other way*: its paragraphs in reverse order (``sort=descending``): another
  page, never to be merged (pages with >= 3 lines);
- *shows a fifth more*: a fifth more paragraphs appended (``comments=1``, ``showall=1``):
  another page, never to be merged (pages with >= 5 lines);
- *another page*: the next page of the same corpus: never to be merged.

Printed per source: the share judged "same page" by the parameter learner's test
(``param_rules._Judge``: shingles >= 0.85 AND line order >= 0.9) and, measured in the
same run, by the baseline DUST uses (shingle resemblance >= 0.8 alone), with the CPU
time (``time.process_time``) per pair of each. Goal: no pair of two pages judged the same.
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

from engine.archive.param_rules import ParamOptions, _Judge  # noqa: E402
from engine.html.similarity import content_similarity  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "extraction-wide" / "truth.jsonl"
KINDS = ("recaptured", "sorted the other way", "shows a fifth more", "another page")


DEV = "--dev" in sys.argv  # the tuning half instead of the held-out one


def held_out(page_id: str) -> bool:
    return zlib.crc32(page_id.encode()) % 2 == (0 if DEV else 1)


def _option(name: str, default: float) -> float:
    flag = f"--{name}="
    return next((float(a[len(flag) :]) for a in sys.argv if a.startswith(flag)), default)


OPTIONS = ParamOptions(
    same_content=_option("same-content", ParamOptions.same_content),
    same_order=_option("same-order", ParamOptions.same_order),
)


def load() -> dict[str, list[dict]]:
    by_source: dict[str, list[dict]] = defaultdict(list)
    with DATA.open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if held_out(row["id"]) and row["body"].strip():
                by_source[row["source"]].append(row)
    return by_source


def pairs(rows: list[dict]):
    """(kind, text a, text b) for every page of one source."""
    for n, row in enumerate(rows):
        lines = [line for line in row["body"].splitlines() if line.strip()]
        other = rows[(n + 1) % len(rows)]["body"]
        other_lines = [line for line in other.splitlines() if line.strip()] or ["-"]
        text = "\n".join(lines)
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
    return bool(_Judge(texts.__getitem__, OPTIONS).same("a", "b"))


def judge_baseline(a: str, b: str) -> bool:
    return content_similarity(a, b) >= 0.8


def main() -> None:
    if not DATA.exists():
        print(f"no data at {DATA}: skipped")
        return
    counts: dict = defaultdict(
        lambda: defaultdict(lambda: [0, 0, 0])
    )  # source -> kind -> [n, ours, base]
    cpu = {"ours": 0.0, "baseline": 0.0}
    for source, rows in sorted(load().items()):
        for kind, a, b in pairs(rows):
            cell = counts[source][kind]
            cell[0] += 1
            for name, judge, at in (("ours", judge_ours, 1), ("baseline", judge_baseline, 2)):
                started = time.process_time()
                cell[at] += judge(a, b)
                cpu[name] += time.process_time() - started
    total = {k: [0, 0, 0] for k in KINDS}
    half = "tuning (--dev)" if DEV else "held-out"
    print(f"{half} half of extraction-wide, {OPTIONS}; load {os.getloadavg()[0]:.1f}")
    print(f"{'source':<12} {'pair':<22} {'pairs':>6} {'same: ours':>11} {'baseline':>9}")
    for source, kinds in counts.items():
        for kind in KINDS:
            n, ours, base = kinds[kind]
            for at, value in enumerate((n, ours, base)):
                total[kind][at] += value
            if n:
                print(f"{source:<12} {kind:<22} {n:>6} {ours / n:>11.3f} {base / n:>9.3f}")
    for kind in KINDS:
        n, ours, base = total[kind]
        print(f"{'ALL':<12} {kind:<22} {n:>6} {ours / n:>11.3f} {base / n:>9.3f}")
    judged = sum(t[0] for t in total.values())
    print(
        f"CPU per pair: ours {1000 * cpu['ours'] / judged:.2f} ms, baseline "
        f"{1000 * cpu['baseline'] / judged:.2f} ms (ratio {cpu['ours'] / cpu['baseline']:.2f})"
    )


if __name__ == "__main__":
    main()
