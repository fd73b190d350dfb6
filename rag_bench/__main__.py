"""``python -m rag_bench`` is the ``rag-bench`` command."""

from rag_bench.entry.cli import console

console()
