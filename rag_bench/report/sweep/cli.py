"""``rag-bench report SWEEP_DIR``: summary.csv/.parquet, report.md/.html and PNG plots of a sweep."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from rag_bench.core.cache import DiskCache, default_cache_dir
from rag_bench.core.errors import ConfigError
from rag_bench.core.files import write_atomic
from rag_bench.report.blocks import write_documents
from rag_bench.report.sweep.collect import collect
from rag_bench.report.sweep.console import summary_text
from rag_bench.report.sweep.document import build
from rag_bench.report.sweep.kept import kept_marks, kept_plots
from rag_bench.report.sweep.marks import with_marks
from rag_bench.report.sweep.plot_data import PlotData
from rag_bench.report.sweep.winner import write_winner

DEFAULT_METRIC = "ndcg@10"
PLOTS_FOLDER = "plots"


@dataclass(frozen=True)
class ReportOptions:
    """How to judge the sweep: headline metric, significance level, seed, share of questions held out for test."""

    metric: str = DEFAULT_METRIC
    alpha: float = 0.05
    seed: int = 0
    test_fraction: float = 0.5


def report_sweep(
    sweep_dir: Path,
    out_dir: Path | None = None,
    options: ReportOptions = ReportOptions(),
    cache: DiskCache | None = None,
) -> list[Path]:
    """Aggregate every point of ``sweep_dir`` and write the summary, report and plots; return the files written.

    Marks and plots are kept in ``cache`` (default: the default cache folder) by ``kept.py``.
    """
    return write_report(sweep_dir, out_dir, options, cache)[0]


def write_report(
    sweep_dir: Path,
    out_dir: Path | None = None,
    options: ReportOptions = ReportOptions(),
    cache: DiskCache | None = None,
) -> tuple[list[Path], str]:
    """``report_sweep``, also returning the summary as console text (``console.summary_text``)."""
    if not 0 < options.alpha < 1:
        raise ConfigError(f"--alpha ({options.alpha}) must be between 0 and 1, e.g. 0.05")
    out = sweep_dir if out_dir is None else out_dir
    cache = cache if cache is not None else DiskCache(default_cache_dir())
    sweep = collect(sweep_dir)
    marks = kept_marks(cache, sweep, options.metric, options.alpha, options.seed, options.test_fraction)
    table = with_marks(sweep.table, marks)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--out {out} cannot be created ({exc.strerror})") from exc
    write_atomic(out / "summary.csv", lambda handle: table.to_csv(handle, index=False, encoding="utf-8"))
    write_atomic(out / "summary.parquet", lambda handle: table.to_parquet(handle, index=False))
    plots = kept_plots(cache, PlotData(table, marks.metric, tuple(sweep.swept)), out / PLOTS_FOLDER)
    winner = write_winner(sweep_dir, table, marks, out)
    documents = write_documents(build(sweep, marks, table, plots, out), out)
    written = [out / "summary.csv", out / "summary.parquet", *documents, *plots, *([winner] if winner else [])]
    report = next((str(p) for p in documents if p.name == "report.md"), str(out))
    return written, summary_text(table, marks.metric, list(sweep.swept), report)


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rag-bench report",
        description="Summarise a sweep folder: one row per point, the best point and its ties, plots.",
    )
    parser.add_argument("sweep_dir", metavar="SWEEP_DIR", help="the folder a `rag-bench -m ...` sweep wrote")
    parser.add_argument("--metric", default=DEFAULT_METRIC, help=f"headline metric (default {DEFAULT_METRIC})")
    parser.add_argument("--out", help="write the report here (default: SWEEP_DIR)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level of the ties (default 0.05)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the tests and the dev/test split (default 0)")
    parser.add_argument(
        "--test-fraction", type=float, default=0.5, help="share of questions held out as test (default 0.5)"
    )
    return parser


def main(argv: list[str]) -> int:
    """``rag-bench report SWEEP_DIR [--metric ndcg@10] [--out DIR]``"""
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    options = ReportOptions(args.metric, args.alpha, args.seed, args.test_fraction)
    out = Path(args.out) if args.out else None
    written = report_sweep(Path(args.sweep_dir), out, options)
    report = next(p for p in written if p.name == "report.md")
    print(_headline(report))
    print("wrote:\n" + "\n".join(f"  {path}" for path in written))
    return 0


def _headline(report: Path) -> str:
    """The overview lines of report.md (what was swept, the best point, the dev/test choice)."""
    lines = report.read_text(encoding="utf-8").splitlines()
    return "\n".join(line[2:] for line in lines if line.startswith("- "))
