"""diversity=mmr|collapse: picks worked out by hand, the real vector cache, near-identical chunks dropped."""

import numpy as np
import pytest

from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError
from rag_bench.core.shingles import jaccard, shingles
from rag_bench.core.types import Chunk, Dataset
from rag_bench.core.workspace import Workspace
from rag_bench.embed.cached import embed_cached
from rag_bench.embed.store import vector_store
from rag_bench.retrieve.base import Candidates, Corpus
from rag_bench.retrieve.diversity.mmr import pick
from rag_bench.retrieve.diversity.registry import DIVERSIFIERS
from rag_bench.retrieve.resources import Resources
from rag_bench.testing import FakeEmbedder

BOILER = "This message and any attachments are confidential and intended solely for the addressee named above"
TEXTS = [
    "gateway firmware rollback procedure for the edge fleet",  # 0
    BOILER,  # 1
    BOILER.replace("named above", "named below"),  # 2: its last shingle differs: J = 12 / 14 = 0.857
    "quarterly revenue rose on licence renewals",  # 3
    BOILER,  # 4: an exact copy
]
CHUNKS = [Chunk(f"d{i}", 0, len(t), t) for i, t in enumerate(TEXTS)]


def resources(tmp_path, embedder=None) -> Resources:
    return Resources(Workspace(DiskCache(tmp_path)), Corpus("c", CHUNKS), Dataset("t", (), ()), embedder)


def found(rows, scores=None, width=5):
    indices = np.full((len(rows), width), -1)
    values = np.full((len(rows), width), -np.inf)
    for q, row in enumerate(rows):
        indices[q, : len(row)] = row
        values[q, : len(row)] = scores[q] if scores else [1.0 - 0.1 * j for j in range(len(row))]
    return Candidates(CHUNKS, indices, values)


def test_pick_by_hand():
    # the module docstring's example: rel (1, 0.9, 0.5), sim(a, b) = 1, lambda 0.5 -> a, c, b
    rel = np.array([[1.0, 0.9, 0.5]])
    sim = np.array([[[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]])
    order, values = pick(rel, sim, np.ones((1, 3), bool), 0.5)
    assert order[0].tolist() == [0, 2, 1]
    assert values[0].tolist() == pytest.approx([0.5, 0.25, 0.45 - 0.5])
    order, _ = pick(rel, sim, np.array([[True, True, False]]), 0.0)  # lambda 0: novelty only; padding never picked
    assert order[0].tolist() == [0, 1, -1]


def test_mmr_lambda_one_keeps_the_order_and_embeds_each_text_once(tmp_path):
    embedder = FakeEmbedder(32)
    res = resources(tmp_path, embedder)
    mmr = DIVERSIFIERS.build(DIVERSIFIERS.settings("mmr", lambda_=1.0), res)
    first = mmr.apply(found([[1, 4, 0, 3], [2, 0]]))
    assert first.indices.tolist() == [[1, 4, 0, 3, -1], [2, 0, -1, -1, -1]]
    assert first.stats.embedded == 4  # distinct texts 1 (= 4), 0, 3, 2
    again = DIVERSIFIERS.build(DIVERSIFIERS.settings("mmr", lambda_=1.0), resources(tmp_path, embedder))
    assert again.apply(found([[1, 4, 0, 3]])).stats.embedded == 0  # served from the vector cache
    assert np.all(np.diff(first.scores[0, :4]) <= 0)


def test_mmr_pushes_a_copy_below_a_new_candidate(tmp_path):
    mmr = DIVERSIFIERS.build(DIVERSIFIERS.settings("mmr", lambda_=0.5), resources(tmp_path, FakeEmbedder(32)))
    # scores 1, 0.9, 0.8: rel 1, 0.5, 0; chunk 4 copies chunk 1 (cosine 1), chunk 3 shares no word with 1
    # after 1: 4 scores 0.5 * 0.5 - 0.5 * 1 = -0.25; 3 scores 0 - 0.5 * cos(3, 1) ~ 0: 3 comes before 4
    result = mmr.apply(found([[1, 4, 3]], scores=[[1.0, 0.9, 0.8]]))
    assert result.indices[0, :3].tolist() == [1, 3, 4]


def test_collapse_drops_near_identical_lower_candidates(tmp_path):
    collapse = DIVERSIFIERS.build(DIVERSIFIERS.settings("collapse", threshold=0.9), resources(tmp_path))
    result = collapse.apply(found([[1, 0, 4, 2, 3], [3, 0]]))
    # 4 copies 1 exactly; 2 shares 12 of 14 distinct shingles with 1 (J = 0.857 < 0.9): kept
    assert result.indices.tolist() == [[1, 0, 2, 3, -1], [3, 0, -1, -1, -1]]
    assert result.scores[0, :4].tolist() == pytest.approx([1.0, 0.9, 0.7, 0.6])  # each keeps its score
    assert jaccard(shingles(TEXTS[1]), shingles(TEXTS[2])) == pytest.approx(12 / 14)
    assert result.stats.details == {"dropped_per_question": 0.5, "questions_with_drops": 1}
    looser = DIVERSIFIERS.build(DIVERSIFIERS.settings("collapse", threshold=0.8), resources(tmp_path))
    assert looser.apply(found([[1, 0, 4, 2, 3]])).indices[0].tolist() == [1, 0, 3, -1, -1]


@pytest.mark.parametrize(
    ("option", "values", "message"),
    [
        ("mmr", {"lambda_": -0.1}, r"diversity.lambda_ \(-0.1\) must lie in \[0, 1\]"),
        ("mmr", {"lambda_": 1.5}, r"diversity.lambda_ \(1.5\) must lie in \[0, 1\]"),
        ("collapse", {"threshold": 0}, r"diversity.threshold \(0\) must lie in \(0, 1\]"),
        ("collapse", {"threshold": 1.2}, r"diversity.threshold \(1.2\) must lie in \(0, 1\]"),
    ],
)
def test_bad_settings(option, values, message):
    with pytest.raises(ConfigError, match=message):
        DIVERSIFIERS.settings(option, **values)


def test_mmr_reads_the_corpus_matrix_a_dense_index_left(tmp_path):
    embedder = FakeEmbedder(32)
    lists = found([[1, 4, 3, 0, 2]], scores=[[1.0, 0.95, 0.9, 0.5, 0.4]])
    fresh = DIVERSIFIERS.build(DIVERSIFIERS.settings("mmr", lambda_=0.6), resources(tmp_path / "a", embedder))
    expected = fresh.apply(lists)
    res = resources(tmp_path / "b", embedder)
    store = vector_store(res.workspace, embedder, "document")
    embed_cached(embedder, store, res.corpus.passages, "document", "matrix", memory_map=True)  # as dense does
    mapped = DIVERSIFIERS.build(DIVERSIFIERS.settings("mmr", lambda_=0.6), res).apply(lists)
    assert mapped.stats.embedded == 0 and expected.stats.embedded == 4  # 4 distinct texts (1 and 4 are equal)
    assert mapped.indices.tolist() == expected.indices.tolist()
    assert mapped.scores[0] == pytest.approx(expected.scores[0])
