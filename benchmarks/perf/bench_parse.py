"""Speed goals of the parse stage, on the tern-docs files (PDF, HTML, Word, PowerPoint, Excel).

1. Overhead: rag-bench's parse stage (``parse_files``: file reading, the zero-byte check, the reader with
   its error handling, page joining, repeated-line cleaning, documents) without a cache, against each file's
   library called directly on the same bytes (pypdf / pdfplumber page text, trafilatura.extract with the
   same options, pdfplumber's table finder, each table's cells and the word boxes, which the layout reader
   calls, python-docx / python-pptx / openpyxl walks). Best of 15, interleaved, per parser. Goal: at most 1.1x.
2. Reuse: a parser sweep through one disk cache parses each file once per reader; running it again parses
   none (goal: 0 files parsed on the second run).
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from common import Check, interleaved, report

from rag_bench.core.cache import DiskCache
from rag_bench.data.bundled import dataset_folder
from rag_bench.parse.registry import PARSERS, VERBATIM
from rag_bench.parse.run import ParseRun, parse_files

GOAL = 1.1
PARSERS_MEASURED = ("auto", "layout", "pdfminer", "markdown")


def direct(path: Path, data: bytes, reader: str) -> str:
    """The library alone on one file: what a user's own conversion script would call."""
    if reader == "pypdf":
        from pypdf import PdfReader

        return "\n\n".join(p.extract_text() or "" for p in PdfReader(io.BytesIO(data)).pages)
    if reader == "pdfplumber":  # the library calls the layout reader makes: tables and their cells, words with size
        import pdfplumber

        with pdfplumber.open(io.BytesIO(data)) as pdf:
            return "\n\n".join(
                str([t.extract() for t in p.find_tables()])
                + " ".join(w["text"] for w in p.extract_words(extra_attrs=["size"]))
                for p in pdf.pages
            )
    if reader == "pdfminer":
        from pdfminer.high_level import extract_text

        return extract_text(io.BytesIO(data))
    if reader == "trafilatura":
        import trafilatura

        return trafilatura.extract(
            data.decode("utf-8", errors="replace"), output_format="markdown", include_tables=True,
            include_formatting=True, include_links=False, include_comments=False, include_images=False,
            favor_recall=True, deduplicate=False,
        )  # fmt: skip
    if reader == "markdownify":
        from bs4 import BeautifulSoup
        from markdownify import markdownify

        return markdownify(str(BeautifulSoup(data, "lxml").body), heading_style="ATX")
    if reader == "python-docx":  # paragraphs with their style, and tables, in document order
        import docx
        from docx.table import Table

        document = docx.Document(io.BytesIO(data))
        return "\n\n".join(
            " ".join(c.text for row in item.rows for c in row.cells) if isinstance(item, Table)
            else f"{item._p.style} {item.text}"
            for item in document.iter_inner_content()
        )  # fmt: skip
    if reader == "python-pptx":  # each slide's shapes: text frames and tables
        import pptx

        deck = pptx.Presentation(io.BytesIO(data))
        return "\n\n".join(
            " ".join(c.text for row in s.table.rows for c in row.cells) if s.has_table else s.text_frame.text
            for slide in deck.slides
            for s in slide.shapes
            if s.has_table or s.has_text_frame
        )
    if reader == "openpyxl":
        import openpyxl

        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        return "\n".join(str(row) for sheet in book.worksheets for row in sheet.iter_rows(values_only=True))
    raise ValueError(reader)


def main() -> None:
    docs = dataset_folder("tern-docs", None) / "docs"
    paths = sorted(p for p in docs.rglob("*") if p.is_file() and p.suffix not in VERBATIM)
    details, checks = [f"{len(paths)} files under {docs}"], []
    for name in PARSERS_MEASURED:
        settings = PARSERS.settings(name)
        readers = PARSERS.build(settings).readers
        files = [(p, p.read_bytes(), readers[p.suffix].name) for p in paths]

        def stage(settings=settings):
            parse_files(docs, paths, ParseRun(settings))

        def library(files=files):
            for path, data, reader in [(p, p.read_bytes(), r) for p, _, r in files]:
                direct(path, data, reader)

        seconds = interleaved({"library": library, "stage": stage}, repeats=15)
        ratio = seconds["stage"] / seconds["library"]
        details.append(f"parser={name}: stage {seconds['stage']:.3f} s, libraries {seconds['library']:.3f} s")
        checks.append(Check("parse overhead", f"parser={name} stage / libraries", ratio, "<=", GOAL))
    with tempfile.TemporaryDirectory() as tmp:
        cache = DiskCache(Path(tmp) / "cache")
        for sweep in (1, 2):
            parsed = 0
            for name in PARSERS_MEASURED:
                run = ParseRun(PARSERS.settings(name), cache)
                parse_files(docs, paths, run)
                parsed += run.counts.parsed
            details.append(f"sweep run {sweep} over parser={','.join(PARSERS_MEASURED)}: {parsed} files parsed")
        checks.append(Check("parse reuse", "files parsed by a second parser sweep", float(parsed), "<=", 0.0))
    report("parse stage: overhead against the libraries, reuse across a sweep", checks, details)


if __name__ == "__main__":
    main()
