"""A sweep's report as ``report.md`` and ``report.html`` (self-contained: plots inlined as base64 PNG).

The report is built once as a list of blocks (heading, paragraph, list, table, image) and
rendered twice, so the Markdown and HTML versions say the same thing.
"""

from __future__ import annotations

import base64
import html
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from rag_bench.report.sweep import Marks, SweepTable

SHOWN_METRICS = ("recall@5", "recall@10", "mrr@10", "ndcg@10")  # beside the headline metric, when measured
CAPTIONS = {
    "metric_vs_chunk_size.png": "Metric vs chunk size",
    "recall_vs_k.png": "Recall@k vs k",
    "metric_vs_dimension.png": "Metric vs embedding dimension, with index size",
    "metric_vs_rerank_depth.png": "Metric vs rerank depth",
    "quality_vs_cost.png": "Quality vs cost, Pareto front marked",
}


@dataclass(frozen=True)
class Block:
    """One piece of the report: kind is h1, h2, p, ul, table or img."""

    kind: str
    text: str = ""
    items: tuple = ()  # ul: lines; table: (header, *rows) of cells; img: (path relative to the report,)
    bold_rows: frozenset[int] = frozenset()  # table rows (0 = first data row) shown in bold


def build(sweep: SweepTable, marks: Marks, table: pd.DataFrame, plots: list[Path], out_dir: Path) -> list[Block]:
    """The report's blocks: overview, summary table sorted by the headline metric, plots."""
    ranked = table.sort_values(marks.metric, ascending=False, kind="stable", na_position="last")
    header, rows = summary_rows(ranked, marks.metric, list(sweep.swept))
    bold = frozenset(i for i, best in enumerate(ranked["best"]) if best)
    blocks = [
        Block("h1", f"Sweep report: {sweep.folder.name or sweep.folder}"),
        Block("ul", items=tuple(overview(sweep, marks, table))),
        Block("h2", f"Summary (sorted by {marks.metric})"),
        Block(
            "p",
            "best = highest mean; tie = not significantly worse than the best (one-sided paired "
            "sign-flip test on per-question scores, Holm-corrected, alpha 0.05). Every column, every "
            "metric and its interval: summary.csv and summary.parquet.",
        ),
        Block("table", items=(header, *rows), bold_rows=bold),
    ]
    if plots:
        blocks.append(Block("h2", "Plots"))
    for path in plots:
        blocks.append(Block("img", CAPTIONS.get(path.name, path.stem), items=(path.relative_to(out_dir).as_posix(),)))
    return blocks


def overview(sweep: SweepTable, marks: Marks, table: pd.DataFrame) -> list[str]:
    """What was swept, counts, the best point and its ties, the dev/test choice, notes."""
    datasets = ", ".join(str(d) for d in table["dataset"].dropna().unique())
    questions = ", ".join(str(int(n)) for n in table["n_questions"].dropna().unique())
    lines = [f"{len(table)} points on {datasets or 'unknown dataset'} ({questions} questions scored per point)"]
    if sweep.unfinished:
        lines.append(f"{len(sweep.unfinished)} unfinished points (no metrics.json): {', '.join(sweep.unfinished)}")
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
    lines.append(
        f"work: {_count(table['embedded'].sum())} texts embedded, {_count(table['cache_hits'].sum())} served from the "
        f"cache, {table['seconds'].sum():.1f} s in all, estimated API cost ${table['cost_usd'].fillna(0).sum():.4f}"
    )
    return lines + list(marks.notes)


def summary_rows(ranked: pd.DataFrame, metric: str, swept: list[str]) -> tuple[list[str], list[list[str]]]:
    """Header and formatted rows of the report's table."""
    others = [m for m in SHOWN_METRICS if m != metric and m in ranked]
    extras = [
        ("mean_chunk_chars", "mean chunk chars", _count),
        ("tokens", "tokens", _count),
        ("cost_usd", "cost (USD)", lambda v: f"{v:.4f}"),
    ]
    extras = [(c, name, fmt) for c, name, fmt in extras if ranked[c].fillna(0).gt(0).any()]
    # which retriever produced each point, when that says more than retrieval.mode (a run file, a service, a fusion)
    named = "retriever" in ranked and (ranked["retriever"].astype(str) != ranked["retrieval.mode"].astype(str)).any()
    header = [
        "",
        "point",
        *(["retriever"] if named else []),
        *swept,
        metric,
        "95% interval",
        *others,
        "chunks",
        "index size",
        "seconds",
        "embedded",
        "cache hits",
        *(name for _, name, _ in extras),
        "p (Holm)",
    ]
    rows = []
    for _, row in ranked.iterrows():
        mark = "best" if row["best"] else "tie" if row["tied"] else ""
        interval = f"[{_number(row[f'{metric}_low'])}, {_number(row[f'{metric}_high'])}]"
        rows.append(
            [
                mark,
                f"#{row['point']}",
                *([_cell(row["retriever"])] if named else []),
                *(_cell(row[c]) for c in swept),
                _number(row[metric]),
                interval,
                *(_number(row[m]) for m in others),
                _count(row["chunks"]),
                _bytes(row["index_bytes"]),
                f"{row['seconds']:.2f}",
                _count(row["embedded"]),
                _count(row["cache_hits"]),
                *(fmt(row[c]) for c, _, fmt in extras),
                _number(row["p_holm"]),
            ]
        )
    return header, rows


def to_markdown(blocks: list[Block]) -> str:
    out = []
    for block in blocks:
        if block.kind in ("h1", "h2"):
            out.append(f"{'#' * int(block.kind[1])} {block.text}")
        elif block.kind == "p":
            out.append(block.text)
        elif block.kind == "ul":
            out.append("\n".join(f"- {line}" for line in block.items))
        elif block.kind == "table":
            header, *rows = block.items
            lines = [_md_row(header), "|" + "---|" * len(header)]
            lines += [_md_row([f"**{c}**" if c and i in block.bold_rows else c for c in r]) for i, r in enumerate(rows)]
            out.append("\n".join(lines))
        elif block.kind == "img":
            out.append(f"### {block.text}\n\n![{block.text}]({block.items[0]})")
    return "\n\n".join(out) + "\n"


def to_html(blocks: list[Block], out_dir: Path) -> str:
    """One self-contained page: inline CSS, plots as data: URIs."""
    body = []
    for block in blocks:
        if block.kind in ("h1", "h2", "p"):
            body.append(f"<{block.kind}>{html.escape(block.text)}</{block.kind}>")
        elif block.kind == "ul":
            body.append("<ul>" + "".join(f"<li>{html.escape(line)}</li>" for line in block.items) + "</ul>")
        elif block.kind == "table":
            header, *rows = block.items
            head = "".join(f"<th>{html.escape(c)}</th>" for c in header)
            cells = [
                f"<tr{' class=best' if i in block.bold_rows else ''}>"
                + "".join(f"<td>{html.escape(c)}</td>" for c in row)
                + "</tr>"
                for i, row in enumerate(rows)
            ]
            table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(cells)}</tbody></table>"
            body.append(f"<div class=scroll>{table}</div>")
        elif block.kind == "img":
            data = base64.b64encode((out_dir / block.items[0]).read_bytes()).decode("ascii")
            body.append(
                f'<h3>{html.escape(block.text)}</h3><img alt="{html.escape(block.text)}" '
                f'src="data:image/png;base64,{data}">'
            )
    title = html.escape(blocks[0].text if blocks else "Sweep report")
    head = f"<head><meta charset=utf-8><title>{title}</title><style>{_CSS}</style></head>"
    return "<!doctype html>\n<html>" + head + "\n<body>\n" + "\n".join(body) + "\n</body></html>\n"


def write_documents(blocks: list[Block], out_dir: Path) -> list[Path]:
    """Write report.md and report.html into ``out_dir``."""
    md, page = out_dir / "report.md", out_dir / "report.html"
    md.write_text(to_markdown(blocks), encoding="utf-8")
    page.write_text(to_html(blocks, out_dir), encoding="utf-8")
    return [md, page]


_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}"
    "table{border-collapse:collapse;font-size:0.85em}th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}"
    "th{background:#f3f3f3}tr.best{font-weight:bold;background:#eef6ee}.scroll{overflow-x:auto}"
    "img{max-width:100%;border:1px solid #eee;margin-bottom:1.5em}"
)


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _setting(row: pd.Series, sweep: SweepTable) -> str:
    return ", ".join(f"{key}={_cell(row[key])}" for key in sweep.swept) or "the only setting"


def _interval(row: pd.Series, metric: str) -> str:
    return f"{metric} = {_number(row[metric])} [{_number(row[f'{metric}_low'])}, {_number(row[f'{metric}_high'])}]"


def _cell(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
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
