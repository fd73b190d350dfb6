"""Collect the points of a sweep folder into one table, and mark the best point and its ties.

A sweep folder (Hydra multirun) holds one folder per point, found as every folder below it
with a ``metrics.json``; each also has ``config.yaml`` (the resolved config),
``.hydra/overrides.yaml`` (the point's overrides) and ``per_question.csv``. The table has one
row per point: its swept parameters (every key in any point's overrides), the main knobs,
every metric with its 95% interval (``recall@5``, ``recall@5_low``, ``recall@5_high``), and the
work it did. The best point and the points not significantly worse than it come from
``rag_bench.gate.sweep`` (paired sign-flip tests, Holm-corrected).
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

from rag_bench.errors import ConfigError, DataError
from rag_bench.gate.runs import common_questions, load_run, metric_values
from rag_bench.gate.sweep import DevTestChoice, PointMark, choose_on_dev, mark_best, question_split, seeded_split
from rag_bench.run_folder.read import RunFolder
from rag_bench.score.names import parse_metric

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
WORK = ("chunks", "mean_chunk_chars", "index_bytes", "seconds", "embedded", "cache_hits", "tokens", "cost_usd")


@dataclass(frozen=True)
class SweepTable:
    """A sweep's points: the table (one row per point, in point order) and what was swept."""

    folder: Path
    table: pd.DataFrame
    metrics: tuple[str, ...]  # metric names, in metrics.json order
    swept: dict[str, list]  # override key -> its distinct values, for keys that vary across points
    fixed: dict[str, object]  # override key -> its one value, for keys every point sets alike
    unfinished: tuple[str, ...]  # point folders with overrides but no metrics.json yet


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
    labels = tuple(_label(f.parent.parent, sweep_dir) for f in sorted(unfinished, key=lambda f: _order(f, sweep_dir)))
    return SweepTable(sweep_dir, table, metrics, swept, fixed, labels)


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
        row.update({name: _number(mean), f"{name}_low": _number(low), f"{name}_high": _number(high)})
    stats = metrics.get("stats", {})
    row.update(_work(stats))
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


def _work(stats: dict) -> dict[str, float]:
    """Chunks, mean chunk characters (when the run recorded them), bytes, seconds, embedding and cost counts."""
    chunks = stats.get("chunks", np.nan)
    if "mean_chunk_chars" in stats:
        mean_chars = stats["mean_chunk_chars"]
    elif "chunk_chars" in stats and chunks:
        mean_chars = stats["chunk_chars"] / chunks
    else:
        mean_chars = np.nan
    return {
        "chunks": chunks,
        "mean_chunk_chars": _number(mean_chars),
        "index_bytes": stats.get("index_bytes", np.nan),
        "seconds": _total(stats.get("seconds", {})),
        "embedded": stats.get("embedded", np.nan),
        "cache_hits": stats.get("cache_hits", np.nan),
        "tokens": _total(stats.get("tokens", 0)),
        "cost_usd": _total(stats.get("cost_usd", 0.0)),
    }


def _total(value: object) -> float:
    """A number, or the sum of a {part: number} mapping (e.g. seconds per stage)."""
    if isinstance(value, dict):
        return float(sum(_total(v) for v in value.values()))
    return float(value) if isinstance(value, int | float) else 0.0


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
    values = list(dict.fromkeys(column.dropna()))
    return sorted(values) if all(isinstance(v, int | float) for v in values) else values


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else np.nan


def _label(folder: Path, root: Path) -> str:
    return folder.relative_to(root).as_posix() if folder != root else "."


def _order(path: Path, root: Path) -> list[tuple[int, object]]:
    """Natural order of point folders: 2 before 10."""
    parts = re.split(r"(\d+)", path.relative_to(root).as_posix())
    return [(0, int(p)) if p.isdigit() else (1, p) for p in parts if p]


@dataclass(frozen=True)
class Marks:
    """The headline metric's best point and ties (None when the points cannot be paired), and the dev/test choice."""

    metric: str
    marks: dict[str, PointMark] | None
    choice: DevTestChoice | None
    notes: tuple[str, ...]


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
    try:
        runs = [load_run(folder) for folder in folders.values()]
        ids = common_questions(runs)
    except DataError as exc:
        return Marks(name, None, None, (f"best point not tested against the others: {exc}",))
    scores = {
        point: metric_values(run, parse_metric(name)).loc[ids].to_numpy()
        for point, run in zip(folders, runs, strict=True)
    }
    marks = mark_best(scores, alpha=alpha, seed=seed)
    try:
        split = _split(runs[0].folder, ids, test_fraction, seed)
        choice = choose_on_dev(scores, ids, split, alpha=alpha, seed=seed)
    except ConfigError as exc:
        return Marks(name, marks, None, (f"no dev/test choice: {exc}",))
    return Marks(name, marks, choice, ())


def _split(folder: Path, ids: list[str], test_fraction: float, seed: int) -> dict[str, str]:
    """The dataset's own dev/test field when its questions carry one, else a seeded split of ``ids``."""
    from rag_bench.errors import RagBenchError

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
    """A copy of ``table`` with ``best``, ``tied`` (not significantly worse than best) and ``p_holm`` columns."""
    marked = table.copy()
    known = marks.marks or {}
    marked["best"] = [known[p].best if p in known else False for p in table["point"]]
    marked["tied"] = [known[p].tied if p in known else False for p in table["point"]]
    marked["p_holm"] = [_number(known[p].p_holm) if p in known else np.nan for p in table["point"]]
    if not known and table[marks.metric].notna().any():  # untested: the highest mean is best, ties unknown
        marked.loc[table[marks.metric].idxmax(), ["best", "tied"]] = True
    return marked
