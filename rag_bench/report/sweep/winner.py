"""The sweep's chosen point, re-runnable: ``winner.overrides`` holds the overrides that reproduce its configuration.

The chosen point is the dev/test choice when the sweep made one (chosen on dev questions, its honest
estimate on held-out test questions), else the best point on the headline metric. Its overrides come from
its own resolved config.yaml (``config.overrides.overrides_for``), so presets, swept and fixed settings are
all in it: ``rag-bench @SWEEP/winner.overrides`` runs it again as-is, and so does
``rag_bench.evaluate(..., overrides=read_overrides(path))`` from Python.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rag_bench.config.overrides import overrides_for
from rag_bench.core.files import write_text
from rag_bench.report.sweep.marks import Marks
from rag_bench.run_folder.read import RunFolder

WINNER = "winner.overrides"


def chosen_point(table: pd.DataFrame, marks: Marks) -> tuple[str, str] | None:
    """(point, why it was chosen), or None when no point is best (nothing measured)."""
    if marks.choice is not None:
        return str(marks.choice.point), f"chosen on the {marks.choice.n_dev} dev questions by {marks.metric}"
    best = table[table["best"]]
    return (str(best.iloc[0]["point"]), f"best on {marks.metric}") if len(best) else None


def write_winner(sweep_dir: Path, table: pd.DataFrame, marks: Marks, out_dir: Path) -> Path | None:
    """Write ``winner.overrides`` for the chosen point into ``out_dir``; its path, or None without a choice."""
    chosen = chosen_point(table, marks)
    if chosen is None:
        return None
    point, why = chosen
    path = out_dir / WINNER
    lines = overrides_for(RunFolder(Path(sweep_dir) / point).config)
    head = [f"# point #{point} of {sweep_dir}: {why}", f"# run it again: rag-bench @{path}"]
    return write_text(path, "\n".join([*head, *lines]) + "\n")
