"""The real pipeline twice (``embedder=fake``), then the real ``rag-bench gate`` on the two run folders."""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

COMMAND = [sys.executable, "-c", "from rag_bench.entry.cli import main; main()"]


def rag_bench(*args, cwd, cache):
    env = {**os.environ, "RAG_BENCH_CACHE": str(cache)}
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run([*COMMAND, *map(str, args)], capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


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
    flips = [line for line in gated.stdout.splitlines() if line.endswith("| hit -> miss |")]
    assert flips, gated.stdout
    question_id, text = (cell.strip() for cell in flips[0].split("|")[1:3])
    assert question_id.startswith("ar-") and text.endswith("?")  # text from the bundled dataset
    failures = [
        case.get("name") for case in ET.parse(junit).getroot().iter("testcase") if case.find("failure") is not None
    ]
    assert failures == ["coverage@10"]
