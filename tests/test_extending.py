"""Adding an option to any config group is one module + one registry entry + one YAML file: proven for
every group (chunker, embedder, retrieval, retrieval.index, reranker, and each side verb's generator) with
throwaway options.

Each test defines an option as a module would (settings dataclass + builder), registers it
(``monkeypatch.setitem`` on the group's ``Options``), writes its YAML into a config folder on Hydra's
search path, composes the config exactly as the CLI does, and runs the pipeline or the verb.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pytest

from rag_bench.chunk.base import build_chunks
from rag_bench.chunk.registry import CHUNKERS
from rag_bench.chunk.settings import ChunkerConfig, ChunkerTools
from rag_bench.config.compose import compose
from rag_bench.config.schema import register, validate
from rag_bench.contextualize.base import ContextGeneratorConfig
from rag_bench.core.options import Option
from rag_bench.core.paths import project_folder
from rag_bench.core.types import Document
from rag_bench.embed.base import EmbedderConfig, normalise
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.generate.base import Answer, GeneratorConfig
from rag_bench.index.base import IndexConfig, IndexContext
from rag_bench.index.dense import DenseIndex
from rag_bench.index.registry import VECTOR_INDEXES
from rag_bench.pipeline.run import run
from rag_bench.rerank.base import CutRerankerConfig
from rag_bench.rerank.registry import RERANKERS
from rag_bench.retrieve.base import Candidates, Query, RetrievalConfig, RetrievalStats
from rag_bench.retrieve.registry import RETRIEVERS
from rag_bench.rewrite.cost import RewriteUsage
from rag_bench.synthesize.candidates import Candidate, SynthGeneratorConfig


def compose_run(tmp_path, overrides, yaml_files: dict[str, str]):
    """The run config the CLI would compose, with ``yaml_files`` ({relative path: text}) on the search path."""
    extra = tmp_path / "configs"
    extra.mkdir(exist_ok=True)
    for name, text in yaml_files.items():
        (extra / name).parent.mkdir(parents=True, exist_ok=True)
        (extra / name).write_text(text, encoding="utf-8")
    register()
    base = ["dataset=annual-report", "embedder=fake", f"cache_dir={tmp_path / 'cache'}", "bootstrap=10"]
    cfg = compose(project_folder("configs"), [*base, *overrides], "test", search=[extra])
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
    monkeypatch.setitem(CHUNKERS, "parts", Option(PartsConfig, PartsChunker))
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
    monkeypatch.setitem(VECTOR_INDEXES, "copy", Option(CopyConfig, build_copy))
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
    monkeypatch.setitem(RETRIEVERS, "first", Option(FirstConfig, FirstRetriever, FirstSettings))
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


# --- an embedder: letter counts a-z, unit length ---


@dataclass
class LettersConfig(EmbedderConfig):
    name: str = "letters"
    dimension: int | None = 26


class LettersEmbedder:
    name, dimension = "test/letters", 26

    def embed(self, texts: Sequence[str], input_type: str = "document") -> np.ndarray:
        return normalise(np.array([letter_counts(t) for t in texts], dtype=np.float32))


def letter_counts(text: str) -> list[float]:
    lower = text.lower()
    return [float(lower.count(chr(ord("a") + i))) + 1e-3 for i in range(26)]


def test_a_new_embedder(tmp_path, monkeypatch):
    monkeypatch.setitem(EMBEDDERS, "letters", Option(LettersConfig, lambda cfg: LettersEmbedder()))
    yaml = "defaults:\n  - /schema/embedder/letters@_here_\n  - _self_\n\nname: letters\n"
    cfg = compose_run(tmp_path, ["embedder=letters", "retrieval=dense"], {"embedder/letters.yaml": yaml})
    assert cfg.embedder == LettersConfig()
    result = run(cfg)
    # exact search by hand: the first question's top chunk has the largest cosine of letter counts
    vectors = normalise(np.array([letter_counts(c.indexed_text) for c in result.chunks], dtype=np.float32))
    query = normalise(np.array([letter_counts(result.dataset.questions[0].text)], dtype=np.float32))[0]
    assert result.ranked[0][0] == int(np.argmax(vectors @ query))
    assert result.stats.embedded == len(result.chunks) + len(result.dataset.questions)  # through the vector cache


# --- a reranker: the fused head in reverse ---


@dataclass
class ReverseConfig(CutRerankerConfig):
    name: str = "reverse"


class ReverseReranker:
    name = "reverse"

    def score(self, question: str, passages: Sequence[str]) -> np.ndarray:
        return -np.arange(len(passages), dtype=np.float64)[::-1]


def test_a_new_reranker(tmp_path, monkeypatch):
    monkeypatch.setitem(RERANKERS, "reverse", Option(ReverseConfig, lambda cfg, ws: ReverseReranker()))
    yaml = "defaults:\n  - /schema/reranker/reverse@_here_\n  - _self_\n\nname: reverse\ndepth: 5\n"
    result = run(compose_run(tmp_path, ["retrieval=bm25", "reranker=reverse"], {"reranker/reverse.yaml": yaml}))
    fused = result.stages["bm25"].indices[0]
    assert result.ranked[0][:5].tolist() == fused[:5][::-1].tolist()
    assert result.ranked[0][5:].tolist() == fused[5:].tolist()  # below the reranker's depth: the fused order


# --- a generator for each side verb, added the same way ---


@dataclass
class EchoConfig(GeneratorConfig):
    name: str = "echo"


class EchoGenerator:
    """check-generation: cites the first passage, quoting its first words."""

    name, key = "echo", "echo/v1"

    def answer(self, prompt) -> Answer:
        return Answer.from_text(f'"{prompt.passages[0].text.split(".")[0]}" [1]')

    def close(self) -> None:
        pass


def verb_yaml(tmp_path, verb, text: str) -> list:
    """A config folder holding ``generator/<name>.yaml`` for ``verb``, as a user's own folder would."""
    folder = tmp_path / "my-configs"
    (folder / "generator").mkdir(parents=True, exist_ok=True)
    name = text.split("name: ")[1].split()[0]
    (folder / "generator" / f"{name}.yaml").write_text(
        f"defaults:\n  - /schema/{verb.folder}/generator/{name}@_here_\n  - _self_\n\n{text}", encoding="utf-8"
    )
    return [folder]


def test_a_new_answer_generator(tmp_path, monkeypatch):
    from rag_bench.generate.registry import GENERATORS
    from rag_bench.generate.run import check_generation
    from rag_bench.generate.settings import VERB
    from rag_bench.report.run.outputs import write_run

    monkeypatch.setitem(GENERATORS, "echo", Option(EchoConfig, lambda cfg: EchoGenerator()))
    settings = VERB.compose(
        ["generator=echo", f"cache_dir={tmp_path / 'cache'}"], verb_yaml(tmp_path, VERB, "name: echo\n")
    )
    assert settings.generator == EchoConfig()
    write_run(run(compose_run(tmp_path, ["retrieval=bm25"], {})), tmp_path / "run")
    result = check_generation(tmp_path / "run", settings)
    assert {r.answer.citations for r in result.results} == {(1,)}
    assert result.generator_key == "echo/v1"


@dataclass
class FirstSentenceConfig(SynthGeneratorConfig):
    name: str = "first-sentence"


class FirstSentenceCandidates:
    """synthesize: one candidate per document, its evidence the document's first sentence."""

    settings, usage, cost_usd = {"name": "first-sentence"}, {}, None

    def __init__(self, cfg, documents, cache) -> None:
        pass

    def candidates(self, documents, bar):
        for doc in documents:
            sentence = doc.text.split(". ")[0]
            yield Candidate(doc.id, f"What does {doc.id} open with?", sentence, origin=f"first {doc.id}")

    def close(self) -> None:
        pass


def test_a_new_question_generator(tmp_path, monkeypatch):
    from rag_bench.synthesize.registry import GENERATORS
    from rag_bench.synthesize.run import synthesize
    from rag_bench.synthesize.settings import VERB

    monkeypatch.setitem(GENERATORS, "first-sentence", Option(FirstSentenceConfig, FirstSentenceCandidates))
    overrides = ["generator=first-sentence", "dataset=annual-report", "embedder=fake", f"out={tmp_path / 'q.jsonl'}"]
    settings = VERB.compose(
        [*overrides, f"cache_dir={tmp_path / 'cache'}"], verb_yaml(tmp_path, VERB, "name: first-sentence\n")
    )
    done = synthesize(settings)
    assert done.summary["candidates"] == 1  # annual-report is one document
    assert [v.candidate.origin for v in done.verdicts] == ["first annual-report.md"]


@dataclass
class TitleContextConfig(ContextGeneratorConfig):
    name: str = "doc-id"


class DocIdContexts:
    """contextualize: every chunk's context is its document's id."""

    usage: dict = {}

    def __init__(self, cfg, documents, cache) -> None:
        pass

    def contexts(self, doc, chunks, bar) -> list[str]:
        bar.update(len(chunks))
        return [f"from {doc.id}"] * len(chunks)

    def close(self) -> None:
        pass


def test_a_new_context_generator(tmp_path, monkeypatch):
    from rag_bench.chunk.contexts import read_contexts
    from rag_bench.contextualize.registry import GENERATORS
    from rag_bench.contextualize.run import contextualize
    from rag_bench.contextualize.settings import VERB

    monkeypatch.setitem(GENERATORS, "doc-id", Option(TitleContextConfig, DocIdContexts))
    overrides = ["generator=doc-id", "dataset=annual-report", "embedder=fake", "chunker=fixed", "chunker.size=400"]
    settings = VERB.compose(
        [*overrides, f"out={tmp_path / 'ctx.jsonl'}", f"cache_dir={tmp_path / 'cache'}"],
        verb_yaml(tmp_path, VERB, "name: doc-id\n"),
    )
    path, count, _ = contextualize(settings)
    texts = {entry.context for entry in read_contexts(path).by_key.values()}
    assert count > 1 and texts == {"from annual-report.md"}


@dataclass
class ShoutConfig:
    name: str = "shout"


class ShoutRewriter:
    """rewrite: one keywords rewrite per question, the question said louder."""

    kinds = ("keywords",)

    def __init__(self, cfg, dataset, cache) -> None:
        self.usage = RewriteUsage()

    def rewrite(self, question, kind: str, limit: int) -> list[str]:
        return [f"{question.text} NOW"]

    def close(self) -> None:
        pass


def test_a_new_rewriter(tmp_path, monkeypatch):
    from rag_bench.data.variants import read_variants
    from rag_bench.rewrite.registry import REWRITERS
    from rag_bench.rewrite.run import rewrite
    from rag_bench.rewrite.settings import VERB

    monkeypatch.setitem(REWRITERS, "shout", Option(ShoutConfig, ShoutRewriter))
    overrides = ["generator=shout", "dataset=annual-report", f"out={tmp_path / 'v.jsonl'}"]
    written = rewrite(
        VERB.compose([*overrides, f"cache_dir={tmp_path / 'cache'}"], verb_yaml(tmp_path, VERB, "name: shout\n"))
    )
    entries = read_variants(written.path)
    assert entries and all(e.kind == "keywords" and e.texts == (f"{e.question} NOW",) for e in entries)
