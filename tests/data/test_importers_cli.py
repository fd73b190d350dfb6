import json
from pathlib import Path

import pytest

from rag_bench.core.errors import DataError
from rag_bench.data.native import load_dataset
from rag_bench.entry import cli
from rag_bench.importers.cli import main


def _beir(tmp_path: Path) -> Path:
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text(json.dumps({"_id": "d1", "title": "T", "text": "x"}) + "\n")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "y"}) + "\n")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    return folder


def test_import_writes_a_loadable_dataset_and_says_so(tmp_path, capsys):
    dest = tmp_path / "out"
    assert main(["beir", str(_beir(tmp_path)), str(dest)]) == 0
    out = capsys.readouterr().out
    assert f"imported beir: 1 documents, 1 questions (1 labelled; 0 evidence spans, 1 judgements) -> {dest}" in out
    assert dict(load_dataset(dest).questions[0].judgements) == {"d1": 1}


def test_refuses_to_overwrite_without_force(tmp_path):
    source, dest = _beir(tmp_path), tmp_path / "out"
    main(["beir", str(source), str(dest)])
    with pytest.raises(DataError, match="already holds documents.jsonl"):
        main(["beir", str(source), str(dest)])
    assert main(["beir", str(source), str(dest), "--force"]) == 0


def test_prechunked_and_trec_options(tmp_path):
    src = tmp_path / "pre"
    src.mkdir()
    (src / "chunks.jsonl").write_text(
        '{"id": "a", "doc_id": "d", "text": "A"}\n{"id": "b", "doc_id": "d", "text": "B"}\n'
    )
    (src / "qs.jsonl").write_text('{"id": "q", "question": "?", "chunk_ids": ["b"]}\n')
    dest = tmp_path / "out"
    main(["prechunked", str(src), str(dest), "--questions", str(src / "qs.jsonl"), "--separator", "\\t"])
    assert load_dataset(dest).documents[0].text == "A\tB"
    (tmp_path / "qrels").write_text("q 0 d 2\n")
    assert main(["trec", str(tmp_path / "qrels"), str(dest), "--dataset", str(dest), "--force"]) == 0
    assert dict(load_dataset(dest).questions[0].judgements) == {"d": 2}


def test_rag_bench_import_reports_errors_in_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["import", "squad", str(tmp_path / "missing.json"), str(tmp_path / "out")])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == (
        f"rag-bench: error: {tmp_path / 'missing.json'}: cannot be read (No such file or directory) "
        "(fix: check the path)\n"
    )


def test_unknown_format_is_a_usage_error(tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        main(["csv", str(tmp_path), str(tmp_path / "out")])
    assert exit_info.value.code == 2
