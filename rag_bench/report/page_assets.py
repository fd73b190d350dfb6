"""The report pages' stylesheet and scripts (``report/assets/``, package data), inlined into each page."""

from __future__ import annotations

from functools import cache
from importlib.resources import files


@cache
def asset(name: str) -> str:
    """The text of ``rag_bench/report/assets/<name>``."""
    return files("rag_bench.report").joinpath("assets", name).read_text(encoding="utf-8")
