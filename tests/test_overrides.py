"""A configuration as overrides (``config/overrides.py``): composed again, the overrides give the same config,
for every point of every sweep preset; a sweep's chosen point is re-run as-is with ``rag-bench @FILE``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

from rag_bench.config.overrides import overrides_for, read_overrides, value_text
from rag_bench.run_folder.write import config_yaml

from .test_presets import PRESETS, run_config, swept


def test_values_as_the_override_grammar_reads_them():
    assert [value_text(v) for v in (None, True, 3, 0.5, [1, 3], "bm25", "a b", "null")] == [
        "null", "true", "3", "0.5", "[1,3]", "bm25", "'a b'", "'null'",
    ]  # fmt: skip


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_point_comes_back_from_its_overrides(preset):
    from rag_bench.core.paths import project_folder

    params = swept(project_folder("configs") / "sweep" / f"{preset}.yaml")
    first = {key: values[0] for key, values in params.items()}
    for key, values in params.items():
        point = {**first, key: values[-1]}
        config = run_config(f"sweep={preset}", *(f"{k}={v}" for k, v in point.items()))
        again = run_config(*overrides_for(config))
        assert again == config, (preset, point, overrides_for(config))
        assert overrides_for(yaml.safe_load(config_yaml(config))) == overrides_for(config)  # from config.yaml too


def test_an_overrides_file_skips_comments_and_blanks(tmp_path):
    path = tmp_path / "w.overrides"
    path.write_text("# chosen\n\nretrieval=bm25\n  chunker.size=400  \n")
    assert read_overrides(path) == ["retrieval=bm25", "chunker.size=400"]


@pytest.mark.slow
def test_the_chosen_point_of_a_sweep_runs_again_as_it_was(tmp_path):
    sweep, again = tmp_path / "sweep", tmp_path / "again"
    base = [sys.executable, "-m", "rag_bench"]
    args = ["-m", "dataset=annual-report", "embedder=fake", "retrieval=bm25,hybrid", "chunker.size=400,800"]
    done = subprocess.run([*base, *args, f"hydra.sweep.dir={sweep}", f"cache_dir={tmp_path / 'c'}"],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    winner = (sweep / "winner.overrides").read_text().splitlines()
    point = winner[0].split("#")[2].split(" of ")[0]
    assert (
        f"re-run the chosen point #{point} as it was: rag-bench @{sweep / 'winner.overrides'}"
        in (sweep / "report.md").read_text()
    )
    rerun = subprocess.run([*base, f"@{sweep / 'winner.overrides'}", f"hydra.run.dir={again}", f"cache_dir={tmp_path}"],
                           capture_output=True, text=True, timeout=300)  # fmt: skip
    assert rerun.returncode == 0, rerun.stderr
    chosen = json.loads((sweep / point / "metrics.json").read_text())
    assert json.loads((again / "metrics.json").read_text())["metrics"] == chosen["metrics"]
    settings = [yaml.safe_load((folder / "config.yaml").read_text()) for folder in (again, sweep / point)]
    assert [{k: v for k, v in s.items() if k != "cache_dir"} for s in settings] == [
        {k: v for k, v in settings[1].items() if k != "cache_dir"}
    ] * 2


def test_an_unreadable_overrides_file_is_one_line_and_exit_2(tmp_path):
    done = subprocess.run([sys.executable, "-m", "rag_bench", f"@{tmp_path / 'none.overrides'}"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert (
        done.returncode == 2 and done.stderr.count("\n") == 1 and "cannot be read as an overrides file" in done.stderr
    )
