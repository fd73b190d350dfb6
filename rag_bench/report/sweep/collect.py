"""Collect the points of a sweep folder into one table, and mark the best point and its ties.

A sweep folder (Hydra multirun) holds one folder per point, found as every folder below it
with a ``metrics.json``; each also has ``config.yaml`` (the resolved config),
``.hydra/overrides.yaml`` (the point's overrides) and ``per_question.csv``. The table has one
row per point: its swept parameters (every key in any point's overrides), the main knobs,
every metric with its 95% interval (``recall@5``, ``recall@5_low``, ``recall@5_high``), and the
work it did (``sweep_work.py``). The best point and its ties are marked by ``marks.py``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException

from rag_bench.core.errors import DataError
from rag_bench.report.sweep.languages import language_columns
from rag_bench.report.sweep.parsers import parse_columns
from rag_bench.report.sweep.work import number, work_columns
from rag_bench.run_folder.not_run import read_not_run
from rag_bench.run_folder.read import RunFolder

# config.yaml keys that are always columns, whether swept or not
KNOBS = (
    "chunker.name",
    "chunker.size",
    "chunker.overlap",
    "chunker.unit",
    "embedder.name",
    "embedder.model",
    "embedder.dimension",
    "retrieval.mode",
    "retrieval.depth",
    "retrieval.k_rrf",
    "reranker.name",
    "reranker.depth",
)


@dataclass(frozen=True)
class SweepTable:
    """A sweep's points: the table (one row per point, in point order) and what was swept."""

    folder: Path
    table: pd.DataFrame
    metrics: tuple[str, ...]  # metric names, in metrics.json order
    swept: dict[str, list]  # override key -> its distinct values, for keys that vary across points
    fixed: dict[str, object]  # override key -> its one value, for keys every point sets alike
    unfinished: tuple[str, ...]  # point folders with overrides but no metrics.json yet (nor a not_run.json)
    not_run: tuple[tuple[str, str], ...] = ()  # (point folder, why) of points a budget stopped (not_run.json)


def collect(sweep_dir: Path) -> SweepTable:
    """Read every point below ``sweep_dir`` into one table; a DataError when there is none."""
    if not sweep_dir.is_dir():
        raise DataError(sweep_dir, "is not a folder", fix="pass the folder a `rag-bench -m ...` sweep wrote")
    folders = sorted((p.parent for p in sweep_dir.rglob("metrics.json")), key=lambda f: _order(f, sweep_dir))
    if not folders:
        raise DataError(sweep_dir, "holds no finished sweep point (no metrics.json below it)", fix="run a sweep first")
    points = [_read_point(folder, sweep_dir) for folder in folders]
    keys = list(dict.fromkeys(key for point in points for key in point["overrides"]))
    rows = [_row(point, keys) for point in points]
    table = pd.DataFrame(rows).apply(_uniform)
    values = {key: list(dict.fromkeys(table[key].astype(str))) for key in keys}
    swept = {key: _distinct(table[key]) for key in keys if len(values[key]) > 1}
    fixed = {key: table[key].iloc[0] for key in keys if len(values[key]) == 1}
    metrics = tuple(dict.fromkeys(name for point in points for name in point["metrics"]["metrics"]))
    unfinished = [f for f in sweep_dir.rglob("overrides.yaml") if not (f.parent.parent / "metrics.json").is_file()]
    unfinished = [f.parent.parent for f in sorted(unfinished, key=lambda f: _order(f, sweep_dir))]
    stopped = [(f, read_not_run(f)) for f in unfinished]
    labels = tuple(_label(f, sweep_dir) for f, why in stopped if why is None)
    not_run = tuple((_label(f, sweep_dir), why) for f, why in stopped if why is not None)
    return SweepTable(sweep_dir, table, metrics, swept, fixed, labels, not_run)


def _read_point(folder: Path, root: Path) -> dict:
    run = RunFolder(folder)
    return {
        "point": _label(folder, root),
        "metrics": run.metrics,
        "config": run.config,
        "overrides": parse_overrides(run.overrides()),
        "choices": run.choices(),
    }


def parse_overrides(lines: list[str]) -> dict[str, object]:
    """Hydra override strings -> {key: parsed value}; ``~key`` deletions and ``hydra.*`` keys are left out."""
    parsed: dict[str, object] = {}
    for line in lines:
        try:
            override = OverridesParser.create().parse_override(str(line))
        except HydraException:
            key, _, value = str(line).lstrip("+~").partition("=")
            parsed[key] = value
            continue
        if not override.is_delete() and not override.key_or_group.startswith("hydra."):
            parsed[override.key_or_group] = override.value()
    return parsed


def _row(point: dict, keys: list[str]) -> dict[str, object]:
    """One table row: point, swept keys, knobs, metrics with intervals, work done."""
    metrics = point["metrics"]
    row: dict[str, object] = {"point": point["point"]}
    for key in [*keys, *(k for k in KNOBS if k not in keys)]:
        row[key] = _parameter(key, point)
    row["dataset"] = metrics.get("dataset")
    row["n_questions"] = metrics.get("n_questions")
    intervals = metrics.get("ci95", {})
    for name, mean in metrics.get("metrics", {}).items():
        low, high = intervals.get(name) or (None, None)
        row.update({name: number(mean), f"{name}_low": number(low), f"{name}_high": number(high)})
    row.update(language_columns(metrics))
    stats = metrics.get("stats", {})
    row["retriever"] = stats.get("retriever") or row.get("retrieval.mode")  # e.g. "http http://...", "bm25"
    row.update(work_columns(stats, row["n_questions"]))
    row.update(parse_columns(stats))
    return row


def _parameter(key: str, point: dict) -> object:
    """A group's chosen option, else the resolved config value, else the override as given."""
    if key in point["choices"]:
        return point["choices"][key]
    value: object = point["config"]
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if value is None or isinstance(value, dict):
        return point["overrides"].get(key)
    return value


def _uniform(column: pd.Series) -> pd.Series:
    """Numbers stay numbers; any other mix of values becomes text (Parquet needs one type per column)."""
    present = [v for v in column if v is not None and not (isinstance(v, float) and np.isnan(v))]
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return pd.to_numeric(column.astype(object).where(column.notna(), np.nan))
    if all(isinstance(v, bool) for v in present):
        return column
    return column.map(lambda v: None if v is None or (isinstance(v, float) and np.isnan(v)) else _text(v))


def _text(value: object) -> str:
    return json.dumps(value) if isinstance(value, list | dict) else str(value)


def _distinct(column: pd.Series) -> list:
    """A column's distinct values, numbers sorted; a null setting (None, NaN) is kept, last, as None."""
    values = list(dict.fromkeys(column.dropna()))
    if all(isinstance(v, int | float) for v in values):
        values = sorted(values)
    return values + [None] if column.isna().any() else values


def _label(folder: Path, root: Path) -> str:
    return folder.relative_to(root).as_posix() if folder != root else "."


def _order(path: Path, root: Path) -> list[tuple[int, object]]:
    """Natural order of point folders: 2 before 10."""
    parts = re.split(r"(\d+)", path.relative_to(root).as_posix())
    return [(0, int(p)) if p.isdigit() else (1, p) for p in parts if p]
