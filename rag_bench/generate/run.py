"""Answer every question of a run from its top chunks, check the answers, attribute failures."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from rag_bench.core.cache import DiskCache, default_cache_dir, digest
from rag_bench.core.progress import progress
from rag_bench.generate.attribution import Outcome, attribute
from rag_bench.generate.base import Answer, Generator
from rag_bench.generate.checks import Checks, check
from rag_bench.generate.prompt import Prompt, build_prompt
from rag_bench.generate.registry import GENERATORS
from rag_bench.generate.settings import GenerateConfig
from rag_bench.remote.retry import bounded_map
from rag_bench.run_folder.read import RetrievedRun, read_run

NAMESPACE = "answers"


@dataclass(frozen=True)
class QuestionResult:
    prompt: Prompt
    answer: Answer
    checks: Checks
    outcome: Outcome
    cached: bool  # the answer came from the cache


@dataclass(frozen=True)
class GenerationResult:
    """Everything ``check-generation`` produced, before it is written out."""

    run: RetrievedRun
    settings: GenerateConfig
    generator_key: str
    tau: float
    results: tuple[QuestionResult, ...]

    @property
    def generated(self) -> int:
        return sum(not r.cached for r in self.results)


def check_generation(run_dir: Path, cfg: GenerateConfig, generator: Generator | None = None) -> GenerationResult:
    """Read the run in ``run_dir``, answer each question (cached), check and attribute.

    A ``generator`` passed in stays open; one built from ``cfg`` is closed at the end.
    """
    run = read_run(run_dir)
    tau = run.tau if cfg.tau is None else cfg.tau
    if generator is not None:
        return GenerationResult(run, cfg, generator.key, tau, answer_all(run, cfg, tau, generator))
    built = GENERATORS.build(cfg.generator)
    try:
        return GenerationResult(run, cfg, built.key, tau, answer_all(run, cfg, tau, built))
    finally:
        built.close()


def answer_all(run: RetrievedRun, cfg: GenerateConfig, tau: float, generator: Generator) -> tuple[QuestionResult, ...]:
    """One result per question of ``run``, in its order, with a progress bar; up to the generator's
    ``concurrency`` (1 when it has none) questions answered at once."""
    cache = DiskCache(cfg.cache_dir or default_cache_dir())
    pairs = list(zip(run.questions, run.ranked, strict=True))
    with progress(len(pairs), f"answering ({generator.name})", "question") as bar:

        def one(pair) -> QuestionResult:
            question, ranked = pair
            prompt = build_prompt(question, ranked[: cfg.passages])
            answer, cached = cached_answer(cache, generator, prompt)
            checks = check(prompt, answer, tau, cfg.correct_f1)
            bar.update(1)
            return QuestionResult(prompt, answer, checks, attribute(question, answer, checks), cached)

        return tuple(bounded_map(one, pairs, getattr(generator, "concurrency", 1)))


def cached_answer(cache: DiskCache, generator: Generator, prompt: Prompt) -> tuple[Answer, bool]:
    """``(answer, was_cached)``, keyed by (generator key, prompt hash); generated on a miss."""
    key = digest(generator.key, prompt.hash)
    payload = cache.get(NAMESPACE, key)
    if payload is not None:
        try:
            return Answer.from_dict(json.loads(payload)), True
        except (ValueError, KeyError, TypeError):  # an entry from another version: answer again
            pass
    answer = generator.answer(prompt)
    cache.put(NAMESPACE, key, json.dumps(answer.to_dict(), ensure_ascii=False).encode("utf-8"))
    return answer, False
