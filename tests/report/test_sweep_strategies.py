"""A sweep over retrieval strategies: the characters each point returns, and recall per context size beside recall@k."""

import math

import pandas as pd

from rag_bench.report.sweep.document import summary_rows, work_rows
from rag_bench.report.sweep.work import work_columns


def test_returned_chars_come_from_the_last_step():
    stats = {"strategies": {"expand": {"chars@10 after": 2400.0}, "diversity": {"chars@10 after": 2100.0}}}
    assert work_columns(stats)["returned_chars"] == 2100.0
    assert math.isnan(work_columns({})["returned_chars"])
    assert math.isnan(work_columns({"strategies": {}})["returned_chars"])


def table(returned):
    return pd.DataFrame(
        {
            "point": ["0", "1"],
            "strategy": ["none", "merge"],
            "best": [True, False],
            "tied": [True, True],
            "p_holm": [float("nan"), 0.5],
            "diff_best": [0.0, -0.1],
            "diff_best_low": [0.0, -0.2],
            "diff_best_high": [0.0, 0.0],
            "ndcg@10": [0.62, 0.56],
            "ndcg@10_low": [0.57, 0.50],
            "ndcg@10_high": [0.67, 0.61],
            "recall@10": [0.82, 0.71],
            "recall@1000chars": [0.51, 0.58],
            "recall@4000chars": [0.76, 0.79],
            "returned_chars": returned,
        }
    )


def test_recall_at_the_largest_budget_is_shown_when_units_differ_in_size():
    header, rows = summary_rows(table([float("nan"), 2451.0]), "ndcg@10", ["strategy"])
    assert header[-2:] == ["recall@10", "recall@4000chars"] and rows[1][-1] == "0.790"
    header, _ = summary_rows(table([float("nan"), float("nan")]), "ndcg@10", ["strategy"])
    assert header[-1] == "recall@10"  # no step returned other units: the table as before
    extra = {"chunks": 643, "index_bytes": 1, "seconds": 1.0, "embedded": 0, "cache_hits": 0}
    work_header, work = work_rows(table([float("nan"), 2451.0]).assign(**extra))
    assert "chars returned (top report_k)" in work_header
