"""The language of each document and question under ``retrieval.analyzer=auto``: as given, else detected.

A document's ``language`` (documents.jsonl) names the analyzer of all its chunks, and a question's
the analyzer of its text and of its query variants; where the dataset gives none, ``detect`` guesses
from the document's text (once per document) or the query's own text, and None (no guess) means
the identifier analyzer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from rag_bench.core.cache import digest
from rag_bench.core.types import Dataset
from rag_bench.index.bm25.detect import detect
from rag_bench.retrieve.base import Query


@dataclass(frozen=True)
class Languages:
    documents: Mapping[str, str | None]  # doc id -> ISO 639-1 code (given or detected), None when unknown
    questions: Mapping[str, str | None]  # question id -> its given code, None when not given

    @classmethod
    def of(cls, dataset: Dataset) -> Languages:
        documents = {d.id: d.language or detect(d.text) for d in dataset.documents}
        return cls(documents, {q.id: q.language for q in dataset.questions})

    def document(self, doc_id: str) -> str | None:
        return self.documents.get(doc_id)

    def question(self, query: Query) -> str | None:
        """The query's language: its question's, else detected from the query's text."""
        return self.questions.get(query.id) or detect(query.text)

    @cached_property
    def key(self) -> str:
        """Names every language given or detected (the candidate lists under auto depend on them)."""
        return digest(sorted(self.documents.items(), key=str), sorted(self.questions.items(), key=str))
