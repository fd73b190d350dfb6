"""Aggregates over questions: mean, standard error and a 95% bootstrap interval."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Summary:
    """Mean of per-question values with its uncertainty."""

    mean: float
    stderr: float
    ci_low: float
    ci_high: float
    n: int


def summarise(values: np.ndarray, resamples: int = 1000, seed: int = 0, draws: np.ndarray | None = None) -> Summary:
    """Mean, standard error (sample sd / sqrt(n)) and percentile bootstrap 95% interval.

    The bootstrap draws ``resamples`` samples of n questions with replacement from a
    generator seeded with ``seed``, so a run's intervals are reproducible.
    """
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if n == 0:
        return Summary(float("nan"), float("nan"), float("nan"), float("nan"), 0)
    mean = float(values.mean())
    stderr = float(values.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0
    if draws is None:
        draws = bootstrap_draws(n, resamples, seed)
    means = values[draws].mean(axis=1)  # (resamples,)
    low, high = np.quantile(means, [0.025, 0.975])
    return Summary(mean, stderr, float(low), float(high), n)


def bootstrap_draws(n: int, resamples: int, seed: int) -> np.ndarray:
    """(resamples, n) question indices drawn with replacement from a generator seeded with ``seed``."""
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def summarise_table(columns: dict[str, np.ndarray], resamples: int = 1000, seed: int = 0) -> dict[str, Summary]:
    """``summarise`` for each named column; columns of equal length share one set of draws (same seed)."""
    draws: dict[int, np.ndarray] = {}
    out = {}
    for name, values in columns.items():
        n = len(values)
        if n and n not in draws:
            draws[n] = bootstrap_draws(n, resamples, seed)
        out[name] = summarise(values, resamples, seed, draws.get(n))
    return out
