"""Per-language breakdowns: each question's language group, and the metric means of each group.

A question's language is its ``language`` field, else that of its evidence documents when they all
give the same one. It falls in the group of that language when every evidence document is in it (or
gives none), and in ``cross-language`` when one is in another language (asked in English, answered in
a German document). A question whose language is unknown is in no group. A dataset in which no
document or question gives a language has no breakdown (``None``), so its outputs are as before.
Only languages the dataset states count: a detected language (``retrieval.analyzer=auto``) does not.
"""

from __future__ import annotations

import pandas as pd

from rag_bench.core.types import Dataset, Question

CROSS = "cross-language"


def question_languages(dataset: Dataset) -> list[str | None] | None:
    """(n_questions,) each question's group (a language code, ``cross-language``, or None); None for no breakdown."""
    documents = {d.id: d.language for d in dataset.documents}
    if not any(documents.values()) and not any(q.language for q in dataset.questions):
        return None
    return [_group(q, documents) for q in dataset.questions]


def _group(question: Question, documents: dict[str, str | None]) -> str | None:
    evidence = {s.doc_id for s in question.spans} | {d for d, g in question.judgements.items() if g > 0}
    given = {documents.get(d) for d in evidence} - {None}
    language = question.language or (next(iter(given)) if len(given) == 1 else None)
    if language is None:
        return None
    return CROSS if given - {language} else language


def language_means(measured: pd.DataFrame, names: list[str]) -> tuple[dict[str, dict[str, float]], dict[str, int]]:
    """Metric means and question counts of each language group of ``measured`` (its ``language`` column)."""
    known = measured[measured["language"].notna()]
    groups = known.groupby(known["language"], sort=True)
    means, sizes = groups[names].mean(), groups.size()
    order = sorted(means.index, key=lambda g: (g == CROSS, g))  # languages, then cross-language
    return (
        {str(g): {n: float(means.at[g, n]) for n in names} for g in order},
        {str(g): int(sizes[g]) for g in order},
    )
