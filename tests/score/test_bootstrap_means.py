"""summarise_table gives every column the numbers summarise gives it alone, to the last bit, by a faster road."""

import numpy as np

from rag_bench.score.aggregate import bootstrap_draws, bootstrap_means, draw_blocks, summarise, summarise_table


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


def test_columns_gathered_together_equal_each_gathered_alone():
    # gathered columns share one gather while a block's values fit GATHERED (80,000): blocks of 4 resamples
    # of 5,000 questions gather 4 columns at a time (7 columns: 4, then 3), of 20,000 questions 1 at a time,
    # of 5 questions all 7; blocks as bootstrap_means cuts them (rows_per_block) too; each column's means
    # equal its own gathered mean to the bit
    for n, block in ((5, 4), (5_000, 4), (20_000, 4), (5_000, None), (1_000, None)):
        rng = np.random.default_rng(n)
        columns = np.stack([1 / rng.integers(1, 21, n), *(rng.random(n) for _ in range(5)), -rng.random(n)], axis=1)
        draws = bootstrap_draws(n, 20, seed=n)
        got = bootstrap_means(columns, draws if block is None else draw_blocks(n, 20, n, block))
        for j in range(columns.shape[1]):
            assert np.array_equal(got[:, j], columns[draws, j].mean(axis=1)), (n, j)


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


def test_draw_blocks_stack_to_the_whole_draw_matrix_on_many_seeds_and_sizes():
    # the same generator drawing block after block gives the one (resamples, n) matrix, index for index
    for seed in range(40):
        for n, resamples, block in ((1, 5, 2), (3, 17, 8), (7, 33, 8), (128, 10, 3), (1001, 21, 8), (10_000, 9, 4)):
            whole = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
            blocks = list(draw_blocks(n, resamples, seed, block))
            assert [len(b) for b in blocks[:-1]] == [block] * (len(blocks) - 1)
            assert np.array_equal(np.concatenate(blocks), whole)
            assert np.array_equal(whole, bootstrap_draws(n, resamples, seed))


def test_summarise_equals_the_whole_matrix_gather_on_many_seeds_and_sizes():
    # the oracle: the formula before the draws came in blocks, values[draws].mean(axis=1) over the whole
    # (resamples, n) matrix, then its 2.5% and 97.5% quantiles; sizes on both sides of numpy's pairwise
    # summation blocks (8, 128) and of its 8192-value buffer
    for seed in range(12):
        rng = np.random.default_rng(100 + seed)
        for n in (1, 2, 7, 8, 129, 1000, 8193, 10_000):
            resamples = 40 if n > 1000 else 200
            for values in (
                (rng.random(n) < 0.3).astype(float),  # counts road
                1 / rng.integers(1, 11, n),  # gathered
                rng.random(n) * 3 - 1,  # gathered, negatives
                np.where(rng.random(n) < 0.5, 0.5, 0.25),  # dyadic, counts road
                np.full(n, -0.0),  # its means are -0.0: gathered (counts summed from +0.0 would give 0.0)
            ):
                draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
                expected = values[draws].mean(axis=1)
                low, high = np.quantile(expected, [0.025, 0.975])
                got = summarise(values, resamples, seed)
                assert repr((got.ci_low, got.ci_high)) == repr((float(low), float(high)))  # repr: -0.0 too
                blocks = bootstrap_means(values[:, None], draw_blocks(n, resamples, seed, 8))[:, 0]
                assert blocks.tobytes() == expected.tobytes()
