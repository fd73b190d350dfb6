"""A sweep point's config travels to a SLURM job or Ray worker by pickle, and must arrive whole."""

import pickle
from dataclasses import asdict

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

from rag_bench.config.schema import register, validate
from rag_bench.core.paths import project_folder


@pytest.mark.parametrize("retrieval", ["hybrid", "bm25", "dense"])
def test_a_config_survives_pickle_and_cloudpickle(retrieval):
    cloudpickle = pytest.importorskip("cloudpickle")  # submitit's and Ray's serialiser
    register()
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(project_folder("configs")), version_base="1.3"):
        config = validate(
            compose(config_name="config", overrides=[f"retrieval={retrieval}", "retrieval.depth=7", "ks=[1,5]"])
        )
    for dumps in (pickle.dumps, cloudpickle.dumps):
        back = pickle.loads(dumps(config))
        assert asdict(back) == asdict(config) and back.retrieval.depth == 7
        assert type(back.retrieval) is type(config.retrieval)  # the class itself, not a copy without its fields
