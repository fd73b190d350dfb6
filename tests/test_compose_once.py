"""The basic launcher is handed the job configs the batch check composed: each composed once, the same config."""

import os
import subprocess
import sys

from hydra import initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.types import RunMode
from omegaconf import OmegaConf

from rag_bench.config.compose_once import BASIC_LAUNCHER, ComposeOnce, composed_once
from rag_bench.config.schema import register
from rag_bench.core.paths import project_folder


def test_calls_alternate_between_composing_and_handing_over():
    made = []

    def load(master_config, sweep_overrides):
        made.append(list(sweep_overrides))
        return {"config": len(made)}

    master, other = OmegaConf.create({}), OmegaConf.create({})
    load_once = composed_once(load)
    first = load_once(master_config=master, sweep_overrides=["a=1"])  # the batch check, by keyword
    assert load_once(master, ["a=1"]) is first  # the launcher, positionally: the same object, not composed again
    assert made == [["a=1"]]
    assert load_once(master, ["a=1"]) == {"config": 2}  # a third request composes afresh
    assert load_once(master, ["a=2"]) == {"config": 3}
    assert load_once(other, ["a=2"]) == {"config": 4}  # another master config is another key
    assert made == [["a=1"], ["a=1"], ["a=2"], ["a=2"]]


def test_the_handed_over_config_equals_a_fresh_composition_and_the_loader_is_restored():
    register()
    with initialize_config_dir(config_dir=str(project_folder("configs")), version_base="1.3"):
        loader = GlobalHydra.instance().hydra.config_loader
        master = loader.load_configuration("config", ["hydra/launcher=basic"], run_mode=RunMode.MULTIRUN)
        assert master.hydra.launcher._target_ == BASIC_LAUNCHER
        overrides = ["chunker.size=300", "retrieval=bm25"]
        fresh = loader.load_sweep_config(master, overrides)
        callback = ComposeOnce()
        callback.on_multirun_start(config=master)
        checked = loader.load_sweep_config(master_config=master, sweep_overrides=overrides)
        launched = loader.load_sweep_config(master, overrides)
        callback.on_multirun_end(config=master)
        assert launched is checked
        assert OmegaConf.to_container(launched, resolve=False) == OmegaConf.to_container(fresh, resolve=False)
        assert launched.chunker.size == 300 and launched.retrieval.mode == "bm25"
        assert "load_sweep_config" not in vars(loader)  # the class's own method again


def test_other_launchers_are_left_alone():
    register()
    with initialize_config_dir(config_dir=str(project_folder("configs")), version_base="1.3"):
        loader = GlobalHydra.instance().hydra.config_loader
        master = loader.load_configuration("config", ["hydra/launcher=joblib"], run_mode=RunMode.MULTIRUN)
        ComposeOnce().on_multirun_start(config=master)
        assert "load_sweep_config" not in vars(loader)


def test_a_point_that_cannot_be_composed_still_stops_the_sweep_before_any_point_runs(tmp_path):
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    sweep_dir = tmp_path / "sweep"
    command = [sys.executable, "-m", "rag_bench", "-m", "dataset=annual-report", "embedder=fake"]
    command += ["chunker=fixed,no-such-chunker", f"hydra.sweep.dir={sweep_dir}"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "no-such-chunker" in done.stderr
    assert not list(sweep_dir.rglob("metrics.json"))  # the first point (chunker=fixed) never ran
