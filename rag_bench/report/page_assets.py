"""The report pages' stylesheet and scripts (``report/assets/``, package data), inlined into each page, and a table."""

from __future__ import annotations

from functools import cache
from importlib.resources import files


@cache
def asset(name: str) -> str:
    """The text of ``rag_bench/report/assets/<name>``."""
    return files("rag_bench.report").joinpath("assets", name).read_text(encoding="utf-8")


def table_html(name: str, head: str, rows: list[str]) -> str:
    """A horizontally scrollable table with ``id=name``: ``head`` is the header row, ``rows`` the body rows."""
    return f'<div class="scroll" id="{name}"><table><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table></div>'
