"""Why each question of a run hit or missed, and what its configuration asks of its models.

``explain(result)`` classifies every question (``score/failures.py``) from the stage lists the
pipeline kept (``RunResult.stages``) and measures the configuration's work (``work.py``). The run
folder records both: the failure class of each question in ``per_question.csv``, the counts per
class and category (``failure_summary``) and the work in ``metrics.json``; the run's page shows them.
"""

from __future__ import annotations

from dataclasses import dataclass

from rag_bench.remote.prices import price_per_million, price_per_search
from rag_bench.run_folder.work import Work, measure_work
from rag_bench.score.failures import Diagnosis, StageLists, diagnose, failure_counts


@dataclass(frozen=True)
class Explanation:
    """Why each question of a run hit or missed (at ``report_k``), and what the configuration cost."""

    report_k: int
    diagnoses: list[Diagnosis]
    work: Work
    categories: list[str | None]  # each question's category, in question order

    def failure_summary(self) -> dict:
        """For metrics.json: ``report_k``, counts per class, and per class and category."""
        counts = failure_counts([d.failure for d in self.diagnoses], self.categories)
        return {
            "report_k": self.report_k,
            "counts": counts["all"],
            "by_category": {category: row for category, row in counts.items() if category != "all"},
        }


def explain(result, report_k: int | None = None) -> Explanation:
    """The explanation of a ``pipeline.RunResult`` at ``report_k`` (default: the run's ``report_k``)."""
    cfg = result.config
    k = cfg.report_k if report_k is None else report_k
    stages = stage_lists(result)
    questions = result.dataset.questions
    found = result.evaluation.touching  # the evidence matches scoring made, of these chunks at this tau
    touched = found if len(found) == len(questions) else None
    diagnoses = diagnose(result.chunks, questions, stages, cfg.tau, k, touched)
    return Explanation(k, diagnoses, configuration_work(result, stages), [q.category for q in questions])


STEPS = ("expanded", "diversified")  # post-retrieval steps' lists, in the order they run


def stage_lists(result) -> StageLists:
    """The run's lists by role: first-stage lists, the fused list, the steps' lists, the reranked list."""
    stages = result.stages
    first = {name: c.indices for name, c in stages.items() if name not in ("fused", "reranked", *STEPS)}
    if "fused" in stages:
        fused = stages["fused"].indices
    elif len(first) == 1:
        fused = next(iter(first.values()))
    else:
        fused = result.ranked  # nothing but the final list is known
    reranked = stages["reranked"].indices if "reranked" in stages else None
    steps = {name: stages[name].indices for name in STEPS if name in stages}
    return StageLists(first, fused, reranked, final_scores=result.scores, steps=steps)


def configuration_work(result, stages: StageLists) -> Work:
    """What the configuration needs of its models (``work.py``): dense index texts, reranked pairs, API cost."""
    cfg = result.config
    passages = [c.indexed_text for c in result.chunks]
    questions = [q.text for q in result.dataset.questions]
    reranked = None
    if stages.reranked is not None:
        reranked = stages.retrieved[:, : cfg.reranker.depth]
    searched = next((result.stages[name].chunks for name in ("fused", *result.stages) if name in result.stages), None)
    return measure_work(
        passages,
        questions,
        dense="dense" in result.stages,
        reranked=reranked,
        embed_price=_price(cfg.embedder),
        rerank_price=_price(cfg.reranker) if reranked is not None else None,
        indexed=None if searched is None or searched is result.chunks else [c.indexed_text for c in searched],
        rerank_search_price=_search_price(cfg.reranker) if reranked is not None else None,
    )


def _search_price(component) -> float | None:
    """USD per search of a reranker billed per search (Cohere), None otherwise or when overridden per token."""
    if not hasattr(component, "price_per_million") or component.price_per_million is not None:
        return None
    return price_per_search(component.model)


def _price(component) -> float | None:
    """USD per million tokens of a component that calls a priced API, None for a local one."""
    if not hasattr(component, "price_per_million"):
        return None
    return price_per_million(component.model, component.price_per_million)
