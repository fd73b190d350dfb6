"""``assert_no_regression``: the gate as a pytest assertion, on run folders written by hand."""

import csv
import json

import pytest

from rag_bench.testing import assert_no_regression


def write_run(folder, hits):
    """A run folder whose question i has recall@10 = hits[i] (one span, first hit at rank 1 or none)."""
    folder.mkdir()
    rows = [
        {"question_id": f"q{i}", "labelled": True, "first_hit_rank": 1.0 if h else "", "hit@10": h, "recall@10": h}
        for i, h in enumerate(hits)
    ]
    with open(folder / "per_question.csv", "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    (folder / "metrics.json").write_text(json.dumps({"metrics": {"recall@10": sum(hits) / len(hits)}}))
    return folder


def test_passes_when_nothing_dropped(tmp_path):
    base = write_run(tmp_path / "base", [1, 1, 0, 1])
    result = assert_no_regression(base, write_run(tmp_path / "cur", [1, 1, 0, 1]))
    assert result.passed
    assert [v.status for v in result.verdicts] == ["no drop"]


def test_fails_on_a_real_drop_with_the_report(tmp_path):
    # 8 of 20 questions lost: drop 0.4 > 0.02 and one-sided p = 1/256 < 0.05
    base = write_run(tmp_path / "base", [1] * 20)
    cur = write_run(tmp_path / "cur", [0] * 8 + [1] * 12)
    with pytest.raises(AssertionError, match=r"\| recall@10 \| 1.000 \| 0.600 \| -0.400 \|") as failed:
        assert_no_regression(base, cur, metrics=["recall@10"], max_drop=0.02)
    assert "Flipped at hit@10: 8 hit -> miss, 0 miss -> hit" in str(failed.value)


def test_a_margin_per_metric_or_a_stricter_alpha_lets_it_pass(tmp_path):
    base = write_run(tmp_path / "base", [1] * 20)
    cur = write_run(tmp_path / "cur", [0] * 8 + [1] * 12)
    assert [v.status for v in assert_no_regression(base, cur, metrics={"recall@10": 0.5}).verdicts] == ["within margin"]
    # p = 1/256 > 0.001: a drop the test cannot confirm at that level is inconclusive: failed, unless only warned of
    with pytest.raises(AssertionError, match="INCONCLUSIVE"):
        assert_no_regression(base, cur, alpha=0.001)
    warned = assert_no_regression(base, cur, alpha=0.001, on_inconclusive="warn")
    assert warned.verdicts[0].status == "inconclusive"
