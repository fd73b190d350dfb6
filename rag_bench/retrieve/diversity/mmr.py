"""``diversity=mmr``: maximal marginal relevance over each retrieved list.

Picks candidates one at a time: next = argmax_c lambda * rel(c) - (1 - lambda) * max_{s picked} sim(c, s),
rel = the list's own scores min-max normalised per question (1 for a list of equal scores), sim = cosine of
the candidates' document vectors (the run's embedder, through the vector cache). lambda = 1 keeps the list's
order; lower values push candidates like those already picked down. Equal values go to the higher-ranked
candidate. The returned scores are each pick's value, made non-increasing by a running minimum.
Carbonell and Goldstein, "The use of MMR, diversity-based reranking for reordering documents and producing
summaries", SIGIR 1998.
Example: rel (1, 0.9, 0.5), sim(a, b) = 1, other pairs 0, lambda 0.5: a (0.5), then c (0.25 > 0.45 - 0.5).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from rag_bench.core.cache import DiskCache, digest
from rag_bench.core.errors import ConfigError
from rag_bench.embed.cached import embed_cached
from rag_bench.embed.store import VectorStore, text_keys, vector_store
from rag_bench.retrieve.base import Candidates, Corpus, RetrievalStats
from rag_bench.retrieve.diversity.base import STAGE, DiversityConfig
from rag_bench.retrieve.fusion.convex import minmax
from rag_bench.retrieve.resources import Resources
from rag_bench.retrieve.steps import distinct

ROW_BLOCK = 256  # questions picked together: (256, width, width) similarities
GATHER_BYTES = 1 << 21  # vectors gathered at once (2 MB: under the 4 MB from which numpy asks for huge pages)


@dataclass
class MMRConfig(DiversityConfig):
    name: str = "mmr"
    lambda_: float = 0.7  # weight of relevance against novelty: 1 keeps the order, 0 only spreads

    def __post_init__(self) -> None:
        if not 0 <= self.lambda_ <= 1:
            raise ConfigError(f"diversity.lambda_ ({self.lambda_}) must lie in [0, 1], e.g. 0.7")


class MMR:
    """Each list reordered by maximal marginal relevance."""

    stage = STAGE

    def __init__(self, lambda_: float, resources: Resources) -> None:
        self.lambda_, self.resources = lambda_, resources

    def apply(self, found: Candidates) -> Candidates:
        start = time.perf_counter()
        vectors, row_of, embedded = self._vectors(found)  # row_of: table index -> row of vectors (last: padding)
        valid = found.indices >= 0
        relevance, _ = minmax(np.where(valid, found.scores, 0.0), valid)
        indices = np.full_like(found.indices, -1)
        scores = np.full_like(found.scores, -np.inf)
        width, dim = found.indices.shape[1], vectors.shape[1]
        step = max(1, GATHER_BYTES // max(1, 4 * width * dim))  # questions whose vectors are gathered at once
        for first in range(0, len(found.indices), ROW_BLOCK):
            rows = slice(first, first + ROW_BLOCK)
            similarity = np.concatenate(
                [
                    gram(np.asarray(vectors[row_of[found.indices[a : min(a + step, rows.stop)]]]))
                    for a in range(first, min(rows.stop, len(found.indices)), step)
                ]
            )
            order, values = pick(relevance[rows], similarity, valid[rows], self.lambda_)
            indices[rows] = np.where(order >= 0, np.take_along_axis(found.indices[rows], np.maximum(order, 0), 1), -1)
            scores[rows] = values
        details = {"embedded": embedded, "lambda": self.lambda_}
        stats = RetrievalStats(embedded=embedded, seconds=time.perf_counter() - start, details=details)
        return Candidates(found.chunks, indices, scores, stats)

    def _vectors(self, found: Candidates) -> tuple[np.ndarray, np.ndarray, int]:
        """The document vectors of the table's chunks (their indexed text) as (vectors, row_of, embedded):
        chunk c's vector is ``vectors[row_of[c]]`` (``row_of[-1]``: a row for padding). On the corpus's own
        table, the corpus matrix a dense index left in the cache serves them as it is (memory-mapped);
        else the chunks the lists hold are embedded where not cached, after a row of zeros."""
        embedder, ws, corpus = self.resources.embedder, self.resources.workspace, self.resources.corpus
        store = vector_store(ws, embedder, "document")
        if found.chunks is corpus.chunks and corpus.chunks:
            key = digest("mmr-corpus", corpus.key, store.namespace)
            matrix = ws.remember("corpus-matrix", key, lambda: store.matrix(corpus_keys(ws.cache, corpus, store)))
            if matrix is not None:
                return matrix, np.r_[np.arange(len(corpus.chunks)), 0], 0
        used = distinct(found.indices[found.indices >= 0])
        out = np.zeros((len(used) + 1, embedder.dimension), dtype=np.float32)
        texts = [found.chunks[c].indexed_text for c in used.tolist()]
        vectors, stats = embed_cached(embedder, store, texts, "document", "mmr")
        out[1:] = vectors
        row_of = np.zeros(len(found.chunks) + 1, dtype=np.int64)  # padding and chunks no list holds: zeros
        row_of[used] = np.arange(1, len(used) + 1)
        return out, row_of, stats.embedded


def corpus_keys(cache: DiskCache, corpus: Corpus, store: VectorStore) -> list[bytes]:
    """The vector cache's key (``embed.store.text_key``) of every corpus passage, in corpus order: the name of the
    corpus's matrix entry. Kept in the cache under the corpus's key (which names its chunks, and so their
    passages) and the store's namespace (model, dimension, input type), so a corpus's texts are hashed
    once, not on every run (50,000 passages: 0.1-0.2 s)."""
    key = digest("passage keys", corpus.key, store.namespace)
    joined, _ = cache.get_or_compute("mmr-keys", key, lambda: b"".join(text_keys(corpus.passages)))
    if len(joined) != 32 * len(corpus.chunks):  # a corpus key reused for other chunks: hash them here
        return text_keys(corpus.passages)
    return [joined[i : i + 32] for i in range(0, len(joined), 32)]


def gram(block: np.ndarray) -> np.ndarray:
    """(b, width, width) similarities of each row's vectors, ``block`` (b, width, dim); padding: any row."""
    return block @ block.transpose(0, 2, 1)


def pick(
    relevance: np.ndarray, similarity: np.ndarray, valid: np.ndarray, lambda_: float
) -> tuple[np.ndarray, np.ndarray]:
    """MMR order of each row: (b, width) positions picked (-1 past the row's candidates) and each pick's value.

    ``relevance`` (b, width), ``similarity`` (b, width, width), ``valid`` (b, width) bool.
    """
    b, width = relevance.shape
    order = np.full((b, width), -1, dtype=np.int64)
    values = np.full((b, width), -np.inf)
    closest = np.zeros((b, width))  # each candidate's highest similarity to a picked one (0 before any pick)
    open_ = valid.copy()
    rows = np.arange(b)
    for step in range(width):
        value = np.where(open_, lambda_ * relevance - (1 - lambda_) * closest, -np.inf)
        chosen = value.argmax(axis=1)  # the first of equal values: the higher-ranked candidate
        best = value[rows, chosen]
        live = np.isfinite(best)
        if not live.any():
            break
        order[live, step] = chosen[live]
        values[live, step] = best[live]
        open_[rows[live], chosen[live]] = False
        closest[live] = np.maximum(closest[live], similarity[rows[live], chosen[live]])
    values = np.minimum.accumulate(values, axis=1)  # non-increasing, as every list's scores
    return order, np.where(order >= 0, values, -np.inf)


def build(cfg: MMRConfig, resources: Resources) -> MMR:
    if resources.embedder is None:
        raise ConfigError("diversity=mmr needs an embedder for the candidates' vectors; set embedder=local")
    return MMR(cfg.lambda_, resources)
