"""A sweep table's work columns from one point's ``stats``: chunks, bytes, seconds, texts embedded, cost."""

from __future__ import annotations

import numpy as np

# what the configuration needs of its models whatever the sweep order (stats.work, run_folder/work.py);
# NaN when unrecorded
CONFIG_WORK = ("work_chars", "work_cost_usd", "index_cost_usd", "cost_per_1k_questions")
# what a run did, which depends on what earlier runs left in the cache (a repeated sweep differs only here)
RUN_WORK = ("seconds", "embed_seconds", "embedded", "cache_hits", "tokens", "cost_usd", "served")


def work_columns(stats: dict, n_questions: object = None) -> dict[str, float]:
    """Chunks, mean chunk characters (when the run recorded them), bytes, seconds, embedding and cost counts,
    and whether the run was served whole from the run cache (``run_folder/reuse.py``).

    ``cost_per_1k_questions``: the configuration's recurring API cost (questions embedded, candidates
    reranked) per 1,000 questions; ``index_cost_usd`` its one-off cost (chunks embedded); ``embed_seconds``
    this run's time embedding chunks and questions for the dense index (0 when its vectors were cached).
    """
    chunks = stats.get("chunks", np.nan)
    if "mean_chunk_chars" in stats:
        mean_chars = stats["mean_chunk_chars"]
    elif "chunk_chars" in stats and chunks:
        mean_chars = stats["chunk_chars"] / chunks
    else:
        mean_chars = np.nan
    return {
        "chunks": chunks,
        "mean_chunk_chars": number(mean_chars),
        "index_bytes": stats.get("index_bytes", np.nan),
        "seconds": _total(_stages(stats.get("seconds", {}))),
        "embed_seconds": number((stats.get("seconds") or {}).get("dense embed")),
        "embedded": stats.get("embedded", np.nan),
        "cache_hits": stats.get("cache_hits", np.nan),
        "tokens": _total(stats.get("tokens", 0)),
        "cost_usd": _total(stats.get("cost_usd", 0.0)),
        "served": stats.get("reused") == {"run": True},  # its outputs came whole from the run cache
        "truncated_share": truncated_share(stats),
        **_configuration_work(stats.get("work"), n_questions),
        "latency_ms_p95": (stats.get("index") or {}).get("latency_ms_p95", np.nan),  # dense index, per query
        "returned_chars": _returned_chars(stats.get("strategies")),
    }


def _returned_chars(strategies: object) -> float:
    """Mean characters the top report_k returned after the last post-retrieval step (expand, diversity);
    NaN when no step ran (the chunks themselves: ``mean_chunk_chars`` says their size)."""
    if not isinstance(strategies, dict) or not strategies:
        return np.nan
    last = list(strategies.values())[-1]
    if not isinstance(last, dict):
        return np.nan
    after = [v for k, v in last.items() if k.startswith("chars@") and k.endswith(" after")]
    return number(after[0]) if after else np.nan


TRUNCATION_WARNING = 0.05  # share of a point's chunks embedded truncated past which the report warns


def truncated_share(stats: dict) -> float:
    """The share of the point's chunks longer than the embedder's input, embedded truncated (0 without
    dense embedding; NaN when the run recorded no chunk count)."""
    chunks = number(stats.get("chunks"))
    return number(stats.get("truncated", 0)) / chunks if chunks and chunks > 0 else np.nan


def _configuration_work(work: object, n_questions: object) -> dict[str, float]:
    """``work_chars`` (embedded plus reranked characters), ``work_cost_usd`` and its split from ``stats.work``."""
    if not isinstance(work, dict):
        return dict.fromkeys(CONFIG_WORK, np.nan)
    chars = number(work.get("embedded_chars")) + number(work.get("reranked_chars"))
    questions = number(n_questions)
    per_1k = number(work.get("query_cost_usd")) / questions * 1000 if questions and questions > 0 else np.nan
    return {
        "work_chars": chars,
        "work_cost_usd": number(work.get("cost_usd")),
        "index_cost_usd": number(work.get("index_cost_usd")),
        "cost_per_1k_questions": per_1k,
    }


def _stages(seconds: dict) -> dict:
    """Per-stage seconds without the steps inside a stage ("bm25 build" is part of "bm25")."""
    return {k: v for k, v in seconds.items() if k.rsplit(" ", 1)[0] == k or k.rsplit(" ", 1)[0] not in seconds}


def _total(value: object) -> float:
    """A number, or the sum of a {part: number} mapping (e.g. seconds per stage)."""
    if isinstance(value, dict):
        return float(sum(_total(v) for v in value.values()))
    return float(value) if isinstance(value, int | float) else 0.0


def number(value: object) -> float:
    """A number as float; anything else (None, text, a bool) as NaN."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else np.nan
