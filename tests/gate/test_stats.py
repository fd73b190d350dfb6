import math

import numpy as np
import pytest

from rag_bench.score.aggregate import summarise
from rag_bench.score.paired import EXACT_MAX, holm, paired_test, sign_flip_pvalue


def test_exact_enumeration_worked_by_hand():
    # d = (1, 0.5, -0.25), T = 1.25; the 8 sign sums are +-1.75, +-1.25, +-0.75, +-0.25
    d = np.array([1.0, 0.5, -0.25])
    assert sign_flip_pvalue(d, "greater") == 2 / 8  # 1.75 and 1.25
    assert sign_flip_pvalue(d, "less") == 7 / 8  # all but 1.75
    assert sign_flip_pvalue(d, "two-sided") == 4 / 8  # |sum| >= 1.25


def test_zero_differences_change_nothing():
    assert sign_flip_pvalue(np.array([0.0, 1.0, 0.0, 0.5, -0.25]), "greater") == 2 / 8
    assert sign_flip_pvalue(np.zeros(5), "greater") == 1.0
    assert sign_flip_pvalue(np.array([]), "two-sided") == 1.0


def test_exact_up_to_sixteen_nonzero_differences():
    # 16 differences of +1: only the all-plus sign vector reaches the observed sum
    assert sign_flip_pvalue(np.ones(EXACT_MAX), "greater") == 1 / 2**16


def test_random_flips_match_the_binomial_tail():
    # 20 differences, 14 of +1 and 6 of -1: T = 8 = 2K - 20 with K ~ Binomial(20, 1/2), so p = P(K >= 14)
    d = np.array([1.0] * 14 + [-1.0] * 6)
    exact = sum(math.comb(20, k) for k in range(14, 21)) / 2**20  # 60460 / 1048576 = 0.0577
    p = sign_flip_pvalue(d, "greater", seed=3)
    assert p == pytest.approx(exact, abs=0.01)
    assert sign_flip_pvalue(d, "greater", seed=3) == p  # seeded: the same draws every time


def test_random_flips_never_give_zero():
    # 30 differences of +1: exact p is 2**-30; with 10,000 draws p = (1 + 0) / (1 + 10,000)
    assert sign_flip_pvalue(np.ones(30), "greater") == 1 / 10_001


def test_unknown_alternative_is_refused():
    with pytest.raises(ValueError, match="two-sided"):
        sign_flip_pvalue(np.ones(3), "bigger")


def test_paired_test_of_a_drop():
    baseline = np.array([1.0, 1.0, 1.0, 1.0])
    current = np.array([0.0, 0.0, 1.0, 1.0])
    test = paired_test(baseline, current, alternative="less")
    assert (test.n, test.baseline, test.current, test.delta) == (4, 1.0, 0.5, -0.5)
    assert test.p_value == 1 / 4  # differences (-1, -1): only both minus reaches -2
    interval = summarise(current - baseline, resamples=10_000, seed=0)
    assert (test.ci_low, test.ci_high) == (interval.ci_low, interval.ci_high)
    assert -1.0 <= test.ci_low <= -0.5 <= test.ci_high <= 0.0


def test_holm_worked_by_hand():
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> running max 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_holm_caps_at_one_and_keeps_order():
    assert holm([0.5, 0.6]) == [1.0, 1.0]  # 0.5 * 2 = 1.0, then max(1.0, 0.6)
    assert holm([0.2]) == [0.2]
    assert holm([]) == []
