"""``generator=offline``: rewrites with no model, a baseline for the model-written ones.

keywords   the question's content words, in order: words and identifiers (``KOS-E1107``,
           ``4.2.1-r2`` stay whole) that are not function words, question words or auxiliaries.
           "What does KOS-E1107 mean during a rollout?" -> "KOS-E1107 mean rollout".
decompose  the question cut where a second question starts: at ";", at a "?" inside it, and at
           "and" / "or" (after an optional comma) followed by a question word or an auxiliary.
           "How many units ended up boot-looping in INC-2024-Q3-042 and how many of them were
           Meridian Foods'?" -> "How many units ended up boot-looping in INC-2024-Q3-042?",
           "How many of them were Meridian Foods'?". Pronouns are not resolved (that needs a
           model); a question with one part has no sub-questions (``texts: []``).
paraphrase and hyde need a model: ``generator=anthropic``, or ``generator=replay`` of a file
written elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag_bench.core.cache import DiskCache
from rag_bench.core.types import Dataset, Question
from rag_bench.rewrite.cost import RewriteUsage

# A run of letters/digits joined by inner "-", "_", ".", "/" or "'": identifiers and versions stay whole.
WORD = re.compile(r"[^\W_]+(?:[-_./'][^\W_]+)*")
APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})
# fmt: off
OPENERS = frozenset({  # words that start a question
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
    "is", "are", "was", "were", "do", "does", "did", "can", "could", "will", "would", "should", "must",
    "has", "have", "had", "may", "might", "shall",
})
FUNCTION_WORDS = OPENERS | frozenset({
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "as",
    "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "during",
    "each", "either", "else", "ever", "for", "from", "further", "get", "got", "having", "he", "her",
    "here", "hers", "him", "his", "i", "if", "in", "into", "it", "its", "itself", "just", "me", "my",
    "no", "nor", "not", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "out", "over",
    "own", "same", "she", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "then",
    "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "upon",
    "many", "much", "us", "very", "we", "whether", "while", "with", "within", "without", "you", "your", "yours",
    "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "weren't", "can't", "couldn't", "won't",
    "wouldn't", "shouldn't", "haven't", "hasn't", "hadn't", "i'm", "i've", "we're", "we've", "we'd",
    "it's", "what's", "that's", "there's", "who's", "one's",
})
# fmt: on
# a second question inside the first: ";" or "?" then more text, or "[,] and|or" + an opener
_SPLIT = re.compile(
    r"\s*[;?]\s+(?=\S)|,?\s+(?:and|or)\s+(?=(?:" + "|".join(sorted(OPENERS)) + r")\b)",
    re.IGNORECASE,
)


@dataclass
class OfflineRewriterConfig:
    """The offline baseline has no settings of its own (``rewrite.paraphrases`` etc. do not apply)."""

    name: str = "offline"


def keywords(text: str) -> str:
    """The content words of ``text`` in order, each once (case-insensitively), joined by spaces."""
    seen: set[str] = set()
    kept = []
    for word in WORD.findall(text.translate(APOSTROPHES)):
        folded = word.lower()
        if folded in FUNCTION_WORDS or folded in seen:
            continue
        seen.add(folded)
        kept.append(word)
    return " ".join(kept)


def decompose(text: str) -> list[str]:
    """The sub-questions of ``text`` (rules in the module docstring); [] when it asks one thing."""
    parts = [p.strip(" ,;?") for p in _SPLIT.split(text.strip())]
    parts = [p for p in parts if keywords(p)]  # a part with no content word asks nothing
    if len(parts) < 2:
        return []
    return [f"{p[0].upper()}{p[1:]}?" for p in parts]


class OfflineRewriter:
    """Keywords and rule-based decomposition (module docstring); makes no requests."""

    kinds = ("decompose", "keywords")

    def __init__(self, cfg: OfflineRewriterConfig, dataset: Dataset, cache: DiskCache) -> None:
        self.usage = RewriteUsage()  # no requests

    def rewrite(self, question: Question, kind: str, limit: int) -> Sequence[str]:
        if kind == "keywords":
            return [keywords(question.text)]
        return decompose(question.text)

    def close(self) -> None:
        pass
