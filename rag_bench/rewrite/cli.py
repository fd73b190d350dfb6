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
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from rag_bench.config.schema import DatasetConfig
from rag_bench.core.cache import atomic_write
from rag_bench.core.errors import ConfigError
from rag_bench.core.progress import progress
from rag_bench.core.types import Dataset
from rag_bench.data.variants import VariantEntry, check_kinds, write_variants
from rag_bench.rewrite.cost import estimated_cost, prices
from rag_bench.rewrite.registry import REWRITERS, Rewriter

SCHEMA_NAME = "rag_bench_rewrite_schema"
NEEDS_MODEL = "paraphrase and hyde need a model: generator=anthropic, or generator=replay of a file written elsewhere"


@dataclass
class RewriteConfig:
    dataset: DatasetConfig = field(default_factory=DatasetConfig)
    generator: Any = MISSING  # a generator's settings (rewrite/registry.py)
    kinds: list[str] | None = None  # null = every kind the generator writes
    paraphrases: int = 3  # paraphrases per question
    subquestions: int = 4  # at most this many sub-questions per question
    out: str | None = None  # null = results/variants/<dataset>-<generator>.jsonl
    cache_dir: str | None = None  # null = $RAG_BENCH_CACHE or the user cache folder

    def __post_init__(self) -> None:
        if self.generator == MISSING:  # built in Python: configs/rewrite/config.yaml's choice
            self.generator = REWRITERS["offline"].schema()
        own = type(self.generator).__dataclass_fields__["name"].default
        if self.generator.name != own:
            raise ConfigError(f"generator.name ({self.generator.name!r}) differs from generator={own}")
        if self.kinds is not None:
            check_kinds(self.kinds, "kinds")
        if self.paraphrases < 1 or self.subquestions < 2:
            raise ConfigError(
                f"paraphrases ({self.paraphrases}) must be at least 1 and subquestions ({self.subquestions}) at least 2"
            )


@dataclass(frozen=True)
class Written:
    """What ``rewrite`` wrote: the variants file, its usage file, and the usage record."""

    path: Path
    usage_path: Path
    lines: int
    record: dict


def register() -> None:
    """The schema as ``rag_bench_rewrite_schema``, each generator's as ``schema/rewrite/generator/<name>``."""
    store = ConfigStore.instance()
    store.store(name=SCHEMA_NAME, node=RewriteConfig)
    for name, entry in REWRITERS.items():
        store.store(group="schema/rewrite/generator", name=name, node=entry.schema)


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
    written = rewrite(compose_settings(parser.parse_args(argv).overrides))
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


def compose_settings(overrides: Sequence[str] = ()) -> RewriteConfig:
    """The checked settings from ``configs/rewrite/config.yaml``, the dataset group and ``overrides``."""
    from rag_bench.config.compose import compose
    from rag_bench.config.schema import validate
    from rag_bench.core.paths import project_folder

    register()
    configs = project_folder("configs")
    label = "rewrite settings (configs/rewrite/, rag_bench/rewrite/cli.py)"
    return validate(compose(configs / "rewrite", overrides, label, search=configs, groups={"generator": REWRITERS}))


def rewrite(settings: RewriteConfig) -> Written:
    """Write the variants file and its usage record (both atomically)."""
    from rag_bench.core.workspace import Workspace
    from rag_bench.data.bundled import dataset_folder
    from rag_bench.pipeline.run import load

    ws = Workspace.open(settings.cache_dir)
    dataset = load(ws, dataset_folder(settings.dataset.name, settings.dataset.path), settings.dataset.name)
    name = settings.generator.name
    rewriter = REWRITERS[name].build(settings.generator, dataset, ws.cache)
    try:
        kinds = list(settings.kinds) if settings.kinds is not None else list(rewriter.kinds)
        cannot = [k for k in kinds if k not in rewriter.kinds]
        if cannot:
            hint = NEEDS_MODEL if name == "offline" else "rewrite them with another generator"
            raise ConfigError(f"generator={name} cannot write {cannot} (it writes {list(rewriter.kinds)}); {hint}")
        entries = rewrite_all(rewriter, dataset, kinds, limits(settings))
    finally:
        rewriter.close()
    out = Path(settings.out or f"results/variants/{dataset.name}-{name}.jsonl")
    lines = write_variants(out, entries)
    record = usage_record(settings, rewriter, dataset, kinds)
    usage_path = out.with_name(f"{out.stem}.usage.json")
    atomic_write(usage_path, lambda handle: handle.write((json.dumps(record, indent=2) + "\n").encode("utf-8")))
    return Written(out, usage_path, lines, record)


def limits(settings: RewriteConfig) -> dict[str, int]:
    """The most texts kept per kind (one for the kinds not listed)."""
    return {"paraphrase": settings.paraphrases, "decompose": settings.subquestions}


def rewrite_all(
    rewriter: Rewriter, dataset: Dataset, kinds: Sequence[str], limits: dict[str, int]
) -> list[VariantEntry]:
    """One entry per (question, kind), question by question, texts cleaned (``clean``)."""
    entries = []
    with progress(len(dataset.questions) * len(kinds), "rewriting", "rewrite") as bar:
        for question in dataset.questions:
            for kind in kinds:
                limit = limits.get(kind, 1)
                texts = clean(rewriter.rewrite(question, kind, limit), question.text)[:limit]
                entries.append(VariantEntry(question.id, kind, tuple(texts), question.text))
                bar.update(1)
    return entries


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
    price = prices(model, gen.input_price, gen.output_price) if model else None
    cost = 0.0 if usage.requests == 0 else estimated_cost(usage.tokens, price)
    return {
        "dataset": dataset.name,
        "questions": len(dataset.questions),
        "generator": gen.name,
        "model": model,
        "kinds": list(kinds),
        "requests": usage.requests,
        "replies_from_cache": usage.from_cache,
        "tokens": dict(usage.tokens),
        "price_per_million": None if price is None else {"input": price[0], "output": price[1]},
        "estimated_cost_usd": cost,
    }
