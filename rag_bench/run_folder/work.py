"""What a configuration asks of its models, counted the same whether or not the cache served it.

A run's ``embedded`` and ``cost_usd`` say what that run paid; in a sweep the first point that
needs a text pays for it, so those numbers depend on the order of the points. ``Work`` counts what
the configuration itself needs, the same in any order and on any cache:
- embedded: each chunk's indexed text (prefix and source) and each question, once, when retrieval
  uses a dense index;
- reranked: one (question, candidate) pair per candidate the reranker reads (the top
  ``reranker.depth`` of the list before reranking); its characters are the question's plus the
  candidate's indexed text;
- estimated API cost: for each component that calls a priced API, estimated tokens x its price per
  million tokens, tokens counted by ``api.usage.estimate_tokens`` (UTF-8 bytes / 3 + 1, an upper bound;
  billing uses the API's own count); a rerank pair costs question plus candidate tokens, as Voyage
  bills rerank (query tokens x documents + document tokens); a reranker billed per search (Cohere) costs
  one search per question and 100 candidates, ceil(candidates / 100) x its price per search. The cost
  is split into ``index_cost_usd`` (the chunks, embedded once per index) and ``query_cost_usd`` (the
  questions' embeddings and reranking, which recur with every question asked).
Not counted: the embeddings the semantic and cluster chunkers make while chunking.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from rag_bench.remote.usage import estimate_tokens


@dataclass(frozen=True)
class Work:
    """Texts and characters a configuration sends to its models, and their estimated API cost."""

    embedded_texts: int
    embedded_chars: int
    reranked_pairs: int
    reranked_chars: int
    cost_usd: float | None  # None when no component calls a priced API
    index_cost_usd: float | None = None  # of cost_usd: embedding the chunks
    query_cost_usd: float | None = None  # of cost_usd: embedding the questions and reranking their candidates

    @property
    def chars(self) -> int:
        """Every character the models read: embedded plus reranked."""
        return self.embedded_chars + self.reranked_chars

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def measure_work(
    passages: Sequence[str],
    questions: Sequence[str],
    dense: bool,
    reranked: np.ndarray | None = None,
    embed_price: float | None = None,
    rerank_price: float | None = None,
    indexed: Sequence[str] | None = None,
    rerank_search_price: float | None = None,
) -> Work:
    """The work of one configuration (formulas in the module docstring).

    ``passages``: indexed text of every chunk; ``reranked``: (n_questions, depth) chunk indices the
    reranker read, -1 padded, or None without a reranker; prices in USD per million tokens (per search
    for ``rerank_search_price``), None for a component that calls no priced API; ``indexed``: the texts
    the dense index holds, when not ``passages`` (an expansion added units to the table that nothing embedded).
    """
    embedded = passages if indexed is None else indexed
    texts = [*embedded, *questions] if dense else []
    embedded_chars = sum(len(t) for t in texts)
    pairs, rerank_chars, rerank_tokens, searches = 0, 0, 0, 0
    if reranked is not None:
        for question, row in zip(questions, reranked, strict=True):
            read = [passages[c] for c in row if c >= 0]
            pairs += len(read)
            searches += -(-len(read) // 100)
            rerank_chars += len(question) * len(read) + sum(len(p) for p in read)
            if rerank_price is not None:
                rerank_tokens += estimate_tokens(question) * len(read) + sum(estimate_tokens(p) for p in read)
    if embed_price is None and rerank_price is None and rerank_search_price is None:
        return Work(len(texts), embedded_chars, pairs, rerank_chars, None)
    per_token = embed_price or 0.0
    index_cost = sum(estimate_tokens(p) for p in embedded) * per_token / 1e6 if dense and embed_price else 0.0
    query_cost = sum(estimate_tokens(q) for q in questions) * per_token / 1e6 if dense and embed_price else 0.0
    query_cost += rerank_tokens * (rerank_price or 0.0) / 1e6 + searches * (rerank_search_price or 0.0)
    return Work(len(texts), embedded_chars, pairs, rerank_chars, index_cost + query_cost, index_cost, query_cost)
