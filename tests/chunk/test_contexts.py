import hashlib
import json

import pytest

from rag_bench.chunk.base import RangeChunker
from rag_bench.chunk.contexts import ContextEntry, document_hash, read_contexts, write_contexts
from rag_bench.chunk.recursive import recursive_ranges
from rag_bench.chunk.registry import CHUNKERS
from rag_bench.chunk.settings import ChunkerTools
from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError, DataError
from rag_bench.core.types import Dataset, Document, Span
from rag_bench.core.workspace import Workspace
from rag_bench.pipeline.run import chunk_dataset
from rag_bench.score.relevance import ChunkLocator, touching
from rag_bench.score.spans import span_metrics
from rag_bench.testing import FakeEmbedder

TEXT = "# Report\nSales rose.\n## Risks\nFloods hit the plant."
DOC = Document("r.md", TEXT, title="Report")
SHA = hashlib.sha256(TEXT.encode("utf-8")).hexdigest()


def chunks_of(prefix, contexts=None):
    return RangeChunker(recursive_ranges, 22, 0, prefix=prefix, tools=ChunkerTools(contexts=contexts)).split(DOC)


def write_for(path, chunks, texts):
    write_contexts(path, [ContextEntry.of(DOC, c, t) for c, t in zip(chunks, texts, strict=True)])
    return read_contexts(path)


def test_round_trip_keeps_every_field(tmp_path):
    entries = [ContextEntry(SHA, 0, 20, "About sales — “quoted”", "r.md"), ContextEntry(SHA, 21, 51, "Risks", "r.md")]
    path = tmp_path / "sub" / "contexts.jsonl"
    assert write_contexts(path, entries) == 2
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert first == {"doc_sha256": SHA, "start": 0, "end": 20, "context": "About sales — “quoted”", "doc_id": "r.md"}
    back = read_contexts(path)
    assert list(back.by_key.values()) == entries and len(back) == 2
    assert document_hash(TEXT) == SHA


def test_contexts_prefix_comes_from_the_file(tmp_path):
    plain = chunks_of("none")
    assert [c.text for c in plain] == ["# Report\nSales rose.", "## Risks", "Floods hit the plant."]
    contexts = write_for(tmp_path / "c.jsonl", plain, ["Report, sales", "Report, risks", "Report, risks, floods"])
    chunks = chunks_of("contexts", contexts)
    assert [c.prefix for c in chunks] == ["Report, sales", "Report, risks", "Report, risks, floods"]
    assert chunks[2].indexed_text == "Report, risks, floods\nFloods hit the plant."
    assert [(c.start, c.end) for c in chunks] == [(c.start, c.end) for c in plain]


@pytest.mark.parametrize("prefix", ["title", "headings", "contexts"])
def test_prefixes_are_never_counted_by_character_metrics(tmp_path, prefix):
    plain = chunks_of("none")
    contexts = write_for(tmp_path / "c.jsonl", plain, ["a long context " * 20] * 3)
    chunks = chunks_of(prefix, contexts)
    assert all(c.prefix for c in chunks)
    spans = [Span("r.md", TEXT.index("Floods"), len(TEXT))]  # 21 characters, all of chunk 2
    ranked = [2, 0, 1]
    values = {}
    for name, cs in (("none", plain), (prefix, chunks)):
        values[name], _ = span_metrics(ranked, cs, spans, touching(ChunkLocator(cs), spans, 0.5), [1, 2])
    assert values[prefix] == values["none"]
    assert values[prefix]["char_precision@1"] == 1.0  # 21 covered / 21 source characters, prefix ignored
    assert values[prefix]["char_precision@2"] == pytest.approx(21 / (21 + 20))
    assert values[prefix]["precision_omega"] == 1.0


def test_missing_context_names_the_document_span_and_fix(tmp_path):
    plain = chunks_of("none")
    contexts = write_for(tmp_path / "c.jsonl", plain[:2], ["one", "two"])
    with pytest.raises(DataError) as info:
        chunks_of("contexts", contexts)
    message = str(info.value)
    assert "has no context for document 'r.md' chunk [30, 51)" in message
    assert str(tmp_path / "c.jsonl") in message and "rag-bench contextualize" in message


def test_missing_context_advice_names_the_chunker_settings(tmp_path):
    path = tmp_path / "empty.jsonl"
    write_contexts(path, [])
    ws = Workspace(DiskCache(tmp_path / "cache"))
    cfg = CHUNKERS.settings("cluster", size=40, piece_size=10, prefix="contexts", contexts=str(path))
    with pytest.raises(DataError, match=r"rag-bench contextualize chunker=cluster chunker.size=40 .*piece_size=10"):
        chunk_dataset(ws, Dataset("t", (DOC,), ()), cfg, FakeEmbedder())


def test_chunk_cache_follows_the_file_content(tmp_path):
    ws = Workspace(DiskCache(tmp_path / "cache"))
    dataset = Dataset("t", (DOC,), ())
    path = tmp_path / "c.jsonl"
    plain = chunks_of("none")
    write_for(path, plain, ["a", "b", "c"])
    cfg = CHUNKERS.settings("recursive", size=22, prefix="contexts", contexts=str(path))
    first, _ = chunk_dataset(ws, dataset, cfg, FakeEmbedder())
    write_for(path, plain, ["x", "y", "z"])
    second, cached = chunk_dataset(ws, dataset, cfg, FakeEmbedder())
    assert not cached and first.key != second.key
    assert [c.prefix for c in second.chunks] == ["x", "y", "z"]
    # the same content under another name is the same chunks
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(path.read_bytes())
    third, cached = chunk_dataset(
        ws, dataset, CHUNKERS.settings("recursive", size=22, prefix="contexts", contexts=str(copy)), FakeEmbedder()
    )
    assert cached and third.key == second.key


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            [{"doc_sha256": SHA, "start": 0, "end": 5, "context": "a"}] * 2,
            r"c.jsonl:2: repeats the span \[0, 5\) of line 1",
        ),
        ([{"doc_sha256": SHA, "start": 0, "end": 5}], r"c.jsonl:1: context: missing"),
        ([{"doc_sha256": SHA, "start": 5, "end": 5, "context": "a"}], r"c.jsonl:1: start: span \[5, 5\) is empty"),
    ],
)
def test_bad_files_name_the_line(tmp_path, lines, message):
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(DataError, match=message):
        read_contexts(path)


def test_contexts_prefix_needs_a_file():
    with pytest.raises(ConfigError, match="chunker.prefix=contexts needs chunker.contexts=<file>"):
        CHUNKERS.settings("recursive", prefix="contexts")
    with pytest.raises(ConfigError, match="chunker.prefix .'nope'. must be one of: none, title, headings, contexts"):
        CHUNKERS.settings("recursive", prefix="nope")
