"""Strategies on parsed files: a real DOCX (python-docx) read by parser=auto, its headings the sections that
expand=parent returns, and a window of its chunks; each returned unit is a span of the parsed text."""

from __future__ import annotations

import json

import pytest

from rag_bench.chunk.registry import CHUNKERS
from rag_bench.config.schema import Config
from rag_bench.data.dataset import DatasetConfig
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.parse.registry import PARSERS
from rag_bench.pipeline.run import run
from rag_bench.retrieve.diversity.registry import DIVERSIFIERS
from rag_bench.retrieve.expand.registry import EXPANDERS
from rag_bench.retrieve.registry import RETRIEVERS

docx = pytest.importorskip("docx")

PAIRING = ["Hold the pairing button for five seconds.", "The status light blinks blue while it pairs."]
ROLLBACK = ["Roll back with the previous firmware image.", "Reboot the gateway after the rollback ends."]
# what the Word reader makes of the file: Title and Heading 1 as '# ' headings, paragraphs apart
PARSED = "\n\n".join(["# Field guide", "# Pairing", *PAIRING, "# Rollback", *ROLLBACK])


def _dataset(tmp_path):
    folder = tmp_path / "ds"
    (folder / "docs").mkdir(parents=True)
    document = docx.Document()
    document.add_heading("Field guide", level=0)
    for heading, paragraphs in (("Pairing", PAIRING), ("Rollback", ROLLBACK)):
        document.add_heading(heading, level=1)
        for text in paragraphs:
            document.add_paragraph(text)
    document.save(str(folder / "docs" / "guide.docx"))
    rows = [
        {"id": "q1", "question": "How do I roll back the firmware image?",
         "evidence": [{"doc_id": "guide.docx", "text": ROLLBACK[0]}]},
        {"id": "q2", "question": "How long do I hold the pairing button?",
         "evidence": [{"doc_id": "guide.docx", "text": PAIRING[0]}]},
    ]  # fmt: skip
    (folder / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return folder


def _run(tmp_path, expand):
    return run(
        Config(
            dataset=DatasetConfig("guide", str(_dataset(tmp_path))),
            parser=PARSERS.settings("auto"),
            chunker=CHUNKERS.settings("fixed", size=50),
            embedder=EMBEDDERS.settings("fake"),
            retrieval=RETRIEVERS.settings("bm25", depth=20),
            expand=expand,
            diversity=DIVERSIFIERS.settings("none"),
            ks=[1, 3],
            report_k=1,
            cache_dir=str(tmp_path / "cache"),
            bootstrap=10,
        )
    )


def test_parent_returns_the_heading_section_of_a_parsed_docx(tmp_path):
    result = _run(tmp_path, EXPANDERS.settings("parent", level="section"))
    assert result.dataset.documents[0].text == PARSED  # the reader's output, headings included
    top = [result.chunks[row[0]] for row in result.ranked]
    rollback, pairing = PARSED.index("# Rollback"), PARSED.index("# Pairing")
    assert (top[0].doc_id, top[0].start, top[0].end) == ("guide.docx", rollback, len(PARSED))
    assert (top[1].start, top[1].end) == (pairing, rollback - 2)  # the section trimmed of the blank line
    assert top[0].text == PARSED[rollback:]
    # each section holds its evidence: a hit at 1 for both questions, on the unit returned, span-exact
    assert result.evaluation.summary["recall@1"].mean == 1.0
    assert result.stats.strategies["expand"]["chars@1 after"] == (len(PARSED) - rollback + rollback - 2 - pairing) / 2


def test_window_returns_neighbouring_chunks_of_a_parsed_docx_as_one_span(tmp_path):
    result = _run(tmp_path, EXPANDERS.settings("window", size=1))
    corpus = [c for c in result.chunks if c.doc_id == "guide.docx"][: len(result.stages["bm25"].chunks)]
    for row, q in zip(result.ranked, range(2), strict=True):
        unit = result.chunks[row[0]]
        assert unit.text == PARSED[unit.start : unit.end]  # a real span of the parsed document
        # the chunk the index ranked first, widened by one neighbour on each side (or the document's edge)
        hit = result.stages["bm25"].indices[q, 0]
        starts = [c.start for c in corpus]
        ends = [c.end for c in corpus]
        assert unit.start == starts[max(hit - 1, 0)] and unit.end == ends[min(hit + 1, len(corpus) - 1)]
