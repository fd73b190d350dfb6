"""The query-variant keys every retrieval option has (``retrieval.query_variants`` ...), checked at start-up.

A mixin of ``RetrievalConfig`` (``retrieve/base.py``), so ``retrieval=bm25|dense|hybrid`` and any
retriever registered later take them with no change of their own; ``retrieve/variants.py`` uses them.
"""

from __future__ import annotations

from dataclasses import dataclass

from rag_bench.core.errors import ConfigError
from rag_bench.data.variants import check_kinds
from rag_bench.retrieve.fusion.methods import check_fusion


@dataclass
class QueryVariantSettings:
    """Every retriever's query variants (``retrieve/variants.py``): rewrites of each question, fused (RRF default)."""

    query_variants: str | None = None  # a variants file; relative: from the current folder, else the dataset's
    variant_kinds: list[str] | None = None  # kinds to use (null = every kind in the file; [] = none)
    original_weight: float = 1.0  # RRF weight of the original question's list; 0 leaves the question out
    variant_k_rrf: float = 60.0  # RRF constant of the fusion over the question's and its variants' lists
    variant_fusion: str = "rrf"  # how those lists are fused: rrf, convex or dbsf (as retrieval.fusion)
    variant_normalize: str = "minmax"  # variant_fusion=convex: minmax or zscore

    def check(self) -> None:
        check_fusion("retrieval.variant_", self.variant_fusion, self.variant_normalize)
        kinds = self.variant_kinds
        if kinds is not None:
            check_kinds(kinds, "retrieval.variant_kinds")
            if kinds and self.query_variants is None:
                raise ConfigError(
                    f"retrieval.variant_kinds ({list(kinds)}) needs retrieval.query_variants=FILE "
                    "(a variants file written by rag-bench rewrite)"
                )
        if self.original_weight < 0 or self.variant_k_rrf < 0:
            raise ConfigError(
                f"retrieval.original_weight ({self.original_weight}) and retrieval.variant_k_rrf "
                f"({self.variant_k_rrf}) must not be negative"
            )
        if self.original_weight == 0 and (self.query_variants is None or kinds == []):
            raise ConfigError(
                "retrieval.original_weight=0 leaves the question out, so it needs variants: "
                "set retrieval.query_variants=FILE (and retrieval.variant_kinds), or a positive weight"
            )
