import csv
import io
import json
import random
from types import SimpleNamespace

import numpy as np
import pyarrow as pa

from rag_bench.core.ties import trec_scores
from rag_bench.run_folder import write
from rag_bench.run_folder.id_lists import IdLists
from rag_bench.run_folder.write import trec_text

ODD_IDS = ["d1:0-80", 'say "hi":0-5', "a,b:1-2", "café:3-9", "back\\slash:0-1", "tab\there:0-2", "x"]


def _ranked(rng: np.random.Generator, rows: int, width: int, chunks: int) -> np.ndarray:
    """(rows, width) chunk indices with repeats, -1 padding at the end and in the middle, and empty rows."""
    ranked = rng.integers(0, chunks, (rows, width))
    ranked[rng.random((rows, width)) < 0.15] = -1
    ranked[::7] = -1
    return ranked


def _csv_field(text: str) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(["first", text])
    return out.getvalue()[len("first,") : -1]


def test_rows_texts_fields_and_arrow_lists_match_their_oracles():
    # oracles: the Python lists themselves, json.dumps of each list, the csv module writing that text, pa.array
    rng = np.random.default_rng(11)
    chunks = [SimpleNamespace(id=ODD_IDS[i % len(ODD_IDS)] + f"#{i}") for i in range(40)]
    ranked = _ranked(rng, 60, 9, len(chunks))
    lists = IdLists.of_ranked(chunks, ranked)
    expected = [[chunks[c].id for c in row if c >= 0] for row in ranked.tolist()]
    assert lists.lists() == expected and len(lists) == 60 and [] in expected
    assert lists.json_texts() == [json.dumps(row) for row in expected]
    assert lists.csv_fields() == [_csv_field(json.dumps(row)) for row in expected]
    assert lists.arrow().equals(pa.array(expected, type=pa.list_(pa.string())))
    assert len(lists.ids) == len(set(ranked[ranked >= 0].tolist()))  # each listed chunk's id made once


def test_cells_become_lists_only_when_every_cell_is_a_list_of_text():
    rng = random.Random(4)
    cells = [rng.sample(ODD_IDS, rng.randrange(0, 4)) for _ in range(30)]
    found = IdLists.of_cells(cells)
    assert found is not None and found.lists() == cells
    assert found.json_texts() == [json.dumps(cell) for cell in cells]
    for odd in (("a", "b"), None, ["x", None], [1], "text"):
        assert IdLists.of_cells([*cells, odd]) is None
    assert IdLists.of_cells([]).lists() == []


def _trec_oracle(result, tag: str = "rag-bench") -> str:
    """run.trec as rag-bench 2c03eb6 wrote it, one line at a time (trec_scores of each row's listed prefix)."""
    lines = []
    for question, row, scores in zip(result.dataset.questions, result.ranked, result.scores, strict=True):
        listed = [c for c in row.tolist() if c >= 0]
        for rank, (c, score) in enumerate(zip(listed, trec_scores(scores[: len(listed)]), strict=True), start=1):
            lines.append(f"{question.id} Q0 {result.chunks[c].id} {rank} {score!r} {tag}\n")
    return "".join(lines)


def test_trec_text_is_the_file_written_line_by_line(monkeypatch):
    rng = np.random.default_rng(5)
    chunks = [SimpleNamespace(id=f"doc{i % 9}:{i}-{i + 50}") for i in range(30)]
    ranked = _ranked(rng, 25, 12, len(chunks))
    scores = np.sort(rng.normal(size=ranked.shape), axis=1)[:, ::-1].astype(np.float32)
    scores[:, 3:6] = scores[:, 3:4]  # ties, written strictly decreasing
    scores[2] = 0.0
    questions = [SimpleNamespace(id=f"q{i}") for i in range(len(ranked))]
    result = SimpleNamespace(chunks=chunks, ranked=ranked, scores=scores, dataset=SimpleNamespace(questions=questions))
    text = trec_text(result)
    assert text == _trec_oracle(result)
    monkeypatch.setattr(write, "TREC_ROWS", 4)  # in pieces of a few questions, as at 10,000 questions
    assert trec_text(result) == text
    assert text.count("\n") == int((ranked >= 0).sum()) > 200
    empty = SimpleNamespace(chunks=chunks, ranked=ranked[:0], scores=scores[:0], dataset=SimpleNamespace(questions=[]))
    assert trec_text(empty) == ""
