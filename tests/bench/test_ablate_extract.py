"""The rule ablation's cross-validated choice (tests/bench/ablate_extract.py): a rule is kept
for a fold's pages only when the OTHER folds gain by it, so a gain carried by one fold's site
is not credited to that fold."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from ablate_extract import ABLATIONS, BASE, DevScorer, cross_validated, mean_of_groups  # noqa: E402
from bench_extract import options_of  # noqa: E402


class MeanScore:
    """A scorer whose page counts are page F1s and whose aggregate is their mean."""

    @staticmethod
    def aggregate(counts: list[float]) -> tuple[float, float, float]:
        mean = sum(counts) / len(counts)
        return mean, mean, mean


ROWS = [{"source": "dragnet", "id": str(i)} for i in range(10)]
FOLDS = [i % 5 for i in range(10)]  # two pages in each of 5 folds


def test_a_gain_from_one_fold_is_not_credited_to_that_fold():
    without = [0.5] * 10
    with_rule = [0.9 if fold == 0 else 0.49 for fold in FOLDS]  # fold 0 carries it
    table = cross_validated(MeanScore, ROWS, FOLDS, with_rule, without)
    # Fold 0 is judged by folds 1-4 (the rule loses there): off. Folds 1-4 are judged with
    # fold 0's gain in their training pages: on.
    expected = [0.5 if fold == 0 else 0.49 for fold in FOLDS]
    assert table["dragnet"] == pytest.approx(sum(expected) / 10)


def test_a_rule_that_wins_in_every_fold_is_kept_everywhere():
    without = [0.5] * 10
    with_rule = [0.6] * 10
    table = cross_validated(MeanScore, ROWS, FOLDS, with_rule, without)
    assert table["dragnet"] == pytest.approx(0.6)


def test_the_mean_of_groups_leaves_the_whole_set_out():
    assert mean_of_groups({"ALL": 1.0, "dragnet": 0.5, "fundus": 0.7}) == pytest.approx(0.6)


def test_every_ablation_changes_the_options():
    assert all(options != BASE for options in ABLATIONS.values())


def test_extraction_dev_counts_its_snippets_over_the_pages_of_a_group():
    # Two pages: one keeps its snippet and drops the other's boilerplate, one misses both.
    kept = {"with": ["Die Brücke ist offen."], "without": ["Mehr zum Thema"]}
    missed = {"with": ["Der Zug fährt wieder."], "without": ["Newsletter bestellen"]}
    counts = [
        DevScorer.tp_fp_fn(kept, "Die  Brücke ist offen.\nImpressum"),
        DevScorer.tp_fp_fn(missed, "Newsletter bestellen"),
    ]
    assert counts == [(1, 0, 0, 1), (0, 1, 1, 0)]
    p, r, f = DevScorer.aggregate(counts)  # micro: tp 1, fn 1, fp 1
    assert (p, r, f) == (0.5, 0.5, 0.5)
    assert DevScorer.aggregate(counts[:1]) == (1.0, 1.0, 1.0)


def test_an_engine_name_sets_the_options_it_names():
    options = options_of("ours@paragraph_fallback=False;max_link_density=0.3")
    assert options == replace(BASE, paragraph_fallback=False, max_link_density=0.3)
    assert options_of("ours@") == BASE
