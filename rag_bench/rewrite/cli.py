"""``rag-bench rewrite [overrides]``: write a variants file for ``retrieval.query_variants``; ``rewrite report``.

Settings are composed with Hydra from ``configs/rewrite/`` plus the main ``dataset`` group, e.g.
``rag-bench rewrite dataset=annual-report generator=anthropic generator.model=claude-haiku-4-5 out=v.jsonl``.
Every generator's texts are cleaned the same way: whitespace collapsed, empty texts, texts equal
to the question and repeats dropped, at most ``paraphrases`` paraphrases and ``subquestions``
sub-questions kept. Retrieval runs only read the file; no model is called while scoring.
``rag-bench rewrite report DIR...`` is the per-category report of runs with and without variants
(``rewrite/report.py``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from rag_bench.rewrite.run import Written, rewrite
from rag_bench.rewrite.settings import VERB


def main(argv: Sequence[str]) -> int:
    """Run the verb; RagBenchError propagates to ``rag_bench.entry.cli`` (one line, exit 2)."""
    argv = list(argv)
    if argv and argv[0] == "report":
        from rag_bench.rewrite.report import main as report_main

        return report_main(argv[1:])
    parser = argparse.ArgumentParser(
        prog="rag-bench rewrite",
        description="Write query variants (paraphrase, hyde, decompose, keywords) for retrieval.query_variants; "
        "`rag-bench rewrite report DIR...` compares runs with and without them.",
    )
    parser.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. dataset=annual-report generator=offline")
    written = rewrite(VERB.compose(parser.parse_args(argv).overrides))
    for line in summary(written):
        print(line)
    return 0


def summary(written: Written) -> list[str]:
    """What the console shows: the file, the requests and cost, how to use it."""
    record = written.record
    kinds = ",".join(record["kinds"])
    lines = [f"wrote {written.lines} lines ({record['questions']} questions, kinds {kinds}) to {written.path}"]
    if record["model"] is not None:
        cost = record["estimated_cost_usd"]
        money = "unknown (no price for this model)" if cost is None else f"${cost:.4f}"
        tokens = ", ".join(f"{k} {v}" for k, v in record["tokens"].items())
        lines.append(f"requests: {record['requests']} ({record['replies_from_cache']} replies from cache)")
        lines.append(f"tokens: {tokens}; estimated cost: {money} (recorded in {written.usage_path})")
    lines.append(f"use them with: rag-bench retrieval.query_variants={written.path} retrieval.variant_kinds=[{kinds}]")
    return lines
