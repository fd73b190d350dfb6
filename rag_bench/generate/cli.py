"""``rag-bench check-generation RUN_DIR [--out DIR] [overrides]``: check answers grounded in a run's chunks.

Settings are composed with Hydra from ``configs/generate/`` (e.g. ``generator=anthropic
generator.model=claude-haiku-4-5 passages=10``); outputs go to ``RUN_DIR/generation/``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from rag_bench.generate.settings import VERB


def main(argv: Sequence[str]) -> int:
    """Run the verb; RagBenchError propagates to ``rag_bench.entry.cli`` (one line, exit 2)."""
    parser = argparse.ArgumentParser(
        prog="rag-bench check-generation",
        description="Answer each question of a run from its retrieved chunks, check the answers, "
        "and attribute failures to retrieval, generation or refusal.",
    )
    parser.add_argument("run_dir", type=Path, help="a run folder written by `rag-bench`")
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: RUN_DIR/generation)")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. generator=anthropic passages=10")
    args = parser.parse_intermixed_args(list(argv))

    from rag_bench.generate.outputs import console_summary, write_generation
    from rag_bench.generate.run import check_generation

    settings = VERB.compose(args.overrides)
    result = check_generation(args.run_dir, settings)
    out_dir = args.out or args.run_dir / "generation"
    payload = write_generation(result, out_dir)
    print(console_summary(payload, out_dir))
    return 0
