"""A pre-chunked corpus end to end: import, then `chunker=given` scores the original chunks."""

import json
import os
import subprocess
import sys

CHUNKS = [
    {"id": "c1", "doc_id": "d1", "text": "The ingest certificate expired at noon."},
    {"id": "c2", "doc_id": "d1", "text": "Gateways buffered their readings for six hours."},
    {"id": "c3", "doc_id": "d2", "text": "Aphids were counted on sticky traps."},
]
QUESTIONS = [
    {"id": "q1", "question": "When did the ingest certificate expire?", "chunk_ids": ["c1"]},
    {"id": "q2", "question": "What counted aphids?", "chunk_ids": ["c3"]},
]


def rag_bench(*args, cache):
    env = {**os.environ, "RAG_BENCH_CACHE": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "rag_bench", *map(str, args)], capture_output=True, text=True, env=env, timeout=300
    )


def test_given_chunker_reproduces_the_imported_chunks(tmp_path):
    (tmp_path / "chunks.jsonl").write_text("".join(json.dumps(c) + "\n" for c in CHUNKS))
    (tmp_path / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    data, out, cache = tmp_path / "data", tmp_path / "run", tmp_path / "cache"
    done = rag_bench(
        "import",
        "prechunked",
        tmp_path / "chunks.jsonl",
        data,
        "--questions",
        tmp_path / "questions.jsonl",
        cache=cache,
    )
    assert done.returncode == 0, done.stderr
    done = rag_bench(
        f"dataset.path={data}",
        "chunker=given",
        "embedder=fake",
        "retrieval=bm25",
        "ks=[1,3]",
        f"hydra.run.dir={out}",
        cache=cache,
    )
    assert done.returncode == 0, done.stderr
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["stats"]["chunks"] == 3
    assert metrics["metrics"]["recall@1"] == 1.0 and metrics["metrics"]["precision_omega"] == 1.0
    chunk_ids = {line.split()[2] for line in (out / "run.trec").read_text().splitlines()}
    # chunk ids are doc:start-end over the joined document "c1\n\nc2"
    assert chunk_ids <= {"d1:0-39", "d1:41-88", "d2:0-36"} and "d2:0-36" in chunk_ids
