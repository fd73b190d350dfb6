import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rag_bench.core.errors import ConfigError
from rag_bench.generate.cli import main
from rag_bench.generate.settings import VERB

RAG_BENCH = [str(Path(sys.executable).with_name("rag-bench"))]


def test_compose_defaults_and_overrides():
    settings = VERB.compose([])
    assert (settings.generator.name, settings.passages, settings.tau) == ("extractive", 5, None)
    settings = VERB.compose(["generator=anthropic", "passages=3", "generator.max_tokens=100"])
    assert (settings.generator.name, settings.generator.model) == ("anthropic", "claude-haiku-4-5")
    assert (settings.passages, settings.generator.max_tokens, settings.generator.temperature) == (3, 100, None)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("passage=3", "Key 'passage' not in 'GenerateConfig'"),
        ("generator.modle=x", "generator.modle is not a setting of generator=extractive; its settings are: threshold"),
        ("generator=gpt", "Available options in 'generator': anthropic, extractive, openai, replay"),
        ("passages=0", "passages (0) must be at least 1"),
        ("generator.threshold=2", "generator.threshold (2.0) must lie in (0, 1]"),
    ],
)
def test_bad_settings_are_config_errors(override, message):
    with pytest.raises(ConfigError) as info:
        VERB.compose([override])
    assert message in str(info.value) and "\n" not in str(info.value)


def test_main_writes_into_the_run_folder(tiny_run, tmp_path, capsys):
    assert main([str(tiny_run), f"cache_dir={tmp_path / 'cache'}"]) == 0
    names = sorted(p.name for p in (tiny_run / "generation").iterdir())
    assert names == ["generation.json", "generation.md", "generation_per_question.csv"]
    out = capsys.readouterr().out
    assert "tiny: 3 questions, 2 passed; 3 answers generated, 0 from cache" in out
    assert "| all | 3 | 2 | 1 | 0 | 0 |" in out


@pytest.mark.slow
def test_end_to_end_on_a_fresh_run(tmp_path):
    """``rag-bench embedder=fake`` writes a run; ``check-generation`` answers it, then again from cache."""
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    run = tmp_path / "run"

    def rag_bench(*args):
        return subprocess.run(
            [*RAG_BENCH, *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    done = rag_bench("embedder=fake", f"hydra.run.dir={run}")
    assert done.returncode == 0, done.stderr
    with (run / "per_question.csv").open(newline="") as handle:
        n = len(list(csv.DictReader(handle)))
    done = rag_bench("check-generation", str(run), "generator=extractive")
    assert done.returncode == 0, done.stderr
    payload = json.loads((run / "generation" / "generation.json").read_text())
    counts, attribution = payload["counts"], payload["attribution"]
    assert n > 0 and counts["questions"] == counts["generated"] == n
    assert sum(attribution.values()) == counts["failed"] == n - counts["passed"]
    assert payload["attribution_by_category"]["all"] == {"questions": n, "passed": counts["passed"], **attribution}
    with (run / "generation" / "generation_per_question.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == n and all(r["passed"] == "True" or r["attribution"] in attribution for r in rows)
    again = rag_bench("check-generation", str(run), "generator=extractive")
    assert f"0 answers generated, {n} from cache" in again.stdout
    assert json.loads((run / "generation" / "generation.json").read_text())["attribution"] == attribution


def test_user_errors_exit_2_with_one_line(tmp_path):
    done = subprocess.run(
        [*RAG_BENCH, "check-generation", str(tmp_path / "missing"), f"cache_dir={tmp_path}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"rag-bench: error: {tmp_path / 'missing'}: is not a folder (fix: give a run folder written by "
        "`rag-bench` (it holds config.yaml and per_question.csv))"
    ]
