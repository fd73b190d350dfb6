"""A run's plan before spending: the texts it would embed after the cache, the tokens and cost of its paid parts,
and its time, worked out without embedding, reranking or writing anything (``rag-bench --dry-run``).

A point is composed, its dataset loaded and chunked (chunks from the cache, or cut and not stored), and the
keys of the texts the dense retriever would embed looked up in the vector cache; no model is loaded.
Over a sweep, ``pending`` holds the texts earlier points of the plan would embed, so a later point counts them
as cached, as the sweep would find them.

- Embedding: the distinct chunk and query texts missing from the cache (and not planned before); tokens
  with the embedder's ``count_tokens`` (the bundled WordPiece tokenizer for API models, an estimate of
  their own tokenizers' counts), else ``estimate_tokens``; cost = tokens x the price per million / 10^6.
- Reranking: ``min(reranker.depth, candidates)`` pairs per question; an API reranker's tokens
  = sum over questions of (question tokens x n + n x mean chunk tokens), Voyage's billing rule, searches =
  ceil(n / documents per request) per question (Cohere). An upper estimate: scores cached are not subtracted.
- LLM steps: a run calls none (query variants and contexts are files ``rewrite`` and ``contextualize``
  wrote, read as they are); those verbs report their own cost.
- Time: ``throughput.py``'s sums, recorded in the cache by earlier runs on this machine, else unknown.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from rag_bench.config.schema import Config
from rag_bench.core.cache import digest
from rag_bench.core.workspace import Workspace
from rag_bench.data.dataset import load
from rag_bench.embed.base import TokenCounting, vector_cache_name
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.embed.store import text_key, vector_store
from rag_bench.parse.run import ParseRun
from rag_bench.pipeline import throughput
from rag_bench.pipeline.run import NeedsEmbedding, chunk_dataset
from rag_bench.remote.usage import Metered, estimate_tokens
from rag_bench.rerank.registry import RERANKERS
from rag_bench.retrieve.base import Query
from rag_bench.retrieve.variants import VariantRetriever, with_variants

Pending = dict[str, set[bytes]]  # vector cache namespace -> text keys earlier points of the plan embed


@dataclass(frozen=True)
class Part:
    """One component's work in a point: ``sent`` texts (pairs for a reranker) after the cache, ``cached`` served."""

    what: str  # "embedding chunks", "embedding questions", "reranking"
    model: str
    sent: int
    cached: int
    tokens: int | None = None  # estimated billed tokens; None: not a paid API
    usd: float | None = 0.0  # estimated cost; None: a paid API whose price is unknown
    seconds: float | None = None  # None: no throughput recorded for it yet


@dataclass
class PointPlan:
    """What one run would do, and what it would cost."""

    parts: list[Part] = field(default_factory=list)
    other_seconds: float | None = None  # load, chunk, index, search, score: the recorded mean per point
    notes: list[str] = field(default_factory=list)

    @property
    def usd(self) -> float:
        """Estimated cost, parts of unknown price counted 0 (``priced`` says whether all are known)."""
        return sum(p.usd or 0.0 for p in self.parts)

    @property
    def priced(self) -> bool:
        return all(p.usd is not None for p in self.parts)

    @property
    def seconds(self) -> float:
        """Estimated seconds, parts with no recorded throughput counted 0 (``timed`` says whether all are known)."""
        return sum(p.seconds or 0.0 for p in self.parts) + (self.other_seconds or 0.0)

    @property
    def timed(self) -> bool:
        busy = [p for p in self.parts if p.sent]
        return self.other_seconds is not None and all(p.seconds is not None for p in busy)

    @property
    def tokens(self) -> int:
        return sum(p.tokens or 0 for p in self.parts)


def plan_point(cfg: Config, ws: Workspace, pending: Pending | None = None) -> PointPlan:
    """The plan of the run ``cfg`` describes against ``ws``'s cache and the texts ``pending`` (updated)."""
    pending = {} if pending is None else pending
    dataset = load(cfg.dataset, ws, ParseRun(cfg.parser, ws.cache))
    embedder = ws.remember("embedder", digest(asdict(cfg.embedder)), lambda: EMBEDDERS.build(cfg.embedder))
    reranker = ws.remember("reranker", digest(asdict(cfg.reranker)), lambda: RERANKERS.build(cfg.reranker, ws))
    plan = PointPlan(other_seconds=_per_point(ws, str(cfg.dataset.folder)))
    try:
        corpus, _ = chunk_dataset(ws, dataset, cfg.chunker, embedder, cfg.dataset.folder, dry=True)
    except NeedsEmbedding as exc:
        plan.notes.append(f"{exc}: texts, tokens and cost unknown until its chunks are cached")
        return plan
    if uses_dense(cfg):
        queries = [Query.of(q) for q in dataset.questions]
        asked = with_variants(_Named(), cfg.retrieval, dataset, cfg.dataset.folder)
        queries = asked.asked(queries) if isinstance(asked, VariantRetriever) else queries
        groups = [("document", "embedding chunks", corpus.passages)]
        for input_type in sorted({q.input_type for q in queries}):
            label = "embedding questions" if input_type == "query" else f"embedding queries ({input_type} mode)"
            groups.append((input_type, label, [q.text for q in queries if q.input_type == input_type]))
        plan.parts += [embed_part(ws, embedder, kind, label, texts, pending) for kind, label, texts in groups]
    if reranker is not None:
        width = min(cfg.reranker.depth, cfg.retrieval.depth * len(getattr(cfg.retrieval, "fuse", [0])))
        n = min(width, len(corpus.chunks))
        plan.parts.append(rerank_part(ws, reranker, [q.text for q in dataset.questions], corpus.passages, n))
    return plan


class _Named:
    """A stand-in retriever, for ``with_variants`` to read the variants file (``VariantRetriever.asked``)."""

    name = "plan"


def uses_dense(cfg: Config) -> bool:
    """Whether the run's retrieval embeds (dense, or a fusion with dense)."""
    return cfg.retrieval.mode == "dense" or "dense" in (getattr(cfg.retrieval, "fuse", None) or ())


def embed_part(ws: Workspace, embedder, input_type: str, what: str, texts: list[str], pending: Pending) -> Part:
    """The distinct ``texts`` missing from the embedder's cache (and from ``pending``, which gains them)."""
    store = vector_store(ws, embedder, input_type)
    distinct = {text_key(t): t for t in texts}
    known, planned = store.index(), pending.setdefault(store.namespace, set())
    missing = {k: t for k, t in distinct.items() if k not in known and k not in planned}
    planned.update(missing)
    name = vector_cache_name(embedder)
    rate = throughput.measured(ws.cache, "embed", name)
    seconds = rate.time_for(len(missing)) if rate else (0.0 if not missing else None)
    part = Part(what, getattr(embedder, "name", name), len(missing), len(distinct) - len(missing), seconds=seconds)
    if not isinstance(embedder, Metered):
        return part
    sent = list(missing.values())
    if isinstance(embedder, TokenCounting):
        tokens = int(embedder.count_tokens(sent).sum()) if sent else 0
    else:
        tokens = sum(estimate_tokens(t) for t in sent)
    return Part(what, part.model, part.sent, part.cached, tokens, embedder.usage.cost(tokens, 0), seconds)


def rerank_part(ws: Workspace, reranker, questions: list[str], passages: list[str], n: int) -> Part:
    """``n`` candidates per question scored: pairs, and for an API reranker its billed tokens and searches."""
    pairs = n * len(questions)
    rate = throughput.measured(ws.cache, "rerank", reranker.name)
    seconds = rate.time_for(pairs) if rate else (0.0 if not pairs else None)
    if not isinstance(reranker, Metered):
        return Part("reranking", reranker.name, pairs, 0, seconds=seconds)
    count = _wordpiece()
    chunk_tokens = sum(len(e.ids) for e in count.encode_batch(passages)) / max(len(passages), 1)
    tokens = sum(len(e.ids) * n for e in count.encode_batch(questions)) + round(pairs * chunk_tokens)
    batching = getattr(reranker, "batching", None)
    per_request = batching.documents if batching is not None else n
    searches = len(questions) * math.ceil(n / per_request) if n else 0
    usd = reranker.usage.cost(tokens, searches if reranker.usage.price_per_search is not None else 0)
    return Part("reranking", reranker.name, pairs, 0, tokens, usd, seconds)


def _wordpiece():
    from rag_bench.embed.local import load_tokenizer

    return load_tokenizer(None)


def _per_point(ws: Workspace, dataset: str) -> float | None:
    """Mean seconds of everything but embedding and reranking per point on ``dataset``, as recorded; None."""
    rate = throughput.measured(ws.cache, "other", dataset)
    return rate.time_for(1) if rate else None
