"""Documents as blocks (heading, paragraph, list, table, image), rendered as Markdown and as one HTML page.

A document is built once as a list of blocks and rendered twice, so its Markdown and HTML say
the same thing. The HTML page is self-contained: inline CSS, images as data: URIs. Blocks hold plain
text: the HTML escapes it with ``html.escape``, the Markdown with ``rag_bench.core.markdown``.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from rag_bench.core import files
from rag_bench.core.markdown import md_destination, md_link, md_text


@dataclass(frozen=True)
class Link:
    """A table cell that links to another file (a point's own report.html)."""

    text: str
    href: str  # relative to the report


@dataclass(frozen=True)
class Block:
    """One piece of the report: kind is h1, h2, p, ul, table or img."""

    kind: str
    text: str = ""
    items: tuple = ()  # ul: lines; table: (header, *rows) of cells (str or Link); img: (path relative to the report,)
    bold_rows: frozenset[int] = frozenset()  # table rows (0 = first data row) shown in bold


def to_markdown(blocks: list[Block]) -> str:
    """The blocks as Markdown (tables as pipe tables, images as links to their files)."""
    out = []
    for block in blocks:
        if block.kind in ("h1", "h2"):
            out.append(f"{'#' * int(block.kind[1])} {md_text(block.text)}")
        elif block.kind == "p":
            out.append(md_text(block.text, starts_block=True))
        elif block.kind == "ul":
            out.append("\n".join(f"- {md_text(line, starts_block=True)}" for line in block.items))
        elif block.kind == "table":
            header, *rows = block.items
            lines = [_md_row([md_text(c) for c in header]), "|" + "---|" * len(header)]
            for i, row in enumerate(rows):
                cells = [_md_cell(c) for c in row]
                lines.append(_md_row([f"**{c}**" if c and i in block.bold_rows else c for c in cells]))
            out.append("\n".join(lines))
        elif block.kind == "img":
            out.append(f"### {md_text(block.text)}\n\n![{md_text(block.text)}]({md_destination(block.items[0])})")
    return "\n\n".join(out) + "\n"


def to_html(blocks: list[Block], out_dir: Path) -> str:
    """One self-contained page: inline CSS, plots as data: URIs."""
    body = []
    for block in blocks:
        if block.kind in ("h1", "h2", "p"):
            body.append(f"<{block.kind}>{html.escape(block.text)}</{block.kind}>")
        elif block.kind == "ul":
            body.append("<ul>" + "".join(f"<li>{html.escape(line)}</li>" for line in block.items) + "</ul>")
        elif block.kind == "table":
            header, *rows = block.items
            head = "".join(f"<th>{html.escape(c)}</th>" for c in header)
            cells = [
                f"<tr{' class=best' if i in block.bold_rows else ''}>"
                + "".join(f"<td>{_html_cell(c)}</td>" for c in row)
                + "</tr>"
                for i, row in enumerate(rows)
            ]
            table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(cells)}</tbody></table>"
            body.append(f"<div class=scroll>{table}</div>")
        elif block.kind == "img":
            data = base64.b64encode((out_dir / block.items[0]).read_bytes()).decode("ascii")
            body.append(
                f'<h3>{html.escape(block.text)}</h3><img alt="{html.escape(block.text)}" '
                f'src="data:image/png;base64,{data}">'
            )
    title = html.escape(blocks[0].text if blocks else "Sweep report")
    head = f"<head><meta charset=utf-8><title>{title}</title><style>{_CSS}</style></head>"
    return "<!doctype html>\n<html>" + head + "\n<body>\n" + "\n".join(body) + "\n</body></html>\n"


def write_documents(blocks: list[Block], out_dir: Path) -> list[Path]:
    """Write report.md and report.html into ``out_dir``."""
    md, page = out_dir / "report.md", out_dir / "report.html"
    write_text(md, to_markdown(blocks))
    write_text(page, to_html(blocks, out_dir))
    return [md, page]


def write_text(path: Path, text: str) -> None:
    """Write a UTF-8 text file atomically (a temporary file renamed over ``path``)."""
    write_atomic(path, lambda handle: handle.write(text.encode("utf-8")))


def write_atomic(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Create ``path`` whole or not at all (``rag_bench.core.files.write_atomic``); a new file gets the umask's mode."""
    files.write_atomic(path, write)


_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2em auto;padding:0 1em;max-width:1200px;color:#222}"
    "table{border-collapse:collapse;font-size:0.85em}th,td{border:1px solid #ccc;padding:3px 6px;text-align:right}"
    "td{white-space:nowrap}th{background:#f3f3f3;vertical-align:bottom}tr.best{font-weight:bold;background:#eef6ee}"
    ".scroll{overflow-x:auto;max-width:100%}a{color:#0645ad}"
    "img{max-width:100%;border:1px solid #eee;margin-bottom:1.5em}"
)


def _md_row(cells: list[str]) -> str:
    """One table row of cells already escaped."""
    return "| " + " | ".join(cells) + " |"


def _md_cell(cell: object) -> str:
    return md_link(cell.text, cell.href) if isinstance(cell, Link) else md_text(cell)


def _html_cell(cell: object) -> str:
    if isinstance(cell, Link):
        return f'<a href="{html.escape(cell.href)}">{html.escape(cell.text)}</a>'
    return html.escape(str(cell))
