"""Query and document prefixes: the table, the overrides, and the vectors' name in the cache."""

import pytest

from rag_bench.core.cache import DiskCache
from rag_bench.core.workspace import Workspace
from rag_bench.embed.cached import embed_cached
from rag_bench.embed.prefixes import BGE_QUERY, Prefixed, short_name, table_prefixes
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.embed.store import vector_store
from rag_bench.testing import FakeEmbedder


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("intfloat/e5-base-v2", ("query: ", "passage: ")),
        ("intfloat/multilingual-e5-small", ("query: ", "passage: ")),
        ("BAAI/bge-small-en-v1.5", (BGE_QUERY, "")),
        ("bge-m3", ("", "")),
        ("nomic-embed-text:latest", ("search_query: ", "search_document: ")),
        ("nomic-ai/nomic-embed-text-v1.5", ("search_query: ", "search_document: ")),
        ("Snowflake/snowflake-arctic-embed-m-v2.0", ("query: ", "")),
        ("mixedbread-ai/mxbai-embed-large-v1", (BGE_QUERY, "")),
        ("text-embedding-3-small", ("", "")),
        ("voyage-3.5", ("", "")),
        (None, ("", "")),
    ],
)
def test_the_table_by_model_family(model, expected):
    assert table_prefixes(model) == expected


def test_short_names():
    assert short_name("BAAI/bge-small-en-v1.5") == "bge-small-en-v1.5"
    assert short_name("nomic-embed-text:latest") == "nomic-embed-text"


def test_settings_override_the_table_and_empty_means_none():
    cfg = EMBEDDERS.settings("fake", model="intfloat/e5-base-v2", query_prefix="Q: ")
    embedder = EMBEDDERS.build(cfg)
    assert embedder.prefixes == {"query": "Q: ", "document": "passage: "}
    plain = EMBEDDERS.build(
        EMBEDDERS.settings("fake", model="intfloat/e5-base-v2", query_prefix="", document_prefix="")
    )
    assert isinstance(plain, FakeEmbedder)  # no prefix: not wrapped, the same name as before


def test_each_input_type_gets_its_prefix_and_the_prefix_names_the_vectors(tmp_path):
    inner = FakeEmbedder(16)
    wrapped = Prefixed(inner, "query: ", "passage: ")
    wrapped.embed(["fee"], "query")
    wrapped.embed(["the fee rose"], "document")
    assert [c for c in inner.calls] == [(1, "query"), (1, "document")]
    assert wrapped.dimension == 16 and wrapped.count_tokens(["a b"]).tolist() == [4]  # "passage", ":", "a", "b"
    other = Prefixed(FakeEmbedder(16), "q: ", "passage: ")
    assert wrapped.name != other.name != inner.name and wrapped.name.startswith("fake/hash-16+prefix-")
    ws = Workspace(DiskCache(tmp_path))
    embed_cached(wrapped, vector_store(ws, wrapped, "query"), ["fee"], "query")
    _, stats = embed_cached(other, vector_store(ws, other, "query"), ["fee"], "query")
    assert stats.embedded == 1  # another prefix: not served the first prefix's vector
    _, again = embed_cached(wrapped, vector_store(ws, wrapped, "query"), ["fee"], "query")
    assert again.cache_hits == 1
