"""``rag-bench contextualize``: a short context per chunk, written to a file for ``chunker.prefix=contexts``."""
