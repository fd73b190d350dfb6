"""Adding a component is one module + one registry entry + one YAML file: proven with throwaway ones.

Each test defines a component as a module would (settings dataclass + builder), registers it
(``monkeypatch.setitem`` on the registry), writes its YAML into a config folder on Hydra's
search path, composes the run's config exactly as the CLI does, and runs the pipeline.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pytest

from rag_bench.chunk.base import build_chunks
from rag_bench.chunk.registry import CHUNKERS, ChunkerEntry
from rag_bench.chunk.settings import ChunkerConfig, ChunkerTools
from rag_bench.config.compose import compose
from rag_bench.config.schema import register, validate
from rag_bench.core.paths import project_folder
from rag_bench.core.types import Document
from rag_bench.index.base import IndexConfig, IndexContext
from rag_bench.index.dense import DenseIndex
from rag_bench.index.registry import VECTOR_INDEXES, IndexEntry
from rag_bench.pipeline.run import run
from rag_bench.retrieve.base import Candidates, Query, RetrievalConfig, RetrievalStats
from rag_bench.retrieve.registry import RETRIEVERS, RetrieverEntry


def compose_run(tmp_path, overrides, yaml_files: dict[str, str]):
    """The run config the CLI would compose, with ``yaml_files`` ({relative path: text}) on the search path."""
    extra = tmp_path / "configs"
    for name, text in yaml_files.items():
        (extra / name).parent.mkdir(parents=True, exist_ok=True)
        (extra / name).write_text(text, encoding="utf-8")
    register()
    base = ["dataset=annual-report", "embedder=fake", f"cache_dir={tmp_path / 'cache'}", "bootstrap=10"]
    cfg = compose(project_folder("configs"), [*base, *overrides], "test", search=extra)
    return validate(cfg)


# --- a chunker: cut each document into ``parts`` equal pieces ---


@dataclass
class PartsConfig(ChunkerConfig):
    name: str = "parts"
    parts: int = 2


class PartsChunker:
    def __init__(self, cfg: PartsConfig, tools: ChunkerTools) -> None:
        self.cfg = cfg

    def split(self, doc: Document):
        step = -(-len(doc.text) // self.cfg.parts)
        return build_chunks(doc, [(a, min(a + step, len(doc.text))) for a in range(0, len(doc.text), step)])


def test_a_new_chunker(tmp_path, monkeypatch):
    monkeypatch.setitem(CHUNKERS, "parts", ChunkerEntry(PartsConfig, PartsChunker))
    yaml = "defaults:\n  - /schema/chunker/parts@_here_\n  - _self_\n\nname: parts\nparts: 4\n"
    cfg = compose_run(tmp_path, ["chunker=parts", "retrieval=bm25"], {"chunker/parts.yaml": yaml})
    assert cfg.chunker == PartsConfig(parts=4)
    result = run(cfg)
    assert len(result.chunks) == 4  # annual-report is one document
    assert 0 <= result.evaluation.summary["recall@5"].mean <= 1
    with pytest.raises(Exception, match="chunker.size is not a setting of chunker=parts"):
        compose_run(tmp_path, ["chunker=parts", "chunker.size=3"], {})


# --- a vector index: exact search, through a copy of the vectors ---


@dataclass
class CopyConfig(IndexConfig):
    name: str = "copy"


def build_copy(cfg: CopyConfig, vectors: np.ndarray, context: IndexContext) -> DenseIndex:
    assert context.vectors_key  # a key naming the vectors, for backends that persist them
    return DenseIndex(np.array(vectors, copy=True))


def test_a_new_vector_index(tmp_path, monkeypatch):
    monkeypatch.setitem(VECTOR_INDEXES, "copy", IndexEntry(CopyConfig, build_copy))
    yaml = "defaults:\n  - /schema/retrieval/index/copy@_here_\n  - _self_\n\nname: copy\n"
    files = {"retrieval/index/copy.yaml": yaml}
    mine = run(compose_run(tmp_path, ["retrieval=dense", "retrieval.index=copy"], files))
    exact = run(compose_run(tmp_path, ["retrieval=dense"], {}))
    assert mine.config.retrieval.index == CopyConfig()
    np.testing.assert_array_equal(mine.ranked, exact.ranked)
    assert mine.stats.reused["dense"] is False  # its own cache key: the index's settings


# --- a retriever: the first ``depth`` chunks after ``skip``, for every query ---


@dataclass
class FirstSettings:
    skip: int = 0

    def check(self) -> None:
        if self.skip < 0:
            raise ValueError("skip must not be negative")


@dataclass
class FirstConfig(FirstSettings, RetrievalConfig):
    mode: str = "first"


class FirstRetriever:
    name = "first"

    def __init__(self, cfg: FirstSettings, resources) -> None:
        self.cfg, self.chunks = cfg, resources.corpus.chunks

    def retrieve(self, queries: Sequence[Query], depth: int) -> Candidates:
        row = np.arange(self.cfg.skip, min(self.cfg.skip + depth, len(self.chunks)), dtype=np.int64)
        indices = np.tile(row, (len(queries), 1))
        return Candidates(
            self.chunks,
            indices,
            -np.arange(row.size, dtype=np.float64)[None, :].repeat(len(queries), 0),
            RetrievalStats(),
        )


def test_a_new_retriever_alone_and_fused(tmp_path, monkeypatch):
    monkeypatch.setitem(RETRIEVERS, "first", RetrieverEntry(FirstConfig, FirstRetriever, FirstSettings))
    yaml = "defaults:\n  - /schema/retrieval/first@_here_\n  - _self_\n\nmode: first\ndepth: 5\nskip: 1\n"
    files = {"retrieval/first.yaml": yaml}
    alone = run(compose_run(tmp_path, ["retrieval=first", "ks=[1,5]"], files))  # k up to its depth of 5
    assert alone.ranked[0].tolist() == [1, 2, 3, 4, 5]
    fused = run(compose_run(tmp_path, ["retrieval=hybrid", "retrieval.fuse=[bm25,first]", "retrieval.skip=2"], files))
    assert set(fused.stages) == {"bm25", "first", "fused"}
    assert fused.stages["first"].indices[0].tolist()[:3] == [2, 3, 4]
    # RRF by hand for one chunk that only the new retriever ranked: 1 / (60 + its rank)
    bm25 = set(fused.stages["bm25"].indices[0].tolist())
    only_first = [c for c in fused.stages["first"].indices[0].tolist() if c not in bm25]
    assert only_first  # chunks 2..21 are not all among BM25's top 20 of annual-report's chunks
    c = only_first[0]
    rank = fused.stages["first"].indices[0].tolist().index(c) + 1
    at = fused.ranked[0].tolist().index(c)
    assert fused.scores[0][at] == pytest.approx(1 / (60 + rank))
