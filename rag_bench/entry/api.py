"""The Python API: ``rag_bench.run`` and ``rag_bench.sweep``, the CLI's runs and sweeps from a notebook.

    import rag_bench

    result = rag_bench.run("retrieval=bm25", "chunker.size=400", dataset="kestrel-kb")
    result.metrics.loc["recall@10"]         # mean, ci_low, ci_high, stderr
    result.per_question, result.rankings    # pandas DataFrames; result.report: its report.html
    table = rag_bench.sweep({"chunker.size": [200, 400], "retrieval": ["bm25", "hybrid"]})

Overrides are the CLI's, composed by the same code (``config/compose.py``) from the same ``configs/``, and a
run goes through the same steps as ``rag-bench`` (``hydra_app.compute`` and ``run_or_serve``), in this
process: its metrics.json equals the CLI's. ``@FILE`` (or a ``Path``) reads an overrides file such as a
sweep's ``winner.overrides``.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rag_bench.core.errors import ConfigError
from rag_bench.entry.result import Result

if TYPE_CHECKING:  # pandas loads with a sweep: `rag-bench --help` imports this module
    import pandas as pd

Override = str | os.PathLike


def run(
    *overrides: Override,
    dataset: object = None,
    out: str | os.PathLike | None = None,
    cache_dir: str | os.PathLike | None = None,
    retriever: object = None,
) -> Result:
    """Run the configuration ``rag-bench <overrides>`` would run; return its ``Result``.

    ``dataset``: a bundled name, a dataset folder or a loaded ``Dataset`` (None: as the overrides say).
    ``out``: the run folder (None: a new temporary folder, kept). ``cache_dir``: the cache folder (None:
    ``$RAG_BENCH_CACHE`` or the user cache). ``retriever``: your own retriever instead of rag-bench's, as
    ``rag_bench.evaluate`` takes it.
    """
    from rag_bench.entry.evaluate import compose_config, describe, run_config
    from rag_bench.tracking.tracker import tracker_for

    fixed = given_settings(dataset, cache_dir)
    if retriever is not None:
        mode, target = describe(retriever)
        fixed += [f"retrieval={mode}", *([f"retrieval.target={target}"] if target else [])]
    given = [*fixed, *expand(overrides)]
    tracker = tracker_for(given)  # tracking=mlflow: checked before any work, logged after
    config = compose_config(given)
    refuse_budget(config)
    result = run_config(config, out, retriever)
    if tracker is not None:
        tracker.log_run(result.folder, given)
    return result


def sweep(
    grid: Mapping[str, object] | Sequence[Sequence[Override]],
    *overrides: Override,
    dataset: object = None,
    out: str | os.PathLike | None = None,
    cache_dir: str | os.PathLike | None = None,
    metric: str | None = None,
) -> pd.DataFrame:
    """Run every point of ``grid`` and return the sweep's summary table (summary.csv, as ``rag-bench -m``).

    ``grid``: ``{setting: [values]}`` (every combination, in Hydra's order: the last setting varies fastest)
    or a list of override lists (one point each). ``overrides`` apply to every point. Points share the
    process's caches, as the CLI's do; a point already finished in ``out`` is kept (a sweep resumes).
    The report, plots and ``winner.overrides`` are written beside ``summary.csv`` in the sweep folder,
    ``table.attrs["folder"]``. ``metric``: the report's headline metric (default ndcg@10). With
    ``tracking=mlflow`` among ``overrides`` the sweep is logged to MLflow as on the command line.
    """
    import pandas as pd

    from rag_bench.core.cache import DiskCache, cache_root
    from rag_bench.entry.evaluate import compose_config, output_folder
    from rag_bench.report.sweep.cli import DEFAULT_METRIC, ReportOptions, write_report
    from rag_bench.tracking.tracker import tracker_for

    fixed, recorded = given_settings(dataset, cache_dir), given_settings(dataset, None)
    common = expand(overrides)
    if any(o.partition("=")[0].lstrip("+") == "sweep" for o in common):
        raise ConfigError(
            "rag_bench.sweep runs the grid it is given, not a preset of configs/sweep/: run the preset with "
            "rag-bench -m sweep=NAME, or give its settings as a grid ({setting: [values]})"
        )
    points = points_of(grid)
    if not points:
        raise ConfigError("rag_bench.sweep: the grid holds no point; give {setting: [values, ...]} or [[overrides]]")
    tracker = tracker_for(common)  # tracking=mlflow: a parent run for the sweep, a child run per point
    folder = output_folder(out, "rag-bench-sweep-")
    if tracker is not None:
        tracker.start_sweep(folder)
    for num, point in enumerate(points):
        config = compose_config([*fixed, *common, *point])
        sweep_point(config, folder / str(num), [*recorded, *common, *point], num)
        if tracker is not None:
            tracker.log_run(folder / str(num), [*recorded, *common, *point], folder, num)
    options = ReportOptions(metric=metric or DEFAULT_METRIC)
    write_report(folder, options=options, cache=DiskCache(cache_root(config.cache_dir)))
    if tracker is not None:
        tracker.end_sweep(folder)
    table = pd.read_csv(folder / "summary.csv")
    table.attrs["folder"] = folder
    return table


def sweep_point(config, out_dir: Path, overrides: list[str], num: int) -> None:
    """One point as ``rag-bench -m`` runs it: its overrides recorded as Hydra records them, served or run."""
    import yaml

    from rag_bench.core.files import write_text
    from rag_bench.entry.hydra_app import advise, as_sweep_point, run_or_serve
    from rag_bench.report.run.console import point_line
    from rag_bench.run_folder.fingerprint import fingerprint
    from rag_bench.run_folder.write import finished

    refuse_budget(config)
    as_sweep_point(config)
    write_text(out_dir / ".hydra" / "overrides.yaml", yaml.safe_dump(overrides, allow_unicode=True))
    prints = fingerprint(config)
    payload = finished(out_dir, config, prints)
    if payload is None:
        advise(config)
        payload, _ = run_or_serve(config, out_dir, prints)
    print(point_line(num, payload, out_dir), file=sys.stderr, flush=True)  # progress; the table is returned


def refuse_budget(config) -> None:
    """A budget is the command line's (it plans and stops ``rag-bench`` runs and sweeps): refused here rather
    than ignored."""
    if config.budget.capped:
        raise ConfigError(
            "budget.usd / budget.seconds stop `rag-bench` runs and sweeps; the Python API does not apply them: "
            "drop them, or run `rag-bench --dry-run ...` first to see the cost"
        )


def points_of(grid: Mapping[str, object] | Sequence[Sequence[Override]]) -> list[list[str]]:
    """Each point's overrides: every combination of a ``{setting: values}`` grid, or the lists as given."""
    if isinstance(grid, Mapping):
        axes = [[f"{key}={_text(v)}" for v in _values(values)] for key, values in grid.items()]
        return [list(point) for point in itertools.product(*axes)] if axes else []
    if isinstance(grid, str | bytes) or not all(isinstance(p, Sequence) and not isinstance(p, str) for p in grid):
        raise ConfigError(f"rag_bench.sweep: grid ({grid!r}) must be {{setting: [values]}} or a list of override lists")
    return [expand(point) for point in grid]


def _values(values: object) -> list:
    return list(values) if isinstance(values, list | tuple | range) else [values]


def _text(value: object) -> str:
    """A grid value as an override value (strings as given: ``bm25``, ``[1,5]``)."""
    from rag_bench.config.overrides import value_text

    return value if isinstance(value, str) else value_text(value)


def expand(overrides: Iterable[Override]) -> list[str]:
    """Overrides with each ``@FILE`` (or ``Path``) replaced by the lines of that overrides file, in place."""
    from rag_bench.config.overrides import read_overrides

    out: list[str] = []
    for item in overrides:
        if isinstance(item, os.PathLike):
            out += read_overrides(item)
        elif isinstance(item, str):
            out += read_overrides(item[1:]) if item.startswith("@") else [item]
        else:
            raise ConfigError(f"override ({item!r}) must be a string such as 'chunker.size=400', or @FILE")
    return out


def given_settings(dataset: object, cache_dir: str | os.PathLike | None) -> list[str]:
    """The overrides that the ``dataset`` and ``cache_dir`` arguments stand for."""
    from rag_bench.core.cache import cache_root
    from rag_bench.entry.evaluate import _quote, dataset_overrides

    root = cache_root(None if cache_dir is None else str(cache_dir))
    out = dataset_overrides(dataset, root) if dataset is not None else []
    return out + ([f"cache_dir={_quote(Path(cache_dir).resolve())}"] if cache_dir is not None else [])
