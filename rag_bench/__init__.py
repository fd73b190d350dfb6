"""rag-bench: measure the retrieval half of RAG pipelines."""

from rag_bench.entry.evaluate import evaluate as evaluate

__version__ = "0.1.0"
