"""The sweep's summary on the console, printed once when a multirun ends: its points best first, as text."""

from __future__ import annotations

import pandas as pd

from rag_bench.report.sweep.document import summary_rows
from rag_bench.score.names import higher_is_better, parse_metric

SHOWN = 10  # points printed; the rest are in report.md


def summary_text(table: pd.DataFrame, metric: str, swept: list[str], report: str) -> str:
    """The quality table of ``report.md`` (best first, ``best``/``tie`` marks) as aligned plain text."""
    ranked = table.sort_values(metric, ascending=not higher_is_better(parse_metric(metric)), kind="stable")
    header, rows = summary_rows(ranked.head(SHOWN), metric, swept)
    cells = [[str(c) for c in header], *([str(c) for c in row] for row in rows)]
    widths = [max(len(line[i]) for line in cells) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip() for line in cells]
    more = len(table) - len(rows)
    return "\n".join([*lines, *([f"... {more} more points in {report}"] if more > 0 else [])])
