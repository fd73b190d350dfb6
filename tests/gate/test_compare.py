import pytest

from rag_bench.entry.cli import main
from rag_bench.gate.compare import compare_runs
from rag_bench.run_folder.runs import load_run
from rag_bench.score.names import parse_metric


def compare(*args):
    with pytest.raises(SystemExit) as done:
        main(["compare", *map(str, args)])
    return done.value.code


@pytest.fixture
def three_runs(make_run):
    first = make_run("first", [1] * 10)
    worse = make_run("worse", [None] * 8 + [1, 1])  # 8 of 10 lost
    close = make_run("close", [None] * 2 + [1] * 8)  # 2 of 10 lost
    return first, worse, close


def test_paired_tests_against_the_first_run_are_holm_corrected(three_runs):
    runs = [load_run(folder) for folder in three_runs]
    comparison = compare_runs(runs, [parse_metric("recall@10")])
    first, worse, close = comparison.cells
    assert (first.mean, first.delta, first.p_value) == (1.0, None, None)
    # two-sided: 8 differences of -1 -> |sum| >= 8 for 2 of 2**8 sign vectors; 2 differences -> 2 of 4
    assert (worse.mean, worse.delta, worse.p_value) == (0.2, pytest.approx(-0.8), 2 / 256)
    assert (close.mean, close.delta, close.p_value) == (0.8, pytest.approx(-0.2), 2 / 4)
    # Holm: 2/256 * 2 = 1/64, then max(1/64, 0.5 * 1)
    assert (worse.p_holm, close.p_holm) == (1 / 64, 0.5)
    assert worse.delta_low <= -0.8 <= worse.delta_high


def test_compare_prints_a_markdown_table(three_runs, capsys):
    first, worse, close = three_runs
    assert compare(first, worse, close, "--metric", "recall@10", "--metric", "mrr@10") == 0
    out = capsys.readouterr().out
    assert "### rag-bench compare: 3 runs on 10 labelled questions" in out
    assert f"| recall@10 | `{first}` | 1.000 | [1.000, 1.000] | (reference) | | | |" in out
    worse_row = next(line for line in out.splitlines() if line.startswith(f"| recall@10 | `{worse}`"))
    assert worse_row.startswith(f"| recall@10 | `{worse}` | 0.200 |")
    assert worse_row.endswith("| -0.800 | [-1.000, -0.500] | 0.008 | 0.016 * |")
    assert f"| recall@10 | `{close}` | 0.800 |" in out
    assert out.count("| mrr@10 |") == 3


def test_compare_defaults_to_four_metrics_and_checks_its_inputs(make_run, capsys):
    a, b = make_run("a", [1, 2]), make_run("b", [2, 1])
    assert compare(a, b) == 2  # the default metrics include ndcg@10, which these runs lack
    assert "metric ndcg@10 is not in" in capsys.readouterr().err
    assert compare(a) == 2
    assert "compare needs at least two runs (got 1)" in capsys.readouterr().err
    other = make_run("c", [1, 2], ids=["q01", "z"])
    assert compare(a, other, "--metric", "recall@10") == 0  # compared on the one question both scored
    out = capsys.readouterr().out
    assert "2 runs on 1 labelled questions" in out and "added 1 (z); removed 1 (q02)" in out
    assert compare(a, other, "--metric", "recall@10", "--same-questions") == 2
    assert "1 (z) added, 1 (q02) removed" in capsys.readouterr().err
