"""Gate rules for lower-is-better metrics: leak@k held under a ceiling (max: 0 holds it at exactly 0)."""

import json

import pandas as pd
import pytest

from rag_bench.core.errors import ConfigError
from rag_bench.gate.gate import run_gate
from rag_bench.gate.render import gate_markdown
from rag_bench.gate.rules import load_rules
from rag_bench.run_folder.runs import load_run


def _run(folder, leaks, recalls):
    """A run folder written by hand: per-question leak@10 and recall@10."""
    folder.mkdir()
    ids = [f"q{i}" for i in range(len(leaks))]
    table = pd.DataFrame({"question_id": ids, "labelled": True, "first_hit_rank": 1.0, "hit@10": recalls,
                          "leak@10": leaks, "recall@10": recalls, "top_chunks": "[]"})  # fmt: skip
    table.to_csv(folder / "per_question.csv", index=False)
    metrics = {"leak@10": sum(leaks) / len(leaks), "recall@10": sum(recalls) / len(recalls)}
    (folder / "metrics.json").write_text(json.dumps({"dataset": "hand", "n_questions": len(ids), "metrics": metrics}))
    (folder / "config.yaml").write_text("dataset:\n  name: hand\n  path: null\n")
    return load_run(folder)


def test_leak_held_at_zero(tmp_path):
    config = tmp_path / "gate.yaml"
    config.write_text("- metric: leak@10\n  max: 0\n- metric: recall@10\n  max_drop: 0.05\n")
    rules = load_rules(config)
    assert (rules[0].ceiling, rules[1].ceiling) == (0.0, None)
    base = _run(tmp_path / "base", [0.0] * 6, [1.0] * 6)
    clean = run_gate(base, _run(tmp_path / "clean", [0.0] * 6, [1.0] * 6), rules)
    assert clean.passed and clean.verdicts[0].status == "under ceiling"
    one_leak = run_gate(base, _run(tmp_path / "leaky", [0.0] * 5 + [0.1], [1.0] * 6), rules)  # one chunk
    assert not one_leak.passed and one_leak.verdicts[0].status == "regression"
    assert "max 0.000" in gate_markdown(one_leak) and "**FAIL**" in gate_markdown(one_leak)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- metric: leak@10\n  max_drop: 0.02\n", "leak@10 is lower-is-better; hold it under a ceiling"),
        ("- metric: recall@10\n  max: 0\n", "recall@10 is higher-is-better; gate it with max_drop"),
        ("- metric: leak@10\n  max: -1\n", "max of leak@10 \\(-1\\) must be a number from 0 to 1"),
    ],
)
def test_rules_are_checked(tmp_path, text, message):
    config = tmp_path / "gate.yaml"
    config.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_rules(config)


def test_a_leaking_probe_without_labels_fails_the_ceiling(tmp_path):
    # q0..q2 labelled and clean; p1 is an access-control probe (a filter, no evidence: labelled False)
    # whose top 10 holds 4 forbidden chunks of 10. The ceiling holds the mean over every filtered question.
    def run(name, probe_leak):
        folder = tmp_path / name
        folder.mkdir()
        table = pd.DataFrame({"question_id": ["q0", "q1", "q2", "p1"], "labelled": [True, True, True, False],
                              "selectivity": 0.5, "first_hit_rank": [1.0, 1.0, 1.0, None],
                              "hit@10": [1.0, 1.0, 1.0, None], "leak@10": [0.0, 0.0, 0.0, probe_leak],
                              "recall@10": [1.0, 1.0, 1.0, None], "top_chunks": "[]"})  # fmt: skip
        table.to_csv(folder / "per_question.csv", index=False)
        metrics = {"leak@10": probe_leak / 4, "recall@10": 1.0}
        (folder / "metrics.json").write_text(json.dumps({"dataset": "hand", "n_questions": 3, "metrics": metrics}))
        return load_run(folder)

    config = tmp_path / "gate.yaml"
    config.write_text("- metric: leak@10\n  max: 0\n- metric: recall@10\n  max_drop: 0\n")
    result = run_gate(run("base", 0.0), run("leaky", 0.4), load_rules(config))
    leak, recall = result.verdicts
    assert (leak.n, leak.current, leak.status) == (4, pytest.approx(0.1), "regression")
    assert (recall.n, recall.status) == (3, "no drop")
    assert not result.passed and result.flips == {10: ()}  # the probe has no hit@10 to flip
    assert (result.n_questions, result.n_probes) == (3, 1)
    assert "on 3 labelled questions and 1 filtered questions without labels (leak@k only)" in gate_markdown(result)
