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
    """``summarise`` for each named column; columns of equal length share one set of draws (same seed).

    The same numbers as ``summarise`` column by column, to the last bit, in less time: equal columns
    are summarised once, and the resampled means of every length's columns come from ``bootstrap_means``.
    """
    out: dict[str, Summary] = {}
    by_length: dict[int, dict[bytes, list[str]]] = {}  # n -> column bytes -> names holding those values
    arrays: dict[bytes, np.ndarray] = {}
    for name, values in columns.items():
        values = np.ascontiguousarray(values, dtype=np.float64)
        key = values.tobytes()
        arrays[key] = values
        by_length.setdefault(len(values), {}).setdefault(key, []).append(name)
    for n, groups in by_length.items():
        keys = list(groups)
        if n == 0:
            summaries = [summarise(arrays[k], resamples, seed) for k in keys]
        else:
            stacked = np.stack([arrays[k] for k in keys], axis=1)  # (n, distinct columns)
            means = bootstrap_means(stacked, bootstrap_draws(n, resamples, seed))  # (resamples, distinct columns)
            summaries = [_summary(arrays[k], means[:, j]) for j, k in enumerate(keys)]
        for key, summary in zip(keys, summaries, strict=True):
            out.update(dict.fromkeys(groups[key], summary))
    return {name: out[name] for name in columns}


DYADIC_BITS = 20  # a value that is a multiple of 2**-20 (0/1 hits, halves ...) sums exactly in any order
BLOCK = 32  # resamples per block: a block's draws and gathered values stay in the cache
COUNT_BLOCK = 256  # resamples per product of draw counts (a (256, n) matrix: 20 MB at 10k questions)


def bootstrap_means(values: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """(resamples, m) means of ``values`` (n, m) over each row of ``draws`` (resamples, n), equal to the bit
    to ``values[draws, j].mean(axis=1)`` for every column j.

    A column whose values are multiples of 2**-DYADIC_BITS (hits, recalls over few spans) has exact partial
    sums in any order, so its resampled sums are one product with the draw counts (resamples, n); any other
    column is gathered and averaged as ``summarise`` does (same pairwise summation per row), a block of
    resamples at a time.
    """
    n, m = values.shape
    scaled = values * float(2**DYADIC_BITS)
    exact = np.all(scaled == np.floor(scaled), axis=0) & (np.abs(scaled).sum(axis=0) < 2.0**52)  # (m,)
    out = np.empty((draws.shape[0], m))
    dyadic, other = np.flatnonzero(exact), np.flatnonzero(~exact)
    columns = [np.ascontiguousarray(values[:, j]) for j in other]
    if dyadic.size:
        exact_values = values[:, dyadic]
        for start in range(0, draws.shape[0], COUNT_BLOCK):
            block = draws[start : start + COUNT_BLOCK]  # (b, n)
            cells = (np.arange(block.shape[0])[:, None] * n + block).ravel()
            counts = np.bincount(cells, minlength=block.size).reshape(block.shape).astype(np.float64)  # (b, n) draws
            out[start : start + COUNT_BLOCK, dyadic] = (counts @ exact_values) / n
    for start in range(0, draws.shape[0], BLOCK):
        block = draws[start : start + BLOCK]  # (b, n)
        for j, column in zip(other, columns, strict=True):
            out[start : start + BLOCK, j] = column[block].mean(axis=1)
    return out


def _summary(values: np.ndarray, means: np.ndarray) -> Summary:
    """``summarise``'s result from the column and its resampled means."""
    n = len(values)
    stderr = float(values.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0
    low, high = np.quantile(means, [0.025, 0.975])
    return Summary(float(values.mean()), stderr, float(low), float(high), n)
