import csv
import json
from pathlib import Path

import pytest

from rag_bench.core.errors import DataError
from rag_bench.importers.chroma import read_chroma
from rag_bench.importers.common import write_native

CHROMA = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "chroma-chunking"
ALPHA = "Caf\u00e9 opens.\r\nIt sells tea, coffee and cake.\n"  # CRLF and a non-ASCII character kept as is
BETA = "# Notes\nNothing here.\n"


def _ref(text: str, excerpt: str) -> dict:
    start = text.index(excerpt)
    return {"content": excerpt, "start_index": start, "end_index": start + len(excerpt)}


def _chroma(tmp_path: Path, rows: list[list[str]], header=("question", "references", "corpus_id")) -> Path:
    folder = tmp_path / "chroma"
    (folder / "corpora").mkdir(parents=True)
    (folder / "corpora" / "alpha.md").write_bytes(ALPHA.encode("utf-8"))
    (folder / "corpora" / "beta.md").write_bytes(BETA.encode("utf-8"))
    with (folder / "questions.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return folder


def _row(question: str, refs: list[dict], corpus: str = "alpha") -> list[str]:
    return [question, json.dumps(refs), corpus]


def test_imports_questions_with_spans_by_offset(tmp_path):
    refs = [_ref(ALPHA, "opens."), _ref(ALPHA, "tea, coffee")]
    folder = _chroma(tmp_path, [_row("What does\nit sell?", refs), _row("Anything?", [], "beta")])
    dataset = write_native(read_chroma(folder), tmp_path / "out")
    assert [(d.id, d.text) for d in dataset.documents] == [("alpha", ALPHA), ("beta", BETA)]
    q1, q2 = dataset.questions
    assert (q1.id, q1.text, q1.category) == ("q1", "What does\nit sell?", "alpha")
    assert [(s.doc_id, s.start, s.end) for s in q1.spans] == [("alpha", 5, 11), ("alpha", 22, 33)]
    assert [ALPHA[s.start : s.end] for s in q1.spans] == ["opens.", "tea, coffee"]
    assert (q2.id, q2.category, q2.labelled) == ("q2", "beta", False)  # no references: unanswerable


def test_csv_file_with_separate_corpus_folder(tmp_path):
    folder = _chroma(tmp_path, [_row("Q?", [_ref(ALPHA, "cake")])])
    moved = tmp_path / "elsewhere"
    (folder / "corpora").rename(moved)
    imported = read_chroma(folder / "questions.csv", moved)
    assert imported.questions[0]["evidence"] == [{"doc_id": "alpha", "start": 38, "end": 42}]


@pytest.mark.parametrize(
    ("rows", "line", "field", "problem"),
    [
        # the first question spans lines 2-3, so the bad row is on line 4
        (
            [_row("a\nb", []), _row("Q?", [{"content": "opens.", "start_index": 4, "end_index": 10}])],
            4,
            "references[0]",
            "alpha.md[4:10] does not equal its content 'opens.'",
        ),
        ([_row("Q?", [], "gamma")], 2, "corpus_id", "unknown corpus 'gamma'"),
        ([["Q?", "[{not json", "alpha"]], 2, "references", "malformed JSON"),
        ([_row("Q?", [{"content": "x", "start_index": "1", "end_index": 2}])], 2, "references[0]", "integer"),
        ([["Q?", "[]"]], 2, None, "has 2 fields, the header 3"),
        ([_row("  ", [])], 2, "question", "is empty"),
    ],
)
def test_bad_rows_name_line_and_field(tmp_path, rows, line, field, problem):
    with pytest.raises(DataError, match="questions.csv") as caught:
        read_chroma(_chroma(tmp_path, rows))
    assert (caught.value.line, caught.value.field) == (line, field)
    assert problem in caught.value.problem


def test_missing_column_and_missing_corpus_folder(tmp_path):
    folder = _chroma(tmp_path, [["Q?", "[]"]], header=("question", "references"))
    with pytest.raises(DataError, match=r"questions.csv:1: corpus_id: header lacks column 'corpus_id'"):
        read_chroma(folder)
    with pytest.raises(DataError, match=r"nowhere: is not a folder"):
        read_chroma(folder, tmp_path / "nowhere")


@pytest.mark.skipif(not CHROMA.is_dir(), reason="../shared/datasets/chroma-chunking is absent")
def test_chroma_chunking_evaluation_counts(tmp_path):
    dataset = write_native(read_chroma(CHROMA), tmp_path / "chroma")
    assert sorted(d.id for d in dataset.documents) == [
        "chatlogs",
        "finance",
        "pubmed",
        "state_of_the_union",
        "wikitexts",
    ]
    assert [len(d.text) for d in dataset.documents] == [40000, 737905, 500000, 48051, 118372]
    assert len(dataset.questions) == 472
    assert sum(len(q.spans) for q in dataset.questions) == 790
