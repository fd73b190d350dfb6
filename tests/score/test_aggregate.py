import numpy as np
import pytest

from rag_bench.score.aggregate import summarise


def test_mean_stderr_and_interval():
    values = np.array([1.0, 0.0, 1.0, 1.0])
    s = summarise(values, resamples=2000, seed=1)
    assert s.mean == 0.75 and s.n == 4
    assert s.stderr == pytest.approx(0.5 / 2)  # sample sd 0.5, sqrt(4) = 2
    assert 0 <= s.ci_low <= 0.75 <= s.ci_high <= 1


def test_interval_is_reproducible_and_constant_values_have_zero_width():
    values = np.linspace(0, 1, 50)
    assert summarise(values, seed=3) == summarise(values, seed=3)
    flat = summarise(np.full(10, 0.4))
    assert flat.ci_low == pytest.approx(0.4) and flat.ci_high == pytest.approx(0.4)


def test_empty_input_is_nan():
    assert np.isnan(summarise(np.array([])).mean)
