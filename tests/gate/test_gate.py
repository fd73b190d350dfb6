"""``rag-bench gate`` through the real command entry point, on run folders written by hand."""

import xml.etree.ElementTree as ET

import pytest

from rag_bench.entry.cli import main


def gate(*args):
    """Run ``rag-bench gate ARGS``; return its exit code."""
    with pytest.raises(SystemExit) as done:
        main(["gate", *map(str, args)])
    return done.value.code


def verdict_row(out, metric):
    return next(line for line in out.splitlines() if line.startswith(f"| {metric} |"))


def test_no_drop_passes(make_run, capsys):
    ranks = [1, 3, None, 12, 2]
    code = gate("--baseline", make_run("b", ranks), "--current", make_run("c", ranks))
    out = capsys.readouterr().out
    assert code == 0
    assert "### rag-bench gate: PASS" in out
    # no question changed: the detectable drop from the scores' spread, 2.4865 * sd([1,1,0,0,1]) * sqrt(2) / sqrt(5)
    assert verdict_row(out, "recall@10") == (
        "| recall@10 | 0.600 | 0.600 | +0.000 | [+0.000, +0.000] | 1.000 | 0.020 | 0.861 | pass: no drop |"
    )
    assert "Flipped at hit@10: none" in out


def test_drop_within_margin_passes(make_run, capsys):
    # one of 50 questions lost: drop 0.02, exactly the margin
    base = make_run("b", [1] * 50)
    cur = make_run("c", [None] + [1] * 49)
    code = gate("--baseline", base, "--current", cur, "--metric", "recall@10", "--max-drop", "0.02")
    out = capsys.readouterr().out
    assert code == 0
    assert "| -0.020 |" in verdict_row(out, "recall@10")
    # detectable: (z_0.95 + z_0.8) * sqrt(1/50) / sqrt(50) = 2.4865 / 50 = 0.0497
    assert verdict_row(out, "recall@10").endswith("| 0.500 | 0.020 | 0.050 | pass: within margin |")


def test_big_real_drop_fails(make_run, capsys):
    # 8 of 20 questions lost, none gained: drop 0.4, exact one-sided p = 1 / 2**8
    base = make_run("b", [1] * 20)
    cur = make_run("c", [None] * 8 + [1] * 12)
    code = gate("--baseline", base, "--current", cur)
    out = capsys.readouterr().out
    assert code == 1
    assert "### rag-bench gate: REGRESSION (1 of 1 metrics regressed)" in out
    row = verdict_row(out, "recall@10")
    assert row.startswith("| recall@10 | 1.000 | 0.600 | -0.400 |")
    # p = 1/256 = 0.0039; detectable 2.4865 * sqrt(8/20) / sqrt(20) = 0.352
    assert row.endswith("| 0.004 | 0.020 | 0.352 | **FAIL**: regression |")
    assert "Flipped at hit@10: 8 hit -> miss, 0 miss -> hit" in out
    assert "| q01 |  | 1 | - | hit -> miss |" in out


def test_a_big_drop_the_test_cannot_confirm_is_inconclusive_and_fails_unless_warned(make_run, capsys):
    # 10 questions: q1-q4 lost, q5-q6 gained; drop 0.2 but p = P(sum of 6 signs <= -2) = (1 + 6 + 15) / 64
    base = make_run("b", [1, 1, 1, 1, None, None, 1, 1, 1, 1])
    cur = make_run("c", [None, None, None, None, 1, 1, 1, 1, 1, 1])
    args = ["--baseline", base, "--current", cur, "--metric", "recall@10", "--max-drop", "0.05"]
    assert gate(*args) == 1
    out = capsys.readouterr().out
    assert "### rag-bench gate: INCONCLUSIVE (1 of 1 metrics: failed: the data cannot tell)" in out
    # detectable: 2.4865 * sqrt(6/10) / sqrt(10) = 0.609, three times the observed drop
    expected = f"| {22 / 64:.3f} | 0.050 | 0.609 | **INCONCLUSIVE**: drop beyond margin, not confirmed |"
    assert verdict_row(out, "recall@10").endswith(expected)
    assert "Flipped at hit@10: 4 hit -> miss, 2 miss -> hit" in out
    assert gate(*args, "--on-inconclusive", "warn") == 0
    out = capsys.readouterr().out
    assert "### rag-bench gate: INCONCLUSIVE (1 of 1 metrics: warned, not failed)" in out and "PASS" not in out


def test_a_big_drop_on_few_questions_is_inconclusive(make_run, capsys):
    # both of 2 questions lost: drop 1.0, but p = 1/4; two questions cannot detect even a drop of 1
    code = gate("--baseline", make_run("b", [1, 2]), "--current", make_run("c", [None, None]))
    assert code == 1
    row = verdict_row(capsys.readouterr().out, "recall@10")
    assert row.endswith("| 0.250 | 0.020 | 1.758 | **INCONCLUSIVE**: drop beyond margin, not confirmed |")


def test_flips_name_the_question_and_ranks(make_run, capsys):
    # bundled annual-report ids, so the question text comes from the dataset named in config.yaml
    ids = ["ar-001", "ar-002", "ar-003"]
    base = make_run("b", [3, 12, 7], ids=ids, dataset="annual-report")
    cur = make_run("c", [15, 4, 7], ids=ids, dataset="annual-report")
    gate("--baseline", base, "--current", cur, "--metric", "recall@5", "--max-drop", "0.5")
    out = capsys.readouterr().out
    assert "#### Flipped at hit@5: 1 hit -> miss, 1 miss -> hit" in out
    assert "| ar-001 | What does error ERR_4021 mean in Corvid Connect? | 3 | 15 | hit -> miss |" in out
    assert "| ar-002 | What proportion of employees chose to quit during the year? | 12 | 4 | miss -> hit |" in out
    assert "ar-003" not in out


def test_a_question_set_that_changed_is_gated_on_the_shared_questions(make_run, capsys):
    base = make_run("b", [1] * 10)
    cur = make_run("c", [1] * 11, ids=[f"q{i:02d}" for i in range(1, 9)] + ["x1", "x2", "x3"])
    assert gate("--baseline", base, "--current", cur) == 0
    out = capsys.readouterr().out
    assert "on 8 labelled questions" in out
    assert (
        "The question sets differ; compared on the 8 shared questions. added 3 (x1, x2, x3); removed 2 (q09, q10)"
        in out
    )
    assert gate("--baseline", base, "--current", cur, "--same-questions") == 2
    err = capsys.readouterr().err
    assert "scored other questions than" in err and "3 (x1, x2, x3) added, 2 (q09, q10) removed" in err


def test_unlabelled_questions_are_left_out_of_the_pairing(make_run, capsys):
    base = make_run("b", [1, 1], unlabelled=["u1"])
    cur = make_run("c", [1, 1], unlabelled=["u2", "u3"])
    assert gate("--baseline", base, "--current", cur) == 0
    assert "on 2 labelled questions" in capsys.readouterr().out


def test_unknown_metric_exit_2(make_run, capsys):
    base, cur = make_run("b", [1]), make_run("c", [1])
    assert gate("--baseline", base, "--current", cur, "--metric", "recal@10", "--max-drop", "0.1") == 2
    assert "unknown metric name 'recal@10'" in capsys.readouterr().err
    assert gate("--baseline", base, "--current", cur, "--metric", "ndcg@10") == 2  # valid name, not measured
    assert "metric ndcg@10 is not in" in capsys.readouterr().err


def test_missing_files_exit_2(make_run, capsys, tmp_path):
    base = make_run("b", [1])
    (base / "per_question.csv").unlink()
    assert gate("--baseline", base, "--current", make_run("c", [1])) == 2
    assert "per_question.csv: is missing" in capsys.readouterr().err
    assert gate("--baseline", tmp_path / "nowhere", "--current", tmp_path / "c") == 2
    assert "nowhere: is not a folder" in capsys.readouterr().err


def test_metrics_json_paths_are_accepted(make_run):
    base, cur = make_run("b", [1] * 20), make_run("c", [None] * 8 + [1] * 12)
    assert gate("--baseline", base / "metrics.json", "--current", cur / "metrics.json") == 1


def test_each_metric_needs_its_own_max_drop(make_run, capsys):
    base, cur = make_run("b", [1]), make_run("c", [1])
    args = ["--baseline", base, "--current", cur, "--metric", "recall@10", "--metric", "mrr@10"]
    assert gate(*args, "--max-drop", "0.1") == 2
    assert "got 2 --metric, 1 --max-drop" in capsys.readouterr().err
    assert gate(*args, "--max-drop", "0.1", "--max-drop", "-0.1") == 2
    assert "max_drop of mrr@10 (-0.1) must be a number from 0 to 1" in capsys.readouterr().err


def test_gate_config_file(make_run, capsys, tmp_path):
    config = tmp_path / "gate.yaml"
    config.write_text("- {metric: recall@10, max_drop: 0.5}\n- metric: mrr@10\n  max_drop: 0.01\n")
    base, cur = make_run("b", [1] * 20), make_run("c", [None] * 8 + [1] * 12)
    assert gate("--baseline", base, "--current", cur, "--config", config) == 1
    out = capsys.readouterr().out
    assert verdict_row(out, "recall@10").endswith("| 0.500 | 0.352 | pass: within margin |")
    assert verdict_row(out, "mrr@10").endswith("| 0.010 | 0.352 | **FAIL**: regression |")
    config.write_text('[{"metric": "recall@10", "maxdrop": 0.5}]')
    assert gate("--baseline", base, "--current", cur, "--config", config) == 2
    assert "must have exactly the keys metric, max_drop" in capsys.readouterr().err
    assert gate("--baseline", base, "--current", cur, "--config", config, "--metric", "recall@10") == 2


def test_junit_has_one_testcase_per_metric_and_a_failure_on_regression(make_run, tmp_path, capsys):
    base, cur = make_run("b", [1] * 20), make_run("c", [None] * 8 + [1] * 12)
    junit = tmp_path / "reports" / "gate.xml"
    args = ["--metric", "recall@10", "--max-drop", "0.02", "--metric", "recall@5", "--max-drop", "0.5"]
    assert gate("--baseline", base, "--current", cur, *args, "--junit", junit) == 1
    root = ET.parse(junit).getroot()
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert list(cases) == ["recall@10", "recall@5"]
    failure = cases["recall@10"].find("failure")
    assert failure.get("type") == "regression"
    assert "delta -0.400" in failure.get("message")
    assert failure.text.splitlines()[:2] == ["8 questions went from hit to miss at hit@10:", "q01 (rank 1 -> -)"]
    assert cases["recall@5"].find("failure") is None
    assert "within margin" in cases["recall@5"].find("system-out").text


def test_step_summary_is_appended(make_run, tmp_path, monkeypatch, capsys):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert gate("--baseline", make_run("b", [1, 2]), "--current", make_run("c", [1, 2])) == 0
    out = capsys.readouterr().out
    assert summary.read_text() == "earlier step\n" + out + "\n"


def test_a_metric_with_no_values_exit_2(make_run, capsys):
    base, cur = make_run("b", [1, 2]), make_run("c", [1, 2])
    for folder in (base, cur):  # a judgement-only dataset leaves character metrics empty
        table = (folder / "per_question.csv").read_text().splitlines()
        rows = [line + "," for line in table[1:]]
        (folder / "per_question.csv").write_text("\n".join([table[0] + ",coverage@5", *rows]) + "\n")
    assert gate("--baseline", base, "--current", cur, "--metric", "coverage@5") == 2
    assert "metric coverage@5 has no value on any question" in capsys.readouterr().err


def test_the_newcomers_drop_does_not_read_pass(make_run, capsys):
    # 29 questions, recall@10 0.862 -> 0.724: 5 hit -> miss, 1 miss -> hit; one-sided p = (1 + 6) / 64 = 0.109
    base = make_run("b", [1] * 25 + [None] * 4)
    cur = make_run("c", [None] * 5 + [1] * 20 + [1] + [None] * 3)
    assert gate("--baseline", base, "--current", cur) == 1
    out = capsys.readouterr().out
    row = verdict_row(out, "recall@10")
    assert row.startswith("| recall@10 | 0.862 | 0.724 | -0.138 |")
    # detectable: 2.4865 * sqrt(6) / 29 = 0.210, beyond the observed 0.138: the set cannot tell
    assert row.endswith(f"| {7 / 64:.3f} | 0.020 | 0.210 | **INCONCLUSIVE**: drop beyond margin, not confirmed |")
    assert "### rag-bench gate: INCONCLUSIVE" in out and "PASS" not in out


def test_a_question_set_that_grew_by_two_is_gated_on_the_shared_ones(make_run, capsys):
    base = make_run("b", [1] * 29)
    grown = make_run("c", [1] * 31)  # q30 and q31 written in the label app since
    assert gate("--baseline", base, "--current", grown) == 0
    out = capsys.readouterr().out
    assert "### rag-bench gate: PASS" in out and "on 29 labelled questions" in out
    assert "compared on the 29 shared questions. added 2 (q30, q31)" in out


def test_non_inferiority_passes_only_a_drop_shown_within_the_margin(make_run, capsys):
    # 40 questions, nothing changed: within a margin of 0.2 only if the data show it (p of d + 0.2 > 0)
    base, cur = make_run("b", [1] * 40), make_run("c", [1] * 40)
    args = ["--baseline", base, "--current", cur, "--mode", "non-inferiority"]
    assert gate(*args, "--metric", "recall@10", "--max-drop", "0.2") == 0
    assert verdict_row(capsys.readouterr().out, "recall@10").endswith("| pass: drop shown within margin |")
    # two questions cannot show anything: inconclusive, not pass
    two_b, two_c = make_run("b2", [1, 1]), make_run("c2", [1, 1])
    assert gate("--baseline", two_b, "--current", two_c, "--mode", "non-inferiority") == 1
    assert "**INCONCLUSIVE**" in verdict_row(capsys.readouterr().out, "recall@10")
