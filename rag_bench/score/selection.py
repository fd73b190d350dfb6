"""Sweep honesty: the best point and every point not significantly worse; choose on dev, report on test.

``mark_best`` takes one metric's per-question scores at every sweep point (same questions,
same order) and the metric's direction (``score/names.higher_is_better``). The best point has
the highest mean (the lowest for a lower-is-better metric such as ``leak@k``); each other point
is tested with the one-sided paired sign-flip test "best better than point" (``rag_bench.score.paired``),
the p-values of all other points are Holm-corrected together, and a point whose adjusted p >= alpha
is marked ``tied``: the data cannot tell it from the best.

``seeded_split`` assigns questions to dev and test by a seeded hash of their ids, so the
split does not depend on question order and is stable as questions are added; ``choose_on_dev``
picks the best point on dev questions and reports that point's mean and interval on test
questions only, which is an unbiased estimate of the chosen configuration.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Question
from rag_bench.score.aggregate import summarise
from rag_bench.score.paired import RESAMPLES, holm, sign_flip_pvalue

DEV, TEST = "dev", "test"


@dataclass(frozen=True)
class PointMark:
    """One sweep point: its mean, and whether it is the best or not significantly worse than it."""

    point: str
    mean: float
    best: bool
    tied: bool  # the best itself, or Holm-adjusted p >= alpha
    p_value: float | None = None  # one-sided "best better than this point"; None for the best
    p_holm: float | None = None


def mark_best(
    scores: Mapping[str, np.ndarray], alpha: float = 0.05, seed: int = 0, higher_is_better: bool = True
) -> dict[str, PointMark]:
    """Point label -> mark; the best point has the best mean (the first such in ``scores`` order): the highest,
    or the lowest when ``higher_is_better`` is False."""
    if not scores:
        raise ValueError("mark_best needs at least one sweep point")
    arrays = {point: np.asarray(values, dtype=np.float64) for point, values in scores.items()}
    shapes = {a.shape for a in arrays.values()}
    if len(shapes) != 1:
        raise ValueError(f"every point needs one score per question, in the same order (shapes: {sorted(shapes)})")
    means = {point: float(np.nanmean(a)) if a.size else float("nan") for point, a in arrays.items()}
    sign = 1.0 if higher_is_better else -1.0  # sign * value: more is better
    best = max(means, key=lambda p: -np.inf if np.isnan(means[p]) else sign * means[p])  # first of equal means
    others = [p for p in arrays if p != best]
    p_values = [_p_best_better(sign * arrays[best], sign * arrays[p], seed) for p in others]
    adjusted = holm(p_values)
    marks = {best: PointMark(best, means[best], best=True, tied=True)}
    for point, p, p_adj in zip(others, p_values, adjusted, strict=True):
        marks[point] = PointMark(point, means[point], best=False, tied=p_adj >= alpha, p_value=p, p_holm=p_adj)
    return {point: marks[point] for point in arrays}


def _p_best_better(best: np.ndarray, other: np.ndarray, seed: int) -> float:
    keep = np.isfinite(best) & np.isfinite(other)
    return sign_flip_pvalue(best[keep] - other[keep], alternative="greater", seed=seed)


def seeded_split(question_ids: Sequence[str], test_fraction: float = 0.5, seed: int = 0) -> dict[str, str]:
    """Question id -> "dev" | "test": the round(test_fraction * n) ids with the smallest blake2b(seed:id) are test."""
    if not 0 < test_fraction < 1:
        raise ConfigError(f"test_fraction ({test_fraction}) must be between 0 and 1, e.g. 0.5")
    n_test = round(test_fraction * len(question_ids))
    if not 0 < n_test < len(question_ids):
        raise ConfigError(
            f"a dev/test split of {len(question_ids)} questions with test_fraction {test_fraction} leaves one side "
            "empty; use more questions or another fraction"
        )
    order = sorted(question_ids, key=lambda q: hashlib.blake2b(f"{seed}:{q}".encode(), digest_size=8).digest())
    test = set(order[:n_test])
    return {q: TEST if q in test else DEV for q in question_ids}


def question_split(questions: Sequence[Question], test_fraction: float = 0.5, seed: int = 0) -> dict[str, str]:
    """The dataset's own ``split`` field when any question has one (all must say dev or test), else seeded."""
    if not any(q.split for q in questions):
        return seeded_split([q.id for q in questions], test_fraction, seed)
    bad = [q for q in questions if q.split not in (DEV, TEST)]
    if bad:
        raise ConfigError(
            f"question {bad[0].id} has split {bad[0].split!r}: when the dataset sets split, every question needs "
            f"{DEV!r} or {TEST!r} ({len(bad)} do not); fix the field or remove it to use a seeded split"
        )
    split = {q.id: q.split for q in questions}
    if set(split.values()) != {DEV, TEST}:
        raise ConfigError(f"the dataset's split field puts every question in {questions[0].split!r}; it needs both")
    return split


@dataclass(frozen=True)
class DevTestChoice:
    """The point chosen on dev questions, with its mean and 95% interval on test questions."""

    point: str
    dev: dict[str, PointMark]
    n_dev: int
    n_test: int
    test_mean: float
    test_ci_low: float
    test_ci_high: float


def choose_on_dev(
    scores: Mapping[str, np.ndarray],
    question_ids: Sequence[str],
    split: Mapping[str, str],
    alpha: float = 0.05,
    seed: int = 0,
    higher_is_better: bool = True,
) -> DevTestChoice:
    """Mark points on the dev questions, choose the best there, report it on the test questions."""
    missing = [q for q in question_ids if q not in split]
    if missing:
        raise ValueError(f"{len(missing)} questions have no split, e.g. {missing[:3]}")
    on_dev = np.array([split[q] == DEV for q in question_ids])  # (n_questions,) bool
    arrays = {point: np.asarray(values, dtype=np.float64) for point, values in scores.items()}
    dev = mark_best({point: a[on_dev] for point, a in arrays.items()}, alpha, seed, higher_is_better)
    point = next(p for p, mark in dev.items() if mark.best)
    test_values = arrays[point][~on_dev]
    test = summarise(test_values[np.isfinite(test_values)], resamples=RESAMPLES, seed=seed)
    return DevTestChoice(point, dev, int(on_dev.sum()), int((~on_dev).sum()), test.mean, test.ci_low, test.ci_high)
