"""Compare runs: each metric's mean and 95% interval per run, and paired tests against the first run.

The paired tests are on the questions every run shares (same id, text and labels); the questions only
some runs scored are listed (``runs.question_sets``).

A run's own mean and interval are the ones it printed and wrote (``runs.own_summary``: its
questions in its order, its ``bootstrap`` resamples and ``seed``), so a run shows one interval
wherever it is shown; ``--seed`` seeds the paired tests and their intervals.

Each later run is tested against the first with the two-sided paired sign-flip test
(``rag_bench.score.paired``); for each metric the p-values of the later runs are
Holm-corrected together, so "significant" holds at alpha across all the runs compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.run_folder.runs import QuestionSets, Run, labelled, metric_values, own_summary, question_sets
from rag_bench.score.names import Metric
from rag_bench.score.paired import holm, paired_test

DEFAULT_METRICS = ("recall@5", "recall@10", "ndcg@10", "mrr@10")


@dataclass(frozen=True)
class Cell:
    """One run on one metric; the paired fields are None for the first run (the reference)."""

    metric: Metric
    run: str
    n: int
    mean: float
    ci_low: float
    ci_high: float
    delta: float | None = None  # mean(this run - first run) over the questions both score
    delta_low: float | None = None
    delta_high: float | None = None
    p_value: float | None = None  # two-sided
    p_holm: float | None = None


@dataclass(frozen=True)
class Comparison:
    runs: tuple[str, ...]
    n_questions: int  # labelled questions every run scored
    alpha: float
    cells: tuple[Cell, ...]  # metric-major: every run for the first metric, then the next
    n_probes: int = 0  # filtered questions without labels: in leak@k only
    questions: QuestionSets | None = None  # what the runs share, and the questions only some scored


def compare_runs(
    runs: Sequence[Run], metrics: Sequence[Metric], alpha: float = 0.05, seed: int = 0, same_questions: bool = False
) -> Comparison:
    """Per metric: each run's mean with its interval, and each later run vs the first, Holm-corrected."""
    if len(runs) < 2:
        raise ConfigError(f"compare needs at least two runs (got {len(runs)}): rag-bench compare RUN RUN [RUN...]")
    if not 0 < alpha < 1:
        raise ConfigError(f"--alpha ({alpha}) must be between 0 and 1, e.g. 0.05")
    sets = question_sets(list(runs), same_questions)
    ids = sets.shared
    cells = [cell for metric in metrics for cell in _metric_cells(runs, ids, metric, seed)]
    n_labelled = int(labelled(runs[0]).loc[ids].sum())
    return Comparison(tuple(r.label for r in runs), n_labelled, alpha, tuple(cells), len(ids) - n_labelled, sets)


def _metric_cells(runs: Sequence[Run], ids: list[str], metric: Metric, seed: int) -> list[Cell]:
    values = [metric_values(run, metric).loc[ids].to_numpy() for run in runs]  # each (n_questions,)
    first = values[0]
    own = [own_summary(run, metric) for run in runs]
    tests = []
    for v in values[1:]:
        keep = np.isfinite(first) & np.isfinite(v)
        tests.append(paired_test(first[keep], v[keep], alternative="two-sided", seed=seed))
    adjusted = holm([t.p_value for t in tests])
    cells = [Cell(metric, runs[0].label, own[0].n, own[0].mean, own[0].ci_low, own[0].ci_high)]
    for run, summary, test, p_holm in zip(runs[1:], own[1:], tests, adjusted, strict=True):
        cells.append(
            Cell(
                metric,
                run.label,
                summary.n,
                summary.mean,
                summary.ci_low,
                summary.ci_high,
                delta=test.delta,
                delta_low=test.ci_low,
                delta_high=test.ci_high,
                p_value=test.p_value,
                p_holm=p_holm,
            )
        )
    return cells
