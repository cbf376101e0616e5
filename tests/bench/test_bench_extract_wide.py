"""The wide bench (tests/bench/bench_extract_wide.py): its paired interval shows a gap between
two engines only as far as the group's pages show it; `--compiled` times the compiled build."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from bench_extract_wide import DATA, paired_interval, show_intervals  # noqa: E402
from test_ablate_extract import MeanScore  # noqa: E402  (page F1s, aggregated by their mean)

from host.compiled import why_not  # noqa: E402


def test_the_same_outputs_have_no_gap_in_any_resample():
    pages = [0.2, 0.9, 0.5, 0.7, 0.1, 1.0]
    assert paired_interval(MeanScore, pages, list(pages), 500) == (0.0, 0.0)


def test_an_engine_better_on_every_page_has_an_interval_above_zero():
    ours = [0.9, 0.8, 0.95, 0.7, 0.85, 0.9, 0.6, 0.8]
    other = [f - 0.05 for f in ours]
    low, high = paired_interval(MeanScore, ours, other, 500)
    assert 0 < low <= 0.05 <= high + 1e-9


def test_a_gap_carried_by_one_page_holds_zero():
    ours = [0.5] * 9 + [1.0]
    other = [0.5] * 9 + [0.0]
    low, high = paired_interval(MeanScore, ours, other, 1000)
    assert low <= 0 < high


def test_the_interval_is_the_middle_95_of_the_resamples():
    # The gap is 0.25 for each draw of the first page: Binomial(4, 1/4) draws, whose 2.5th
    # percentile is 0 draws (P = 0.32) and 97.5th is 3 (P(k <= 2) = 0.949, P(k <= 3) = 0.996).
    ours = [1.0, 0.0, 0.5, 0.5]
    other = [0.0, 0.0, 0.5, 0.5]
    assert paired_interval(MeanScore, ours, other, 4000) == (0.0, 0.75)


def test_a_gap_either_way_has_both_bounds_at_the_outer_percentiles():
    # The gap is (draws of page 1 − draws of page 2) / 4: P(≤ −0.75) = 0.035, P(≤ −1) = 0.004,
    # P(≤ 0.5) = 0.965, P(≤ 0.75) = 0.996.
    ours = [1.0, 0.0, 0.5, 0.5]
    other = [0.0, 1.0, 0.5, 0.5]
    assert paired_interval(MeanScore, ours, other, 4000) == (-0.75, 0.75)


def _bench_header(*args: str) -> str:
    """The first line the wide bench prints, run on two tuning pages in a fresh process."""
    script = Path(__file__).with_name("bench_extract_wide.py")
    done = subprocess.run(
        [sys.executable, str(script), "--split", "tune", "--limit", "2", "--engines", "ours", *args],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    return done.stdout.splitlines()[0]


def test_the_compiled_switch_times_the_compiled_extraction():
    """`--compiled` figures are the shipped build's (the header says which ran), and without
    it the pure modules run even where the compiled copy is built."""
    if not DATA.is_dir():
        pytest.skip(f"no wide set here ({DATA.name})")
    if why := why_not():
        pytest.skip(f"the compiled copy is not there: {why}")
    assert _bench_header("--compiled").endswith(", ours compiled")
    assert _bench_header().endswith(", ours pure")


class Recorded:
    """Mean F1, remembering every resample's value (ours, then the other's, each round)."""

    seen: list[float] = []

    @classmethod
    def aggregate(cls, counts):
        cls.seen.append(sum(counts) / len(counts))
        return 0, 0, cls.seen[-1]


def test_the_interval_leaves_as_many_resamples_out_at_each_end():
    """40 resamples: the 95 % interval leaves out one at each end (2.5 % of 40), the lowest and
    the highest, and no more."""
    Recorded.seen = []
    ours = [0.11, 0.52, 0.93, 0.34, 0.75, 0.16, 0.67, 0.28]  # distinct pages: distinct gaps
    low, high = paired_interval(Recorded, ours, [0.0] * len(ours), 40)
    gaps = sorted(a - b for a, b in zip(Recorded.seen[::2], Recorded.seen[1::2], strict=True))
    assert len(gaps) == 40 and len(set(gaps)) > 30
    assert (low, high) == (round(gaps[1], 6), round(gaps[38], 6))


def test_an_interval_that_touches_zero_shows_no_gap(capsys):
    """A bound of exactly 0 holds 0: neither ahead (+) nor behind (-) is shown."""
    ours, other = [0.5] * 9 + [1.0], [0.5] * 10  # ours ahead on one page only
    counts = {"ours": {"ALL": ours}, "other": {"ALL": other}, "worse": {"ALL": [1.0] * 10}}
    low, high = paired_interval(MeanScore, ours, other, 200)
    assert low == 0 < high
    show_intervals(MeanScore, ["ours", "other"], counts, 200)
    row = capsys.readouterr().out.splitlines()[-1]
    assert row.startswith("ALL") and row.rstrip().endswith("]"), row
    counts["ours"], counts["other"] = counts["other"], counts["ours"]
    show_intervals(MeanScore, ["ours", "other"], counts, 200)
    assert capsys.readouterr().out.splitlines()[-1].rstrip().endswith("]")
    show_intervals(MeanScore, ["ours", "worse"], counts, 200)  # behind on every page
    assert capsys.readouterr().out.splitlines()[-1].rstrip().endswith("]-")
