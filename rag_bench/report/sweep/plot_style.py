"""What every sweep plot shares: its input, figure and legend style, and how settings are labelled."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

MAX_LINES = 8  # curves per plot; the configurations with the highest metric are kept
SIZE = (8.5, 5.0)  # inches
DPI = 120
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*")  # one per line, so lines that cross stay apart in grey print
# labels are plain text, never mathtext: "$" in a dataset name or swept value ("a$$b") is drawn as written,
# where mathtext would read it as a formula (and fail on "$$")
PLAIN_TEXT = {"text.parse_math": False}


def figure(size: tuple[float, float] = SIZE, columns: int = 1) -> tuple[Figure, list[Axes]]:
    """A figure of ``columns`` side-by-side axes sharing the y-axis, grid on."""
    fig = Figure(figsize=size)
    axes = fig.subplots(1, columns, sharey=True, squeeze=False)[0]
    for ax in axes:
        ax.grid(True, alpha=0.3)
    return fig, list(axes)


def legend(ax: Axes, title: str | None = None, handles: list | None = None, labels: list | None = None) -> None:
    """Legend to the right of the axes, outside the data."""
    extra = {} if handles is None else {"handles": handles, "labels": labels}
    ax.legend(
        loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, title=title, title_fontsize=8, frameon=False, **extra
    )


def point_label(row: pd.Series, swept: tuple[str, ...]) -> str:
    """``#3: chunker.size=400, retrieval=bm25``."""
    text = setting(row, [c for c in swept if c in row.index])
    return f"#{row['point']}: {text}" if text else f"#{row['point']}"


def setting(row: pd.Series, columns: list[str]) -> str:
    return ", ".join(f"{c}={value(row[c])}" for c in columns)


def value(item: object) -> str:
    """A parameter value as the user wrote it: 400 not 400.0, null (a missing value) not nan."""
    if item is None:
        return "null"
    if isinstance(item, float):
        if item != item:  # NaN: the setting was null
            return "null"
        return str(int(item)) if item.is_integer() else f"{item:g}"
    return str(item)


def byte_unit(largest: float) -> tuple[float, str]:
    """The scale and unit to show byte counts up to ``largest`` in."""
    for scale, unit in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if largest >= scale:
            return float(scale), unit
    return 1.0, "bytes"
