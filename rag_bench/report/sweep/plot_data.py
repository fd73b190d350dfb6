"""What every sweep plot reads (kept apart from ``plot_style.py`` so that reading it imports no matplotlib)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class PlotData:
    """What every plot reads: the marked summary table (``best``, ``diff_best``), the headline metric, swept columns."""

    table: pd.DataFrame
    metric: str
    swept: tuple[str, ...]
