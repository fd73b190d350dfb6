"""Aggregates over questions: mean, standard error and a 95% bootstrap interval."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
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
    blocks = draw_blocks(n, resamples, seed) if draws is None else draws
    means = bootstrap_means(values[:, None], blocks)[:, 0]  # (resamples,): values[draws].mean(axis=1), to the bit
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
            means = bootstrap_means(stacked, draw_blocks(n, resamples, seed))  # (resamples, distinct columns)
            summaries = [_summary(arrays[k], means[:, j]) for j, k in enumerate(keys)]
        for key, summary in zip(keys, summaries, strict=True):
            out.update(dict.fromkeys(groups[key], summary))
    return {name: out[name] for name in columns}


DYADIC_BITS = 20  # a value that is a multiple of 2**-20 (0/1 hits, halves ...) sums exactly in any order
GATHERED = 80_000  # values drawn, counted or gathered at once (0.64 MB of float64 or int64: they stay in cache)
BLOCK = 8  # resamples per block at least (8 at n = 10,000 questions; more as n is smaller: ``rows_per_block``)


def rows_per_block(n: int) -> int:
    """Resamples drawn and averaged together for n questions: about ``GATHERED`` draws, at least ``BLOCK``
    rows (at 1,000 questions 80 rows, not 8: ten times fewer steps, each as large)."""
    return max(BLOCK, GATHERED // max(n, 1))


def draw_blocks(n: int, resamples: int, seed: int, block: int | None = None) -> Iterator[np.ndarray]:
    """``bootstrap_draws(n, resamples, seed)`` a block of rows at a time: (b, n) arrays, b <= ``block``
    (default ``rows_per_block(n)``).

    One generator draws every block in turn, so the blocks stacked are that matrix to the last index
    (numpy's bounded integers keep no state between calls but the bit generator's, and
    tests/score/test_bootstrap_means.py checks the equality on many seeds and sizes); the whole
    (resamples, n) matrix, 80 MB at 10,000 questions, is never held at once.
    """
    rng = np.random.default_rng(seed)
    block = rows_per_block(n) if block is None else block
    for start in range(0, resamples, block):
        yield rng.integers(0, n, size=(min(block, resamples - start), n))


def bootstrap_means(values: np.ndarray, draws: np.ndarray | Iterable[np.ndarray]) -> np.ndarray:
    """(resamples, m) means of ``values`` (n, m) over each row of ``draws`` (resamples, n), equal to the bit
    to ``values[draws, j].mean(axis=1)`` for every column j; ``draws`` may come as blocks of rows
    (``draw_blocks``).

    A column whose values are multiples of 2**-DYADIC_BITS (hits, recalls over few spans) has exact partial
    sums in any order, so its resampled sums are one product with the draw counts (b, n) of a block; any
    other column is gathered and averaged as ``summarise`` does (same pairwise summation over each row of
    n values), a block of resamples at a time, into buffers reused from block to block.
    """
    n, m = values.shape
    scaled = values * float(2**DYADIC_BITS)
    # exact: every partial sum of n draws is a multiple of 2**-20 below 2**53 * 2**-20, so no rounding
    # (-0.0 left out: a sum of them is -0.0, a product with counts summed from +0.0 is not)
    exact = np.all(scaled == np.floor(scaled), axis=0) & (n * np.abs(scaled).max(axis=0, initial=0.0) < 2.0**53)
    exact &= ~np.any((values == 0) & np.signbit(values), axis=0)
    dyadic, other = np.flatnonzero(exact), np.flatnonzero(~exact)
    exact_values = np.ascontiguousarray(values[:, dyadic])
    rows = np.ascontiguousarray(values[:, other].T)  # (other columns, n): each gathered a block at a time
    blocks = draws
    if isinstance(draws, np.ndarray):
        step = rows_per_block(n)
        blocks = (draws[s : s + step] for s in range(0, len(draws), step))
    parts, space = [], np.empty(0)  # space: one block's counts, then its gathered values
    for block in blocks:  # (b, n)
        b = block.shape[0]
        out = np.empty((b, m))
        together = max(1, GATHERED // max(1, b * n))  # columns gathered at once: within GATHERED values, or one
        size = b * n * min(together, max(1, len(other)))
        space = space if space.size >= size else np.empty(size)
        if dyadic.size:
            cells = (np.arange(b)[:, None] * n + block).ravel()
            counts = space[: b * n].reshape(b, n)
            counts[...] = np.bincount(cells, minlength=b * n).reshape(b, n)  # (b, n) draws of each question
            out[:, dyadic] = np.einsum("bn,nm->bm", counts, exact_values) / n  # numpy's own loop: no BLAS threads
        for at in range(0, len(other), together):
            group = rows[at : at + together]
            gathered = space[: len(group) * b * n].reshape(len(group), b, n)
            np.take(group, block, axis=1, out=gathered, mode="clip")  # every index is in range: clip changes none
            # each (column, resample) row summed pairwise along its n values, as ndarray.mean sums it, then / n
            out[:, other[at : at + together]] = (np.add.reduce(gathered, axis=2) / n).T
        parts.append(out)
    return np.concatenate(parts) if parts else np.empty((0, m))


def _summary(values: np.ndarray, means: np.ndarray) -> Summary:
    """``summarise``'s result from the column and its resampled means."""
    n = len(values)
    stderr = float(values.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0
    low, high = np.quantile(means, [0.025, 0.975])
    return Summary(float(values.mean()), stderr, float(low), float(high), n)
