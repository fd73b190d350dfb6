"""The parse stage inside a run: its counts in the run's stats, a second run parses nothing, and the sweep
report ranks parsers by recall then survival."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from made_files import docx_file, pdf

from rag_bench.chunk.registry import CHUNKERS
from rag_bench.config.schema import Config
from rag_bench.core.workspace import Workspace
from rag_bench.data.dataset import DatasetConfig
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.parse.registry import PARSERS
from rag_bench.pipeline.run import run
from rag_bench.report.sweep.parsers import parser_blocks
from rag_bench.retrieve.registry import RETRIEVERS

PAGES = [["# Policy", "Rollback needs no approval when errors exceed five percent."], ["Refunds follow the"
         " first scan at a partner shop."]]  # fmt: skip


def _folder(tmp_path):
    folder = tmp_path / "ds"
    (folder / "docs").mkdir(parents=True)
    pdf(folder / "docs" / "policy.pdf", PAGES)
    docx_file(folder / "docs" / "leave.docx")
    rows = [
        {"id": "q1", "question": "When is rollback free?", "evidence": [{"doc_id": "policy.pdf",
         "text": "Rollback needs no approval when errors exceed five percent.", "page": 1}]},
        {"id": "q2", "question": "How many leave days?", "evidence": [{"doc_id": "leave.docx",
         "text": "Full-time staff have 27 days of annual leave."}]},
        {"id": "q3", "question": "What about refunds?", "evidence": [{"doc_id": "policy.pdf",
         "text": "Refunds follow the second scan"}]},
    ]  # fmt: skip
    (folder / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return folder


def _config(folder, tmp_path, parser="auto"):
    return Config(
        dataset=DatasetConfig("small", str(folder)),
        parser=PARSERS.settings(parser),
        chunker=CHUNKERS.settings("fixed", size=60),
        embedder=EMBEDDERS.settings("fake"),
        retrieval=RETRIEVERS.settings("bm25", depth=20),
        cache_dir=str(tmp_path / "cache"),
        bootstrap=10,
    )


def test_a_run_reports_its_parse_and_a_second_run_parses_no_file(tmp_path):
    folder = _folder(tmp_path)
    first = run(_config(folder, tmp_path))
    parse = first.stats.parse
    assert (parse["files_parsed"], parse["files_from_cache"], parse["pages"]) == (2, 0, 2)
    assert parse["repeated_lines_removed"] == 4  # the header and "Page N" on both pages
    assert (parse["evidence_located"], parse["evidence_lost"]) == (2, 1)
    lost = len("Refunds follow the second scan")
    located = len("Rollback needs no approval when errors exceed five percent.") + len(
        "Full-time staff have 27 days of annual leave."
    )
    assert parse["evidence_chars_kept"] == round(located / (located + lost), 6)
    table = first.evaluation.per_question.set_index("question_id")
    assert table.loc["q3", "survival"] == 0.0 and table.loc["q3", "recall@10"] == 0.0
    assert table.loc["q1", "survival"] == 1.0
    assert first.evaluation.summary["survival"].mean == 2 / 3
    second = run(_config(folder, tmp_path), Workspace.open(tmp_path / "cache"))  # another process, same cache
    assert (second.stats.parse["files_parsed"], second.stats.parse["files_from_cache"]) == (0, 2)
    np.testing.assert_array_equal(first.ranked, second.ranked)


def test_the_sweep_report_ranks_parsers_by_recall_then_survival():
    table = pd.DataFrame(
        {
            "point": ["0", "1", "2"],
            "parser": ["auto", "layout", "pdfminer"],
            "recall@10": [0.9, 0.9, 0.95],
            "survival": [0.8, 1.0, 0.7],
            "evidence_lost": [2.0, 0.0, 3.0],
            "files_parsed": [5.0, 1.0, 1.0],
            "files_from_cache": [0.0, 4.0, 4.0],
            "parse_seconds": [1.0, 0.5, 0.25],
            "repeated_lines_removed": [4.0, 4.0, 4.0],
            "near_duplicates": [0.0, 0.0, 0.0],
            "files_failed": [None, "docs/x.pdf: is empty (0 bytes)", None],
        }
    )
    blocks = parser_blocks(table, ["parser"])
    rows = blocks[2].items[1:]
    assert [r[1] for r in rows] == ["pdfminer", "layout", "auto"]
    assert rows[1] == ["#1", "layout", "0.900", "1.000", "0", "1", "4", "0.50", "4", "0"]
    assert blocks[3].items == ("files left out: #1: docs/x.pdf: is empty (0 bytes)",)
    assert parser_blocks(table, ["chunker.size"]) == []
