import string

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_bench.cache import DiskCache
from rag_bench.chunk.base import EmbeddingChunker
from rag_bench.chunk.registry import chunker_config
from rag_bench.chunk.semantic import SemanticSplitter, breakpoints, content_sentences, sentence_windows
from rag_bench.chunk.settings import ChunkerTools
from rag_bench.chunk.units import measure
from rag_bench.errors import ConfigError
from rag_bench.pipeline import chunk_dataset
from rag_bench.testing import FakeEmbedder
from rag_bench.types import Dataset, Document
from rag_bench.workspace import Workspace

ALPHABET = string.ascii_letters + "  ..!?,;\n#-_0123456789"
TEXT = "Cats purr. Cats nap. Dogs bark. Dogs dig."


def pets(texts):
    """(n, 2) unit vectors counting the words 'cats' and 'dogs' of each text."""
    counts = np.array([[t.lower().split().count(w) for w in ("cats", "dogs")] for t in texts], dtype=np.float32)
    return counts / np.linalg.norm(counts, axis=1, keepdims=True)


def split(text, splitter, unit="chars", embed=pets):
    fake = FakeEmbedder()
    chunker = EmbeddingChunker(splitter, unit, tools=ChunkerTools(fake.token_spans, 0, embed))
    return chunker.split(Document("d", text))


@pytest.mark.parametrize("window", [0, 1])
def test_cut_falls_where_the_topic_changes(window):
    # window 0: similarities [1, 0, 1]; window 1: windows (2,0) (2,1) (1,2) (0,2) -> [2/sqrt5, 4/5, 2/sqrt5].
    # The 50th percentile is the larger value, so only the middle gap (cats -> dogs) lies below it.
    chunks = split(TEXT, SemanticSplitter(max_size=100, threshold_percentile=50, window=window))
    assert [c.text for c in chunks] == ["Cats purr. Cats nap.", "Dogs bark. Dogs dig."]
    assert [(c.start, c.end) for c in chunks] == [(0, 20), (21, 41)]


def test_window_texts_and_breakpoints_by_hand():
    sentences = content_sentences(TEXT)
    assert sentences == [(0, 11), (11, 21), (21, 32), (32, 41)]
    assert sentence_windows(TEXT, sentences, 1)[:2] == ["Cats purr. Cats nap.", "Cats purr. Cats nap. Dogs bark."]
    assert breakpoints(np.array([0.9, 0.8, 0.9]), 50) == [1]
    assert breakpoints(np.array([0.9, 0.8, 0.9]), 0) == []  # nothing lies below the minimum
    assert breakpoints(np.array([0.5, 0.5]), 90) == []  # equal similarities: no cut


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
)
def test_offsets_are_exact_with_the_fake_embedder(text, unit, max_size, percentile, window):
    fake = FakeEmbedder(16)
    splitter = SemanticSplitter(max_size, percentile, window)
    chunks = EmbeddingChunker(
        splitter, unit, tools=ChunkerTools(fake.token_spans, embed=lambda t: fake.embed(t, "document"))
    ).split(Document("d", text))
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
    cfg = chunker_config("semantic", size=100, threshold_percentile=50, window=0)
    fake = FakeEmbedder()
    corpus, cached = chunk_dataset(ws, dataset, cfg, fake)
    assert not cached and [c.text for c in corpus.chunks][:1] == ["Cats purr. Cats nap."]
    assert fake.calls == [(6, "document")]  # all documents' windows in one batched call
    assert len(ws.store(fake, "document").known()) == 6
    again, cached = chunk_dataset(ws, dataset, cfg, fake)
    assert cached and again.key == corpus.key and again.chunks == corpus.chunks
    other, cached = chunk_dataset(ws, dataset, cfg, FakeEmbedder(32))  # another model: other chunks key
    assert not cached and other.key != corpus.key


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"threshold_percentile": 101}, "chunker.threshold_percentile (101) must lie between 0 and 100"),
        ({"window": -1}, "chunker.window (-1) must not be negative"),
        ({"max_size": 0}, "chunker.max_size (0) must be at least 1"),
        ({"overlap": 10}, "chunker.overlap is not a setting of chunker=semantic"),
    ],
)
def test_settings_are_checked(options, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        chunker_config("semantic", **options)


def test_max_size_counts_the_configured_units():
    # percentile 0: no cut, so the whole text (8 words) is one group; over 4 words it is split
    # at sentence ends and packed back into chunks of at most 4 words
    units = measure(TEXT, "words")
    chunks = split(TEXT, SemanticSplitter(max_size=4, threshold_percentile=0), unit="words")
    assert [c.text for c in chunks] == ["Cats purr. Cats nap.", "Dogs bark. Dogs dig."]
    assert [units.count(c.start, c.end) for c in chunks] == [4, 4]
