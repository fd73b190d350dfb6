"""A sweep's report as blocks (``blocks.py`` renders them as ``report.md`` and a self-contained ``report.html``).

Two tables share one order (the headline metric, best first by its direction: leak@k lowest first):
quality, with the paired difference from the best point and the Holm-corrected p-value beside the
metric, and the work each point did, so neither is wider than the page. Each point links to its own
report.html when it has one.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from rag_bench.report.blocks import Block, Link
from rag_bench.report.sweep.collect import SweepTable
from rag_bench.report.sweep.languages import language_blocks
from rag_bench.report.sweep.marks import DIFF, Marks
from rag_bench.report.sweep.parsers import parser_blocks
from rag_bench.report.sweep.winner import WINNER, chosen_point
from rag_bench.report.sweep.work import TRUNCATION_WARNING
from rag_bench.score.names import higher_is_better

SHOWN_METRICS = ("recall@5", "recall@10", "mrr@10", "ndcg@10")  # beside the headline metric, when measured
CAPTIONS = {
    "metric_vs_chunk_size.png": "Metric vs chunk size",
    "recall_vs_k.png": "Recall@k vs k",
    "metric_vs_dimension.png": "Metric vs embedding dimension, with index size",
    "metric_vs_rerank_depth.png": "Metric vs rerank depth",
    "quality_vs_cost.png": "Quality vs cost, Pareto front marked",
}


def build(sweep: SweepTable, marks: Marks, table: pd.DataFrame, plots: list[Path], out_dir: Path) -> list[Block]:
    """The report's blocks: overview, quality and work tables sorted by the headline metric, plots."""
    better = higher_is_better(marks.metric)
    ranked = table.sort_values(marks.metric, ascending=not better, kind="stable", na_position="last")
    links = point_links(sweep, ranked, out_dir)
    header, rows = summary_rows(ranked, marks.metric, list(sweep.swept), links)
    work_header, work = work_rows(ranked, links)
    bold = frozenset(i for i, best in enumerate(ranked["best"]) if best)
    blocks = [
        Block("h1", f"Sweep report: {sweep.folder.name or sweep.folder}"),
        Block("ul", items=tuple(overview(sweep, marks, table) + rerun_line(table, marks, out_dir))),
        Block("h2", f"Summary (sorted by {marks.metric})"),
        Block(
            "p",
            ("best = highest mean" if better else f"best = lowest mean ({marks.metric} is lower-is-better)")
            + "; tie = not significantly worse than the best (one-sided paired sign-flip test on "
            f"per-question scores, Holm-corrected, alpha {marks.alpha:g}); vs best = mean over questions of "
            f"(point - best) {marks.metric}, with its 95% paired bootstrap interval. Every column, every metric and "
            "its interval: summary.csv and summary.parquet.",
        ),
        Block("table", items=(header, *rows), bold_rows=bold),
        Block("h2", "Work per point (same order)"),
        Block(
            "p",
            "model input = characters the configuration sends to its models (chunks and questions embedded for a "
            "dense index, question and candidate per reranked pair), the same in any sweep order; seconds, embedded "
            "and cache hits are this run's, and depend on what earlier points left in the cache (a point served from "
            "the run cache, an earlier run of the same configuration on the same files, computed nothing).",
        ),
        Block("table", items=(work_header, *work), bold_rows=bold),
        *parser_blocks(table, list(sweep.swept)),
    ]
    settings = [_setting(row, sweep) for _, row in ranked.iterrows()]
    blocks += language_blocks(ranked, marks.metric, [_point(p, links) for p in ranked["point"]], settings, _number)
    if plots:
        blocks.append(Block("h2", "Plots"))
    for path in plots:
        blocks.append(Block("img", CAPTIONS.get(path.name, path.stem), items=(path.relative_to(out_dir).as_posix(),)))
    return blocks


def rerun_line(table: pd.DataFrame, marks: Marks, out_dir: Path) -> list[str]:
    """How to run the chosen point again (``winner.py``), or nothing without a choice."""
    chosen = chosen_point(table, marks)
    return [] if chosen is None else [f"re-run the chosen point #{chosen[0]} as it was: rag-bench @{out_dir / WINNER}"]


def point_links(sweep: SweepTable, table: pd.DataFrame, out_dir: Path) -> dict[str, str]:
    """Point -> ``<point>/report.html``, for points that have one, when the report is written into the sweep folder.

    Written elsewhere (``--out``), the report links nothing: a path back into the sweep folder would
    break as soon as either folder moves.
    """
    if out_dir.resolve() != sweep.folder.resolve():
        return {}
    return {p: f"{p}/report.html" for p in table["point"] if (sweep.folder / p / "report.html").is_file()}


def overview(sweep: SweepTable, marks: Marks, table: pd.DataFrame) -> list[str]:
    """What was swept, counts, the best point and its ties, the dev/test choice, notes."""
    datasets = ", ".join(str(d) for d in table["dataset"].dropna().unique())
    questions = ", ".join(str(int(n)) for n in table["n_questions"].dropna().unique())
    lines = [f"{len(table)} points on {datasets or 'unknown dataset'} ({questions} questions scored per point)"]
    if sweep.unfinished:
        lines.append(f"{len(sweep.unfinished)} unfinished points (no metrics.json): {', '.join(sweep.unfinished)}")
    if sweep.not_run:
        why = "; ".join(f"{label}: {reason}" for label, reason in sweep.not_run)
        lines.append(f"{len(sweep.not_run)} points not run (budget): {why}")
    swept = "; ".join(f"{key} = {', '.join(_cell(v) for v in values)}" for key, values in sweep.swept.items())
    lines.append(f"swept: {swept or 'nothing (every point has the same overrides)'}")
    if sweep.fixed:
        lines.append("same in every point: " + ", ".join(f"{k}={_cell(v)}" for k, v in sweep.fixed.items()))
    best = table[table["best"]]
    if len(best):
        row = best.iloc[0]
        lines.append(f"best on {marks.metric}: #{row['point']} ({_setting(row, sweep)}) {_interval(row, marks.metric)}")
        ties = [f"#{p}" for p in table.loc[table["tied"] & ~table["best"], "point"]]
        if marks.marks is not None:
            lines.append(f"not significantly worse than the best: {', '.join(ties) or 'none'}")
    if marks.choice is not None:
        c = marks.choice
        lines.append(
            f"chosen on the {c.n_dev} dev questions: #{c.point}; its {marks.metric} on the {c.n_test} held-out test "
            f"questions: {_number(c.test_mean)} [{_number(c.test_ci_low)}, {_number(c.test_ci_high)}] "
            "(the honest estimate: the best of many points on the same questions is optimistic)"
        )
    served = int(table["served"].sum()) if "served" in table else 0
    lines.append(
        f"work: {_count(table['embedded'].sum())} texts embedded, {_count(table['cache_hits'].sum())} vectors from the "
        "cache"
        + (f", {served} of {len(table)} points served whole from the run cache" if served else "")
        + f", {table['seconds'].sum():.1f} s in all, estimated API cost ${table['cost_usd'].fillna(0).sum():.4f}"
    )
    return lines + truncation_lines(table) + list(marks.notes)


def truncation_lines(table: pd.DataFrame) -> list[str]:
    """A warning for the points that embedded a share of their chunks truncated past ``TRUNCATION_WARNING``."""
    if "truncated_share" not in table:
        return []
    cut = table[table["truncated_share"] > TRUNCATION_WARNING]
    if cut.empty:
        return []
    points = ", ".join(f"#{p} ({share:.0%})" for p, share in zip(cut["point"], cut["truncated_share"], strict=True))
    return [
        f"warning: chunks longer than the embedder's input were embedded truncated in {len(cut)} points: {points}; "
        "their dense numbers see only each chunk's start. Measure chunks in the embedder's tokens "
        "(chunker.unit=tokens) so none is cut"
    ]


def summary_rows(
    ranked: pd.DataFrame, metric: str, swept: list[str], links: dict[str, str] | None = None
) -> tuple[list[str], list[list[object]]]:
    """Header and formatted rows of the quality table."""
    others = [m for m in SHOWN_METRICS if m != metric and m in ranked]
    if "returned_chars" in ranked and ranked["returned_chars"].notna().any():  # units of different sizes returned:
        others += [m for m in _largest_budget(ranked) if m != metric]  # show recall per context size beside recall@k
    # which retriever produced each point, when that says more than retrieval.mode (a run file, a service, a fusion)
    named = (
        "retriever" in ranked
        and "retrieval.mode" in ranked
        and (ranked["retriever"].astype(str) != ranked["retrieval.mode"].astype(str)).any()
    )
    header = [
        "",
        "point",
        *(["retriever"] if named else []),
        *swept,
        metric,
        "95% interval",
        "vs best [95%]",
        "p (Holm)",
        *others,
    ]
    rows = []
    for _, row in ranked.iterrows():
        mark = "best" if row["best"] else "tie" if row["tied"] else ""
        interval = f"[{_number(row[f'{metric}_low'])}, {_number(row[f'{metric}_high'])}]"
        rows.append(
            [
                mark,
                _point(row["point"], links or {}),
                *([_cell(row["retriever"])] if named else []),
                *(_cell(row[c]) for c in swept),
                _number(row[metric]),
                interval,
                _difference(row),
                p_value(row["p_holm"]),
                *(_number(row[m]) for m in others),
            ]
        )
    return header, rows


def _largest_budget(ranked: pd.DataFrame) -> list[str]:
    """``recall@<N>chars`` at the largest budget the sweep measured (none: [])."""
    budgets = [c for c in ranked.columns if c.startswith("recall@") and c.endswith("chars") and c[7:-5].isdigit()]
    return [max(budgets, key=lambda c: int(c[7:-5]))] if budgets else []


def work_rows(ranked: pd.DataFrame, links: dict[str, str] | None = None) -> tuple[list[str], list[list[object]]]:
    """Header and formatted rows of the work table (columns no point has are left out)."""
    optional = [
        ("mean_chunk_chars", "mean chunk chars", _count),
        ("returned_chars", "chars returned (top report_k)", _count),
        ("work_chars", "model input (chars)", _count),
        ("work_cost_usd", "API cost of the configuration (USD)", lambda v: _money(v)),
        ("index_cost_usd", "index cost (USD, once)", lambda v: _money(v)),
        ("cost_per_1k_questions", "cost per 1,000 questions (USD)", lambda v: _money(v)),
        ("embed_seconds", "embedding s", lambda v: "-" if pd.isna(v) else f"{float(v):.2f}"),
        ("tokens", "tokens billed", _count),
        ("cost_usd", "cost billed (USD)", lambda v: _money(v)),
        ("served", "served from the run cache", lambda v: "yes" if v else ""),
    ]
    optional = [(c, name, fmt) for c, name, fmt in optional if c in ranked and ranked[c].fillna(0).gt(0).any()]
    header = ["point", "chunks", "index size", *(name for _, name, _ in optional), "seconds", "embedded", "cache hits"]
    rows = [
        [
            _point(row["point"], links or {}),
            _count(row["chunks"]),
            _bytes(row["index_bytes"]),
            *(fmt(row[c]) for c, _, fmt in optional),
            f"{row['seconds']:.2f}",
            _count(row["embedded"]),
            _count(row["cache_hits"]),
        ]
        for _, row in ranked.iterrows()
    ]
    return header, rows


def _point(point: str, links: dict[str, str]) -> object:
    return Link(f"#{point}", links[point]) if point in links else f"#{point}"


def _difference(row: pd.Series) -> str:
    """``-0.012 [-0.030, 0.004]``: the paired difference from the best point, or - when the points were not paired."""
    if pd.isna(row.get(DIFF)):
        return "-"
    if row["best"]:
        return "0 (the best)"
    return f"{_signed(row[DIFF])} [{_signed(row[f'{DIFF}_low'])}, {_signed(row[f'{DIFF}_high'])}]"


def _signed(value: float) -> str:
    text = f"{float(value):+.3f}"
    return "0.000" if text in ("+0.000", "-0.000") else text


def p_value(value: object) -> str:
    """A p-value as the gate prints it: 3 decimals, ``<0.001`` below that, - when untested."""
    if value is None or pd.isna(value):
        return "-"
    return "<0.001" if float(value) < 0.001 else f"{float(value):.3f}"


def _money(value: object) -> str:
    return "-" if value is None or pd.isna(value) else f"{float(value):.4f}"


def _setting(row: pd.Series, sweep: SweepTable) -> str:
    return ", ".join(f"{key}={_cell(row[key])}" for key in sweep.swept) or "the only setting"


def _interval(row: pd.Series, metric: str) -> str:
    return f"{metric} = {_number(row[metric])} [{_number(row[f'{metric}_low'])}, {_number(row[f'{metric}_high'])}]"


def _cell(value: object) -> str:
    """A parameter value as the user wrote it: 400 not 400.0, null for a null (missing) setting."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "null"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:g}"
    return str(value)


def _number(value: object) -> str:
    return "-" if value is None or pd.isna(value) else f"{float(value):.3f}"


def _count(value: object) -> str:
    return "-" if value is None or pd.isna(value) else f"{float(value):,.0f}"


def _bytes(value: object) -> str:
    if value is None or pd.isna(value):
        return "-"
    for scale, unit in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if value >= scale:
            return f"{value / scale:.1f} {unit}"
    return f"{int(value)} B"
