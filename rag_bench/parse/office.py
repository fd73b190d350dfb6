"""Office files as structured text: Word with python-docx, PowerPoint with python-pptx, Excel with openpyxl (all MIT).

Word: body paragraphs and tables in document order; ``Title`` and ``Heading N`` styles become ``#``
headings, list styles ``- `` items, tables pipe rows. PowerPoint: one page per slide, its title a
``#`` heading, then each shape's text and tables. Excel: one ``##`` heading per sheet and its used
rows as a pipe table (values, not formulas).
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

from rag_bench.core.errors import DataError
from rag_bench.parse.base import Parsed, Reader, table_rows, unreadable

_HEADING = re.compile(r"^Heading (\d)$")
_BAD = (zipfile.BadZipFile, KeyError, ValueError, TypeError, AttributeError, OSError)


def _empty(path: Path, kind: str) -> DataError:
    return DataError(path, f"holds no text ({kind})", fix="check the file, or leave it out with parser.exclude=[...]")


def read_docx(data: bytes, path: Path) -> Parsed:
    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table

    try:
        document = docx.Document(io.BytesIO(data))
        names = _StyleNames(document)
        blocks = []
        for item in document.iter_inner_content():
            if isinstance(item, Table):
                blocks.append(table_rows([[cell.text for cell in row.cells] for row in item.rows]))
            else:
                blocks.append(_paragraph(item.text, names[item._p.style]))
        title = document.core_properties.title or None
    except (PackageNotFoundError, *_BAD) as exc:
        raise unreadable(path, "a Word document (.docx)", exc) from None
    text = "\n\n".join(b for b in blocks if b.strip())
    if not text:
        raise _empty(path, "a Word document without paragraphs")
    return Parsed(pages=(text,), paged=False, title=title)


class _StyleNames(dict):
    """Style id -> the style's name (as ``document.styles`` names it), made on first use: a document defines
    hundreds of styles and its paragraphs use a few, and naming them all took longer than reading the file."""

    def __init__(self, document) -> None:
        super().__init__()
        self.elements = {e.styleId: e for e in document.styles.element.style_lst}  # the last of a repeated id

    def __missing__(self, style_id: str | None) -> str:
        from docx.styles.style import StyleFactory

        element = self.elements.get(style_id)
        self[style_id] = name = (StyleFactory(element).name or "") if element is not None else ""
        return name


def _paragraph(text: str, style: str) -> str:
    text = text.strip()
    if not text:
        return ""
    heading = _HEADING.match(style)
    if style == "Title":
        return f"# {text}"
    if heading:
        return f"{'#' * min(int(heading.group(1)), 6)} {text}"
    if style.startswith("List"):
        return f"- {text}"
    return text


def read_pptx(data: bytes, path: Path) -> Parsed:
    import pptx
    from pptx.exc import PackageNotFoundError

    try:
        deck = pptx.Presentation(io.BytesIO(data))
        pages = tuple(_slide(slide) for slide in deck.slides)
        title = deck.core_properties.title or None
    except (PackageNotFoundError, *_BAD) as exc:
        raise unreadable(path, "a PowerPoint deck (.pptx)", exc) from None
    if not any(p.strip() for p in pages):
        raise _empty(path, "a deck without slide text")
    return Parsed(pages=pages, paged=True, title=title)


def _slide(slide) -> str:
    title_shape = slide.shapes.title
    blocks = (
        [f"# {title_shape.text_frame.text.strip()}"] if title_shape is not None and title_shape.has_text_frame else []
    )
    for shape in slide.shapes:
        if title_shape is not None and shape.shape_id == title_shape.shape_id:
            continue
        if shape.has_table:
            blocks.append(table_rows([[cell.text for cell in row.cells] for row in shape.table.rows]))
        elif shape.has_text_frame:
            lines = [p.text.strip() for p in shape.text_frame.paragraphs]
            blocks.append("\n".join(line for line in lines if line))
    return "\n\n".join(b for b in blocks if b.strip())


def read_xlsx(data: bytes, path: Path) -> Parsed:
    import openpyxl

    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        blocks = []
        for sheet in book.worksheets:
            rows = [list(row) for row in sheet.iter_rows(values_only=True)]
            table = table_rows(rows)
            if table:
                blocks.append(f"## {sheet.title}\n\n{table}")
        title = book.properties.title or None
        book.close()
    except _BAD as exc:
        raise unreadable(path, "an Excel workbook (.xlsx)", exc) from None
    if not blocks:
        raise _empty(path, "a workbook without values")
    return Parsed(pages=("\n\n".join(blocks),), paged=False, title=title)


DOCX = Reader("python-docx", read_docx, ("python-docx",), ("docx",))
PPTX = Reader("python-pptx", read_pptx, ("python-pptx",), ("pptx",))
XLSX = Reader("openpyxl", read_xlsx, ("openpyxl",), ("openpyxl",))
