"""Paired tests on per-question scores: sign-flip permutation p-values, intervals, Holm.

Sign-flip permutation test (Fisher's randomisation test for paired data; Good,
*Permutation, Parametric and Bootstrap Tests of Hypotheses*, 2005, ch. 3). With
per-question differences d_i (i = 1..n) and the statistic T = sum_i d_i, under the
null hypothesis that each d_i is as likely to be -d_i (the two systems are
exchangeable on every question), every sign vector s in {-1, +1}^n is equally likely:

    p_greater   = #{s : sum_i s_i d_i >= T} / 2^n
    p_less      = #{s : sum_i s_i d_i <= T} / 2^n
    p_two_sided = #{s : |sum_i s_i d_i| >= |T|} / 2^n

Questions with d_i = 0 do not change any sum, so they are dropped first. When at most
``EXACT_MAX`` (16) differences are non-zero all 2^n sign vectors are enumerated (the exact
p-value); otherwise ``resamples`` (10,000) sign vectors are drawn from a generator seeded
with ``seed`` and p = (1 + hits) / (1 + resamples) (Phipson & Smyth, 2010), which is never 0.

Interval of the mean difference: a percentile paired bootstrap (questions resampled with
replacement, the same questions for both systems), seeded, from
``rag_bench.score.aggregate.summarise``.

Holm step-down correction (Holm, 1979): with the m p-values sorted p_(1) <= ... <= p_(m),
    adjusted p_(i) = max_{j <= i} min(1, (m - j + 1) * p_(j)).

Smallest detectable drop of a one-sided paired test at level alpha with power 1 - beta (the normal
approximation of the mean difference's test; e.g. Chow, Shao & Wang, *Sample Size Calculations in
Clinical Research*, 2008, section 3.1):

    delta_min = (z_{1-alpha} + z_{1-beta}) * sd(d) / sqrt(n),   and the questions a drop delta needs:
    n = ((z_{1-alpha} + z_{1-beta}) * sd(d) / delta)^2

With alpha 0.05 and power 0.8, z_{0.95} + z_{0.8} = 1.645 + 0.842 = 2.486.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from rag_bench.score.aggregate import summarise

EXACT_MAX = 16
RESAMPLES = 10_000
ALTERNATIVES = ("greater", "less", "two-sided")
_TOLERANCE = 1e-9  # sums equal up to float rounding count as ties (ties count as "as extreme")


@dataclass(frozen=True)
class PairedTest:
    """Paired comparison of current vs baseline: mean of current - baseline, its interval, p-value."""

    n: int
    baseline: float
    current: float
    delta: float
    ci_low: float
    ci_high: float
    p_value: float


def sign_flip_pvalue(
    diff: np.ndarray, alternative: str = "greater", resamples: int = RESAMPLES, seed: int = 0
) -> float:
    """P-value of the paired sign-flip permutation test of mean(diff) (formulas in the module docstring)."""
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative ({alternative!r}) must be one of {', '.join(ALTERNATIVES)}")
    d = np.asarray(diff, dtype=np.float64)
    d = d[d != 0.0]  # (n_nonzero,)
    if len(d) == 0:
        return 1.0
    observed = float(d.sum())
    if len(d) <= EXACT_MAX:
        sums = _all_sign_sums(d)
        return float(_count_extreme(sums, observed, alternative) / len(sums))
    rng = np.random.default_rng(seed)
    signs = rng.integers(0, 2, size=(resamples, len(d)), dtype=np.int8) * 2 - 1  # (resamples, n) of +-1
    sums = signs @ d  # (resamples,)
    return float((1 + _count_extreme(sums, observed, alternative)) / (1 + resamples))


def _all_sign_sums(d: np.ndarray) -> np.ndarray:
    """sum_i s_i d_i for all 2^n sign vectors s; row r takes s_i = +1 where bit i of r is set."""
    bits = (np.arange(2 ** len(d))[:, None] >> np.arange(len(d))) & 1  # (2^n, n) of 0/1
    return (bits * 2 - 1) @ d  # (2^n,)


def _count_extreme(sums: np.ndarray, observed: float, alternative: str) -> int:
    tol = _TOLERANCE * max(1.0, abs(observed))
    if alternative == "greater":
        return int(np.count_nonzero(sums >= observed - tol))
    if alternative == "less":
        return int(np.count_nonzero(sums <= observed + tol))
    return int(np.count_nonzero(np.abs(sums) >= abs(observed) - tol))


def paired_test(
    baseline: np.ndarray,
    current: np.ndarray,
    alternative: str = "less",
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> PairedTest:
    """Means, delta = mean(current - baseline) with its 95% bootstrap interval, sign-flip p-value.

    ``alternative`` is about current relative to baseline: "less" tests for a drop.
    """
    base = np.asarray(baseline, dtype=np.float64)
    cur = np.asarray(current, dtype=np.float64)
    if base.shape != cur.shape:
        raise ValueError(f"paired arrays differ in shape: {base.shape} vs {cur.shape}")
    diff = cur - base  # (n,)
    interval = summarise(diff, resamples=resamples, seed=seed)
    return PairedTest(
        n=len(diff),
        baseline=float(base.mean()) if len(base) else float("nan"),
        current=float(cur.mean()) if len(cur) else float("nan"),
        delta=interval.mean,
        ci_low=interval.ci_low,
        ci_high=interval.ci_high,
        p_value=sign_flip_pvalue(diff, alternative, resamples, seed),
    )


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the input order (formula in the module docstring)."""
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])  # (m - j + 1) p_(j), j from 1
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return [float(v) for v in adjusted]


def z_sum(alpha: float, power: float) -> float:
    """z_{1-alpha} + z_{power}: the standard normal quantiles of a one-sided test's level and its power."""
    return NormalDist().inv_cdf(1 - alpha) + NormalDist().inv_cdf(power)


def detectable_drop(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest mean drop ``n`` questions whose paired differences have standard deviation ``sd`` detect
    at level ``alpha`` with ``power`` (formula in the module docstring); inf without questions."""
    return float("inf") if n < 1 else z_sum(alpha, power) * sd / math.sqrt(n)


def questions_needed(sd: float, drop: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """How many questions a paired test needs to detect a mean drop of ``drop`` (module docstring), rounded up."""
    return math.ceil((z_sum(alpha, power) * sd / drop) ** 2)
