"""conventions.yaml: BEIR imports record their source's settings, and a run that differs prints the exact overrides."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rag_bench.config.compose import compose
from rag_bench.config.groups import STAGE_GROUPS
from rag_bench.config.schema import register, validate
from rag_bench.core.errors import DataError
from rag_bench.core.paths import project_folder
from rag_bench.data.conventions import BEIR, FILE, differing, read_conventions, write_conventions
from rag_bench.importers.common import Imported, write_native

SCIFACT = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "scifact"
BEIR_OVERRIDES = [
    "chunker=fixed",
    "chunker.size=1000000",
    "chunker.prefix=title",
    "retrieval=bm25",
    "retrieval.analyzer=english",
    "retrieval.bm25_variant=lucene",
    "retrieval.k1=0.9",
    "retrieval.b=0.4",
]
CORPUS = [
    {"_id": "d1", "title": "Kestrel falcons", "text": "The kestrel hovers over fields hunting voles."},
    {"_id": "d2", "title": "Owl calls", "text": "Tawny owls call at night in the woods."},
    {"_id": "d3", "title": "Heron nests", "text": "Grey herons nest in colonies high in trees."},
]
QUERIES = [{"_id": "q1", "text": "which bird hovers over fields"}, {"_id": "q2", "text": "where do herons nest"}]
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t2\n"


NAME_FIELDS = {group.group: group.key for group in STAGE_GROUPS}


def beir_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    for name, rows in (("corpus.jsonl", CORPUS), ("queries.jsonl", QUERIES)):
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "qrels" / "test.tsv").write_text(QRELS, encoding="utf-8")
    return folder


def rag_bench(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache"), "RAG_BENCH_QUIET": "1"}
    return subprocess.run(
        [sys.executable, "-m", "rag_bench", *args], capture_output=True, text=True, env=env, timeout=300
    )


def composed(*overrides: str):
    register()
    return validate(compose(project_folder("configs"), list(overrides), "test"))


def test_import_beir_records_the_conventions_and_a_default_run_names_every_override(tmp_path):
    dest = tmp_path / "birds"
    done = rag_bench(tmp_path, "import", "beir", str(beir_folder(tmp_path)), str(dest))
    assert done.returncode == 0, done.stderr
    assert read_conventions(dest) == BEIR
    assert BEIR.as_overrides() == BEIR_OVERRIDES

    run = rag_bench(tmp_path, f"dataset.path={dest}", "embedder=fake", f"hydra.run.dir={tmp_path / 'default'}")
    assert run.returncode == 0, run.stderr
    hints = [line for line in run.stderr.splitlines() if line.startswith("hint:")]
    assert hints == [
        "hint: birds comes from BEIR, whose published numbers use one passage per document with its title "
        f"prepended, and Anserini's BM25 (k1 0.9, b 0.4) ({dest / FILE}); for comparable numbers run with: "
        + " ".join(BEIR_OVERRIDES)
    ]

    followed = rag_bench(tmp_path, f"dataset.path={dest}", *BEIR_OVERRIDES, f"hydra.run.dir={tmp_path / 'beir'}")
    assert followed.returncode == 0, followed.stderr
    assert "hint:" not in followed.stderr + followed.stdout
    metrics = json.loads((tmp_path / "beir" / "metrics.json").read_text())
    assert metrics["stats"]["chunks"] == 3  # one passage per document
    assert metrics["metrics"]["ndcg@10"] == 1.0  # each query's one relevant document ranks first


def test_only_the_overrides_that_differ_and_apply_are_named():
    assert differing(BEIR, composed(*BEIR_OVERRIDES), NAME_FIELDS) == []
    # the BM25 settings already chosen: only the chunking is named
    bm25 = [o for o in BEIR_OVERRIDES if o.startswith("retrieval")]
    assert differing(BEIR, composed(*bm25), NAME_FIELDS) == ["chunker", "chunker.size", "chunker.prefix"]
    # the same option with one value off: just that key
    assert differing(BEIR, composed(*BEIR_OVERRIDES[:-1], "retrieval.b=0.75"), NAME_FIELDS) == ["retrieval.b"]
    # another retriever: the choice, then its settings (they apply once retrieval=bm25 is chosen)
    assert differing(BEIR, composed(*BEIR_OVERRIDES[:3], "retrieval=dense"), NAME_FIELDS) == [
        "retrieval",
        "retrieval.analyzer",
        "retrieval.bm25_variant",
        "retrieval.k1",
        "retrieval.b",
    ]


def test_a_format_without_conventions_removes_a_stale_file_and_trec_keeps_it(tmp_path):
    dest = tmp_path / "data"
    rows = ([{"id": "d1", "text": "alpha"}], [{"id": "q1", "question": "alpha?", "judgements": {"d1": 1}}])
    write_native(Imported(*rows, conventions=BEIR), dest)
    assert read_conventions(dest) == BEIR
    (tmp_path / "qrels.txt").write_text("q1 0 d1 2\n", encoding="utf-8")
    done = rag_bench(
        tmp_path, "import", "trec", str(tmp_path / "qrels.txt"), str(dest), "--dataset", str(dest), "--force"
    )
    assert done.returncode == 0, done.stderr
    assert read_conventions(dest) == BEIR  # same documents, same source
    write_native(Imported(*rows), dest)  # e.g. `import squad --force` into the same folder
    assert not (dest / FILE).exists()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("source: BEIR\nmodel: x\n", "unknown key 'model'; allowed: source, summary, reference, overrides"),
        ("- a\n", "must be a mapping with keys source, summary, reference, overrides"),
        ("overrides: [chunker=fixed]\n", "must map setting keys to values"),
        ("overrides:\n  chunker.size: [1, 2]\n", "chunker.size must be a single value"),
        ("overrides: {a: [\n", "is not UTF-8 YAML"),
    ],
)
def test_a_damaged_conventions_file_is_one_clear_error(tmp_path, text, expected):
    (tmp_path / FILE).write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as caught:
        read_conventions(tmp_path)
    message = str(caught.value)
    assert str(tmp_path / FILE) in message and expected in message and "\n" not in message


def test_written_conventions_read_back_equal(tmp_path):
    write_conventions(tmp_path, BEIR)
    assert read_conventions(tmp_path) == BEIR
    assert list(tmp_path.iterdir()) == [tmp_path / FILE]  # no temporary file left behind


@pytest.mark.slow
@pytest.mark.skipif(not (SCIFACT / "corpus.jsonl").is_file(), reason="../shared/datasets/scifact is absent")
def test_scifact_with_the_recorded_conventions_gives_anserinis_bm25(tmp_path):
    dest = tmp_path / "scifact"
    assert rag_bench(tmp_path, "import", "beir", str(SCIFACT), str(dest)).returncode == 0
    out = tmp_path / "run"
    done = rag_bench(tmp_path, f"dataset.path={dest}", *read_conventions(dest).as_overrides(), f"hydra.run.dir={out}")
    assert done.returncode == 0, done.stderr
    assert "hint:" not in done.stderr
    ndcg = json.loads((out / "metrics.json").read_text())["metrics"]["ndcg@10"]
    assert abs(ndcg - 0.6789) < 5e-5  # Anserini's BEIR regression, BM25 flat, SciFact test
