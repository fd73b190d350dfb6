"""Sweep folders written by hand: one folder per point with metrics.json, config.yaml, overrides, per_question.csv."""

import csv
import json

import pytest
import yaml

KNOBS = {
    "dataset": {"name": "not-bundled", "path": None},
    "chunker": {"name": "fixed", "size": 400, "overlap": 0.0, "unit": "chars", "prefix": "none"},
    "embedder": {"name": "fake", "model": None, "dimension": 64},
    "retrieval": {"mode": "bm25", "depth": 20, "k_rrf": 60.0, "weights": [1.0, 1.0], "analyzer": "identifier"},
    "reranker": {"name": "none", "depth": 20},
    "ks": [5, 10],
}


def write_point(folder, overrides, scores, config=None, choices=None, stats=None, ids=None):
    """A finished point: ``scores`` maps metric -> per-question values; metrics.json holds their means.

    ``config`` changes KNOBS ({"chunker.size": 200}). Each metric's 95% interval is written as
    [mean - 0.1, mean + 0.1] so tests can check it.
    """
    folder.mkdir(parents=True)
    n = len(next(iter(scores.values())))
    ids = ids or [f"q{i}" for i in range(n)]
    rows = [
        {"question_id": q, "category": "", "labelled": True, **{m: v[i] for m, v in scores.items()}}
        for i, q in enumerate(ids)
    ]
    with open(folder / "per_question.csv", "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    means = {m: sum(v) / len(v) for m, v in scores.items()}
    payload = {
        "dataset": "hand",
        "n_questions": n,
        "n_unlabelled": 0,
        "metrics": means,
        "ci95": {m: [mean - 0.1, mean + 0.1] for m, mean in means.items()},
        "stats": stats or {"chunks": 10, "embedded": 0, "cache_hits": 0, "index_bytes": 1000, "seconds": {"a": 1.0}},
    }
    (folder / "metrics.json").write_text(json.dumps(payload), encoding="utf-8")
    (folder / "config.yaml").write_text(yaml.safe_dump(knobs(config or {})), encoding="utf-8")
    hydra = folder / ".hydra"
    hydra.mkdir()
    (hydra / "overrides.yaml").write_text(yaml.safe_dump(list(overrides)), encoding="utf-8")
    (hydra / "hydra.yaml").write_text(yaml.safe_dump({"hydra": {"runtime": {"choices": choices or {}}}}))
    return folder


def knobs(changes):
    """KNOBS with ``{"chunker.size": 200}``-style changes."""
    config = json.loads(json.dumps(KNOBS))
    for key, value in changes.items():
        group, name = key.split(".")
        config[group][name] = value
    return config


@pytest.fixture
def make_point():
    """make_point(folder, overrides, scores, config=None, choices=None, stats=None, ids=None) -> folder."""
    return write_point


@pytest.fixture
def size_sweep(tmp_path):
    """Three chunk sizes, bm25 in each; ndcg@10 per question: 200 all 0, 400 all 1, 800 one miss."""
    root = tmp_path / "sweep"
    per_size = {200: [0.0] * 6, 400: [1.0] * 6, 800: [1.0] * 5 + [0.0]}
    for num, (size, ndcg) in enumerate(per_size.items()):
        write_point(
            root / str(num),
            [f"chunker.size={size}", "retrieval=bm25"],
            {"ndcg@10": ndcg, "recall@5": ndcg, "recall@10": ndcg},
            config={"chunker.size": size},
            choices={"retrieval": "bm25", "chunker": "fixed"},
            stats={
                "chunks": 12000 // size,
                "mean_chunk_chars": size * 0.9,
                "embedded": 5,
                "cache_hits": 2,
                "index_bytes": 2048 * size,
                "seconds": {"load": 0.5, "chunk": 1.25},
                **({"cost_usd": 0.02, "tokens": {"embed": 1000, "rerank": 500}} if size == 800 else {}),
            },
        )
    return root
