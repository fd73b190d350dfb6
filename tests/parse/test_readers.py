"""Every reader on real files built in the test: text, structure (headings, tables, pages), and titles."""

from __future__ import annotations

import pytest
from made_files import HEADER, docx_file, html_file, pdf, pptx_file, xlsx_file

from rag_bench.parse.html_main import TRAFILATURA
from rag_bench.parse.html_markdown import MARKDOWNIFY
from rag_bench.parse.office import DOCX, PPTX, XLSX
from rag_bench.parse.pdf_layout import PDFPLUMBER
from rag_bench.parse.pdf_miner import PDFMINER
from rag_bench.parse.pdf_text import PYPDF

PDF_READERS = [PYPDF, PDFPLUMBER, PDFMINER]
LEFT = ["Left column one starts here", "and goes on below", "to its fourth line", "which ends the left."]
RIGHT = ["Right column text begins", "then continues further", "for four lines too", "and ends the right."]


def _read(reader, path):
    return reader.read(path.read_bytes(), path)


@pytest.mark.parametrize("reader", PDF_READERS, ids=lambda r: r.name)
def test_pdf_readers_give_one_text_per_page_with_the_header_and_footer(tmp_path, reader):
    path = pdf(tmp_path / "a.pdf", [["# Handbook", "First page body line."], ["Second page body line."]])
    parsed = _read(reader, path)
    assert parsed.paged and len(parsed.pages) == 2
    assert "First page body line." in parsed.pages[0] and "Second page body line." in parsed.pages[1]
    assert all(HEADER in page for page in parsed.pages)  # cleaning, not the reader, removes it
    assert "Page 2" in parsed.pages[1]


@pytest.mark.parametrize("reader", PDF_READERS, ids=lambda r: r.name)
def test_two_column_page_is_read_column_by_column_by_the_layout_readers(tmp_path, reader):
    path = pdf(tmp_path / "cols.pdf", [["# Report"]], two_columns=(LEFT, RIGHT))
    text = " ".join(_read(reader, path).pages[1].split())
    left, right = " ".join(LEFT), " ".join(RIGHT)  # pypdf: content-stream order, and this file draws left first
    assert left in text and right in text
    assert text.index(left) < text.index(right)


def test_layout_reader_keeps_tables_as_pipe_rows_and_big_type_as_a_heading(tmp_path):
    path = pdf(tmp_path / "t.pdf", [["# Limits", "Limits per account."]], table=[["Tier", "Limit"], ["Gold", "40"]])
    page = _read(PDFPLUMBER, path).pages[0]
    assert "# Limits" in page.splitlines()
    assert "| Tier | Limit |" in page and "| Gold | 40 |" in page


def test_word_headings_lists_and_tables(tmp_path):
    parsed = _read(DOCX, docx_file(tmp_path / "a.docx"))
    assert parsed.pages == (
        "# Leave policy\n\n# Annual leave\n\nFull-time staff have 27 days of annual leave.\n\n"
        "- Carry over five days at most.\n\n| Country | Days |\n|---|---|\n| NL | 27 |",
    )
    assert not parsed.paged


def test_powerpoint_slides_are_pages_with_their_titles_as_headings(tmp_path):
    parsed = _read(PPTX, pptx_file(tmp_path / "a.pptx"))
    assert parsed.paged
    assert parsed.pages == ("# Kickoff\n\nRotterdam, October", "# Targets\n\nContract value target: 3.1 million euros")


def test_excel_sheets_become_headed_pipe_tables(tmp_path):
    parsed = _read(XLSX, xlsx_file(tmp_path / "a.xlsx"))
    assert parsed.pages == (
        "## Budget\n\n| Department | Budget |\n|---|---|\n| Engineering | 9400 |\n| Sales | 3200 |",
    )


def test_trafilatura_keeps_the_article_and_drops_menu_cookies_and_footer(tmp_path):
    parsed = _read(TRAFILATURA, html_file(tmp_path / "a.html"))
    text = parsed.pages[0]
    assert "# Returns" in text and "## Refunds" in text
    assert "without printing a label" in text and "| Standard | 3.60 |" in text
    assert "Pricing" not in text and "cookies" not in text and "Privacy" not in text
    assert parsed.title == "Returns | Acme"


def test_markdownify_keeps_the_whole_page(tmp_path):
    text = _read(MARKDOWNIFY, html_file(tmp_path / "a.html")).pages[0]
    assert "# Returns" in text and "| Standard | 3.60 |" in text
    assert "Pricing" in text and "Accept all cookies" in text and "Privacy" in text


def test_html_in_a_declared_legacy_encoding_is_decoded_by_its_meta_charset(tmp_path):
    path = html_file(tmp_path / "a.html", charset="windows-1252")
    assert path.read_bytes().count("é".encode("windows-1252")) == 1  # really not UTF-8
    assert "Café partners included." in _read(TRAFILATURA, path).pages[0]
