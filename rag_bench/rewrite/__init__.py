"""Query rewrites prepared before retrieval is scored: ``rag-bench rewrite`` writes a variants file."""
