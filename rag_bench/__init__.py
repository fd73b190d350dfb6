"""rag-bench: measure the retrieval half of RAG pipelines."""

__version__ = "0.1.0"
