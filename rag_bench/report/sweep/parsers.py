"""A sweep over the parse stage (``parser=...``, ``parser.repeated``, ``parser.duplicates`` ...): its own table.

Points are ranked by recall at the report's k (recall@10 when measured), then by evidence survival
(``survival``: the share of evidence characters the parse kept), both higher first; beside them, the
excerpts the parse lost, the files it parsed or served from the parse cache, its seconds, the repeated
lines cleaning removed, the near-duplicates found and the files it could not read (named).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rag_bench.report.blocks import Block
from rag_bench.report.sweep.work import number

PARSE_COLUMNS = {  # table column -> the key of metrics.json stats.parse
    "evidence_lost": "evidence_lost",
    "files_parsed": "files_parsed",
    "files_from_cache": "files_from_cache",
    "parse_seconds": "parse_seconds",
    "repeated_lines_removed": "repeated_lines_removed",
    "near_duplicates": "near_duplicates",
}


def parse_columns(stats: dict) -> dict[str, object]:
    """A point's parse columns from its ``stats`` (NaN where the run recorded none)."""
    parse = stats.get("parse") or {}
    out: dict[str, object] = {column: number(parse.get(key)) for column, key in PARSE_COLUMNS.items()}
    out["files_failed"] = "; ".join(parse.get("files_failed") or []) or None
    return out


def recall_metric(table: pd.DataFrame) -> str | None:
    """recall@10 when measured, else recall at the largest k measured, else None."""
    ks = sorted(int(c.split("@")[1]) for c in table.columns if c.startswith("recall@") and c.split("@")[1].isdigit())
    return None if not ks else "recall@10" if 10 in ks else f"recall@{ks[-1]}"


def parser_blocks(table: pd.DataFrame, swept: list[str]) -> list[Block]:
    """The parse table, when the sweep varied a parser setting; else nothing."""
    keys = [k for k in swept if k == "parser" or k.startswith("parser.")]
    recall = recall_metric(table)
    if not keys or recall is None:
        return []
    order = [c for c in (recall, "survival") if c in table]
    ranked = table.sort_values(order, ascending=False, kind="stable", na_position="last")
    header = ["point", *keys, recall, "survival", "excerpts lost", "files parsed", "from cache", "parse s",
              "lines removed", "near-duplicates"]  # fmt: skip
    rows = [
        [
            f"#{row['point']}",
            *(str(row[k]) for k in keys),
            _n(row.get(recall), 3),
            _n(row.get("survival"), 3),
            *(_n(row.get(c), 0) for c in ("evidence_lost", "files_parsed", "files_from_cache")),
            _n(row.get("parse_seconds"), 2),
            *(_n(row.get(c), 0) for c in ("repeated_lines_removed", "near_duplicates")),
        ]
        for _, row in ranked.iterrows()
    ]
    blocks = [
        Block("h2", f"Parsers and cleaning (ranked by {recall}, then evidence survival)"),
        Block(
            "p",
            "survival = share of evidence characters the parse kept (an excerpt it cannot locate is lost by the "
            "parser, a miss for every metric); files parsed = read by their reader in this run, from cache = "
            "served from the parse cache (a point that reused the loaded dataset shows 0 and 0); lines removed = "
            "repeated lines (running headers, footers, menus) removed by parser.repeated.",
        ),
        Block("table", items=(header, *rows)),
    ]
    failed = [
        f"#{row['point']}: {row['files_failed']}"
        for _, row in ranked.iterrows()
        if isinstance(row.get("files_failed"), str)
    ]
    if failed:
        blocks.append(Block("ul", items=tuple(f"files left out: {line}" for line in failed)))
    return blocks


def _n(value: object, digits: int) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "-"
    return f"{float(value):,.{digits}f}"
