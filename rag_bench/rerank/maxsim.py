"""Offline sentence-level max-similarity reranker (``reranker=maxsim``).

score(q, c) = max over sentences s of c of cos(E(q, "query"), E(s, "document")),

with E the local embedder (all-MiniLM-L6-v2 by default, ``reranker.model=fake`` for the hashing
fake) and sentences cut by ``rag_bench.chunk.sentence.sentence_spans``: ColBERT's MaxSim
(Khattab and Zaharia, SIGIR 2020) with sentences in place of tokens and one query vector. A
passage scores by its best sentence, so one precise sentence in a long chunk is not diluted by
the rest. Vectors go through the vector cache, so each distinct sentence is embedded once.
A passage with no sentence (blank) scores -1, the lowest cosine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from rag_bench.chunk.sentence import sentence_spans
from rag_bench.core.errors import ConfigError
from rag_bench.core.workspace import Workspace
from rag_bench.embed.base import Embedder
from rag_bench.embed.cached import embed_cached
from rag_bench.embed.store import vector_store
from rag_bench.rerank.base import CutRerankerConfig

EMBEDDER_NAMES = ("local", "fake")


@dataclass
class MaxSimConfig(CutRerankerConfig):
    """Offline: a candidate scores its best sentence's cosine to the question (``reranker=maxsim``)."""

    name: str = "maxsim"
    model: str = "local"  # the embedder for sentences: local (all-MiniLM-L6-v2) or fake


@lru_cache(maxsize=65_536)
def sentences(passage: str) -> tuple[str, ...]:
    """The passage's sentences, stripped, blanks dropped."""
    pieces = (passage[start:end].strip() for start, end in sentence_spans(passage))
    return tuple(p for p in pieces if p)


class MaxSimReranker:
    """Scores a passage by its best sentence's cosine to the question."""

    def __init__(self, embedder: Embedder, ws: Workspace) -> None:
        self.embedder = embedder
        self.name = f"maxsim/{embedder.name}"
        # the workspace's stores: the dense stage's vectors serve it too, and its embeddings are counted
        self._documents = vector_store(ws, embedder, "document")
        self._queries = vector_store(ws, embedder, "query")
        self._scores: dict[tuple[str, str], float] = {}  # (question, passage) -> score, across sweep points

    def score(self, question: str, passages: Sequence[str]) -> np.ndarray:
        """(len(passages),) float64 max-sentence cosines (each pair computed once per process)."""
        todo = list(dict.fromkeys(p for p in passages if (question, p) not in self._scores))
        if todo:
            self._scores.update(zip(((question, p) for p in todo), self._compute(question, todo), strict=True))
        return np.array([self._scores[question, p] for p in passages], dtype=np.float64)

    def _compute(self, question: str, passages: Sequence[str]) -> np.ndarray:
        split = [sentences(p) for p in passages]
        flat = [s for group in split for s in group]
        vectors, _ = embed_cached(self.embedder, self._documents, flat, "document", "maxsim sentences")
        query, _ = embed_cached(self.embedder, self._queries, [question], "query", "maxsim question")
        cosines = vectors @ query[0]  # (n_sentences,)
        out = np.full(len(passages), -1.0)
        first = 0
        for i, group in enumerate(split):
            if group:
                out[i] = float(cosines[first : first + len(group)].max())
            first += len(group)
        return out

    def prefetch(self, questions: Sequence[str], candidates: Sequence[Sequence[str]]) -> None:
        """Embed every candidate's sentences and every question in two passes (larger batches)."""
        unscored = [(q, p) for q, passages in zip(questions, candidates, strict=True) for p in passages]
        unscored = [(q, p) for q, p in unscored if (q, p) not in self._scores]
        if not unscored:
            return
        flat = list(dict.fromkeys(s for _, p in unscored for s in sentences(p)))
        embed_cached(self.embedder, self._documents, flat, "document", "maxsim sentences")
        embed_cached(
            self.embedder, self._queries, list(dict.fromkeys(q for q, _ in unscored)), "query", "maxsim questions"
        )


def build(cfg, ws: Workspace) -> MaxSimReranker:
    """The reranker a ``MaxSimConfig`` describes (``model`` names the embedder)."""
    from rag_bench.embed.registry import EMBEDDERS

    name = cfg.model or "local"
    if name not in EMBEDDER_NAMES:
        raise ConfigError(
            f"reranker.model ({name!r}) must be one of: {', '.join(EMBEDDER_NAMES)} for reranker=maxsim"
            " (the embedder that embeds sentences)"
        )
    return MaxSimReranker(EMBEDDERS.build(EMBEDDERS.settings(name)), ws)
