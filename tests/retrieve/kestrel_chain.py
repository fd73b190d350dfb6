"""A LangChain retriever over kestrel-kb for the route tests: RecursiveCharacterTextSplitter chunks ranked by rank-bm25.

Importable as ``kestrel_chain`` once this folder is on the path: ``make_retriever`` (retrieval=langchain)
and ``search`` (retrieval=python) give the same rankings.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_text_splitters import RecursiveCharacterTextSplitter
from rank_bm25 import BM25Okapi

from rag_bench.data.bundled import dataset_folder
from rag_bench.data.native import load_dataset


def tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


class BM25Chunks(BaseRetriever):
    """The top ``k`` chunks by BM25Okapi (ties: the earlier chunk first)."""

    chunks: list[Document]
    k: int = 10
    index: Any = None

    def model_post_init(self, context: Any) -> None:
        self.index = BM25Okapi([tokens(c.page_content) for c in self.chunks])

    def _get_relevant_documents(self, query: str, *, run_manager) -> list[Document]:
        scores = self.index.get_scores(tokens(query))
        order = sorted(range(len(self.chunks)), key=lambda i: (-scores[i], i))[: self.k]
        return [self.chunks[i] for i in order]


def split(documents: list[Document]) -> list[Document]:
    splitter = RecursiveCharacterTextSplitter(chunk_size=600, chunk_overlap=100, add_start_index=True)
    return splitter.split_documents(documents)


def make_retriever(documents: list[Document], depth: int) -> BM25Chunks:
    return BM25Chunks(chunks=split(documents), k=depth)


@cache
def _kestrel(depth: int) -> BM25Chunks:
    dataset = load_dataset(dataset_folder("kestrel-kb", None))
    documents = [Document(page_content=d.text, metadata={"doc_id": d.id}) for d in dataset.documents]
    return make_retriever(documents, depth)


def search(questions: list[str], depth: int) -> list[list[dict]]:
    """retrieval=python: the same rankings, as results that name chunks by their text only."""
    retriever = _kestrel(depth)
    return [[{"doc_id": d.metadata["doc_id"], "text": d.page_content} for d in retriever.invoke(q)] for q in questions]
