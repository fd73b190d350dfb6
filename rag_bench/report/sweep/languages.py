"""Per-language columns of a sweep's points, and the report's table of them (``metrics.json`` ``by_language``).

Each point's language groups (``score/languages.py``: languages, then ``cross-language``) become columns
``<metric> [<group>]`` of the summary table, and the report shows the headline metric per group, one
row per point in the summary's order, so a mixed corpus shows where each language stands at every point.
"""

from __future__ import annotations

import pandas as pd

from rag_bench.report.blocks import Block

CROSS = "cross-language"


def language_columns(metrics: dict) -> dict[str, float | None]:
    """``{"<metric> [<group>]": mean}`` of one point's metrics.json, and ``n [<group>]`` its questions."""
    row: dict[str, float | None] = {}
    for group, values in (metrics.get("by_language") or {}).items():
        row[f"n [{group}]"] = values.get("n")
        row.update({f"{name} [{group}]": mean for name, mean in values.get("metrics", {}).items()})
    return row


def groups_of(table: pd.DataFrame) -> list[str]:
    """The language groups some point has, languages first and cross-language last."""
    found = {c[len("n [") : -1] for c in table.columns if c.startswith("n [") and c.endswith("]")}
    return sorted(found, key=lambda g: (g == CROSS, g))


def language_blocks(ranked: pd.DataFrame, metric: str, points: list, settings: list[str], cell) -> list[Block]:
    """The per-language table of ``metric`` (rows in ``ranked``'s order; ``points`` and ``settings`` their cells)."""
    groups = [g for g in groups_of(ranked) if f"{metric} [{g}]" in ranked]
    if not groups:
        return []
    counts = {g: ranked[f"n [{g}]"].dropna() for g in groups}
    header = ["point", "setting", *(f"{g} (n={int(counts[g].iloc[0])})" if len(counts[g]) else g for g in groups)]
    rows = [
        [point, setting, *(cell(row[f"{metric} [{g}]"]) for g in groups)]
        for point, setting, (_, row) in zip(points, settings, ranked.iterrows(), strict=True)
    ]
    note = (
        f"{metric} over each language's questions (question and evidence in that language), and over the "
        "cross-language ones (question in one language, evidence in another); languages as the dataset gives them."
    )
    return [Block("h2", f"Per language ({metric})"), Block("p", note), Block("table", items=(header, *rows))]
