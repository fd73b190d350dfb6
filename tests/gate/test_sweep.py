import hashlib

import numpy as np
import pytest

from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Question
from rag_bench.score.selection import choose_on_dev, mark_best, question_split, seeded_split


def test_best_and_points_not_significantly_worse():
    scores = {
        "size=200": np.array([0, 0, 0, 0, 0, 0.0]),
        "size=400": np.ones(6),
        "size=800": np.array([1, 1, 1, 1, 1, 0.0]),
    }
    marks = mark_best(scores)
    assert list(marks) == ["size=200", "size=400", "size=800"]  # input order kept
    best = marks["size=400"]
    assert (best.best, best.tied, best.mean, best.p_value) == (True, True, 1.0, None)
    # best - point: six +1 -> p = 1/64; one +1 -> p = 1/2; Holm: 1/64 * 2 = 1/32, then max(1/32, 1/2)
    assert (marks["size=200"].p_value, marks["size=200"].p_holm, marks["size=200"].tied) == (1 / 64, 1 / 32, False)
    assert (marks["size=800"].p_value, marks["size=800"].p_holm, marks["size=800"].tied) == (0.5, 0.5, True)


def test_holm_can_turn_a_raw_win_into_a_tie():
    # two points each 5 questions below the best: raw p = 1/32 = 0.031 < 0.05, Holm 2/32 = 0.0625
    best = np.ones(5)
    marks = mark_best({"best": best, "x": np.zeros(5), "y": np.zeros(5)})
    assert marks["x"].p_value == 1 / 32
    assert (marks["x"].p_holm, marks["x"].tied, marks["y"].tied) == (1 / 16, True, True)


def test_equal_means_keep_the_first_as_best_and_shapes_must_match():
    marks = mark_best({"a": np.array([1.0, 0.0]), "b": np.array([0.0, 1.0])})
    assert (marks["a"].best, marks["b"].best, marks["b"].tied) == (True, False, True)
    with pytest.raises(ValueError, match="one score per question"):
        mark_best({"a": np.ones(3), "b": np.ones(4)})


def test_seeded_split_is_stable_and_order_free():
    ids = [f"q{i}" for i in range(10)]
    split = seeded_split(ids, test_fraction=0.3, seed=7)
    by_digest = sorted(ids, key=lambda q: hashlib.blake2b(f"7:{q}".encode(), digest_size=8).digest())
    assert {q for q, side in split.items() if side == "test"} == set(by_digest[:3])
    assert seeded_split(list(reversed(ids)), test_fraction=0.3, seed=7) == split
    assert list(split.values()).count("dev") == 7
    with pytest.raises(ConfigError, match="leaves one side empty"):
        seeded_split(["only"], 0.5)


def test_question_split_prefers_the_dataset_field():
    marked = [Question("a", "?", split="dev"), Question("b", "?", split="test")]
    assert question_split(marked) == {"a": "dev", "b": "test"}
    with pytest.raises(ConfigError, match="question b has split 'train'"):
        question_split([Question("a", "?", split="dev"), Question("b", "?", split="train")])
    with pytest.raises(ConfigError, match="needs both"):
        question_split([Question("a", "?", split="test"), Question("b", "?", split="test")])
    plain = [Question(f"q{i}", "?") for i in range(4)]
    assert question_split(plain, seed=1) == seeded_split([q.id for q in plain], seed=1)


def test_choose_on_dev_reports_the_choice_on_test():
    ids = [f"q{i}" for i in range(1, 9)]
    split = {q: "dev" if i < 4 else "test" for i, q in enumerate(ids)}
    scores = {
        "a": np.array([1, 1, 1, 1, 0, 0, 1, 0.0]),  # dev mean 1.0, test mean 0.25
        "b": np.array([1, 1, 0, 0, 1, 1, 1, 1.0]),  # dev mean 0.5, test mean 1.0
    }
    choice = choose_on_dev(scores, ids, split)
    assert (choice.point, choice.n_dev, choice.n_test, choice.test_mean) == ("a", 4, 4, 0.25)
    assert choice.dev["b"].p_value == 1 / 4  # dev differences (0, 0, 1, 1)
    assert choice.dev["b"].tied
    assert 0.0 <= choice.test_ci_low <= 0.25 <= choice.test_ci_high <= 0.75
    with pytest.raises(ValueError, match="no split"):
        choose_on_dev(scores, ids, {"q1": "dev"})
