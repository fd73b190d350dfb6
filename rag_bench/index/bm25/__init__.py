"""BM25: analyzers, the corpus as term ids, the CSR inverted index and its search (C loops or numpy)."""
