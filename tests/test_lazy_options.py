"""Options are imported on first use: registering every group imports no option's module, composing imports
the chosen ones, and the compose cache digests an option's schema without importing it."""

import copy
import json
import pickle
import subprocess
import sys

from hydra.core.config_store import ConfigNode, ConfigStore

from rag_bench.chunk.registry import CHUNKERS
from rag_bench.config.compose_cache import sources_digest
from rag_bench.config.lazy_store import LazyNode, store_schema
from rag_bench.core.options import Option, Options

# which option modules a fresh process holds after registering, and after composing chunker=fixed retrieval=bm25
PROBE = """
import json, sys
from rag_bench.config.compose import compose
from rag_bench.config.schema import register, validate
from rag_bench.core.paths import project_folder

def options():
    return sorted(m for m in sys.modules if m in {NAMES})

register()
registered = options()
config = validate(compose(project_folder("configs"), ["chunker=fixed", "retrieval=bm25"], "probe"))
print(json.dumps([registered, options(), type(config.chunker).__name__]))
"""
NAMES = [
    *(f"rag_bench.chunk.{name}" for name in ("fixed", "recursive", "cluster", "semantic")),
    *(f"rag_bench.embed.{name}" for name in ("local", "openai", "cohere", "voyage")),
    *(f"rag_bench.retrieve.{name}" for name in ("bm25", "dense", "external.service")),
    *(f"rag_bench.rerank.{name}" for name in ("cohere", "onnx", "maxsim")),
    "rag_bench.index.hnsw",
    "rag_bench.retrieve.diversity.mmr",
]


def test_registering_imports_no_option_and_composing_only_the_chosen_ones():
    code = PROBE.replace("{NAMES}", repr(set(NAMES)))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    registered, composed, chunker = json.loads(done.stdout.splitlines()[-1])
    assert registered == []
    # the chosen chunker and retriever, the default embedder (local); no other chunker, embedder or reranker
    assert composed == ["rag_bench.chunk.fixed", "rag_bench.embed.local", "rag_bench.retrieve.bm25"]
    assert chunker == "FixedConfig"


def test_an_option_named_by_where_it_lives_imports_it_on_first_use():
    option = Option("rag_bench.chunk.fixed:FixedConfig", "rag_bench.chunk.fixed:build")
    assert option.schema_name == "FixedConfig" and option.where() == (
        "rag_bench.chunk.fixed:FixedConfig",
        "rag_bench.chunk.fixed:build",
    )
    from rag_bench.chunk import fixed

    assert option.schema is fixed.FixedConfig and option.build is fixed.build and option.mixin is None
    assert option.where() == ("rag_bench.chunk.fixed:FixedConfig", "rag_bench.chunk.fixed:build")  # as given
    assert Option(fixed.FixedConfig, fixed.build).where() is None  # given as objects: stored as they are
    assert Option(fixed.FixedConfig, fixed.build).schema_name == "FixedConfig"


def test_a_lazy_schema_is_made_once_when_hydra_loads_it_and_equals_the_eager_one(monkeypatch):
    from rag_bench.chunk.fixed import FixedConfig

    made = []
    monkeypatch.setattr(ConfigStore.instance(), "repo", {})
    store_schema("schema/chunker", "fixed", lambda: made.append(1) or FixedConfig, ("rag_bench.chunk.fixed:X",))
    node = ConfigStore.instance().repo["schema"]["chunker"]["fixed.yaml"]
    assert isinstance(node, LazyNode) and not node.made() and made == []
    assert not copy.deepcopy(node).made() and made == []  # Hydra deep-copies its repositories: nothing made
    first, second = (
        ConfigStore.instance().load("schema/chunker/fixed.yaml"),
        ConfigStore.instance().load("schema/chunker/fixed.yaml"),
    )
    assert made == [1] and node.made()  # made on the first load, shared with the copies Hydra loads
    assert first.node == second.node and first.node is not second.node  # each load its own deep copy
    ConfigStore.instance().store(group="schema/chunker", name="eager", node=FixedConfig)
    eager = ConfigStore.instance().load("schema/chunker/eager.yaml").node
    assert pickle.dumps(first.node) == pickle.dumps(eager)
    sent = pickle.loads(pickle.dumps(node))  # a launcher's pickle of Hydra's state: a plain node, made
    assert type(sent) is ConfigNode and sent.node == first.node and sent.name == "fixed.yaml"


def test_a_schema_from_outside_rag_bench_is_made_when_stored(monkeypatch):
    from rag_bench.chunk.fixed import FixedConfig

    monkeypatch.setattr(ConfigStore.instance(), "repo", {})
    store_schema("schema/chunker", "mine", lambda: FixedConfig, ("my_package.chunkers:MineConfig",))
    store_schema("schema/chunker", "object", lambda: FixedConfig, None)  # a class given as itself
    folder = ConfigStore.instance().repo["schema"]["chunker"]
    assert not any(isinstance(node, LazyNode) for node in folder.values())


def test_the_compose_digest_leaves_lazy_schemas_unmade_and_follows_the_registry(monkeypatch):
    from rag_bench.config.groups import register_groups

    sources = [type("Source", (), {"scheme": staticmethod(lambda: "structured"), "path": "structured://"})()]
    monkeypatch.setattr(ConfigStore.instance(), "repo", {})
    register_groups([CHUNKERS])
    before = sources_digest(sources)
    nodes = list(ConfigStore.instance().repo["schema"]["chunker"].values())
    assert len(nodes) == len(CHUNKERS) and all(isinstance(n, LazyNode) and not n.made() for n in nodes)
    assert sources_digest(sources) == before  # the same registry, the same digest
    group = Options("chunker", default="fixed", options=CHUNKERS.own())
    group["fixed2"] = Option("rag_bench.chunk.fixed:FixedConfig", "rag_bench.chunk.fixed:build")
    register_groups([group])  # one more option: another digest
    assert sources_digest(sources) != before
