"""A run explains itself: failure classes, configuration work and the explorer page, from its RunResult.

``explain(result)`` classifies every question (``failures.py``) from the stage lists the pipeline
kept (``RunResult.stages``), measures the configuration's work (``work.py``) and builds the page's
model (``run_view.py``). ``write_explained`` then writes ``report.html`` and the per-question table
with the explanation's columns (``per_question.csv`` and ``per_question.parquet``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, is_dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rag_bench.report.blocks import write_atomic
from rag_bench.report.run.page import write_run_page
from rag_bench.report.run.view import DISPLAY_CLASSES, RunFacts, Stage, run_view
from rag_bench.run_folder.work import Work, measure_work
from rag_bench.score.failures import MISSES, Diagnosis, StageLists, diagnose

LIST_COLUMNS = ("top_chunks", "ranked_chunks")  # lists: JSON text in the CSV, lists in the Parquet file


@dataclass(frozen=True)
class Explanation:
    """Why each question of a run hit or missed, what the configuration cost, and the page's model."""

    report_k: int
    diagnoses: list[Diagnosis]
    work: Work
    view: dict

    def failure_summary(self) -> dict:
        """For metrics.json: ``report_k``, counts per class, and per class and category."""
        counts = self.view["failures"]
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
    diagnoses = diagnose(result.chunks, result.dataset.questions, stages, cfg.tau, k)
    ev = result.evaluation
    facts = RunFacts(
        title=f"Run report: {result.dataset.name}, {describe(cfg)}",
        dataset=result.dataset.name,
        settings=flatten(asdict(cfg)),
        documents={d.id: d.text for d in result.dataset.documents},
        chunks=result.chunks,
        questions=result.dataset.questions,
        stages=[Stage(name, c.indices, c.scores) for name, c in ordered_stages(result).items()],
        diagnoses=diagnoses,
        metrics={name: (s.mean, s.ci_low, s.ci_high) for name, s in ev.summary.items()},
        categories={c: (ev.category_counts[c], means) for c, means in ev.by_category.items()},
        first_hits=[None if pd.isna(r) else int(r) for r in ev.per_question["first_hit_rank"]],
        report_k=k,
        tau=cfg.tau,
    )
    return Explanation(k, diagnoses, configuration_work(result, stages), run_view(facts))


def stage_lists(result) -> StageLists:
    """The run's lists by role: first-stage lists, the list the reranker read, the reranked list."""
    stages = result.stages
    first = {name: c.indices for name, c in stages.items() if name not in ("fused", "reranked")}
    if "fused" in stages:
        fused = stages["fused"].indices
    elif len(first) == 1:
        fused = next(iter(first.values()))
    else:
        fused = result.ranked  # nothing but the final list is known
    reranked = stages["reranked"].indices if "reranked" in stages else None
    return StageLists(first, fused, reranked, final_scores=result.scores)


def ordered_stages(result) -> dict:
    """Stage name -> candidates, first-stage lists first, the final list last."""
    if not result.stages:
        from rag_bench.retrieve.base import Candidates

        return {"final": Candidates(result.chunks, result.ranked, result.scores)}
    return dict(result.stages)


def configuration_work(result, stages: StageLists) -> Work:
    """What the configuration needs of its models (``work.py``): dense index texts, reranked pairs, API cost."""
    cfg = result.config
    passages = [c.indexed_text for c in result.chunks]
    questions = [q.text for q in result.dataset.questions]
    reranked = None
    if stages.reranked is not None:
        reranked = stages.fused[:, : cfg.reranker.depth]
    return measure_work(
        passages,
        questions,
        dense="dense" in result.stages,
        reranked=reranked,
        embed_price=_price(cfg.embedder),
        rerank_price=_price(cfg.reranker) if reranked is not None else None,
    )


def _price(component) -> float | None:
    """USD per million tokens of a component that calls a priced API, None for a local one."""
    if not hasattr(component, "price_per_million"):
        return None
    from rag_bench.remote.usage import price_per_million

    return price_per_million(component.model, component.price_per_million)


def describe(cfg) -> str:
    """``retrieval=hybrid, chunker=recursive 800 chars, embedder=local, reranker=none``."""
    chunker = cfg.chunker
    size = f" {chunker.size} {chunker.unit}" if getattr(chunker, "size", None) else ""
    return (
        f"retrieval={cfg.retrieval.mode}, chunker={chunker.name}{size}, embedder={cfg.embedder.name}, "
        f"reranker={cfg.reranker.name}"
    )


def flatten(config: Mapping, prefix: str = "") -> dict[str, object]:
    """``{"chunker": {"size": 800}}`` -> ``{"chunker.size": 800}``."""
    out: dict[str, object] = {}
    for key, value in config.items():
        name = f"{prefix}{key}"
        if is_dataclass(value):
            value = {f.name: getattr(value, f.name) for f in fields(value)}
        if isinstance(value, Mapping):
            out.update(flatten(value, f"{name}."))
        else:
            out[name] = value
    return out


def per_question_table(result, explanation: Explanation) -> pd.DataFrame:
    """The evaluation's per-question rows with ``question``, ``failure``, ``evidence_rank_<stage>`` per stage
    list, and ``ranked_chunks`` (every chunk id of the final list, best first)."""
    table = result.evaluation.per_question.copy()
    at = list(table.columns).index("labelled")
    table.insert(1, "question", [q.text for q in result.dataset.questions])
    table.insert(at + 2, "failure", [d.failure for d in explanation.diagnoses])
    names = list(explanation.diagnoses[0].ranks) if explanation.diagnoses else []
    position = list(table.columns).index("first_hit_rank") + 1
    for offset, name in enumerate(names):
        ranks = [d.ranks.get(name) for d in explanation.diagnoses]
        table.insert(position + offset, f"evidence_rank_{name}", pd.array(ranks, dtype="Int64"))
    table["ranked_chunks"] = [[result.chunks[c].id for c in row[row >= 0]] for row in result.ranked]
    return table


def write_explained(result, explanation: Explanation, out_dir: Path) -> list[Path]:
    """Write report.html, per_question.csv and per_question.parquet into ``out_dir``; return their paths."""
    table = per_question_table(result, explanation)
    csv, parquet = out_dir / "per_question.csv", out_dir / "per_question.parquet"
    as_text = table.copy()
    for column in LIST_COLUMNS:
        as_text[column] = as_text[column].map(_json_list)
    write_atomic(csv, lambda handle: as_text.to_csv(handle, index=False, encoding="utf-8"))
    write_atomic(parquet, lambda handle: table.to_parquet(handle, index=False))
    page = write_run_page(explanation.view, out_dir / "report.html")
    return [page, csv, parquet]


def failure_line(payload: dict) -> str | None:
    """The console's line of failure counts, e.g. ``failures at k=10: 17 fused-out, 9 not-retrieved; 133 hit``."""
    summary = payload.get("failures")
    if not summary:
        return None
    counts = summary["counts"]
    misses = ", ".join(f"{counts[c]} {c}" for c in MISSES if counts.get(c))
    others = ", ".join(f"{counts[c]} {c}" for c in DISPLAY_CLASSES if c not in MISSES and counts.get(c))
    return f"failures at k={summary['report_k']}: {misses or 'no misses'}; {others}"


def _json_list(items: object) -> str:
    import json

    return json.dumps(list(items) if isinstance(items, list | tuple | np.ndarray) else items)
