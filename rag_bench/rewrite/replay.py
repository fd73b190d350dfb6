"""``generator=replay generator.path=FILE``: rewrites produced elsewhere, checked against the dataset and rewritten.

The file is a variants file (``data/variants.py``). Every question id must belong to the
dataset, and every kind it holds must cover every question; the output keeps the kinds asked for
(``kinds=[...]``) with the texts cleaned as every generator's are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError
from rag_bench.core.types import Dataset, Question
from rag_bench.data.variants import kinds_in, read_variants, select
from rag_bench.rewrite.cost import RewriteUsage


@dataclass
class ReplayRewriterConfig:
    name: str = "replay"
    path: str | None = None  # the variants file to replay (required)


class ReplayRewriter:
    """The rewrites of a variants file, question by question."""

    def __init__(self, cfg: ReplayRewriterConfig, dataset: Dataset, cache: DiskCache) -> None:
        if not cfg.path:
            raise ConfigError("generator=replay needs generator.path=FILE (a variants file: question_id, kind, texts)")
        entries = read_variants(cfg.path)
        self.kinds = tuple(kinds_in(entries))
        self.texts = select(cfg.path, entries, dataset, self.kinds)
        self.usage = RewriteUsage()

    def rewrite(self, question: Question, kind: str, limit: int) -> Sequence[str]:
        return self.texts[question.id][kind]

    def close(self) -> None:
        pass
