"""The gate as an assertion in a test suite: ``assert_no_regression`` runs ``rag-bench gate`` on two run folders."""

from __future__ import annotations

from collections.abc import Sequence


def assert_no_regression(
    baseline_dir,
    current_dir,
    metrics: Sequence[str] | dict[str, float] = ("recall@10",),
    max_drop: float = 0.02,
    alpha: float = 0.05,
    on_inconclusive: str = "fail",
):
    """Fail (AssertionError with the gate's Markdown report) when ``rag-bench gate`` would exit 1: a regression,
    or a drop beyond the margin the data cannot confirm (unless ``on_inconclusive="warn"``).

    ``metrics`` is a list of names sharing ``max_drop``, or a dict of name -> its own max drop.
    Returns the ``GateResult`` when every metric passes.
    """
    from rag_bench.gate.gate import GatePolicy, run_gate
    from rag_bench.gate.render import gate_markdown
    from rag_bench.gate.rules import check_unique, make_rules
    from rag_bench.run_folder.runs import load_run

    names = [metrics] if isinstance(metrics, str) else list(metrics)
    drops = [metrics[name] for name in names] if isinstance(metrics, dict) else [max_drop] * len(names)
    rules = check_unique(make_rules(names, drops))
    policy = GatePolicy(alpha=alpha, on_inconclusive=on_inconclusive)
    result = run_gate(load_run(baseline_dir), load_run(current_dir), rules, policy)
    if not result.passed:
        raise AssertionError("retrieval regressed:\n" + gate_markdown(result))
    return result
