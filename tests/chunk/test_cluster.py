import itertools
import string

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_bench.chunk.base import EmbeddingChunker
from rag_bench.chunk.cluster import ClusterSplitter, best_segmentation, first_starts, matrix_reward, vector_reward
from rag_bench.chunk.registry import CHUNKERS
from rag_bench.chunk.settings import ChunkerTools
from rag_bench.chunk.units import measure
from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Document
from rag_bench.testing import FakeEmbedder

ALPHABET = string.ascii_letters + "  ..!?,;\n#-_0123456789"
# pieces 0-1 alike (0.9), pieces 2-3 alike (0.8), the rest 0.1
SIMILARITY = np.array(
    [
        [1.0, 0.9, 0.1, 0.1],
        [0.9, 1.0, 0.1, 0.1],
        [0.1, 0.1, 1.0, 0.8],
        [0.1, 0.1, 0.8, 1.0],
    ]
)


def total(reward, segments):
    return sum(float(reward(np.array([i]), j)[0]) for i, j in segments)


def all_segmentations(n):
    for cuts in itertools.product([False, True], repeat=n - 1):
        bounds = [0, *(i + 1 for i, cut in enumerate(cuts) if cut), n]
        yield list(itertools.pairwise(bounds))


def test_dp_groups_alike_pieces_by_hand():
    # mu = (0.9 + 0.1 * 4 + 0.8) / 6 = 0.35; shifted pairs: (0,1) 0.55, (2,3) 0.45, across -0.25.
    # [0,2)+[2,4): 2 * 0.55 + 2 * 0.45 = 2.0;  [0,4): 2 * (0.55 + 0.45 - 4 * 0.25) = 0;  singletons: 0
    reward = matrix_reward(SIMILARITY)
    segments = best_segmentation([0, 0, 0, 0, 0], reward)
    assert segments == [(0, 2), (2, 4)]
    assert total(reward, segments) == pytest.approx(2.0)
    assert total(reward, [(0, 4)]) == pytest.approx(0.0)
    # at most one piece a chunk: only singletons are allowed
    assert best_segmentation([0, 0, 1, 2, 3], reward) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    # chunks ending at piece 3 or 4 may start no earlier than piece 2: [0,2) then [2,4) still fits
    assert best_segmentation([0, 0, 0, 1, 2], reward) == [(0, 2), (2, 4)]


@pytest.mark.parametrize("seed", range(5))
def test_dp_matches_brute_force_and_the_vector_form(seed):
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(7, 5))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    by_matrix, by_vectors = matrix_reward(vectors @ vectors.T), vector_reward(vectors)
    starts = np.arange(0, 6)
    assert np.allclose(by_matrix(starts, 6), by_vectors(starts, 6))
    first = [0, 0, 0, 0, 1, 2, 3, 4]  # at most four pieces a chunk
    allowed = [s for s in all_segmentations(7) if all(i >= first[j] for i, j in s)]
    best = max(total(by_matrix, s) for s in allowed)
    assert total(by_matrix, best_segmentation(first, by_vectors)) == pytest.approx(best)


def test_first_starts_respect_the_size_in_units():
    text = "aaaa bbbb cccc dddd"
    pieces = [(0, 5), (5, 10), (10, 15), (15, 19)]
    # chars: at most 10 characters a chunk -> two pieces (the trailing space counts)
    assert first_starts(pieces, measure(text, "chars"), 10) == [0, 0, 0, 1, 2]
    assert first_starts(pieces, measure(text, "words"), 3) == [0, 0, 0, 0, 1]


def test_cluster_chunker_groups_topics():
    text = "cats purr cats nap. cats purr cats nap. dogs bark dogs dig. dogs bark dogs dig."
    fake = FakeEmbedder()
    chunker = EmbeddingChunker(
        ClusterSplitter(size=45, piece_size=20), tools=ChunkerTools(embed=lambda t: fake.embed(t, "document"))
    )
    chunks = chunker.split(Document("d", text))
    assert [c.text for c in chunks] == [
        "cats purr cats nap. cats purr cats nap.",
        "dogs bark dogs dig. dogs bark dogs dig.",
    ]


@settings(max_examples=120, deadline=None)
@given(
    text=st.text(alphabet=ALPHABET, max_size=500),
    unit=st.sampled_from(["chars", "words", "tokens"]),
    size=st.integers(3, 80),
    share=st.floats(0.05, 1.0),
)
def test_offsets_are_exact_with_the_fake_embedder(text, unit, size, share):
    fake = FakeEmbedder(16)
    splitter = ClusterSplitter(size, max(1, int(size * share)))
    chunker = EmbeddingChunker(
        splitter, unit, tools=ChunkerTools(fake.token_spans, embed=lambda t: fake.embed(t, "document"))
    )
    chunks = chunker.split(Document("d", text))
    covered = set()
    for c in chunks:
        assert text[c.start : c.end] == c.text and c.text == c.text.strip() and c.text
        covered.update(range(c.start, c.end))
        if unit == "chars":
            assert len(c) <= size
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
    assert all(a.end <= b.start for a, b in itertools.pairwise(chunks))


def test_piece_size_must_fit_the_chunk_size():
    with pytest.raises(ConfigError, match=r"chunker.piece_size \(900\) must lie between 1 and chunker.size \(800\)"):
        CHUNKERS.settings("cluster", size=800, piece_size=900)
