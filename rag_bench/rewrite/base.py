"""What every rewrite generator does: ``Rewriter`` writes rewrites of one kind of one question."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from rag_bench.core.types import Question
from rag_bench.rewrite.cost import RewriteUsage


class Rewriter(Protocol):
    """Writes rewrites of one kind of one question (at most ``limit`` of them); ``kinds``: what it can write."""

    kinds: tuple[str, ...]
    usage: RewriteUsage

    def rewrite(self, question: Question, kind: str, limit: int) -> Sequence[str]: ...

    def close(self) -> None: ...
