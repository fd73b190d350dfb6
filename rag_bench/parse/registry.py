"""Parsers by config name (``parser=auto|layout|pdfminer|markdown``): which reader each file type gets.

Every parser reads ``.md`` and ``.txt`` files as stored (their offsets are labels' offsets) and the
other types with the readers below; they share their settings (``parse/settings.py``). Adding a parser:
a settings class here (or in its own module), one entry in ``PARSERS``, and ``configs/parser/<name>.yaml``.

  auto      PDF pypdf (text layer), HTML trafilatura (main content), DOCX/PPTX/XLSX python-docx/-pptx/openpyxl
  layout    as auto, PDF with pdfplumber (columns, tables as pipe rows, headings by font size)
  pdfminer  as auto, PDF with pdfminer.six (layout analysis into text boxes)
  markdown  as layout, HTML with markdownify (the whole page as Markdown, boilerplate and inline markup kept)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rag_bench.core.options import Option, Options
from rag_bench.parse.base import Reader
from rag_bench.parse.html_main import TRAFILATURA
from rag_bench.parse.html_markdown import MARKDOWNIFY
from rag_bench.parse.office import DOCX, PPTX, XLSX
from rag_bench.parse.pdf_layout import PDFPLUMBER
from rag_bench.parse.pdf_miner import PDFMINER
from rag_bench.parse.pdf_text import PYPDF
from rag_bench.parse.settings import ParserConfig

VERBATIM = (".md", ".txt")  # read as stored by every parser (rag_bench/data/native.py)
_OFFICE = {".docx": DOCX, ".pptx": PPTX, ".xlsx": XLSX}
AUTO = {".pdf": PYPDF, ".html": TRAFILATURA, ".htm": TRAFILATURA, **_OFFICE}


@dataclass(frozen=True)
class Parser:
    """A built parser: its name and the reader of each file suffix (lower case, with the dot)."""

    name: str
    readers: Mapping[str, Reader]


@dataclass
class AutoConfig(ParserConfig):
    name: str = "auto"


@dataclass
class LayoutConfig(ParserConfig):
    name: str = "layout"


@dataclass
class PdfminerConfig(ParserConfig):
    name: str = "pdfminer"


@dataclass
class MarkdownConfig(ParserConfig):
    name: str = "markdown"


def _parser(readers: Mapping[str, Reader]):
    return lambda cfg: Parser(cfg.name, dict(readers))


PARSERS = Options(
    "parser",
    default="auto",
    options={
        "auto": Option(AutoConfig, _parser(AUTO)),
        "layout": Option(LayoutConfig, _parser({**AUTO, ".pdf": PDFPLUMBER})),
        "pdfminer": Option(PdfminerConfig, _parser({**AUTO, ".pdf": PDFMINER})),
        "markdown": Option(
            MarkdownConfig, _parser({**AUTO, ".pdf": PDFPLUMBER, ".html": MARKDOWNIFY, ".htm": MARKDOWNIFY})
        ),
    },
)

# every type some parser reads, and its reader in the default parser (for messages about missing libraries)
KNOWN: Mapping[str, Reader] = AUTO
