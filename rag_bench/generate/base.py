"""The generation stage: its protocol, the settings every generator shares, and the answer it returns."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from omegaconf import MISSING

from rag_bench.generate.prompt import REFUSAL, Prompt
from rag_bench.generate.text import normalise

# "[1]", "[2, 3]", "[2; 3]": the numbers inside one bracket
_CITATION = re.compile(r"\[\s*(\d+(?:\s*[,;]\s*\d+)*)\s*\]")


@dataclass
class GeneratorConfig:
    """Every generator: its name."""

    name: str = MISSING


@dataclass(frozen=True)
class Answer:
    """A generator's answer: its text, the passage numbers it cites, whether it refused."""

    text: str
    citations: tuple[int, ...]
    refused: bool
    input_tokens: int = 0  # billed at the input price (not read from a provider's prompt cache)
    output_tokens: int = 0
    cached_tokens: int = 0  # input tokens the provider read from its prompt cache

    @classmethod
    def from_text(cls, text: str, input_tokens: int = 0, output_tokens: int = 0, cached_tokens: int = 0) -> Answer:
        """Citations parsed from ``[n]`` markers; refused when the text holds the refusal phrase."""
        return cls(text, parse_citations(text), is_refusal(text), input_tokens, output_tokens, cached_tokens)

    def to_dict(self) -> dict:
        return {
            "text": self.text,
            "citations": list(self.citations),
            "refused": self.refused,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cached_tokens": self.cached_tokens,
        }

    @classmethod
    def from_dict(cls, obj: dict) -> Answer:
        tokens = obj["input_tokens"], obj["output_tokens"], obj.get("cached_tokens", 0)  # absent in older entries
        return cls(obj["text"], tuple(obj["citations"]), obj["refused"], *tokens)


class Generator(Protocol):
    """Answers a grounded prompt.

    ``key`` names everything the answers depend on besides the prompt (generator, model,
    settings, or the replay file's digest); answers are cached by (key, prompt hash).
    """

    name: str
    key: str

    def answer(self, prompt: Prompt) -> Answer: ...

    def close(self) -> None:
        """Release connections (a no-op for offline generators)."""


def parse_citations(text: str) -> tuple[int, ...]:
    """Distinct passage numbers cited as ``[n]`` or ``[n, m]``, in order of first mention."""
    seen: dict[int, None] = {}
    for match in _CITATION.finditer(text):
        for number in re.split(r"\s*[,;]\s*", match.group(1)):
            seen.setdefault(int(number), None)
    return tuple(seen)


def strip_citations(text: str) -> str:
    """``text`` without its ``[n]`` markers."""
    return _CITATION.sub(" ", text)


def is_refusal(text: str) -> bool:
    """True when the normalised text contains the normalised refusal phrase."""
    return f" {normalise(REFUSAL)} " in f" {normalise(text)} "
