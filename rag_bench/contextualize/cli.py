"""``rag-bench contextualize [overrides]``: write the contexts file for ``chunker.prefix=contexts``.

Chunks the dataset exactly as a run with the same ``dataset``, ``chunker`` and ``embedder``
settings would, then writes one short context per chunk (``rag_bench/chunk/contexts.py``).
Settings are composed with Hydra from ``configs/contextualize/`` plus the main groups, e.g.
``rag-bench contextualize dataset=annual-report chunker=semantic generator=anthropic out=ctx.jsonl``.
Generators:
  offline    deterministic: document title, heading trail above the chunk, and the document's
             most distinctive terms (top tf-idf over the corpus documents)
  anthropic  the Messages API (optional extra ``anthropic``): the whole document in a cached
             prompt prefix (``cache_control``), one context of 50 to 100 tokens per chunk
Retrieval runs only read the file; no model is called while scoring.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from rag_bench.contextualize.run import contextualize
from rag_bench.contextualize.settings import VERB


def main(argv: Sequence[str]) -> int:
    """Run the verb; RagBenchError propagates to ``rag_bench.entry.cli`` (one line, exit 2)."""
    parser = argparse.ArgumentParser(
        prog="rag-bench contextualize",
        description="Write a contexts file (chunker.prefix=contexts) for the chunks these settings produce.",
    )
    parser.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. dataset=annual-report chunker=semantic")
    settings = VERB.compose(parser.parse_args(list(argv)).overrides)
    path, count, usage = contextualize(settings)
    print(f"wrote {count} contexts to {path}")
    if usage:
        print("tokens: " + ", ".join(f"{k} {v}" for k, v in usage.items()))
    print(f"use them with: chunker.prefix=contexts chunker.contexts={path} (and the same chunker settings)")
    return 0
