"""``rag-bench synthesize``: generated candidate questions, checked before anyone reviews them."""
