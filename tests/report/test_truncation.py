"""Truncation in plain sight: the share of a point's chunks embedded truncated, its warning and the fix."""

import pandas as pd

from rag_bench.report.sweep.console import summary_text
from rag_bench.report.sweep.document import truncation_lines
from rag_bench.report.sweep.work import truncated_share, work_columns


def test_the_share_of_truncated_chunks_by_hand():
    assert truncated_share({"chunks": 50, "truncated": 31}) == 0.62  # the 1200-character point of the issue
    assert truncated_share({"chunks": 50}) == 0.0  # bm25 alone embeds nothing
    assert work_columns({"chunks": 8, "truncated": 2})["truncated_share"] == 0.25


def test_points_past_the_threshold_are_warned_of_with_the_fix():
    table = pd.DataFrame({"point": ["0", "1", "2"], "truncated_share": [0.0, 0.04, 0.62]})
    (line,) = truncation_lines(table)
    assert line.startswith(
        "warning: chunks longer than the embedder's input were embedded truncated in 1 points: #2 (62%)"
    )
    assert "#2 (62%); their dense numbers" in line and line.endswith("(chunker.unit=tokens) so none is cut")
    assert truncation_lines(table.assign(truncated_share=0.0)) == []


def test_the_console_summary_ranks_a_lower_is_better_metric_lowest_first():
    table = pd.DataFrame(
        {
            "point": ["0", "1"],
            "retrieval.filter_mode": ["pre", "none"],
            "leak@10": [0.0, 0.357],
            "leak@10_low": [0.0, 0.2],
            "leak@10_high": [0.0, 0.5],
            "best": [True, False],
            "tied": [True, False],
            "p_holm": [float("nan"), 0.001],
            "diff": [0.0, 0.357],
            "diff_low": [0.0, 0.2],
            "diff_high": [0.0, 0.5],
        }
    )
    text = summary_text(table, "leak@10", ["retrieval.filter_mode"], "report.md").splitlines()
    assert text[1].split()[:3] == ["best", "#0", "pre"] and text[2].split()[:2] == ["#1", "none"]
