"""Rewrite generators by config name (``generator=offline|anthropic|replay``): each one's settings schema and class."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rag_bench.core.cache import DiskCache
from rag_bench.core.types import Dataset, Question
from rag_bench.rewrite.anthropic import AnthropicRewriter, AnthropicRewriterConfig
from rag_bench.rewrite.cost import RewriteUsage
from rag_bench.rewrite.offline import OfflineRewriter, OfflineRewriterConfig
from rag_bench.rewrite.replay import ReplayRewriter, ReplayRewriterConfig


class Rewriter(Protocol):
    """Writes rewrites of one kind of one question (at most ``limit`` of them); ``kinds``: what it can write."""

    kinds: tuple[str, ...]
    usage: RewriteUsage

    def rewrite(self, question: Question, kind: str, limit: int) -> Sequence[str]: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class RewriterEntry:
    schema: type
    build: Callable[[Any, Dataset, DiskCache], Rewriter]


REWRITERS: dict[str, RewriterEntry] = {
    "offline": RewriterEntry(OfflineRewriterConfig, OfflineRewriter),
    "anthropic": RewriterEntry(AnthropicRewriterConfig, AnthropicRewriter),
    "replay": RewriterEntry(ReplayRewriterConfig, ReplayRewriter),
}
