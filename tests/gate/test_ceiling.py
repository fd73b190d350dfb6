"""Gate rules for lower-is-better metrics: leak@k held under a ceiling (max: 0 holds it at exactly 0)."""

import json

import pandas as pd
import pytest

from rag_bench.core.errors import ConfigError
from rag_bench.gate.gate import load_rules, run_gate
from rag_bench.gate.render import gate_markdown
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
