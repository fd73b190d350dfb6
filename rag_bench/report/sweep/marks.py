"""Judge a sweep's points on one metric: the best point, the points not significantly worse, the dev/test choice.

The tests come from ``rag_bench.score.selection`` (one-sided paired sign-flip tests "best better than
point", Holm-corrected; better by the metric's direction, ``score/names.higher_is_better``). Each point
also gets its paired difference from the best point, mean over questions of (point - best) with a 95%
percentile bootstrap interval (questions resampled together for both points, seeded): the quantity the
Holm tests judge, and the one the tuning curves plot, since the per-point intervals of correlated
points overlap and say little.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rag_bench.core.errors import ConfigError, DataError
from rag_bench.report.sweep.collect import SweepTable
from rag_bench.run_folder.read import RunFolder
from rag_bench.run_folder.runs import common_questions, load_run, metric_values
from rag_bench.score.aggregate import Summary, summarise_table
from rag_bench.score.names import higher_is_better, parse_metric
from rag_bench.score.paired import RESAMPLES
from rag_bench.score.selection import DevTestChoice, PointMark, choose_on_dev, mark_best, question_split, seeded_split

DIFF = "diff_best"  # columns diff_best, diff_best_low, diff_best_high: paired difference from the best point


@dataclass(frozen=True)
class Marks:
    """The headline metric's best point and ties (None when the points cannot be paired), and the dev/test choice."""

    metric: str
    marks: dict[str, PointMark] | None
    choice: DevTestChoice | None
    notes: tuple[str, ...]
    differences: dict[str, Summary] | None = None  # point -> mean of (point - best) per question, 95% interval
    alpha: float = 0.05


def mark_points(
    sweep: SweepTable, metric: str, alpha: float = 0.05, seed: int = 0, test_fraction: float = 0.5
) -> Marks:
    """Best point and points not significantly worse on ``metric`` (all questions); choose on dev, report on test."""
    name = str(parse_metric(metric))
    if name not in sweep.metrics:
        raise ConfigError(
            f"--metric {name} was not measured in {sweep.folder}; it has: {', '.join(sweep.metrics)} "
            "(fix: pick one of those, or sweep with that k in ks)"
        )
    folders = {point: sweep.folder / point for point in sweep.table["point"]}
    runs = [load_run(folder) for folder in folders.values()]  # a damaged point's file stops the report
    try:
        ids = common_questions(runs)
    except DataError as exc:
        return Marks(name, None, None, (f"best point not tested against the others: {exc}",), alpha=alpha)
    scores = {
        point: metric_values(run, parse_metric(name)).loc[ids].to_numpy()
        for point, run in zip(folders, runs, strict=True)
    }
    better = higher_is_better(name)  # leak@k: the lowest mean is the best
    marks = mark_best(scores, alpha=alpha, seed=seed, higher_is_better=better)
    differences = paired_differences(scores, next(p for p, m in marks.items() if m.best), seed)
    try:
        split = _split(runs[0].folder, ids, test_fraction, seed)
        choice = choose_on_dev(scores, ids, split, alpha=alpha, seed=seed, higher_is_better=better)
    except ConfigError as exc:
        return Marks(name, marks, None, (f"no dev/test choice: {exc}",), differences, alpha)
    return Marks(name, marks, choice, (), differences, alpha)


def paired_differences(scores: dict[str, np.ndarray], best: str, seed: int = 0) -> dict[str, Summary]:
    """Point -> mean over questions of (point - best), with its 95% paired bootstrap interval.

    Questions where either score is missing (NaN) are left out of that pair. The best point's
    difference is exactly 0 with the interval [0, 0].
    """
    reference = np.asarray(scores[best], dtype=np.float64)
    differences = {}
    for point, values in scores.items():
        diff = np.asarray(values, dtype=np.float64) - reference  # (n_questions,)
        differences[point] = diff[np.isfinite(diff)]
    return summarise_table(differences, RESAMPLES, seed)  # pairs of one length share one set of seeded draws


def _split(folder: Path, ids: list[str], test_fraction: float, seed: int) -> dict[str, str]:
    """The dataset's own dev/test field when its questions carry one, else a seeded split of ``ids``."""
    from rag_bench.core.errors import RagBenchError

    try:
        questions = RunFolder(folder).dataset().questions
    except (RagBenchError, OSError):
        questions = []  # the dataset is gone or moved: split by question id
    wanted = set(ids)
    scored = [q for q in questions if q.id in wanted]
    if len(scored) < len(wanted):
        return seeded_split(ids, test_fraction, seed)
    return question_split(scored, test_fraction, seed)


def with_marks(table: pd.DataFrame, marks: Marks) -> pd.DataFrame:
    """A copy of ``table`` with ``best``, ``tied``, ``p_holm`` and the paired ``diff_best`` columns."""
    marked = table.copy()
    known = marks.marks or {}
    marked["best"] = [known[p].best if p in known else False for p in table["point"]]
    marked["tied"] = [known[p].tied if p in known else False for p in table["point"]]
    marked["p_holm"] = [_number(known[p].p_holm) if p in known else np.nan for p in table["point"]]
    diffs = marks.differences or {}
    for column, part in ((DIFF, "mean"), (f"{DIFF}_low", "ci_low"), (f"{DIFF}_high", "ci_high")):
        marked[column] = [getattr(diffs[p], part) if p in diffs else np.nan for p in table["point"]]
    if not known and table[marks.metric].notna().any():  # untested: the best mean is best, ties unknown
        column = table[marks.metric]
        marked.loc[column.idxmax() if higher_is_better(marks.metric) else column.idxmin(), ["best", "tied"]] = True
    return marked


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else np.nan
