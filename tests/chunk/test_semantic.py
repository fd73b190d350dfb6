import string
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_bench.chunk.base import EmbeddingChunker
from rag_bench.chunk.registry import CHUNKERS
from rag_bench.chunk.semantic import (
    SemanticSplitter,
    breakpoints,
    content_sentences,
    pooled_windows,
    sentence_windows,
)
from rag_bench.chunk.settings import ChunkerTools
from rag_bench.chunk.units import measure
from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Dataset, Document
from rag_bench.core.workspace import Workspace
from rag_bench.embed.store import vector_store
from rag_bench.pipeline.run import chunk_dataset
from rag_bench.testing import FakeEmbedder

ALPHABET = string.ascii_letters + "  ..!?,;\n#-_0123456789"
TEXT = "Cats purr. Cats nap. Dogs bark. Dogs dig."
# one heavy mixed sentence: the two ways of making window vectors cut at different gaps
MIXED = "Cats purr. Cats nap. Cats chase dogs and dogs flee. Dogs bark."


def pets(texts):
    """(n, 2) unit vectors counting the words 'cats' and 'dogs' of each text."""
    counts = np.array([[t.lower().split().count(w) for w in ("cats", "dogs")] for t in texts], dtype=np.float32)
    return counts / np.linalg.norm(counts, axis=1, keepdims=True)


def split(text, splitter, unit="chars", embed=pets):
    fake = FakeEmbedder()
    chunker = EmbeddingChunker(splitter, unit, tools=ChunkerTools(fake.token_spans, 0, embed))
    return chunker.split(Document("d", text))


@pytest.mark.parametrize("mode", ["pooled", "joined"])
@pytest.mark.parametrize("window", [0, 1])
def test_cut_falls_where_the_topic_changes(window, mode):
    # window 0: similarities [1, 0, 1]; window 1: windows (2,0) (2,1) (1,2) (0,2) (joined word counts, or
    # sums of the sentences' unit vectors: the same here) -> [2/sqrt5, 4/5, 2/sqrt5].
    # The 50th percentile is the larger value, so only the middle gap (cats -> dogs) lies below it.
    chunks = split(TEXT, SemanticSplitter(max_size=100, threshold_percentile=50, window=window, window_vectors=mode))
    assert [c.text for c in chunks] == ["Cats purr. Cats nap.", "Dogs bark. Dogs dig."]
    assert [(c.start, c.end) for c in chunks] == [(0, 20), (21, 41)]


def test_window_texts_and_breakpoints_by_hand():
    sentences = content_sentences(TEXT)
    assert sentences == [(0, 11), (11, 21), (21, 32), (32, 41)]
    assert sentence_windows(TEXT, sentences, 1)[:2] == ["Cats purr. Cats nap.", "Cats purr. Cats nap. Dogs bark."]
    assert breakpoints(np.array([0.9, 0.8, 0.9]), 50) == [1]
    assert breakpoints(np.array([0.9, 0.8, 0.9]), 0) == []  # nothing lies below the minimum
    assert breakpoints(np.array([0.5, 0.5]), 90) == []  # equal similarities: no cut


def test_pooled_window_vectors_by_hand():
    # MIXED's sentences count (cats, dogs) = (1,0) (1,0) (1,2) (0,1); their unit vectors u, with r = 1/sqrt5:
    # (1,0) (1,0) (r,2r) (0,1). Window sums (window 1, clipped at the ends): (2,0), (2+r, 2r), (1+r, 2r+1),
    # (r, 2r+1) -> unit w = (1,0), (.9392,.3433), (.6071,.7947), (.2298,.9732);
    # s = w_i . w_{i+1} = [.9392, .8430, .9129]: the lowest gap is after sentence 1 (before the mixed one).
    r = 1 / np.sqrt(5)
    units = np.array([[1, 0], [1, 0], [r, 2 * r], [0, 1]])
    w = pooled_windows(units, 1)
    assert w == pytest.approx(np.array([[1, 0], [0.9392, 0.3433], [0.6071, 0.7947], [0.2298, 0.9732]]), abs=1e-4)
    assert np.einsum("ij,ij->i", w[:-1], w[1:]) == pytest.approx([0.9392, 0.8430, 0.9129], abs=1e-4)
    assert pooled_windows(units, 0) == pytest.approx(units)  # window 0: each sentence's own vector
    assert pooled_windows(np.array([[1.0, 0], [-1, 0]]), 1).tolist() == [[0, 0], [0, 0]]  # a zero sum stays zero
    chunks = split(MIXED, SemanticSplitter(max_size=100, threshold_percentile=50, window=1, window_vectors="pooled"))
    assert [(c.start, c.end) for c in chunks] == [(0, 20), (21, 62)]
    assert [c.text for c in chunks] == ["Cats purr. Cats nap.", "Cats chase dogs and dogs flee. Dogs bark."]


def test_joined_window_vectors_as_before():
    # LangChain's way: the windows' joined texts count (2,0), (3,2), (2,3), (1,3), so
    # s = [3/sqrt13, 12/13, 11/sqrt130] = [.832, .923, .965]: the heavy mixed sentence pulls the
    # second window towards dogs and the lowest gap is after sentence 0.
    splitter = SemanticSplitter(max_size=100, threshold_percentile=50, window=1, window_vectors="joined")
    assert splitter.parts(MIXED, measure(MIXED, "chars")) == [
        "Cats purr. Cats nap.",
        "Cats purr. Cats nap. Cats chase dogs and dogs flee.",
        "Cats nap. Cats chase dogs and dogs flee. Dogs bark.",
        "Cats chase dogs and dogs flee. Dogs bark.",
    ]
    chunks = split(MIXED, splitter)
    assert [c.text for c in chunks] == ["Cats purr.", "Cats nap. Cats chase dogs and dogs flee. Dogs bark."]


def test_pooled_embeds_each_sentence_once():
    seen = []

    def counting(texts):
        seen.extend(texts)
        return pets(texts)

    splitter = SemanticSplitter(max_size=100, threshold_percentile=50, window=2, window_vectors="pooled")
    assert splitter.parts(TEXT, measure(TEXT, "chars")) == ["Cats purr.", "Cats nap.", "Dogs bark.", "Dogs dig."]
    split(TEXT, splitter, embed=counting)
    assert seen == ["Cats purr.", "Cats nap.", "Dogs bark.", "Dogs dig."]


def test_max_size_splits_long_groups_with_the_recursive_chunker():
    chunks = split(TEXT, SemanticSplitter(max_size=12, threshold_percentile=0, window=1))
    assert [c.text for c in chunks] == ["Cats purr.", "Cats nap.", "Dogs bark.", "Dogs dig."]


def test_one_sentence_needs_no_embedding():
    def refuse(texts):
        raise AssertionError("nothing to compare")

    assert [c.text for c in split("  Just one sentence here ", SemanticSplitter(100), embed=refuse)] == [
        "Just one sentence here"
    ]


@settings(max_examples=120, deadline=None)
@given(
    text=st.text(alphabet=ALPHABET, max_size=500),
    unit=st.sampled_from(["chars", "words", "tokens"]),
    max_size=st.integers(3, 80),
    percentile=st.floats(0, 100),
    window=st.integers(0, 2),
    mode=st.sampled_from(["pooled", "joined"]),
)
def test_offsets_are_exact_with_the_fake_embedder(text, unit, max_size, percentile, window, mode):
    fake = FakeEmbedder(16)
    tools = ChunkerTools(fake.token_spans, embed=lambda t: fake.embed(t, "document"))
    chunks = EmbeddingChunker(SemanticSplitter(max_size, percentile, window, mode), unit, tools=tools).split(
        Document("d", text)
    )
    if window == 0:  # a window of one sentence: both ways give each sentence's own vector
        other = "joined" if mode == "pooled" else "pooled"
        twin = EmbeddingChunker(SemanticSplitter(max_size, percentile, 0, other), unit, tools=tools)
        assert twin.split(Document("d", text)) == chunks
    covered = set()
    for c in chunks:
        assert text[c.start : c.end] == c.text and c.text == c.text.strip() and c.text
        covered.update(range(c.start, c.end))
        if unit == "chars":
            assert len(c) <= max_size
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
    assert [c.start for c in chunks] == sorted(c.start for c in chunks)
    assert all(a.end <= b.start for a, b in zip(chunks, chunks[1:], strict=False))


def test_pipeline_embeds_through_the_vector_cache_once(tmp_path):
    ws = Workspace(DiskCache(tmp_path))
    dataset = Dataset("t", (Document("a", TEXT), Document("b", "One thing. Another thing.")), ())
    cfg = CHUNKERS.settings("semantic", size=100, threshold_percentile=50, window=0)
    fake = FakeEmbedder()
    corpus, cached = chunk_dataset(ws, dataset, cfg, fake)
    assert not cached and [c.text for c in corpus.chunks][:1] == ["Cats purr. Cats nap."]
    assert fake.calls == [(6, "document")]  # all documents' windows in one batched call
    assert len(vector_store(ws, fake, "document").known()) == 6
    again, cached = chunk_dataset(ws, dataset, cfg, fake)
    assert cached and again.key == corpus.key and again.chunks == corpus.chunks
    other, cached = chunk_dataset(ws, dataset, cfg, FakeEmbedder(32))  # another model: other chunks key
    assert not cached and other.key != corpus.key


def test_pooled_sweep_embeds_each_distinct_sentence_once(tmp_path):
    ws = Workspace(DiskCache(tmp_path))
    dataset = Dataset("t", (Document("a", TEXT), Document("b", "Cats nap. Birds sing.")), ())
    pooled = CHUNKERS.settings("semantic", size=100, threshold_percentile=50, window=1, window_vectors="pooled")
    fake = FakeEmbedder()
    corpus, cached = chunk_dataset(ws, dataset, pooled, fake)
    # 6 sentences, 5 distinct ("Cats nap." twice): one batched call of the 5
    assert not cached and fake.calls == [(5, "document")]
    assert [c.text for c in corpus.chunks] == ["Cats purr. Cats nap.", "Dogs bark. Dogs dig.", "Cats nap. Birds sing."]
    smaller, cached = chunk_dataset(ws, dataset, CHUNKERS.settings("semantic", size=12, window_vectors="pooled"), fake)
    assert not cached and fake.calls == [(5, "document")]  # another sweep point: chunked again, nothing embedded
    assert [c.text for c in smaller.chunks][:2] == ["Cats purr.", "Cats nap."]
    joined, cached = chunk_dataset(ws, dataset, replace(pooled, window_vectors="joined"), fake)
    assert not cached and joined.key != corpus.key  # the two ways never share cached chunks
    # joined: a's 4 windows and b's one (both of b's windows are its whole text), none of them cached
    assert fake.calls == [(5, "document"), (5, "document")]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"threshold_percentile": 101}, "chunker.threshold_percentile (101) must lie between 0 and 100"),
        ({"window": -1}, "chunker.window (-1) must not be negative"),
        ({"window_vectors": "mean"}, "chunker.window_vectors ('mean') must be one of: pooled, joined"),
        ({"max_size": 0}, "chunker.max_size (0) must be at least 1"),
        ({"overlap": 10}, "chunker.overlap is not a setting of chunker=semantic"),
    ],
)
def test_settings_are_checked(options, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        CHUNKERS.settings("semantic", **options)


def test_max_size_counts_the_configured_units():
    # percentile 0: no cut, so the whole text (8 words) is one group; over 4 words it is split
    # at sentence ends and packed back into chunks of at most 4 words
    units = measure(TEXT, "words")
    chunks = split(TEXT, SemanticSplitter(max_size=4, threshold_percentile=0), unit="words")
    assert [c.text for c in chunks] == ["Cats purr. Cats nap.", "Dogs bark. Dogs dig."]
    assert [units.count(c.start, c.end) for c in chunks] == [4, 4]
