"""Compositions through the disk cache: the same config Hydra composes, read back only under the same inputs."""

import os
import pickle
import shutil
import subprocess
import sys

import pytest
from hydra import initialize_config_dir
from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra.core.global_hydra import GlobalHydra
from hydra.core.utils import setup_globals
from hydra.types import RunMode
from omegaconf import OmegaConf

from rag_bench.config import compose_cache
from rag_bench.config.compose_cache import cache_dir_override, installed, sources_digest
from rag_bench.config.schema import register
from rag_bench.core.paths import project_folder

JOB = ["chunker.size=300", "retrieval=bm25", "reranker=maxsim"]
HYDRA_COMPOSE = ConfigLoaderImpl.load_configuration


@pytest.fixture
def configs(tmp_path):
    """A copy of the project's configs/."""
    folder = tmp_path / "configs"
    shutil.copytree(project_folder("configs"), folder)
    register()
    return folder


@pytest.fixture
def counted(monkeypatch):
    """The overrides of every composition Hydra itself carries out (under the cache, when installed)."""
    calls = []

    def compose(self, config_name, overrides, run_mode, from_shell=True, validate_sweep_overrides=True):
        calls.append(list(overrides))
        return HYDRA_COMPOSE(self, config_name, overrides, run_mode, from_shell, validate_sweep_overrides)

    monkeypatch.setattr(ConfigLoaderImpl, "load_configuration", compose)
    return calls


def sweep_and_job(*overrides):
    loader = GlobalHydra.instance().hydra.config_loader
    master = loader.load_configuration("config", list(overrides), run_mode=RunMode.MULTIRUN)
    return master, loader.load_sweep_config(master, JOB)


def pickled(configs):
    """Each config pickled without what it resolved so far (``${now:}``: another second, another value)."""
    out = []
    for config in configs:
        config = config.copy()
        OmegaConf.clear_cache(config)
        out.append(pickle.dumps(config))
    return out


def test_cached_configs_are_hydras_own_and_are_read_back_without_composing(configs, tmp_path, counted):
    with initialize_config_dir(config_dir=str(configs), version_base="1.3"):
        fresh = sweep_and_job("hydra.sweep.dir=/tmp/sweeps/a")  # Hydra alone
        assert len(counted) == 2
        with installed(str(tmp_path / "cache")):
            first = sweep_and_job("hydra.sweep.dir=/tmp/sweeps/a")
            again = sweep_and_job("hydra.sweep.dir=/tmp/sweeps/a")
        assert len(counted) == 4  # the installed cache composed each once; the second pass composed nothing
        assert ConfigLoaderImpl.load_configuration is not HYDRA_COMPOSE  # the test's counter, restored
    for pair in (first, again):  # values, types and flags all equal
        assert pickled(pair) == pickled(fresh)
    master, job = again
    assert job is not first[1] and job.chunker.size == 300 and job.reranker.name == "maxsim"
    assert OmegaConf.get_type(job, "hydra").__name__ == "HydraConf" and master.hydra.sweep.dir == "/tmp/sweeps/a"


def test_a_kept_composition_is_not_synced_and_a_torn_one_is_composed_again(configs, tmp_path, counted, monkeypatch):
    import rag_bench.core.files

    synced = []
    monkeypatch.setattr(rag_bench.core.files.os, "fsync", synced.append)
    with initialize_config_dir(config_dir=str(configs), version_base="1.3"):
        loader = GlobalHydra.instance().hydra.config_loader
        with installed(str(tmp_path / "cache")):
            first = loader.load_configuration("config", ["chunker.size=300"], run_mode=RunMode.RUN)
        assert len(counted) == 1 and synced == []
        (entry,) = [p for p in (tmp_path / "cache" / "composed").rglob("*") if p.is_file()]
        entry.write_bytes(entry.read_bytes()[:-5])  # what a power cut may leave of an unsynced write
        with installed(str(tmp_path / "cache")):
            again = loader.load_configuration("config", ["chunker.size=300"], run_mode=RunMode.RUN)
        assert len(counted) == 2 and pickled([again]) == pickled([first])


@pytest.mark.parametrize("folder", ["/tmp/sweeps/b", '"/tmp/with space/${now:%H-%M}"', "runs/${hydra.job.name}"])
def test_a_sweep_into_another_folder_reads_the_configs_back_with_its_own_folder(configs, tmp_path, counted, folder):
    with initialize_config_dir(config_dir=str(configs), version_base="1.3"):
        fresh = sweep_and_job(f"hydra.sweep.dir={folder}", "hydra.run.dir=out/b")
        with installed(str(tmp_path / "cache")):
            sweep_and_job("hydra.sweep.dir=/tmp/sweeps/a", "hydra.run.dir=out/a")
            composed = len(counted)
            served = sweep_and_job(f"hydra.sweep.dir={folder}", "hydra.run.dir=out/b")
        assert len(counted) == composed  # read back: nothing composed for the new folder
    assert pickled(served) == pickled(fresh)
    master, job = served
    assert OmegaConf.to_container(job.hydra.overrides.hydra)[:2] == [f"hydra.sweep.dir={folder}", "hydra.run.dir=out/b"]
    assert job.hydra.sweep.dir == fresh[1].hydra.sweep.dir and master.hydra.run.dir == "out/b"


def test_the_default_output_folder_is_the_time_of_this_run_not_of_the_kept_config(configs, tmp_path):
    clock = ["03-00-00"]
    try:
        with initialize_config_dir(config_dir=str(configs), version_base="1.3"), installed(str(tmp_path / "cache")):
            OmegaConf.register_new_resolver("now", lambda pattern: clock[0], use_cache=True, replace=True)
            first, _ = sweep_and_job()
            assert first.hydra.sweep.dir == "results/sweeps/03-00-00/03-00-00"
            clock[0] = "04-00-00"
            again, job = sweep_and_job()
            assert again.hydra.sweep.dir == job.hydra.sweep.dir == "results/sweeps/04-00-00/04-00-00"
    finally:
        setup_globals()  # Hydra's own resolvers back


def test_another_job_a_changed_config_file_or_env_copy_value_composes_again(configs, tmp_path, counted, monkeypatch):
    monkeypatch.setenv("RB_TEST_VALUE", "one")
    with initialize_config_dir(config_dir=str(configs), version_base="1.3"), installed(str(tmp_path / "cache")):
        loader = GlobalHydra.instance().hydra.config_loader

        def job(*overrides):
            return loader.load_configuration("config", ["hydra.job.env_copy=[RB_TEST_VALUE]", *overrides], RunMode.RUN)

        job(*JOB)
        job(*JOB)
        assert len(counted) == 1
        job(*JOB[:-1], "reranker=none")  # another job
        monkeypatch.setenv("RB_TEST_VALUE", "two")  # a value the config copies from the environment
        assert job(*JOB).hydra.job.env_set.RB_TEST_VALUE == "two"
        assert len(counted) == 3
    recursive = configs / "chunker" / "recursive.yaml"
    recursive.write_text(recursive.read_text().replace("size: 800", "size: 700"))
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(configs), version_base="1.3"), installed(str(tmp_path / "cache")):
        loader = GlobalHydra.instance().hydra.config_loader
        assert loader.load_configuration("config", ["retrieval=bm25"], RunMode.RUN).chunker.size == 700
        assert len(counted) == 4


def test_a_search_path_an_unknown_source_or_a_failure_is_left_to_hydra(configs, tmp_path, counted):
    cache = tmp_path / "cache"
    with initialize_config_dir(config_dir=str(configs), version_base="1.3"), installed(str(cache)):
        loader = GlobalHydra.instance().hydra.config_loader
        loader.load_configuration("config", [f"hydra.searchpath=[file://{configs}]"], RunMode.RUN)
        assert not (cache / "composed").exists()  # nothing was kept
        with pytest.raises(Exception, match="no-such-chunker"):  # Hydra's own error, naming the user's words
            loader.load_configuration("config", ["chunker=no-such-chunker", "hydra.run.dir=x"], RunMode.RUN)
        sources = loader.repository.get_sources()
        assert sources_digest(sources) is not None

        class Remote:
            path = "db://configs"

            def scheme(self):
                return "db"

        assert sources_digest([*sources, Remote()]) is None


def test_the_cache_folder_comes_from_the_command_line_and_the_job_name_may_be_unset(monkeypatch):
    assert cache_dir_override(["-m", "cache_dir=/data/cache", "ks=[1]"]) == "/data/cache"
    assert cache_dir_override(["cache_dir=/a,/b"]) is None and cache_dir_override(["tau=0.3"]) is None

    class Unset:
        def get(self, key):
            raise KeyError(key)

    monkeypatch.setattr(compose_cache.JobRuntime, "instance", lambda: Unset())
    assert compose_cache.job_name() is None


@pytest.mark.slow
def test_a_repeated_cli_sweep_composes_nothing(tmp_path):
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    base = [sys.executable, "-m", "rag_bench", "-m", "dataset=annual-report", "embedder=fake", "retrieval=bm25"]
    for name in ("a", "b"):
        command = [*base, "chunker.size=300,600", f"hydra.sweep.dir={tmp_path / name}"]
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        entries = sorted(p.name for p in (tmp_path / "cache" / "composed").rglob("*") if p.is_file())
        if name == "a":
            first = entries
    assert entries == first and len(first) == 4  # get_mode's and the sweep's own config, two jobs: no new key
    a, b = (yaml_text(tmp_path / n / "0" / ".hydra" / "hydra.yaml") for n in "ab")
    assert a.replace(str(tmp_path / "a"), str(tmp_path / "b")) == b


def yaml_text(path):
    return path.read_text(encoding="utf-8")


def test_a_config_file_edited_while_a_command_runs_is_never_kept_under_the_old_digest(configs, tmp_path, counted):
    with initialize_config_dir(config_dir=str(configs), version_base="1.3"), installed(str(tmp_path / "cache")) as c:
        loader = GlobalHydra.instance().hydra.config_loader
        assert c.sources(loader) is not None  # the sources as the command found them
        recursive = configs / "chunker" / "recursive.yaml"
        recursive.write_text(recursive.read_text().replace("size: 800", "size: 700"))
        assert loader.load_configuration("config", ["retrieval=bm25"], RunMode.RUN).chunker.size == 700
        assert loader.load_configuration("config", ["retrieval=bm25"], RunMode.RUN).chunker.size == 700
    assert len(counted) == 2 and not (tmp_path / "cache" / "composed").exists()  # composed twice, kept never


@pytest.mark.parametrize("mode_line", [[], ["hydra.mode=RUN"]])
def test_a_run_composes_its_config_once_and_get_mode_reads_the_mode_from_it(configs, tmp_path, counted, mode_line):
    overrides = ["chunker.size=300", "hydra.run.dir=/tmp/runs/a", *mode_line]
    ran = overrides if mode_line else [*overrides, "hydra.mode=RUN"]  # what Hydra's _run_app composes next
    with initialize_config_dir(config_dir=str(configs), version_base="1.3"):
        hydra = GlobalHydra.instance().hydra
        assert hydra.get_mode("config", overrides) == (RunMode.RUN if mode_line else None)  # Hydra alone
        fresh = hydra.compose_config("config", ran, RunMode.RUN)
        assert len(counted) == 2  # get_mode's multirun composition, then the run's
        for _ in range(2):  # a cold cache, then a warm one
            with installed(str(tmp_path / "cache")):
                assert hydra.get_mode("config", overrides) == (RunMode.RUN if mode_line else None)
                served = hydra.compose_config("config", ran, RunMode.RUN)
            assert len(counted) == 3  # composed once in all, by the first get_mode
            assert pickled([served]) == pickled([fresh])
            assert OmegaConf.to_container(served.hydra.overrides.hydra)[-1] == "hydra.mode=RUN"
        with installed(str(tmp_path / "cache")):
            hydra.get_mode("config", overrides)
            served = hydra.compose_config("config", ran, RunMode.RUN)
            assert hydra.compose_config("config", ran, RunMode.RUN) is not served  # held for the next call only


def test_get_mode_leaves_a_sweep_command_line_to_hydra(configs, tmp_path, counted):
    with initialize_config_dir(config_dir=str(configs), version_base="1.3"), installed(str(tmp_path / "cache")):
        hydra = GlobalHydra.instance().hydra
        assert hydra.get_mode("config", ["chunker.size=300,600"]) is None  # refused in run mode; Hydra's answer
        master = hydra.compose_config("config", ["chunker.size=300,600", "hydra.mode=MULTIRUN"], RunMode.MULTIRUN)
    assert master.hydra.mode == RunMode.MULTIRUN and len(counted) == 2  # get_mode's and the sweep's, as before
