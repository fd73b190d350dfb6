"""BM25 retrieval over the corpus's chunks (``retrieval=bm25``, and BM25's list in a fusion).

A filtered query ranks every chunk that holds a query term and keeps the first ``depth`` its
filter allows: the top depth of the masked scores, ties in corpus order as everywhere.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import cached_property

import numpy as np

from rag_bench.core.cache import digest
from rag_bench.core.errors import ConfigError
from rag_bench.core.options import one_of
from rag_bench.index.bm25 import analysis
from rag_bench.index.bm25.analyzers import Analyzer
from rag_bench.index.bm25.index import VARIANTS, BM25Index
from rag_bench.index.bm25.mixed import mixed_terms
from rag_bench.retrieve.base import Candidates, Query, RetrievalConfig, RetrievalStats
from rag_bench.retrieve.languages import Languages
from rag_bench.retrieve.resources import Resources


@dataclass
class BM25Settings:
    """BM25's own settings (also keys of ``retrieval=hybrid``)."""

    analyzer: str = "identifier"  # identifier keeps INC-2023-Q4-011 whole; english, a language (german), or auto
    k1: float = 1.5
    b: float = 0.75
    bm25_variant: str = "okapi"  # okapi = rank-bm25's BM25Okapi scores; lucene = Lucene/Anserini's
    normalization: str = "none"  # Unicode form before analysis: none, nfc or nfkc (full-width -> ASCII)
    fold_accents: bool = False  # résumé -> resume in every term
    subword_ngrams: int = 0  # a term longer than n letters also gives its n-grams (0 off; 4 for compounds)
    segmenter: str = "bigram"  # Japanese text: bigram (no dependency) or mecab (rag-bench[japanese])

    def check(self) -> None:
        one_of("retrieval.bm25_variant", self.bm25_variant, VARIANTS)
        analysis.check(self.analysis())
        if self.k1 < 0:
            raise ConfigError(f"retrieval.k1 ({self.k1}) must not be negative (1.2 to 2.0 is usual)")
        if not 0 <= self.b <= 1:
            raise ConfigError(f"retrieval.b ({self.b}) must lie between 0 and 1 (0.75 is usual)")

    def analysis(self) -> analysis.AnalysisSettings:
        """The analyzer's settings among these."""
        keys = ("analyzer", "normalization", "fold_accents", "subword_ngrams", "segmenter")
        return analysis.AnalysisSettings(**{key: getattr(self, key) for key in keys})


@dataclass
class BM25Config(BM25Settings, RetrievalConfig):
    mode: str = "bm25"


class BM25Retriever:
    """Okapi BM25 (or Lucene's variant) top ``depth`` chunks per question."""

    name = "bm25"
    applies_filters = True

    def __init__(self, cfg: BM25Settings, resources: Resources) -> None:
        self.cfg, self.resources = cfg, resources

    def cache_key(self) -> tuple:
        c = self.cfg
        key = ("bm25", self.resources.corpus.key, c.analyzer, c.k1, c.b, c.bm25_variant)
        extra = {k: v for k, v in asdict(c.analysis()).items() if v != getattr(analysis.AnalysisSettings, k)}
        extra.pop("analyzer", None)
        if analysis.language_name(c.analyzer) == "auto":  # the languages given in the dataset decide too
            extra["languages"] = self.languages.key
        return (*key, sorted(extra.items())) if extra else key  # the defaults keep the keys lists had before

    @cached_property
    def languages(self) -> Languages:
        return Languages.of(self.resources.dataset)

    def retrieve(self, queries: Sequence[Query], depth: int) -> Candidates:
        c, corpus = self.cfg, self.resources.corpus
        settings = c.analysis()
        auto = analysis.language_name(c.analyzer) == "auto"
        analyzers: dict[str | None, Analyzer] = {}

        def analyzer_of(language: str | None) -> Analyzer:
            if language not in analyzers:
                analyzers[language] = analysis.build_analyzer(settings, language)
            return analyzers[language]

        def build() -> BM25Index:
            params = {"k1": c.k1, "b": c.b, "variant": c.bm25_variant}
            if not auto:
                return BM25Index.from_texts(corpus.passages, analyzer_of(None), **params)
            keys = [self.languages.document(chunk.doc_id) for chunk in corpus.chunks]
            return BM25Index.from_terms(mixed_terms(corpus.passages, keys, analyzer_of), **params)

        start = time.perf_counter()
        index = self.resources.workspace.remember("bm25", digest(*self.cache_key()), build)
        built = time.perf_counter()
        tokens = [analyzer_of(self.languages.question(q) if auto else None)(q.text) for q in queries]
        indices, scores = index.search(tokens, depth)
        for row, query in enumerate(queries):
            if query.filter is not None:
                ranked, values = index.search([tokens[row]], index.n_docs)  # every chunk holding a query term
                keep = np.flatnonzero((ranked[0] >= 0) & corpus.metadata.mask(query.filter)[ranked[0]])[:depth]
                indices[row], scores[row] = -1, -np.inf
                indices[row, : keep.size], scores[row, : keep.size] = ranked[0, keep], values[0, keep]
        steps = {"build": built - start, "search": time.perf_counter() - built}  # analysis included in each
        return Candidates(corpus.chunks, indices, scores, RetrievalStats(index_bytes=index.nbytes, steps=steps))


def build(cfg: BM25Settings, resources: Resources) -> BM25Retriever:
    return BM25Retriever(cfg, resources)
