"""rag-bench: measure the retrieval half of RAG pipelines."""

from rag_bench.entry.api import run as run
from rag_bench.entry.api import sweep as sweep
from rag_bench.entry.evaluate import evaluate as evaluate
from rag_bench.entry.result import Result as Result

__version__ = "0.1.0"
