"""Job configs through the disk cache: the same config Hydra composes, read back only under the same inputs."""

import pickle
import shutil

import pytest
from hydra import initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.types import RunMode
from omegaconf import OmegaConf

from rag_bench import compose_cache
from rag_bench.compose_cache import CachedComposer, load_sweep_config, sources_digest
from rag_bench.config import register
from rag_bench.data.bundled import project_folder

JOB = ["chunker.size=300", "retrieval=bm25", "reranker=maxsim"]


@pytest.fixture
def configs(tmp_path, monkeypatch):
    """A copy of the project's configs/ and a cache folder of this test's own (RAG_BENCH_CACHE)."""
    monkeypatch.setenv("RAG_BENCH_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "configs"
    shutil.copytree(project_folder("configs"), folder)
    register()
    return folder


def loader_and_master(folder, *overrides):
    loader = GlobalHydra.instance().hydra.config_loader
    return loader, loader.load_configuration("config", list(overrides), run_mode=RunMode.MULTIRUN)


def refuse(*args, **kwargs):
    raise AssertionError("composed by Hydra, not read from the cache")


def test_a_cached_config_is_the_one_hydra_composes_and_is_read_back_without_hydra(configs, monkeypatch):
    with initialize_config_dir(config_dir=str(configs), version_base="1.3"):
        loader, master = loader_and_master(configs)
        fresh = loader.load_sweep_config(master, JOB)  # Hydra's own
        first = load_sweep_config(CachedComposer.create(loader, master), master, JOB)
        monkeypatch.setattr(loader, "load_configuration", refuse)
        again = load_sweep_config(CachedComposer.create(loader, master), master, JOB)
    for config in (first, again):  # values, types, flags and the master's resolver cache, all equal
        assert pickle.dumps(config) == pickle.dumps(fresh)
    assert again is not first and again.chunker.size == 300 and again.reranker.name == "maxsim"
    assert OmegaConf.get_type(again, "hydra").__name__ == "HydraConf"


@pytest.mark.parametrize("folder", ["/tmp/sweeps/b", '"/tmp/with space/${now:%H-%M}"', "runs/${hydra.job.name}"])
def test_a_sweep_into_another_folder_reads_the_configs_back_with_its_own_folder(configs, monkeypatch, folder):
    with initialize_config_dir(config_dir=str(configs), version_base="1.3"):
        loader, first = loader_and_master(configs, "hydra.sweep.dir=/tmp/sweeps/a", "hydra.run.dir=out/a")
        load_sweep_config(CachedComposer.create(loader, first), first, JOB)
        loader, master = loader_and_master(configs, f"hydra.sweep.dir={folder}", "hydra.run.dir=out/b")
        fresh = loader.load_sweep_config(master, JOB)
        monkeypatch.setattr(loader, "load_configuration", refuse)
        served = load_sweep_config(CachedComposer.create(loader, master), master, JOB)
    assert pickle.dumps(served) == pickle.dumps(fresh)
    assert OmegaConf.to_container(served.hydra.overrides.hydra) == [f"hydra.sweep.dir={folder}", "hydra.run.dir=out/b"]
    assert served.hydra.sweep.dir == fresh.hydra.sweep.dir and served.hydra.run.dir == "out/b"


def test_another_job_a_changed_config_file_or_env_copy_value_composes_again(configs, monkeypatch):
    calls = []
    monkeypatch.setenv("RB_TEST_VALUE", "one")
    with initialize_config_dir(config_dir=str(configs), version_base="1.3"):
        loader, master = loader_and_master(configs, "hydra.job.env_copy=[RB_TEST_VALUE]")
        original = loader.load_configuration

        def counted(*args, **kwargs):
            calls.append(kwargs["overrides"][-1])
            return original(*args, **kwargs)

        monkeypatch.setattr(loader, "load_configuration", counted)
        composer = CachedComposer.create(loader, master)
        load_sweep_config(composer, master, JOB)
        load_sweep_config(composer, master, JOB)
        assert len(calls) == 1
        load_sweep_config(composer, master, [*JOB[:-1], "reranker=none"])  # another job
        monkeypatch.setenv("RB_TEST_VALUE", "two")  # a value the config copies from the environment
        assert load_sweep_config(composer, master, JOB).hydra.job.env_set.RB_TEST_VALUE == "two"
        assert len(calls) == 3
        before = composer.sources
        recursive = configs / "chunker" / "recursive.yaml"
        recursive.write_text(recursive.read_text().replace("size: 800", "size: 700"))
        edited = CachedComposer.create(loader, master)
        assert edited.sources != before
        assert load_sweep_config(edited, master, ["retrieval=bm25"]).chunker.size == 700
        assert len(calls) == 4


def test_a_search_path_or_an_unknown_kind_of_source_is_composed_by_hydra_every_time(configs):
    with initialize_config_dir(config_dir=str(configs), version_base="1.3"):
        loader, master = loader_and_master(configs)
        composer = CachedComposer.create(loader, master)
        before = len(list((configs.parent / "cache").rglob("*")))
        load_sweep_config(composer, master, [*JOB, f"hydra.searchpath=[file://{configs}]"])
        assert len(list((configs.parent / "cache").rglob("*"))) == before  # nothing was kept
        _, searching = loader_and_master(configs, f"hydra.searchpath=[file://{configs}]")
        assert CachedComposer.create(loader, searching) is None
        sources = loader.repository.get_sources()
        assert sources_digest(sources) is not None

        class Remote:
            path = "db://configs"

            def scheme(self):
                return "db"

        assert sources_digest([*sources, Remote()]) is None


def test_the_job_name_is_none_before_hydra_sets_it(monkeypatch):
    class Unset:
        def get(self, key):
            raise KeyError(key)

    monkeypatch.setattr(compose_cache.JobRuntime, "instance", lambda: Unset())
    assert compose_cache.job_name() is None
