import json
from pathlib import Path

import pytest

from rag_bench.core.errors import DataError
from rag_bench.data.native import load_dataset
from rag_bench.importers.beir import read_beir
from rag_bench.importers.common import write_native

SCIFACT = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "scifact"

CORPUS = [
    {"_id": "d1", "title": "Alpha", "text": "alpha text", "metadata": {"year": 2020}},
    {"_id": 2, "title": "", "text": "beta text"},
    {"_id": "d3", "title": "Gamma", "text": "gamma text", "extra": "ignored"},
]
QUERIES = [{"_id": "q1", "text": "what is alpha"}, {"_id": "q2", "text": "beta?"}, {"_id": "q3", "text": "none"}]
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\t2\t0\nq2\t2\t0\n"


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _beir(tmp_path: Path, qrels: str = QRELS, corpus: list[dict] = CORPUS, split: str = "test") -> Path:
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    _write_jsonl(folder / "corpus.jsonl", corpus)
    _write_jsonl(folder / "queries.jsonl", QUERIES)
    (folder / "qrels" / f"{split}.tsv").write_text(qrels, encoding="utf-8")
    return folder


def test_imports_judged_queries_with_graded_judgements(tmp_path):
    dataset = write_native(read_beir(_beir(tmp_path)), tmp_path / "out")
    assert [d.id for d in dataset.documents] == ["d1", "2", "d3"]
    assert [d.title for d in dataset.documents] == ["Alpha", None, "Gamma"]
    assert dict(dataset.documents[0].metadata) == {"year": 2020}
    assert [q.id for q in dataset.questions] == ["q1", "q2"]  # q3 has no judgement in test
    q1, q2 = dataset.questions
    assert dict(q1.judgements) == {"d1": 2, "2": 0}  # grade 0 kept: judged non-relevant
    assert (q1.text, q1.split, q1.labelled) == ("what is alpha", "test", True)
    assert dict(q2.judgements) == {"2": 0} and not q2.labelled
    assert load_dataset(tmp_path / "out").questions == dataset.questions


def test_all_queries_keeps_unjudged_ones_unanswerable(tmp_path):
    imported = read_beir(_beir(tmp_path), all_queries=True)
    assert [q["id"] for q in imported.questions] == ["q1", "q2", "q3"]
    assert imported.questions[2] == {"id": "q3", "question": "none", "split": "test"}
    assert imported.notes == ()


def test_other_split_and_headerless_space_separated_qrels(tmp_path):
    imported = read_beir(_beir(tmp_path, "q2 d3 1\n", split="dev"), split="dev")
    assert imported.questions == [{"id": "q2", "question": "beta?", "judgements": {"d3": 1}, "split": "dev"}]
    assert imported.notes == ("kept 1 of 3 queries: those judged in dev",)


@pytest.mark.parametrize(
    ("qrels", "line", "field", "problem"),
    [
        ("query-id\tcorpus-id\tscore\nq1\td1\thigh\n", 2, "score", "not an integer"),
        ("q1\td1\t1\nq1\tnope\t1\n", 2, "corpus-id", "unknown corpus id 'nope'"),
        ("q1\td1\t1\nq9\td1\t1\n", 2, "query-id", "unknown query id 'q9'"),
        ("q1\td1\t1\n\nq1\td1\t2\n", 3, None, "again (first on line 1)"),
        ("q1\td1\n", 1, None, "has 2 fields"),
    ],
)
def test_bad_qrels_name_line_and_field(tmp_path, qrels, line, field, problem):
    with pytest.raises(DataError, match="test.tsv") as caught:
        read_beir(_beir(tmp_path, qrels))
    assert (caught.value.line, caught.value.field) == (line, field)
    assert problem in caught.value.problem


@pytest.mark.parametrize(
    ("corpus", "line", "field"),
    [
        ([*CORPUS, {"_id": "d1", "text": "again"}], 4, "_id"),
        ([{"_id": "has space", "text": "x"}], 1, "_id"),
        ([{"_id": "d1", "title": "no text"}], 1, "text"),
    ],
)
def test_bad_corpus_rows_name_line_and_field(tmp_path, corpus, line, field):
    with pytest.raises(DataError, match="corpus.jsonl") as caught:
        read_beir(_beir(tmp_path, "q1\td1\t1\n", corpus))
    assert (caught.value.line, caught.value.field) == (line, field)
    assert caught.value.fix


def test_malformed_corpus_json_and_missing_split(tmp_path):
    folder = _beir(tmp_path)
    with pytest.raises(DataError, match=r"qrels/train.tsv: not found \(fix: choose --split from: test\)"):
        read_beir(folder, split="train")
    (folder / "corpus.jsonl").write_text('{"_id": "d1", "text": "ok"}\n{"_id": "d2", "te\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"corpus.jsonl:2: malformed JSON"):
        read_beir(folder)


@pytest.mark.skipif(not SCIFACT.is_dir(), reason="../shared/datasets/scifact is absent")
def test_scifact_counts(tmp_path):
    dataset = write_native(read_beir(SCIFACT), tmp_path / "scifact")
    assert len(dataset.documents) == 5183
    assert len(dataset.questions) == 300
    assert sum(len(q.judgements) for q in dataset.questions) == 339
    assert all(q.labelled and q.split == "test" for q in dataset.questions)
