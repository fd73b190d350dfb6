"""Lexical overlap of a question with its evidence: the share of the question's terms copied from it.

Terms are the identifier analyzer's tokens (as BM25 sees them), less English stopwords and
question words. ``copied_share(q, e) = |terms(q) & tokens(e)| / |terms(q)|``, over distinct
terms; None when the question has no terms. A share near 1 means BM25 can match the
question against its evidence word for word: a test of lexical lookup, not of retrieval.

Example: "When does the KG-450 reboot?" against "The KG-450 reboots nightly." -> terms
{kg-450, reboot}, copied {kg-450} -> 0.5 (``reboot`` is not ``reboots``: no stemming).
"""

from __future__ import annotations

from collections.abc import Iterable

from rag_bench.index.bm25.analyzers import ENGLISH_STOPWORDS, identifier_tokens

# fmt: off
QUESTION_WORDS = frozenset({
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "does", "do", "did", "can",
    "could", "should", "would", "has", "have", "had", "were", "many", "much", "any", "from", "after",
    "before", "than", "our", "we", "you", "your", "its", "there",
})
# fmt: on
IGNORED = ENGLISH_STOPWORDS | QUESTION_WORDS


def question_terms(text: str) -> set[str]:
    """Distinct identifier tokens of ``text`` that are neither stopwords nor question words."""
    return {t for t in identifier_tokens(text) if t not in IGNORED}


def copied_share(question: str, evidence: Iterable[str]) -> float | None:
    """Share of the question's distinct terms that occur among the evidence texts' tokens (None: no terms)."""
    terms = question_terms(question)
    if not terms:
        return None
    found = {t for text in evidence for t in identifier_tokens(text)}
    return len(terms & found) / len(terms)
