"""Goal 3b: reciprocal rank fusion of two 1,000 x 100 runs, vectorised, against the per-query loop.

The loop is the implementation ``rrf`` replaced; outputs must be identical bit for bit.
"""

from __future__ import annotations

import numpy as np
from common import Check, interleaved, report

from rag_bench.index.topk import top_k_row
from rag_bench.retrieve.fusion.rrf import rrf

N_QUERIES, DEPTH, N_ITEMS = 1_000, 100, 50_000


def per_query_rrf(runs: list[np.ndarray], k_rrf: float = 60.0) -> tuple[np.ndarray, np.ndarray]:
    """The former implementation: one np.unique + bincount + top-k per query."""
    items = np.concatenate(runs, axis=1)
    contrib = np.concatenate(
        [np.broadcast_to(1.0 / (k_rrf + np.arange(1, r.shape[1] + 1)), r.shape) for r in runs], axis=1
    )
    out_idx = np.full(items.shape, -1, dtype=np.int64)
    out_val = np.full(items.shape, -np.inf)
    for q in range(items.shape[0]):
        valid = items[q] >= 0
        unique, inverse = np.unique(items[q][valid], return_inverse=True)
        fused = np.bincount(inverse, weights=contrib[q][valid], minlength=len(unique))
        order, values = top_k_row(fused, len(unique))
        out_idx[q, : len(order)] = unique[order]
        out_val[q, : len(order)] = values
    return out_idx, out_val


def runs(seed: int) -> list[np.ndarray]:
    """Two runs over the same popular items (so they overlap), each row without repeats."""
    rng = np.random.default_rng(seed)
    pool = rng.choice(N_ITEMS, (N_QUERIES, 3 * DEPTH // 2), replace=True)
    out = []
    for _ in range(2):
        keys = rng.random(pool.shape)
        rows = np.take_along_axis(pool, np.argsort(keys, axis=1), axis=1)
        deduped = [list(dict.fromkeys(r.tolist()))[:DEPTH] for r in rows]
        out.append(np.array([r + [-1] * (DEPTH - len(r)) for r in deduped]))
    return out


def main() -> None:
    bm25, dense = runs(seed=6)
    results: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    seconds = interleaved(
        {
            "vectorised": lambda: results.__setitem__("new", rrf([bm25, dense])),
            "per-query loop": lambda: results.__setitem__("old", per_query_rrf([bm25, dense])),
        },
        repeats=5,
    )
    same = all(np.array_equal(a, b) for a, b in zip(results["new"], results["old"], strict=True))
    details = [
        f"two {N_QUERIES} x {DEPTH} runs (overlapping), k_rrf = 60",
        f"vectorised {seconds['vectorised'] * 1e3:.1f} ms, per-query loop {seconds['per-query loop'] * 1e3:.1f} ms; "
        f"identical output: {same}",
    ]
    checks = [
        Check("3 fusion", "identical to the per-query loop (1 = yes)", float(same), ">=", 1.0),
        Check(
            "3 fusion", "speed-up vs the per-query loop", seconds["per-query loop"] / seconds["vectorised"], ">=", 2.0
        ),
    ]
    report("Goal 3b: fusion", checks, details)


if __name__ == "__main__":
    main()
