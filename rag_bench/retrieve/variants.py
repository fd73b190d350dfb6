"""Query variants: each question and its rewrites go through the configured retriever; the lists are fused.

By RRF unless ``retrieval.variant_fusion`` names a score fusion (convex, dbsf: ``fusion/methods.py``):
score(c) = w_0 / (k + rank_0(c)) + sum_v 1 / (k + rank_v(c)), rank from 1, over the lists holding c:
list 0 is the question's own (weight ``retrieval.original_weight``; 0 leaves it out), list v
the one of rewrite v of a chosen kind (``retrieval.variant_kinds``; every rewrite weighs 1),
k = ``retrieval.variant_k_rrf``; a score fusion gives the same weights to the lists' normalised scores.
Each list is the configured retriever's final list for that text, so with ``retrieval=hybrid``
every rewrite is searched in BM25 and the dense index and fused there first. A HyDE passage is
embedded in document mode (``Query.input_type``).
Cormack, Clarke and Buettcher, SIGIR 2009 (RRF); Rackauckas, "RAG-Fusion", 2024 (fusing the
lists of several rewrites of one question); Gao et al., "Precise Zero-Shot Dense Retrieval
without Relevance Labels", ACL 2023 (HyDE).

Each kind's texts are asked in one call, so their candidate lists are cached per kind and a
sweep over ``variant_kinds`` retrieves each kind once; vectors are cached per text.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from rag_bench.core.errors import ConfigError, DataError
from rag_bench.core.types import Dataset
from rag_bench.data.variants import KINDS, kinds_in, read_variants, select
from rag_bench.retrieve.base import Candidates, Query, RetrievalStats, Retriever
from rag_bench.retrieve.fusion.methods import Fusion
from rag_bench.retrieve.fusion.retriever import one_table
from rag_bench.retrieve.variant_settings import QueryVariantSettings

QUESTION = "question"  # the name of the original question's list while fusing


class VariantRetriever:
    """``inner`` asked each question (unless its weight is 0) and each of its rewrites; lists fused (RRF by default)."""

    def __init__(
        self,
        inner: Retriever,
        variants: Mapping[str, Mapping[str, Sequence[str]]],  # question id -> kind -> rewrites
        original_weight: float = 1.0,
        k_rrf: float = 60.0,
        fusion: Fusion | None = None,
    ) -> None:
        self.inner, self.variants, self.original_weight = inner, variants, original_weight
        self.fusion = Fusion(k_rrf=k_rrf) if fusion is None else fusion
        self.kinds = list(dict.fromkeys(kind for texts in variants.values() for kind in texts))
        self.name = inner.name

    def retrieve(self, queries: Sequence[Query], depth: int) -> Candidates:
        found: dict[str, Candidates] = {}
        owners: dict[str, np.ndarray] = {}  # kind -> (n_rewrites,) the question each rewrite belongs to
        if self.original_weight > 0:
            found[QUESTION] = self.inner.retrieve(queries, depth)
        for kind in self.kinds:
            asked, owners[kind] = self._rewrites(queries, kind)
            if asked:
                found[kind] = self.inner.retrieve(asked, depth)
        start = time.perf_counter()
        flat = dict(found)
        if QUESTION in found:
            flat |= {f"{QUESTION}:{part}": c for part, c in found[QUESTION].parts.items()}
        chunks, lists = one_table(flat)
        runs, weights, names, parts = [], [], [], {}
        if QUESTION in found:
            runs.append((lists[QUESTION].indices, lists[QUESTION].scores))
            weights.append(self.original_weight)
            names.append(QUESTION)
            own = {p: lists[f"{QUESTION}:{p}"] for p in found[QUESTION].parts}
            parts |= own or {self.inner.name: lists[QUESTION]}
        for kind in self.kinds:
            if kind not in found:
                continue
            slots = list(
                zip(
                    by_position(lists[kind].indices, owners[kind], len(queries)),
                    by_position(lists[kind].scores, owners[kind], len(queries), fill=-np.inf),
                    strict=True,
                )
            )
            runs += slots
            weights += [1.0] * len(slots)
            names += [f"{kind} {j + 1}" for j in range(len(slots))]
            indices, scores = self.fusion.fuse(slots, [1.0] * len(slots), names[-len(slots) :])
            parts[kind] = Candidates(chunks, indices, scores, list_cost(found[kind], carries_index=not parts))
        indices, scores = self.fusion.fuse(runs, weights, names)
        inner_fusion = found[QUESTION].stats.seconds if QUESTION in found and found[QUESTION].parts else 0.0
        stats = RetrievalStats(seconds=time.perf_counter() - start + inner_fusion)
        return Candidates(chunks, indices, scores, stats, parts)

    def asked(self, queries: Sequence[Query]) -> list[Query]:
        """Every query ``retrieve`` asks the inner retriever: the questions (unless weighed 0), then the rewrites."""
        own = list(queries) if self.original_weight > 0 else []
        return own + [q for kind in self.kinds for q in self._rewrites(queries, kind)[0]]

    def _rewrites(self, queries: Sequence[Query], kind: str) -> tuple[list[Query], np.ndarray]:
        """The queries of ``kind``'s rewrites, question by question, and the question index of each."""
        asked, owners = [], []
        for i, query in enumerate(queries):
            if query.id not in self.variants:
                raise ConfigError(f"question {query.id!r} has no query variants: the variants file lacks it")
            for text in self.variants[query.id][kind]:
                asked.append(Query(query.id, text, KINDS[kind], variant=kind))
                owners.append(i)
        return asked, np.asarray(owners, dtype=np.int64)


def by_position(indices: np.ndarray, owners: np.ndarray, n_questions: int, fill: float = -1) -> list[np.ndarray]:
    """One (n_questions, width) run per rewrite position: run j holds each question's j-th rewrite's list.

    Rows of questions with fewer rewrites are ``fill`` (-1: no candidates; -inf for scores).
    Example: owners [0, 0, 2] gives two runs; run 0 holds rewrite 0 of question 0 and rewrite 2 of
    question 2, run 1 rewrite 1.
    """
    if len(owners) == 0:
        return []
    first = np.searchsorted(owners, owners)  # owners are grouped: the first row of each one's group
    position = np.arange(len(owners)) - first
    out = np.full((int(position.max()) + 1, n_questions, indices.shape[1]), fill, dtype=indices.dtype)
    out[position, owners] = indices
    return list(out)


def list_cost(found: Candidates, carries_index: bool) -> RetrievalStats:
    """What one kind's lists cost; the index's size and ANN recall are counted with the first lists only."""
    parts = [p.stats for p in found.parts.values()] or [found.stats]
    extra = found.stats.seconds if found.parts else 0.0  # the inner fusion's own time
    return RetrievalStats(
        index_bytes=sum(s.index_bytes for s in parts) if carries_index else 0,
        embedded=sum(s.embedded for s in parts),
        cache_hits=sum(s.cache_hits for s in parts),
        truncated=max(s.truncated for s in parts),
        ann_recall=next((s.ann_recall for s in parts if s.ann_recall is not None), None) if carries_index else None,
        seconds=sum(s.seconds for s in parts) + extra,
        reused=all(s.reused for s in parts),
        keyed=all(s.keyed for s in parts),
    )


def variants_path(given: str, dataset_folder: Path | None) -> Path:
    """``retrieval.query_variants`` as a file: as given (absolute or from the current folder), else the dataset's."""
    path = Path(given).expanduser()
    if path.is_file() or path.is_absolute() or dataset_folder is None:
        return path
    inside = dataset_folder / path
    return inside if inside.is_file() else path


def with_variants(
    retriever: Retriever, cfg: QueryVariantSettings, dataset: Dataset, dataset_folder: Path | None = None
) -> Retriever:
    """``retriever`` asked every question and its rewrites when ``retrieval.query_variants`` is set, else itself."""
    if cfg.query_variants is None or cfg.variant_kinds == []:
        return retriever
    path = variants_path(cfg.query_variants, dataset_folder)
    if not path.is_file():
        where = f"the current folder or {dataset_folder}" if dataset_folder else "the current folder"
        raise DataError(
            cfg.query_variants,
            f"retrieval.query_variants: no such file in {where}",
            fix="write one with rag-bench rewrite dataset=... out=FILE, or give its full path",
        )
    entries = read_variants(path)
    kinds = list(cfg.variant_kinds) if cfg.variant_kinds is not None else kinds_in(entries)
    if not kinds:
        raise DataError(path, "holds no query variants", fix="write some with rag-bench rewrite ... out=FILE")
    variants = select(path, entries, dataset, kinds)
    if cfg.original_weight == 0:
        bare = [qid for qid, texts in variants.items() if not any(texts.values())]
        if bare:
            raise DataError(
                path,
                f"question {bare[0]!r} ({len(bare)} in all) has no rewrite of kinds {kinds}, and "
                "retrieval.original_weight=0 leaves the question itself out: nothing would be retrieved for it",
                fix="give retrieval.original_weight a positive value, or choose kinds every question has",
            )
    fusion = Fusion(cfg.variant_fusion, cfg.variant_k_rrf, cfg.variant_normalize)
    return VariantRetriever(retriever, variants, cfg.original_weight, cfg.variant_k_rrf, fusion)
