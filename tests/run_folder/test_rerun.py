"""A rerun into the same folder leaves one run's files: the earlier run's others go, a user's stay."""

import json
import os
import subprocess
import sys

import rag_bench.run_folder.reuse as reuse
from rag_bench.core.cache import DiskCache
from rag_bench.run_folder.manifest import clear_earlier

DOCS = {
    "d1": "The ingest certificate expired and gateways could not report.",
    "d2": "The orchard trial used sticky traps and camera sensors.",
}
OUTPUTS = ["config.yaml", "metrics.json", "per_question.csv", "per_question.parquet", "report.html", "run.trec"]


def dataset(folder, labels: str):
    """Two documents and two questions, labelled by judgements (a document run too) or by evidence spans."""
    folder.mkdir()
    (folder / "documents.jsonl").write_text("".join(json.dumps({"id": k, "text": v}) + "\n" for k, v in DOCS.items()))
    if labels == "judgements":
        questions = [{"id": "q1", "question": "certificate", "judgements": {"d1": 1}}]
    else:
        questions = [{"id": "q1", "question": "certificate", "evidence": [{"doc_id": "d1", "text": "certificate"}]}]
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return folder


def run(tmp_path, data, out):
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    args = [f"dataset.path={data}", "retrieval=bm25", "ks=[1]", f"hydra.run.dir={out}"]
    done = subprocess.run([sys.executable, "-m", "rag_bench", *args], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr


def test_a_rerun_with_another_configuration_removes_the_earlier_runs_other_files(tmp_path):
    out = tmp_path / "run"
    run(tmp_path, dataset(tmp_path / "judged", "judgements"), out)
    assert (out / "run_documents.trec").is_file()  # judgements: a document ranking too
    assert json.loads((out / "metrics.json").read_text())["files"] == [
        "config.yaml", "report.html", "per_question.csv", "per_question.parquet", "run.trec",
        "run_documents.trec", "metrics.json",
    ]  # fmt: skip
    (out / "notes.txt").write_text("mine")  # a user's file in the run folder
    run(tmp_path, dataset(tmp_path / "spans", "spans"), out)  # evidence spans: no document ranking
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted([".hydra", "notes.txt", "rag-bench.log", *OUTPUTS])  # Hydra's folder and log stay
    assert "judgements" not in (out / "config.yaml").read_text() and (out / "notes.txt").read_text() == "mine"


def test_a_run_served_from_the_cache_removes_the_earlier_runs_other_files(tmp_path):
    cache, first = DiskCache(tmp_path / "cache"), tmp_path / "first"
    first.mkdir()
    kept = {"config.yaml": b"a: 1\n", "run.trec": b"", "metrics.json": b'{"stats": {}, "files": ["config.yaml"]}'}
    for name, data in kept.items():
        (first / name).write_bytes(data)
    reuse.keep(cache, "k1", [first / name for name in kept])
    out = tmp_path / "out"
    out.mkdir()
    earlier = {"config.yaml": "b: 2\n", "pgvector.sql": "CREATE TABLE chunks;\n", "custom.log": "", "mine.txt": ""}
    for name, text in earlier.items():
        (out / name).write_text(text)
    recorded = ["config.yaml", "custom.log", "metrics.json", "../outside.txt", ".hydra"]  # not pgvector.sql
    (out / "metrics.json").write_text(json.dumps({"files": recorded}))
    (tmp_path / "outside.txt").write_text("not the run's")
    (out / ".hydra").mkdir()
    assert reuse.serve(cache, "k1", out) is not None
    # custom.log (recorded by the earlier run) and pgvector.sql (a name runs write) go; mine.txt stays, and
    # a recorded name outside the folder or hidden is never followed
    assert sorted(p.name for p in out.iterdir()) == [".hydra", "config.yaml", "metrics.json", "mine.txt", "run.trec"]
    assert (out / "config.yaml").read_text() == "a: 1\n" and (tmp_path / "outside.txt").exists()


def test_without_a_record_only_names_runs_write_are_removed(tmp_path):
    for name in ("chroma.log", "run_documents.trec", "run.trec", "notes.md", "metrics.json"):
        (tmp_path / name).write_text("x")
    (tmp_path / "pgvector.sql").mkdir()  # a folder of that name is not the run's file
    assert clear_earlier(tmp_path, ["run.trec", "metrics.json"]) == ["chroma.log", "metrics.json", "run_documents.trec"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.md", "pgvector.sql", "run.trec"]
