"""The retrieval seam: retrievers by name (BM25, dense, fusion, external), filters, query variants, the cache."""
