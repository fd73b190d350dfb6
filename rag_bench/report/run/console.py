"""The table a run prints on the console: headline metrics with their 95% intervals, the work done, failures."""

from __future__ import annotations

from rag_bench.report.run.outputs import failure_line

HEADLINE = ("recall@5", "recall@10", "mrr@10", "ndcg@10", "coverage@5")


def point_line(number: int | str, payload: dict, out_dir) -> str:
    """One line per sweep point (Hydra's launch line names its overrides): the headline metrics, what it did,
    where its outputs are."""
    metrics = payload["metrics"]
    shown = ", ".join(f"{name} {metrics[name]:.3f}" for name in ("recall@10", "ndcg@10") if name in metrics)
    cut = payload["stats"].get("truncated", 0)
    warn = f"; {cut} chunks embedded truncated (chunker.unit=tokens)" if cut else ""
    return f"point {number}: {shown}; {work_done(payload['stats'])}{warn} -> {out_dir}"


def console_table(payload: dict) -> str:
    """A compact table of the headline metrics with their 95% intervals."""
    metrics, ci = payload["metrics"], payload["ci95"]
    stats = payload["stats"]
    lines = [
        f"{payload['dataset']}: {payload['n_questions']} questions scored"
        f" ({payload['n_unlabelled']} without labels excluded), {stats['chunks']} chunks, {work_done(stats)}",
        *notes(payload),
        f"{'metric':<12} {'mean':>7}  95% interval",
    ]
    for name in HEADLINE:
        if name in metrics:
            low, high = ci[name]
            lines.append(f"{name:<12} {metrics[name]:>7.3f}  [{low:.3f}, {high:.3f}]")
    failures = failure_line(payload)
    return "\n".join(lines + ([failures] if failures else []))


def work_done(stats: dict) -> str:
    """What the run computed and what it took from the cache, e.g. "811 texts embedded, 0 vectors from cache"."""
    if stats["reused"] == {"run": True}:  # run_folder/reuse.py
        return "served from the run cache: an earlier run of this configuration on the same files and code"
    reused = [stage for stage, cached in stats["reused"].items() if cached]
    if reused and len(reused) == len(stats["reused"]) and not stats["embedded"]:
        return f"nothing embedded: {', '.join(reused)} reused from the cache"
    work = f"{stats['embedded']} texts embedded, {stats['cache_hits']} vectors from cache"
    return work + (f", reused from cache: {', '.join(reused)}" if reused else "")


def notes(payload: dict) -> list[str]:
    """Lines about numbers a reader should not take at face value: truncated chunks, capped cut-offs."""
    out = []
    truncated, chunks = payload["stats"].get("truncated", 0), payload["stats"].get("chunks", 0)
    if truncated:
        share = f" ({truncated / chunks:.0%} of {chunks})" if chunks else ""
        out.append(
            f"note: {truncated} chunks{share} are longer than the embedder's input and were embedded truncated "
            "(fix: measure chunks in the embedder's tokens, chunker.unit=tokens, so none is cut)"
        )
    for cut, n in payload.get("shortfall", {}).items():
        what, _, size = cut.partition("@")
        unit = "distinct documents" if what == "documents" else "characters"
        out.append(
            f"note: {n} questions have fewer than {size} {unit} among their candidates, so metrics at "
            f"{size}{'' if what == 'documents' else 'chars'} count only those (raise retrieval.depth to reach it)"
        )
    return out
