"""``rag-bench rewrite``'s work: write a variants file (and its usage record) for ``retrieval.query_variants``.

Every generator's texts are cleaned the same way: whitespace collapsed, empty texts, texts equal to
the question and repeats dropped, at most ``paraphrases`` paraphrases and ``subquestions``
sub-questions kept.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rag_bench.core.cache import atomic_write
from rag_bench.core.errors import ConfigError
from rag_bench.core.progress import progress
from rag_bench.core.types import Dataset, Question
from rag_bench.core.workspace import Workspace
from rag_bench.data.dataset import check_outputs_outside, load
from rag_bench.data.variants import VariantEntry, write_variants
from rag_bench.remote.prices import llm_cost
from rag_bench.remote.retry import bounded_map
from rag_bench.rewrite.base import Rewriter
from rag_bench.rewrite.registry import REWRITERS
from rag_bench.rewrite.settings import RewriteConfig

NEEDS_MODEL = "paraphrase and hyde need a model: generator=anthropic, or generator=replay of a file written elsewhere"


@dataclass(frozen=True)
class Written:
    """What ``rewrite`` wrote: the variants file, its usage file, and the usage record."""

    path: Path
    usage_path: Path
    lines: int
    record: dict


def rewrite(settings: RewriteConfig) -> Written:
    """Write the variants file and its usage record (both atomically)."""
    name = settings.generator.name
    out = Path(settings.out or f"results/variants/{settings.dataset.name}-{name}.jsonl")
    usage_path = out.with_name(f"{out.stem}.usage.json")
    check_outputs_outside(settings.dataset, [out, usage_path], settings.replace)  # before any (paid) work
    ws = Workspace.open(settings.cache_dir)
    dataset = load(settings.dataset, ws)
    rewriter = REWRITERS.build(settings.generator, dataset, ws.cache)
    try:
        kinds = list(settings.kinds) if settings.kinds is not None else list(rewriter.kinds)
        cannot = [k for k in kinds if k not in rewriter.kinds]
        if cannot:
            hint = NEEDS_MODEL if name == "offline" else "rewrite them with another generator"
            raise ConfigError(f"generator={name} cannot write {cannot} (it writes {list(rewriter.kinds)}); {hint}")
        entries = rewrite_all(rewriter, dataset, kinds, limits(settings))
    finally:
        rewriter.close()
    lines = write_variants(out, entries)
    record = usage_record(settings, rewriter, dataset, kinds)
    atomic_write(usage_path, lambda handle: handle.write((json.dumps(record, indent=2) + "\n").encode("utf-8")))
    return Written(out, usage_path, lines, record)


def limits(settings: RewriteConfig) -> dict[str, int]:
    """The most texts kept per kind (one for the kinds not listed)."""
    return {"paraphrase": settings.paraphrases, "decompose": settings.subquestions}


def rewrite_all(
    rewriter: Rewriter, dataset: Dataset, kinds: Sequence[str], limits: dict[str, int]
) -> list[VariantEntry]:
    """One entry per (question, kind), question by question, texts cleaned (``clean``); up to the rewriter's
    ``concurrency`` (1 when it has none) requests at once."""
    pairs = [(question, kind) for question in dataset.questions for kind in kinds]
    with progress(len(pairs), "rewriting", "rewrite") as bar:

        def one(pair: tuple[Question, str]) -> VariantEntry:
            question, kind = pair
            limit = limits.get(kind, 1)
            texts = clean(rewriter.rewrite(question, kind, limit), question.text)[:limit]
            bar.update(1)
            return VariantEntry(question.id, kind, tuple(texts), question.text)

        return bounded_map(one, pairs, getattr(rewriter, "concurrency", 1))


def clean(texts: Sequence[str], question: str) -> list[str]:
    """Whitespace collapsed; empty texts, the question itself and repeats (ignoring case) dropped."""
    seen = {" ".join(question.split()).casefold()}
    kept = []
    for text in texts:
        text = " ".join(text.split())
        if text and text.casefold() not in seen:
            seen.add(text.casefold())
            kept.append(text)
    return kept


def usage_record(settings: RewriteConfig, rewriter: Rewriter, dataset: Dataset, kinds: Sequence[str]) -> dict:
    """What the run asked of an API and its estimated cost (0 when it sent no request)."""
    usage, gen = rewriter.usage, settings.generator
    model = getattr(gen, "model", None)
    price = getattr(rewriter, "price", None)  # an API rewriter's (remote/prices.py), else None
    cost = 0.0 if usage.requests == 0 else llm_cost(usage.tokens, price)
    return {
        "dataset": dataset.name,
        "questions": len(dataset.questions),
        "generator": gen.name,
        "model": model,
        "kinds": list(kinds),
        "requests": usage.requests,
        "replies_from_cache": usage.from_cache,
        "tokens": dict(usage.tokens),
        "price_per_million": None if price is None else {"input": price.input, "output": price.output},
        "estimated_cost_usd": cost,
    }
