"""The offline context generator: ``title > heading trail. Key terms: ...`` with no model."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rag_bench.chunk.prefix import heading_trail
from rag_bench.contextualize.base import ContextGeneratorConfig
from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError
from rag_bench.core.progress import Progress
from rag_bench.core.types import Chunk, Document
from rag_bench.index.bm25.analyzers import ENGLISH_STOPWORDS, identifier_tokens

# fmt: off
STOPWORDS = ENGLISH_STOPWORDS | {
    "all", "also", "any", "can", "each", "from", "had", "has", "have", "its", "may", "more", "most",
    "must", "our", "out", "over", "per", "should", "than", "what", "when", "where", "which", "who",
    "would", "you", "your", "been", "were", "about", "after", "before", "other", "only", "same",
}
# fmt: on


@dataclass
class OfflineContextConfig(ContextGeneratorConfig):
    """Deterministic, no model: title, heading trail and the document's most distinctive terms."""

    name: str = "offline"
    terms: int = 8  # distinctive document terms per context

    def __post_init__(self) -> None:
        if self.terms < 0:
            raise ConfigError(f"generator.terms ({self.terms}) must not be negative")


class OfflineContexts:
    """``title > heading trail. Key terms: ...`` with the document's top tf-idf terms.

    Term weight: (1 + ln tf) * (ln((1 + N) / (1 + df)) + 1), tf in the document, df over the
    N corpus documents (the smoothed idf of scikit-learn's TfidfVectorizer); ties by term.
    """

    def __init__(self, cfg: OfflineContextConfig, documents: Sequence[Document], cache: DiskCache) -> None:
        self.usage: dict[str, int] = {}
        counts = {d.id: Counter(distinctive_terms(d.text)) for d in documents}
        df = Counter(t for c in counts.values() for t in c)
        self.top = {i: top_terms(c, df, len(documents), cfg.terms) for i, c in counts.items()}

    def contexts(self, doc: Document, chunks: Sequence[Chunk], bar: Progress) -> list[str]:
        trail, title = heading_trail(doc.text), doc.title or doc.id
        terms = ", ".join(self.top.get(doc.id, []))
        out = []
        for chunk in chunks:
            section = trail(chunk.start)
            where = section if section.startswith(title) else " > ".join(p for p in (title, section) if p)
            out.append(f"{where}. Key terms: {terms}." if terms else f"{where}.")
            bar.update(1)
        return out

    def close(self) -> None:
        pass


def distinctive_terms(text: str) -> list[str]:
    """Lower-cased identifier tokens of three or more characters, holding a letter, not stopwords."""
    return [t for t in identifier_tokens(text) if len(t) >= 3 and t not in STOPWORDS and any(ch.isalpha() for ch in t)]


def top_terms(counts: Counter, df: Counter, n_docs: int, k: int) -> list[str]:
    """The ``k`` terms of highest (1 + ln tf) * (ln((1 + N) / (1 + df)) + 1), ties by term."""
    weight = {t: (1 + math.log(tf)) * (math.log((1 + n_docs) / (1 + df[t])) + 1) for t, tf in counts.items()}
    return sorted(weight, key=lambda t: (-weight[t], t))[:k]
