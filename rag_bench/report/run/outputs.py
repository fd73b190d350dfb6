"""A run's report page and outputs: ``write_outputs`` writes the run folder (``run_folder/write.py``) with
its explorer page, ``report.html``, built here from the run's explanation (``run_folder/explain.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, fields, is_dataclass
from pathlib import Path

import pandas as pd

from rag_bench.core.pauses import no_collector_pauses
from rag_bench.report.run.page import render_run_page
from rag_bench.report.run.view import DISPLAY_CLASSES, RunFacts, Stage, packed_view
from rag_bench.run_folder.explain import Explanation, explain
from rag_bench.run_folder.write import write_folder
from rag_bench.score.failures import MISSES


def write_run(result, out_dir: Path, config_text: str | None = None, fingerprint: dict[str, str] | None = None) -> dict:
    """Write every output file of ``result`` into ``out_dir``; return the metrics.json object.

    ``fingerprint`` (``run_folder.fingerprint``) is recorded with the metrics: what the numbers depend on.
    """
    return write_outputs(result, out_dir, config_text, fingerprint)[0]


def write_outputs(
    result, out_dir: Path, config_text: str | None = None, fingerprint: dict[str, str] | None = None
) -> tuple[dict, list[Path]]:
    """``write_run``, also returning the files written (metrics.json last)."""
    with no_collector_pauses():  # millions of small objects at 10k questions (core/pauses.py)
        explanation = explain(result)

        def page() -> str:  # made while the data files are written (write_folder)
            return render_run_page(packed_view(run_facts(result, explanation)))

        return write_folder(result, out_dir, explanation, {"report.html": page}, config_text, fingerprint)


def run_facts(result, explanation: Explanation) -> RunFacts:
    """What the explorer page shows of a ``pipeline.RunResult``, as plain data."""
    cfg, ev = result.config, result.evaluation
    return RunFacts(
        title=f"Run report: {result.dataset.name}, {describe(cfg)}",
        dataset=result.dataset.name,
        settings=flatten(asdict(cfg)),
        documents={d.id: d.text for d in result.dataset.documents},
        chunks=result.chunks,
        questions=result.dataset.questions,
        stages=[Stage(name, c.indices, c.scores) for name, c in ordered_stages(result).items()],
        diagnoses=explanation.diagnoses,
        metrics={name: (s.mean, s.ci_low, s.ci_high) for name, s in ev.summary.items()},
        categories={c: (ev.category_counts[c], means) for c, means in ev.by_category.items()},
        first_hits=[None if pd.isna(r) else int(r) for r in ev.per_question["first_hit_rank"]],
        report_k=explanation.report_k,
        tau=cfg.tau,
        languages={g: (ev.language_counts[g], means) for g, means in ev.by_language.items()},
        touching=ev.touching if len(ev.touching) == len(result.dataset.questions) else (),
    )


def ordered_stages(result) -> dict:
    """Stage name -> candidates, first-stage lists first, the final list last."""
    if not result.stages:
        from rag_bench.retrieve.base import Candidates

        return {"final": Candidates(result.chunks, result.ranked, result.scores)}
    return dict(result.stages)


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


def failure_line(payload: dict) -> str | None:
    """The console's line of failure counts, e.g. ``failures at k=10: 17 fused-out, 9 not-retrieved; 133 hit``."""
    summary = payload.get("failures")
    if not summary:
        return None
    counts = summary["counts"]
    misses = ", ".join(f"{counts[c]} {c}" for c in MISSES if counts.get(c))
    others = ", ".join(f"{counts[c]} {c}" for c in DISPLAY_CLASSES if c not in MISSES and counts.get(c))
    return f"failures at k={summary['report_k']}: {misses or 'no misses'}; {others}"
