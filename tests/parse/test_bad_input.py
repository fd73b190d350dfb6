"""Bad files: one DataError naming the file and what to do (the CLI prints it as one line, exit 2), or, with
failures=skip (a sweep), the file counted, named and its evidence lost."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from made_files import html_file, pdf, scanned_pdf

from rag_bench.core.errors import DataError
from rag_bench.data.native import load_dataset
from rag_bench.parse.pdf_layout import PDFPLUMBER
from rag_bench.parse.pdf_miner import PDFMINER
from rag_bench.parse.pdf_text import PYPDF
from rag_bench.parse.registry import PARSERS
from rag_bench.parse.run import ParseRun

PDF_READERS = [PYPDF, PDFPLUMBER, PDFMINER]


def _encrypted(tmp_path):
    from pypdf import PdfReader, PdfWriter

    plain = pdf(tmp_path / "plain.pdf", [["Secret text."]])
    writer = PdfWriter()
    for page in PdfReader(plain).pages:
        writer.add_page(page)
    writer.encrypt(user_password="pw", algorithm="RC4-128")
    path = tmp_path / "locked.pdf"
    with path.open("wb") as handle:
        writer.write(handle)
    return path


@pytest.mark.parametrize("reader", PDF_READERS, ids=lambda r: r.name)
def test_encrypted_pdf_names_the_file_and_how_to_decrypt(tmp_path, reader):
    path = _encrypted(tmp_path)
    with pytest.raises(DataError, match=r"locked\.pdf: is an encrypted PDF that needs a password \(fix: .*qpdf"):
        reader.read(path.read_bytes(), path)


@pytest.mark.parametrize("reader", PDF_READERS, ids=lambda r: r.name)
def test_corrupt_pdf_is_unreadable_not_a_crash(tmp_path, reader):
    data = pdf(tmp_path / "whole.pdf", [["Some text."]]).read_bytes()
    path = tmp_path / "cut.pdf"
    path.write_bytes(b"%PDF-1.4\n" + b"garbage " * 50)
    with pytest.raises(DataError, match=r"cut\.pdf: (cannot be read as a PDF|has no text layer)"):
        reader.read(path.read_bytes(), path)
    assert data  # the same file whole reads (the previous test family)


@pytest.mark.parametrize("reader", PDF_READERS, ids=lambda r: r.name)
def test_scanned_pdf_without_a_text_layer_says_to_run_ocr(tmp_path, reader):
    path = scanned_pdf(tmp_path / "scan.pdf")
    with pytest.raises(DataError, match=r"scan\.pdf: has no text layer .*ocrmypdf"):
        reader.read(path.read_bytes(), path)


def test_an_empty_page_inside_a_pdf_is_counted_not_an_error(tmp_path):
    folder = _dataset(
        tmp_path, [{"id": "q1", "question": "?", "evidence": [{"doc_id": "a.pdf", "text": "Third page"}]}]
    )
    pdf(folder / "docs" / "a.pdf", [["First page text."], [], ["Third page text."]], header=False)
    run = ParseRun(PARSERS.settings("auto"))
    dataset = load_dataset(folder, parse=run)
    assert (run.counts.pages, run.counts.empty_pages) == (3, 1)
    assert dataset.documents[0].pages == (0, 18, 20)  # "First page text." + "\n\n" + "" + "\n\n"
    assert dataset.questions[0].spans[0].start == 20 and dataset.documents[0].page_at(20) == 3


def test_html_that_is_not_utf8_and_declares_nothing_says_how_to_fix_it(tmp_path):
    path = html_file(tmp_path / "old.html", charset="windows-1252", declare=False)
    with pytest.raises(DataError, match=r"old\.html: is not UTF-8 \(byte 0xe9 at offset \d+\) and declares no charset"):
        PARSERS.build(PARSERS.settings("auto")).readers[".html"].read(path.read_bytes(), path)


def _dataset(tmp_path, questions):
    folder = tmp_path / "ds"
    (folder / "docs").mkdir(parents=True)
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    return folder


def test_zero_byte_file_stops_a_run_and_is_counted_and_its_evidence_lost_with_skip(tmp_path):
    question = {"id": "q1", "question": "?", "evidence": [{"doc_id": "empty.pdf", "text": "anything at all"}]}
    folder = _dataset(tmp_path, [question])
    (folder / "docs" / "empty.pdf").write_bytes(b"")
    (folder / "docs" / "a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"empty\.pdf: is empty \(0 bytes\) \(fix: remove it, or leave it out"):
        load_dataset(folder, parse=ParseRun(PARSERS.settings("auto", failures="stop")))
    run = ParseRun(PARSERS.settings("auto", failures="skip"))
    dataset = load_dataset(folder, parse=run)
    assert [d.id for d in dataset.documents] == ["a.md"]
    assert len(run.counts.failed) == 1 and "empty.pdf: is empty" in run.counts.failed[0]
    assert [x.text for x in dataset.questions[0].lost] == ["anything at all"]


def test_files_no_parser_reads_are_named_with_the_exclude_fix_never_skipped(tmp_path):
    folder = _dataset(tmp_path, [{"id": "q1", "question": "?", "evidence": [{"doc_id": "a.md", "text": "Text."}]}])
    (folder / "docs" / "a.md").write_text("Text.\n", encoding="utf-8")
    (folder / "docs" / "data.csv").write_text("a,b\n", encoding="utf-8")
    (folder / "docs" / "logo.png").write_bytes(b"\x89PNG")
    (folder / "docs" / ".DS_Store").write_bytes(b"\0")  # hidden files are not documents
    with pytest.raises(DataError) as caught:
        load_dataset(folder)
    assert str(caught.value) == (
        f"{folder / 'docs'}: 2 files (data.csv, logo.png): no parser reads .csv, .png files (fix: leave them out "
        "with parser.exclude=['*.csv','*.png'], or convert them to one of .md .txt .docx .htm .html .pdf .pptx .xlsx)"
    )
    dataset = load_dataset(folder, parse=ParseRun(PARSERS.settings("auto", exclude=["*.csv", "*.png"])))
    assert [d.id for d in dataset.documents] == ["a.md"]


@pytest.mark.slow
def test_the_cli_prints_one_line_and_exits_2_for_a_scanned_pdf(tmp_path):
    folder = _dataset(tmp_path, [{"id": "q1", "question": "?", "evidence": [{"doc_id": "a.md", "text": "Text."}]}])
    (folder / "docs" / "a.md").write_text("Text.\n", encoding="utf-8")
    scanned_pdf(folder / "docs" / "scan.pdf")
    done = subprocess.run(
        [sys.executable, "-m", "rag_bench", f"dataset.path={folder}", f"hydra.run.dir={tmp_path / 'run'}",
         f"cache_dir={tmp_path / 'cache'}", "quiet=true"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"rag-bench: error: {folder / 'docs' / 'scan.pdf'}: has no text")
