"""Offline, deterministic baseline generator: quote the best-matching passage sentence.

score(sentence) = |W(q) & W(s)| / |W(q)|, with W the set of lower-cased words less
stopwords. The highest score wins (ties: the better-ranked passage, then the earlier
sentence); the answer quotes it and cites its passage, ``"<sentence>" [n]``. Below
``threshold`` (or when the question has no content word) it gives the refusal phrase.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag_bench.core.errors import ConfigError
from rag_bench.generate.base import Answer, GeneratorConfig
from rag_bench.generate.prompt import REFUSAL, Prompt
from rag_bench.generate.text import words

MIN_WORDS = 4  # shorter pieces (headings, table cells) are never answers
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# fmt: off
STOPWORDS = frozenset({
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be",
    "been", "before", "being", "but", "by", "can", "could", "did", "do", "does", "during", "each",
    "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it",
    "its", "many", "may", "more", "most", "much", "of", "on", "or", "our", "over", "such",
    "than", "that", "the", "their", "them", "there", "these", "they", "this", "those", "to", "under",
    "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "whose", "why",
    "will", "with", "would", "you", "your",
})
# fmt: on


def sentences(text: str) -> list[str]:
    """Sentences of ``text``: split at line breaks and after . ! ? followed by a space; bullets trimmed."""
    out = []
    for line in text.splitlines():
        for piece in _SENTENCE_END.split(line):
            piece = piece.strip().lstrip("#*->| ").strip()
            if len(words(piece)) >= MIN_WORDS:
                out.append(piece)
    return out


def content_words(text: str) -> set[str]:
    return {w for w in words(text) if w not in STOPWORDS}


@dataclass
class ExtractiveConfig(GeneratorConfig):
    """Offline baseline: quote the passage sentence holding the largest share of the question's words."""

    name: str = "extractive"
    threshold: float = 0.5  # least share of question words a sentence must hold

    def __post_init__(self) -> None:
        if not 0 < self.threshold <= 1:
            raise ConfigError(f"generator.threshold ({self.threshold}) must lie in (0, 1]")


def build(cfg: ExtractiveConfig) -> ExtractiveGenerator:
    """The generator ``generator=extractive`` names."""
    return ExtractiveGenerator(cfg.threshold)


class ExtractiveGenerator:
    """``generator=extractive``: no model, no network, same answer every time."""

    name = "extractive"

    def __init__(self, threshold: float = 0.5) -> None:
        self.threshold = threshold
        self.key = f"extractive/v1/threshold={threshold!r}"

    def answer(self, prompt: Prompt) -> Answer:
        wanted = content_words(prompt.question.text)
        best: tuple[float, int, str] | None = None  # (score, passage number, sentence)
        for n, chunk in enumerate(prompt.passages, start=1):
            for sentence in sentences(chunk.text):
                score = len(wanted & content_words(sentence)) / len(wanted) if wanted else 0.0
                if best is None or score > best[0]:
                    best = (score, n, sentence)
        if best is None or best[0] < self.threshold:
            return Answer(REFUSAL, (), True)
        _, n, sentence = best
        return Answer(f'"{sentence}" [{n}]', (n,), False)

    def close(self) -> None:
        pass
