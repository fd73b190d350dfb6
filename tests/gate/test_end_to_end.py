"""The real pipeline twice (``embedder=fake``), then the real ``rag-bench gate`` on the two run folders."""

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from rag_bench.gate.compare import compare_runs
from rag_bench.run_folder.runs import load_run
from rag_bench.score.names import parse_metric

COMMAND = [sys.executable, "-c", "from rag_bench.entry.cli import main; main()"]


def rag_bench(*args, cwd, cache):
    env = {**os.environ, "RAG_BENCH_CACHE": str(cache)}
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run([*COMMAND, *map(str, args)], capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


@pytest.mark.slow
def test_gate_fails_a_worse_configuration_and_lists_flipped_questions(tmp_path):
    cache, base, worse = tmp_path / "cache", tmp_path / "base", tmp_path / "worse"
    for run_dir, overrides in ((base, []), (worse, ["retrieval=bm25", "chunker.size=60"])):
        done = rag_bench(
            "embedder=fake", "dataset=annual-report", *overrides, f"hydra.run.dir={run_dir}", cwd=tmp_path, cache=cache
        )
        assert done.returncode == 0, done.stderr

    same = rag_bench("gate", "--baseline", base, "--current", base, cwd=tmp_path, cache=cache)
    assert same.returncode == 0, same.stderr
    assert "| recall@10 |" in same.stdout and "pass: no drop" in same.stdout

    junit = tmp_path / "gate.xml"
    args = ["--metric", "recall@10", "--max-drop", "0.02", "--metric", "coverage@10", "--max-drop", "0.05"]
    gated = rag_bench(
        "gate", "--baseline", base, "--current", worse, *args, "--junit", junit, cwd=tmp_path, cache=cache
    )
    assert gated.returncode == 1, gated.stderr
    coverage_row = next(line for line in gated.stdout.splitlines() if line.startswith("| coverage@10 |"))
    assert coverage_row.endswith("| **FAIL**: regression |")
    assert "### rag-bench gate: REGRESSION (1 of 2 metrics regressed)" in gated.stdout
    flips = [line for line in gated.stdout.splitlines() if line.endswith("| hit -> miss |")]
    assert flips, gated.stdout
    question_id, text = (cell.strip() for cell in flips[0].split("|")[1:3])
    assert question_id.startswith("ar-") and text.endswith("?")  # text from the bundled dataset
    recall_row = next(line for line in gated.stdout.splitlines() if line.startswith("| recall@10 |"))
    assert recall_row.endswith("| **INCONCLUSIVE**: drop beyond margin, not confirmed |"), recall_row
    failures = {
        case.get("name"): case.find("failure").get("type")
        for case in ET.parse(junit).getroot().iter("testcase")
        if case.find("failure") is not None
    }
    assert failures == {"recall@10": "inconclusive", "coverage@10": "regression"}


def test_a_run_shows_one_interval_on_the_console_in_metrics_json_and_in_compare(tmp_path):
    cache, runs = tmp_path / "cache", [tmp_path / "a", tmp_path / "b"]
    printed = []
    for run_dir, overrides in zip(runs, (["bootstrap=300", "seed=7"], ["retrieval=bm25"]), strict=True):
        done = rag_bench("embedder=fake", "dataset=annual-report", *overrides, f"hydra.run.dir={run_dir}", cwd=tmp_path,
                         cache=cache)  # fmt: skip
        assert done.returncode == 0, done.stderr
        printed.append(next(line for line in done.stdout.splitlines() if line.startswith("recall@5 ")))
    shown = rag_bench("compare", *runs, "--metric", "recall@5", "--seed", "3", cwd=tmp_path, cache=cache)
    assert shown.returncode == 0, shown.stderr
    rows = [line for line in shown.stdout.splitlines() if line.startswith("| recall@5 |")]
    for run_dir, console, row in zip(runs, printed, rows, strict=True):
        written = json.loads((run_dir / "metrics.json").read_text())
        mean, (low, high) = written["metrics"]["recall@5"], written["ci95"]["recall@5"]
        # the run's own resamples (300, seed 7; 1000, seed 0) whatever compare's --seed: the same three numbers
        assert console.split() == ["recall@5", f"{mean:.3f}", f"[{low:.3f},", f"{high:.3f}]"]
        assert row.split(" | ")[2:4] == [f"{mean:.3f}", f"[{low:.3f}, {high:.3f}]"]
        cell = next(c for c in compare_runs([load_run(r) for r in runs], [parse_metric("recall@5")]).cells
                    if c.run == str(run_dir))  # fmt: skip
        assert (cell.mean, cell.ci_low, cell.ci_high) == (mean, low, high)  # exactly, not just as printed
