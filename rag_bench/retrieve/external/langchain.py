"""Any LangChain retriever (``retrieval=langchain retrieval.target=module:make_retriever``).

``target`` names a ``BaseRetriever`` (anything with ``invoke(question) -> list[Document]``), or a
factory that returns one: ``make_retriever()``, ``make_retriever(documents)`` or
``make_retriever(documents, depth)``, where ``documents`` are the dataset's documents as LangChain
``Document``s (``page_content`` = the text, ``metadata["doc_id"]`` = the id, plus ``title`` and the
document's own metadata), ready for a splitter and a vector store. Each returned document names
its source by ``metadata["doc_id"]``; with ``metadata["start_index"]`` (what splitters made with
``add_start_index=True`` write) its offsets are ``[start_index, start_index + len(page_content))``
and must hold its text; without it the text is located in the document. The first ``depth``
documents count, in the order the retriever returns them. langchain-core is an optional import.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass

from rag_bench.core.errors import ConfigError
from rag_bench.core.progress import track
from rag_bench.core.types import Dataset
from rag_bench.retrieve.base import Candidates, Query, RetrievalConfig
from rag_bench.retrieve.external.function import TargetSettings, load_target
from rag_bench.retrieve.external.results import ResultReader, Where, to_candidates
from rag_bench.retrieve.resources import Resources


@dataclass
class LangChainConfig(TargetSettings, RetrievalConfig):
    mode: str = "langchain"
    # your system applies its own filters: its results are scored as returned, and leak@k says what got through
    filter_mode: str = "none"


class LangChainRetriever:
    """The documents a LangChain retriever returns for each question, as chunks of the dataset."""

    name = "langchain"

    def __init__(self, retriever: object, source: str, dataset: Dataset) -> None:
        if not callable(getattr(retriever, "invoke", None)):
            raise ConfigError(f"{source} is a {type(retriever).__name__}, not a LangChain retriever (no invoke method)")
        self.retriever, self.source, self.dataset = retriever, source, dataset

    def retrieve(self, queries: Sequence[Query], depth: int) -> Candidates:
        reader = ResultReader({d.id: d for d in self.dataset.documents})
        rankings = []
        for query in track(queries, f"asking {self.source}", "question"):
            where = Where(self.source, question=query.id)
            found = self.retriever.invoke(query.text)
            if not isinstance(found, list | tuple):
                raise where.error(f"invoke returned {type(found).__name__}", "return a list of LangChain Documents")
            rankings.append(reader.ranking([as_result(d, where, i) for i, d in enumerate(found)], where))
        return to_candidates(rankings, depth, reader.tally, {"source": self.source})


def as_result(document: object, where: Where, i: int) -> dict:
    """A LangChain Document as a result object: doc_id and text, and offsets when it carries start_index."""
    metadata = getattr(document, "metadata", None)
    text = getattr(document, "page_content", None)
    if not isinstance(metadata, dict) or not isinstance(text, str):
        raise where.error(f"is a {type(document).__name__}, not a LangChain Document", "return Documents", f"[{i}]")
    if "doc_id" not in metadata:
        raise where.error(
            "has no metadata['doc_id']",
            "keep the metadata of the documents the factory was given (splitters copy it), or set doc_id",
            f"[{i}].metadata",
        )
    result = {"doc_id": metadata["doc_id"], "text": text}
    start = metadata.get("start_index")
    if isinstance(start, int) and start >= 0:  # LangChain writes -1 when it could not place a chunk
        result.update(start=start, end=start + len(text))
    return result


def langchain_documents(dataset: Dataset) -> list:
    """The dataset's documents as LangChain Documents (metadata: the document's own, title, doc_id)."""
    document = _document_class()
    out = []
    for d in dataset.documents:
        title = {"title": d.title} if d.title is not None else {}
        out.append(document(page_content=d.text, metadata={**d.metadata, **title, "doc_id": d.id}))
    return out


def make(factory: object, dataset: Dataset, depth: int) -> object:
    """``factory`` itself when it is a retriever, else what it returns given the first (documents, depth) it takes."""
    is_retriever = not inspect.isclass(factory) and callable(getattr(factory, "invoke", None))
    if is_retriever or not callable(factory):
        return factory
    arity = len(inspect.signature(factory).parameters)
    return factory(*[langchain_documents(dataset), depth][:arity])


def _document_class() -> type:
    try:
        from langchain_core.documents import Document
    except ImportError:
        raise ConfigError("retrieval=langchain needs langchain-core: pip install langchain-core") from None
    return Document


def build(cfg: LangChainConfig, resources: Resources) -> LangChainRetriever:
    _document_class()  # without langchain-core, say so before importing the user's module
    factory = load_target(cfg.target, "langchain")
    return LangChainRetriever(make(factory, resources.dataset, cfg.depth), cfg.target, resources.dataset)
