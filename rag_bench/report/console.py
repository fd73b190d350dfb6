"""The table a run prints on the console: headline metrics with their 95% intervals, and the work done."""

from __future__ import annotations

HEADLINE = ("recall@5", "recall@10", "mrr@10", "ndcg@10", "coverage@5")


def console_table(payload: dict) -> str:
    """A compact table of the headline metrics with their 95% intervals."""
    metrics, ci = payload["metrics"], payload["ci95"]
    stats = payload["stats"]
    reused = [stage for stage, cached in stats["reused"].items() if cached]
    work = f"{stats['embedded']} texts embedded, {stats['cache_hits']} vectors from cache"
    if reused:
        work += f", reused from cache: {', '.join(reused)}"
    lines = [
        f"{payload['dataset']}: {payload['n_questions']} questions scored"
        f" ({payload['n_unlabelled']} without labels excluded), {stats['chunks']} chunks, {work}",
        f"{'metric':<12} {'mean':>7}  95% interval",
    ]
    for name in HEADLINE:
        if name in metrics:
            low, high = ci[name]
            lines.append(f"{name:<12} {metrics[name]:>7.3f}  [{low:.3f}, {high:.3f}]")
    return "\n".join(lines)
