"""Load run folders (metrics.json + per_question.csv) and pair their per-question scores."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rag_bench.core.errors import ConfigError, DataError, RagBenchError
from rag_bench.run_folder.read import REWRITE, RunFolder
from rag_bench.score.aggregate import Summary, summarise
from rag_bench.score.names import Metric

DEFAULT_RESAMPLES, DEFAULT_SEED = 1000, 0  # the run settings ``bootstrap`` and ``seed`` by default (config/schema.py)
SHOW_IDS = 5  # question ids named in a mismatch message


@dataclass(frozen=True)
class Run:
    """One run folder: where it is, its label, and its measured per-question rows (index: question_id)."""

    folder: Path
    label: str
    per_question: pd.DataFrame  # labelled rows, and rows of questions that carry a filter (``measured``)
    resamples: int = DEFAULT_RESAMPLES  # the run's ``bootstrap`` setting: resamples of its 95% intervals
    seed: int = DEFAULT_SEED  # the run's ``seed`` setting: the seed of those resamples


def load_run(path: str | Path) -> Run:
    """A run from its folder or its ``metrics.json`` (``per_question.csv`` next to it)."""
    run = RunFolder(path, needs=("metrics.json", "per_question.csv"))
    run.metrics  # noqa: B018 -- its metrics.json must be readable
    resamples, seed = _interval_settings(run)
    return Run(folder=run.path, label=str(path), per_question=_measured(run), resamples=resamples, seed=seed)


def own_summary(run: Run, metric: Metric) -> Summary:
    """The run's mean and 95% interval of ``metric`` exactly as the run computed them (metrics.json, the
    console, report.html): its measured questions in its own order, its resamples and its seed."""
    values = metric_values(run, metric).to_numpy()
    return summarise(values[np.isfinite(values)], run.resamples, run.seed)


def _interval_settings(run: RunFolder) -> tuple[int, int]:
    """(bootstrap, seed) from the run's config; the defaults for a folder that records none (written by hand)."""
    try:
        config = run.config
    except DataError:
        return DEFAULT_RESAMPLES, DEFAULT_SEED
    resamples, seed = config.get("bootstrap", DEFAULT_RESAMPLES), config.get("seed", DEFAULT_SEED)
    for key, value, least in (("bootstrap", resamples, 1), ("seed", seed, None)):
        if isinstance(value, bool) or not isinstance(value, int) or (least is not None and value < least):
            problem = f"{key} ({value!r}) is not a whole number" + (f" of at least {least}" if least else "")
            raise DataError(run.path / "config.yaml", problem, field=key, fix=REWRITE)
    return resamples, seed


def _measured(run: RunFolder) -> pd.DataFrame:
    """The rows of per_question.csv some metric averages over, indexed by question id (ids must be unique):
    labelled questions, and questions that carry a filter (``selectivity`` set), whose ``leak@k`` counts
    whether they are labelled or not (``score/evaluate.measured_rows``)."""
    table, path = run.per_question, run.path / "per_question.csv"
    duplicates = table["question_id"][table["question_id"].duplicated()].unique()
    if len(duplicates):
        raise DataError(path, f"repeats question ids: {', '.join(duplicates[:SHOW_IDS])}", field="question_id")
    labelled = table["labelled"].astype(str).str.lower() == "true"
    filtered = table["selectivity"].notna() if "selectivity" in table.columns else False
    return table[labelled | filtered].set_index("question_id")


def labelled(run: Run) -> pd.Series:
    """(index: question_id) True for the run's labelled questions, False for unlabelled filtered ones."""
    return run.per_question["labelled"].astype(str).str.lower() == "true"


def metric_values(run: Run, metric: Metric) -> pd.Series:
    """Per-question values of ``metric`` (index: question_id)."""
    name = str(metric)
    if name not in run.per_question.columns:
        known = [c for c in run.per_question.columns if "@" in c or c == "precision_omega"]
        raise ConfigError(
            f"metric {name} is not in {run.folder / 'per_question.csv'}; it has: {', '.join(known)} "
            "(fix: gate a metric the run measured, or rerun with that k in ks)"
        )
    return run.per_question[name].astype(np.float64)


def common_questions(runs: list[Run]) -> list[str]:
    """The question ids, in the first run's order; a DataError when the runs scored different questions,
    or the same questions on datasets whose files differ (their recorded fingerprints)."""
    first = runs[0]
    prints = {run.label: RunFolder(run.folder, check=False).recorded_fingerprint().get("dataset") for run in runs}
    known = {label: value for label, value in prints.items() if value is not None}
    if len(set(known.values())) > 1:
        reference, value = next(iter(known.items()))
        other = next(label for label, v in known.items() if v != value)
        raise DataError(
            other,
            f"was scored on other dataset contents than {reference} (their dataset fingerprints differ)",
            fix="score both on the same dataset; after a deliberate dataset change, refresh the baseline",
        )
    ids = list(first.per_question.index)
    for other in runs[1:]:
        only_first = [q for q in ids if q not in other.per_question.index]
        only_other = [q for q in other.per_question.index if q not in first.per_question.index]
        if only_first or only_other:
            raise DataError(
                other.label,
                f"was scored on different questions than {first.label}: {_some(only_first)} only in "
                f"{first.label}, {_some(only_other)} only in {other.label}",
                fix="run both on the same dataset and labels",
            )
    return ids


@dataclass(frozen=True)
class QuestionSets:
    """How the question sets of runs compare: the questions all share (same id, text and labels, in the first
    run's order), and those only some scored: added (not in the first run), removed (missing from a later
    run) and changed (same id, another text or other labels)."""

    shared: list[str]
    added: list[str]
    removed: list[str]
    changed: list[str]

    @property
    def same(self) -> bool:
        return not (self.added or self.removed or self.changed)


def question_sets(runs: list[Run], same_questions: bool = False) -> QuestionSets:
    """The questions ``runs`` share, on the same documents (a DataError when their documents differ, when
    they share no question, or when ``same_questions`` and the sets differ at all).

    A question set that grew (or lost or reworded a few questions) is compared on the questions the runs
    share; identity is the id, the text and the labels (``per_question.csv``'s ``question`` and ``labels``;
    a run written before those columns is matched by id alone on what it lacks).
    """
    check_same_documents(runs)
    first = runs[0]
    ids = list(first.per_question.index)
    in_all = [q for q in ids if all(q in run.per_question.index for run in runs[1:])]
    recorded = [c for c in ("question", "labels") if all(c in run.per_question.columns for run in runs)]
    changed = [q for q in in_all if len({_identity(run, q, recorded) for run in runs}) > 1]
    removed = [q for q in ids if q not in in_all]
    later = dict.fromkeys(q for run in runs[1:] for q in run.per_question.index if q not in first.per_question.index)
    sets = QuestionSets([q for q in in_all if q not in changed], list(later), removed, changed)
    if same_questions and not sets.same:
        raise DataError(
            runs[-1].label,
            f"scored other questions than {first.label}: {_some(sets.added)} added, {_some(sets.removed)} removed, "
            f"{_some(sets.changed)} changed",
            fix="run both on the same questions, or leave out --same-questions to compare the shared ones",
        )
    if not sets.shared:
        raise DataError(runs[-1].label, f"shares no question with {first.label}", fix="compare runs of one dataset")
    return sets


def _identity(run: Run, question: str, columns: list[str]) -> tuple:
    """What makes a question the same question in two runs: its text and labels (``columns``: those every run
    compared recorded)."""
    row = run.per_question.loc[question]
    return tuple(str(row[c]) for c in columns)


def check_same_documents(runs: list[Run]) -> None:
    """A DataError when the runs were scored on different documents: their recorded ``documents``
    fingerprints differ (or, for runs recorded before it, their whole dataset folders)."""
    prints = [RunFolder(run.folder, check=False).recorded_fingerprint() for run in runs]
    key = "documents" if all("documents" in p for p in prints) else "dataset"
    known = {run.label: p.get(key) for run, p in zip(runs, prints, strict=True) if p.get(key) is not None}
    if len(set(known.values())) > 1:
        reference, value = next(iter(known.items()))
        other = next(label for label, v in known.items() if v != value)
        what = "documents" if key == "documents" else "dataset contents"
        raise DataError(
            other,
            f"was scored on other {what} than {reference} (their {key} fingerprints differ)",
            fix="score both on the same documents; after a deliberate change, refresh the baseline",
        )


def _some(ids: list[str]) -> str:
    if not ids:
        return "0"
    more = f", ... ({len(ids) - SHOW_IDS} more)" if len(ids) > SHOW_IDS else ""
    return f"{len(ids)} ({', '.join(ids[:SHOW_IDS])}{more})"


def hits_at(run: Run, k: int) -> pd.Series:
    """1.0 where the first hit ranks within k: the ``hit@k`` column, else from ``first_hit_rank``."""
    table = run.per_question
    if f"hit@{k}" in table.columns:
        return table[f"hit@{k}"].astype(np.float64)
    return (first_hit_ranks(run) <= k).astype(np.float64)


def first_hit_ranks(run: Run) -> pd.Series:
    """Rank of the first hit (NaN when nothing within the retrieval depth hit)."""
    table = run.per_question
    if "first_hit_rank" not in table.columns:
        return pd.Series(np.nan, index=table.index)
    return table["first_hit_rank"].astype(np.float64)


def question_texts(run: Run) -> dict[str, str]:
    """Question id -> text from the run's dataset (via config.yaml); {} when it cannot be loaded."""
    try:
        return {q.id: q.text for q in RunFolder(run.folder).dataset().questions}
    except (RagBenchError, OSError):
        return {}  # texts are a courtesy: without them the report names question ids only


def format_rank(rank: float) -> str:
    return "-" if rank is None or math.isnan(rank) else str(int(rank))
