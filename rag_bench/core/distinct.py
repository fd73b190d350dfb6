"""Converting a float column value by value, each distinct value once (a column of metrics or scores holds
few distinct values among many rows)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def each_distinct(values: np.ndarray, convert: Callable[[np.ndarray], object]) -> np.ndarray:
    """(n,) object: ``convert`` (an array in, a sequence of the same length out) applied to ``values`` (n,)
    float64, each distinct value converted once. ``np.unique`` takes -0.0 for 0.0, so a column holding -0.0
    is converted whole; NaNs are one distinct value, converted once."""
    if (values == 0).any() and np.signbit(values[values == 0]).any():
        return _objects(convert(values))
    distinct, at = np.unique(values, return_inverse=True)
    return _objects(convert(distinct))[at.reshape(-1)]


def _objects(converted: object) -> np.ndarray:
    out = np.empty(len(converted), dtype=object)  # not np.array: it would make a text or float array
    out[:] = converted
    return out
