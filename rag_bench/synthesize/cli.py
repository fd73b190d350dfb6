"""``rag-bench synthesize [overrides]``: generate candidate questions, check them, write what passed.

rag-bench synthesize dataset.path=data/x generator=replay generator.path=candidates.jsonl out=review.jsonl
rag-bench synthesize dataset.path=data/x generator=anthropic out=review.jsonl          # ANTHROPIC_API_KEY
rag-bench synthesize dataset.path=data/x generator=openai generator.model=gpt-4o-mini out=review.jsonl  # OPENAI_API_KEY
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from rag_bench.synthesize.run import synthesize
from rag_bench.synthesize.settings import VERB


def main(argv: Sequence[str]) -> int:
    """Run the verb; RagBenchError propagates to ``rag_bench.entry.cli`` (one line, exit 2)."""
    parser = argparse.ArgumentParser(prog="rag-bench synthesize", description="Generate and check candidate questions.")
    parser.add_argument(
        "overrides", nargs="*", help="Hydra overrides, e.g. generator=replay generator.path=FILE out=FILE"
    )
    settings = VERB.compose(parser.parse_args(list(argv)).overrides)
    done = synthesize(settings)
    s = done.summary
    print(f"kept {s['kept']} of {s['candidates']} candidates -> {done.out}")
    if s["rejected"]:
        print("rejected: " + ", ".join(f"{n} {reason}" for reason, n in s["rejected"].items()) + f" -> {done.rejects}")
    if s["flagged"]:
        print("flagged for review: " + ", ".join(f"{n} {flag}" for flag, n in s["flagged"].items()))
    if s["usage"]:
        cost = s["estimated_cost_usd"]
        priced = "unknown (model not in configs/prices.yaml)" if cost is None else f"${cost:.4f}"
        print("tokens: " + ", ".join(f"{k} {v}" for k, v in s["usage"].items()) + f"; estimated cost {priced}")
    print(f"review them with: rag-bench label {s['dataset_folder']} --questions {done.out}")
    return 0
