"""The sentence-level max-similarity reranker, on hand-made vectors."""

import numpy as np
import pytest

from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError
from rag_bench.core.workspace import Workspace
from rag_bench.rerank.maxsim import MaxSimReranker, sentences
from rag_bench.rerank.registry import RERANKERS
from rag_bench.testing import FakeEmbedder

VECTORS = {
    "Where?": [1.0, 0.0, 0.0],
    "Alpha one.": [0.6, 0.8, 0.0],
    "Beta two.": [0.0, 0.0, 1.0],
    "Gamma three.": [0.8, 0.6, 0.0],
    "Delta four!": [-1.0, 0.0, 0.0],
}
PASSAGES = ["Alpha one. Beta two.", "Gamma three.", "Beta two.\nDelta four!", "   "]


class TableEmbedder:
    """Looks vectors up in VECTORS and records every call."""

    name = "table"
    dimension = 3

    def __init__(self):
        self.calls = []

    def embed(self, texts, input_type):
        self.calls.append((list(texts), input_type))
        return np.array([VECTORS[t] for t in texts], dtype=np.float32)


def test_sentences_are_stripped_and_blanks_dropped():
    assert sentences("Alpha one. Beta two.") == ("Alpha one.", "Beta two.")
    assert sentences("Beta two.\nDelta four!") == ("Beta two.", "Delta four!")
    assert sentences("  \n ") == ()


def test_a_passage_scores_by_its_best_sentence(tmp_path):
    scores = MaxSimReranker(TableEmbedder(), Workspace(DiskCache(tmp_path))).score("Where?", PASSAGES)
    # max(0.6, 0), max(0.8), max(0, -1), no sentence -> -1
    np.testing.assert_allclose(scores, [0.6, 0.8, 0.0, -1.0], atol=1e-6)


def test_each_sentence_is_embedded_once_in_document_mode_and_the_question_in_query_mode(tmp_path):
    embedder = TableEmbedder()
    reranker = MaxSimReranker(embedder, Workspace(DiskCache(tmp_path)))
    reranker.score("Where?", PASSAGES)
    reranker.score("Where?", PASSAGES[1:])
    assert embedder.calls == [
        (["Alpha one.", "Beta two.", "Gamma three.", "Delta four!"], "document"),
        (["Where?"], "query"),
    ]
    again = TableEmbedder()  # a later run reads the vector cache
    np.testing.assert_allclose(
        MaxSimReranker(again, Workspace(DiskCache(tmp_path))).score("Where?", PASSAGES[:1]), [0.6]
    )
    assert again.calls == []


def test_prefetch_embeds_every_candidate_before_scoring(tmp_path):
    embedder = TableEmbedder()
    reranker = MaxSimReranker(embedder, Workspace(DiskCache(tmp_path)))
    reranker.prefetch(["Where?", "Where?"], [PASSAGES[:2], PASSAGES[2:]])
    assert len(embedder.calls) == 2
    np.testing.assert_allclose(reranker.score("Where?", PASSAGES), [0.6, 0.8, 0.0, -1.0], atol=1e-6)
    assert len(embedder.calls) == 2


def test_factory_builds_on_the_named_embedder(tmp_path):
    reranker = RERANKERS.build(RERANKERS.settings("maxsim", model="fake"), Workspace(DiskCache(tmp_path)))
    assert reranker.name == "maxsim/fake/hash-64"
    passage = "Revenue fell. The audit fee rose sharply."
    fake = FakeEmbedder(64)
    expected = (fake.embed(["Revenue fell.", "The audit fee rose sharply."]) @ fake.embed(["audit fee"])[0]).max()
    assert reranker.score("audit fee", [passage])[0] == pytest.approx(expected)
    with pytest.raises(ConfigError, match=r"reranker.model \('voyage'\) must be one of: local, fake"):
        RERANKERS.build(RERANKERS.settings("maxsim", model="voyage"), Workspace(DiskCache(tmp_path)))


def test_each_question_passage_pair_is_scored_once_per_process(tmp_path):
    from rag_bench.core.cache import DiskCache
    from rag_bench.rerank.maxsim import MaxSimReranker
    from rag_bench.testing import FakeEmbedder

    fake = FakeEmbedder(16)
    reranker = MaxSimReranker(fake, Workspace(DiskCache(tmp_path)))
    passages = ["Alpha one. Beta two.", "Gamma three."]
    first = reranker.score("alpha?", passages)

    def recompute(question, todo):
        raise AssertionError(f"recomputed {todo}")

    reranker._compute = recompute  # a second request for the same pairs must not compute again
    again = reranker.score("alpha?", list(reversed(passages)))
    assert again.tolist() == list(reversed(first.tolist()))
    reranker.prefetch(["alpha?"], [passages])  # nothing left to embed: returns without touching the stores
