"""Load run folders (metrics.json + per_question.csv) and pair their per-question scores."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rag_bench.errors import ConfigError, DataError, RagBenchError
from rag_bench.score.names import Metric

SHOW_IDS = 5  # question ids named in a mismatch message


@dataclass(frozen=True)
class Run:
    """One run folder: where it is, its label, and its labelled per-question rows (index: question_id)."""

    folder: Path
    label: str
    per_question: pd.DataFrame


def load_run(path: str | Path) -> Run:
    """A run from its folder or its ``metrics.json`` (``per_question.csv`` next to it)."""
    given = Path(path)
    folder = given.parent if given.name == "metrics.json" or given.suffix == ".json" else given
    if not folder.is_dir():
        raise DataError(given, "is not a run folder", fix="pass a folder written by `rag-bench` or its metrics.json")
    for name in ("metrics.json", "per_question.csv"):
        if not (folder / name).is_file():
            raise DataError(folder / name, "is missing", fix="pass a complete run folder written by `rag-bench`")
    try:
        json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(folder / "metrics.json", f"is not valid JSON ({exc.msg})", line=exc.lineno) from exc
    return Run(folder=folder, label=str(path), per_question=_read_per_question(folder / "per_question.csv"))


def _read_per_question(path: Path) -> pd.DataFrame:
    table = pd.read_csv(path, dtype={"question_id": str})
    for column in ("question_id", "labelled"):
        if column not in table.columns:
            raise DataError(path, f"has no {column!r} column", fix="rerun `rag-bench` to rewrite the run folder")
    duplicates = table["question_id"][table["question_id"].duplicated()].unique()
    if len(duplicates):
        raise DataError(path, f"repeats question ids: {', '.join(duplicates[:SHOW_IDS])}", field="question_id")
    labelled = table["labelled"].astype(str).str.lower() == "true"
    return table[labelled].set_index("question_id")


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
    """The question ids, in the first run's order; a DataError when the runs scored different questions."""
    first = runs[0]
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
    import yaml
    from omegaconf import OmegaConf

    from rag_bench.data.bundled import dataset_folder
    from rag_bench.data.native import load_dataset

    try:
        config = OmegaConf.load(run.folder / "config.yaml")
        folder = dataset_folder(config.dataset.name, config.dataset.get("path"))
        return {q.id: q.text for q in load_dataset(folder).questions}
    except (RagBenchError, OSError, ValueError, LookupError, AttributeError, TypeError, yaml.YAMLError):
        return {}  # texts are a courtesy: without them the report names question ids only


def format_rank(rank: float) -> str:
    return "-" if rank is None or math.isnan(rank) else str(int(rank))
