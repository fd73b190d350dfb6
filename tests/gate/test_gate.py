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
    assert verdict_row(out, "recall@10") == (
        "| recall@10 | 0.600 | 0.600 | +0.000 | [+0.000, +0.000] | 1.000 | 0.020 | pass: no drop |"
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
    assert verdict_row(out, "recall@10").endswith("| 0.500 | 0.020 | pass: within margin |")


def test_big_real_drop_fails(make_run, capsys):
    # 8 of 20 questions lost, none gained: drop 0.4, exact one-sided p = 1 / 2**8
    base = make_run("b", [1] * 20)
    cur = make_run("c", [None] * 8 + [1] * 12)
    code = gate("--baseline", base, "--current", cur)
    out = capsys.readouterr().out
    assert code == 1
    assert "### rag-bench gate: FAIL (1 of 1 metrics regressed)" in out
    row = verdict_row(out, "recall@10")
    assert row.startswith("| recall@10 | 1.000 | 0.600 | -0.400 |")
    assert row.endswith("| 0.004 | 0.020 | **FAIL**: regression |")  # 1/256 = 0.0039
    assert "Flipped at hit@10: 8 hit -> miss, 0 miss -> hit" in out
    assert "| q01 |  | 1 | - | hit -> miss |" in out


def test_big_drop_of_mixed_differences_is_noise(make_run, capsys):
    # 10 questions: q1-q4 lost, q5-q6 gained; drop 0.2 but p = P(sum of 6 signs <= -2) = (1 + 6 + 15) / 64
    base = make_run("b", [1, 1, 1, 1, None, None, 1, 1, 1, 1])
    cur = make_run("c", [None, None, None, None, 1, 1, 1, 1, 1, 1])
    code = gate("--baseline", base, "--current", cur, "--metric", "recall@10", "--max-drop", "0.05")
    out = capsys.readouterr().out
    assert code == 0
    assert verdict_row(out, "recall@10").endswith(f"| {22 / 64:.3f} | 0.050 | pass: drop not significant |")
    assert "Flipped at hit@10: 4 hit -> miss, 2 miss -> hit" in out


def test_big_drop_on_few_questions_is_noise(make_run, capsys):
    # both of 2 questions lost: drop 1.0, but p = 1/4
    code = gate("--baseline", make_run("b", [1, 2]), "--current", make_run("c", [None, None]))
    assert code == 0
    assert verdict_row(capsys.readouterr().out, "recall@10").endswith("| 0.250 | 0.020 | pass: drop not significant |")


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


def test_mismatched_questions_exit_2(make_run, capsys):
    base = make_run("b", [1] * 10)
    cur = make_run("c", [1] * 11, ids=[f"q{i:02d}" for i in range(1, 9)] + ["x1", "x2", "x3"])
    assert gate("--baseline", base, "--current", cur) == 2
    err = capsys.readouterr().err
    assert "2 (q09, q10) only in" in err
    assert "3 (x1, x2, x3) only in" in err


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
    assert verdict_row(out, "recall@10").endswith("| 0.500 | pass: within margin |")
    assert verdict_row(out, "mrr@10").endswith("| 0.010 | **FAIL**: regression |")
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
