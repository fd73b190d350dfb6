"""Query and document prefixes by model family: one table, applied to every embedder, overridable per run.

Many open models were trained with a text put before each query and passage, and embed without it
worse (recall drops quietly, nothing fails). ``PREFIXES`` gives each family's pair as its model card
says; a model is matched by the last part of its name (``BAAI/bge-small-en-v1.5`` -> ``bge-small-en-v1.5``,
an Ollama tag such as ``:latest`` dropped), first match wins, lower case. ``embedder.query_prefix`` and
``embedder.document_prefix`` override the table (null = the table's, "" = none). API models with input
types of their own (Voyage, Cohere) and OpenAI's models take none.

The prefixes become part of the vectors' name in the cache (``Prefixed.name``), so vectors made with
one prefix are never served for another.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from rag_bench.core.cache import digest

INSTRUCT_QUERY = "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery: "
BGE_QUERY = "Represent this sentence for searching relevant passages: "
# (pattern on the model's short name, query prefix, document prefix, source)
PREFIXES: tuple[tuple[str, str, str, str], ...] = (
    (r"multilingual-e5-.*instruct", INSTRUCT_QUERY, "", "intfloat/multilingual-e5-large-instruct model card"),
    (r"e5-mistral", INSTRUCT_QUERY, "", "intfloat/e5-mistral-7b-instruct model card"),
    (r"(^|-)e5-", "query: ", "passage: ", "intfloat/e5-base-v2 and multilingual-e5-base model cards"),
    (r"gte-qwen", INSTRUCT_QUERY, "", "Alibaba-NLP/gte-Qwen2-7B-instruct model card"),
    (r"qwen3-embedding", INSTRUCT_QUERY.rstrip(" "), "", "Qwen/Qwen3-Embedding-0.6B model card"),
    (r"bge-m3", "", "", "BAAI/bge-m3 model card (no instruction)"),
    (r"bge-.*-zh", "为这个句子生成表示以用于检索相关文章：", "", "BAAI/bge-large-zh-v1.5 model card"),
    (r"bge-.*-en|bge-(small|base|large)$", BGE_QUERY, "", "BAAI/bge-large-en-v1.5 model card"),
    (r"mxbai-embed-large", BGE_QUERY, "", "mixedbread-ai/mxbai-embed-large-v1 model card"),
    (r"arctic-embed-.*v2", "query: ", "", "Snowflake/snowflake-arctic-embed-m-v2.0 model card"),
    (r"arctic-embed", BGE_QUERY, "", "Snowflake/snowflake-arctic-embed-m-v1.5 model card"),
    (r"nomic-embed-text", "search_query: ", "search_document: ", "nomic-ai/nomic-embed-text-v1.5 model card"),
)


def short_name(model: str | None) -> str:
    """``BAAI/bge-small-en-v1.5`` -> ``bge-small-en-v1.5``; ``nomic-embed-text:latest`` -> ``nomic-embed-text``."""
    name = (model or "").strip().lower().rsplit("/", 1)[-1]
    return name.split(":", 1)[0]


def table_prefixes(model: str | None) -> tuple[str, str]:
    """``(query prefix, document prefix)`` of ``model``'s family; ("", "") when the table has none."""
    name = short_name(model)
    for pattern, query, document, _ in PREFIXES:
        if re.search(pattern, name):
            return query, document
    return "", ""


def chosen_prefixes(cfg, model: str | None = None) -> tuple[str, str]:
    """The prefixes a run uses: the settings' where given, else the table's for ``model`` (default ``cfg.model``)."""
    query, document = table_prefixes(model or cfg.model)
    return (
        query if cfg.query_prefix is None else cfg.query_prefix,
        document if cfg.document_prefix is None else cfg.document_prefix,
    )


class Prefixed:
    """An embedder whose texts get their input type's prefix before they are embedded.

    Everything else (dimension, usage, tokenizer, ``submit``) is the wrapped embedder's; token counts
    include the document prefix, which takes its share of the model's input limit.
    """

    def __init__(self, inner, query: str, document: str) -> None:
        self.inner = inner
        self.prefixes = {"query": query, "document": document}
        tag = f"+prefix-{digest(query, document)[:12]}"
        self.name = inner.name + tag
        self.cache_name = (getattr(inner, "cache_name", None) or inner.name) + tag

    def __getattr__(self, name: str):
        if name == "count_tokens":
            count = self.inner.count_tokens  # AttributeError when the inner embedder cannot count

            def count_tokens(texts: Sequence[str]) -> np.ndarray:
                return count([self.prefixes["document"] + t for t in texts])

            return count_tokens
        if name == "submit":
            submit = self.inner.submit
            return lambda texts, input_type: submit(self._with(texts, input_type), input_type)
        return getattr(self.inner, name)

    def embed(self, texts: Sequence[str], input_type: str) -> np.ndarray:
        return self.inner.embed(self._with(texts, input_type), input_type)

    def _with(self, texts: Sequence[str], input_type: str) -> list[str]:
        prefix = self.prefixes.get(input_type, "")
        return [prefix + t for t in texts]


def with_prefixes(embedder, cfg):
    """``embedder`` as the run uses it: wrapped in ``Prefixed`` when either chosen prefix is not empty.

    The model is the setting's, else the one the embedder found (the model a TEI server serves, an ONNX
    model's folder name).
    """
    query, document = chosen_prefixes(cfg, cfg.model or getattr(embedder, "model", None))
    return Prefixed(embedder, query, document) if query or document else embedder
