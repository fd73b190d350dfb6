"""Span and budget metrics against their definitions (spans.py, budget.py docstrings), computed here on
sets of characters and span indices, on random rankings: equal to the last bit (the same discounts,
summed in rank order)."""

import math
import random

from rag_bench.core.types import Chunk, Span
from rag_bench.score.budget import budget_metrics
from rag_bench.score.relevance import ChunkLocator, touching
from rag_bench.score.spans import span_metrics


def chars(doc, start, end):
    return {(doc, i) for i in range(start, end)}


def rule(chunk, span, tau):
    """The relevance rule in rationals: overlap >= max(1, tau * min(len(chunk), len(span)))."""
    shared = len(chars(chunk.doc_id, chunk.start, chunk.end) & chars(span.doc_id, span.start, span.end))
    return shared >= 1 and shared * 100 >= round(tau * 100) * min(chunk.end - chunk.start, span.end - span.start)


def oracle(ranked, chunks, spans, ks, tau):
    evidence = set().union(*(chars(s.doc_id, s.start, s.end) for s in spans))
    hit_sets = [{i for i, s in enumerate(spans) if rule(chunks[c], s, tau)} for c in ranked]
    out = {}
    for k in ks:
        top = ranked[:k]
        found = set().union(*hit_sets[:k])
        first = next((r for r, h in enumerate(hit_sets, start=1) if h), None)
        dcg = 0
        for r in range(min(k, len(ranked))):
            if hit_sets[r] - set().union(*hit_sets[:r]):
                dcg += 1 / math.log2(r + 2)
        idcg = 0
        for r in range(min(k, len(spans))):
            idcg += 1 / math.log2(r + 2)
        covered_chars = set().union(*(chars(chunks[c].doc_id, chunks[c].start, chunks[c].end) for c in top))
        covered, lengths = len(evidence & covered_chars), sum(chunks[c].end - chunks[c].start for c in top)
        out |= {
            f"hit@{k}": float(bool(found)),
            f"recall@{k}": len(found) / len(spans),
            f"mrr@{k}": 1 / first if first is not None and first <= k else 0.0,
            f"ndcg@{k}": dcg / idcg,
            f"coverage@{k}": covered / len(evidence),
            f"char_precision@{k}": covered / lengths if lengths else 0.0,
            f"iou@{k}": covered / (lengths + len(evidence) - covered),
        }
    near = [c for c in chunks if any(chars(c.doc_id, c.start, c.end) & chars(s.doc_id, s.start, s.end) for s in spans)]
    touched = set().union(*(chars(c.doc_id, c.start, c.end) for c in near))
    out["precision_omega"] = len(evidence & touched) / len(touched) if touched else 0.0
    out["survival"] = 1.0
    return out


def budget_oracle(ranked, chunks, spans, budgets, tau):
    evidence = set().union(*(chars(s.doc_id, s.start, s.end) for s in spans))
    out = {}
    for budget in budgets:
        context, left = [], budget
        for c in ranked:
            if left <= 0:
                break
            take = min(chunks[c].end - chunks[c].start, left)
            context.append(Chunk(chunks[c].doc_id, chunks[c].start, chunks[c].start + take, ""))
            left -= take
        found = {i for i, s in enumerate(spans) for c in context if rule(c, s, tau)}
        seen = set().union(*(chars(c.doc_id, c.start, c.end) for c in context))
        out |= {
            f"hit@{budget}chars": float(bool(found)),
            f"recall@{budget}chars": len(found) / len(spans),
            f"coverage@{budget}chars": len(evidence & seen) / len(evidence),
        }
    return out


def random_case(rng):
    chunks = []
    for doc in ("a", "b", "c"):
        at = 0
        while at < 600:
            size = rng.randrange(20, 160)
            chunks.append(Chunk(doc, max(0, at - rng.choice([0, 0, 15])), at + size, ""))  # some overlap
            at += size
    spans = []
    for _ in range(rng.randrange(1, 4)):
        doc, start = rng.choice("aab"), rng.randrange(0, 560)
        spans.append(Span(doc, start, start + rng.randrange(5, 120)))
    ranked = rng.sample(range(len(chunks)), rng.randrange(1, min(25, len(chunks))))
    ks = sorted(rng.sample([1, 2, 3, 5, 8, 10, 20, 30], rng.randrange(1, 5)))
    return chunks, spans, ranked, ks, rng.choice([0.5, 0.55, 0.25, 1.0])


def test_span_and_budget_metrics_equal_their_definitions_on_random_rankings():
    rng = random.Random(11)
    checked = 0
    for _ in range(100):
        chunks, spans, ranked, ks, tau = random_case(rng)
        near = touching(ChunkLocator(chunks), spans, tau)
        values, first = span_metrics(ranked, chunks, spans, near, ks)
        assert values == oracle(ranked, chunks, spans, ks, tau)
        budgets = sorted(rng.sample([50, 100, 250, 400, 1000], 3))
        assert budget_metrics(ranked, chunks, spans, budgets, tau) == budget_oracle(ranked, chunks, spans, budgets, tau)
        checked += values[f"ndcg@{ks[-1]}"] not in (0.0, 1.0)  # a partial ranking, not only all-or-nothing
    assert checked > 15
