"""summarise_table gives every column the numbers summarise gives it alone, to the last bit, by a faster road."""

import numpy as np

from rag_bench.score.aggregate import bootstrap_draws, bootstrap_means, summarise, summarise_table


def test_bootstrap_means_equal_the_gathered_means_bit_for_bit():
    rng = np.random.default_rng(3)
    n = 777
    columns = np.stack(
        [
            (rng.random(n) < 0.4).astype(float),  # hits: the draw-count road
            rng.integers(0, 3, n) / 2,  # recall over two spans: halves, still exact
            1 / rng.integers(1, 21, n),  # reciprocal ranks: gathered
            rng.random(n),
            np.full(n, 2.0**40),  # dyadic, but its sums could lose bits: gathered
        ],
        axis=1,
    )
    draws = bootstrap_draws(n, 100, seed=5)
    got = bootstrap_means(columns, draws)
    for j in range(columns.shape[1]):
        assert np.array_equal(got[:, j], columns[draws, j].mean(axis=1))


def test_summarise_table_equals_summarise_column_by_column():
    rng = np.random.default_rng(4)
    hits = (rng.random(500) < 0.5).astype(float)
    columns = {
        "hit@1": hits,
        "recall@1": hits.copy(),  # equal to hit@1: summarised once, reported under both names
        "mrr@10": 1 / rng.integers(1, 11, 500),
        "ndcg@10": rng.random(500),
        "leak@10": (rng.random(40) < 0.2).astype(float),  # another length: its own draws
        "one": np.array([0.25]),
        "none": np.array([]),
    }
    table = summarise_table(columns, resamples=200, seed=9)
    assert list(table) == list(columns)
    for name, values in columns.items():
        alone = summarise(values, resamples=200, seed=9)
        assert repr(table[name]) == repr(alone)  # NaNs of the empty column compare equal as text
    assert table["hit@1"] is table["recall@1"]
    # worked by hand: one question of 0.25 -> mean 0.25, no spread
    one = table["one"]
    assert (one.mean, one.stderr, one.ci_low, one.ci_high, one.n) == (0.25, 0.0, 0.25, 0.25, 1)
