"""docs/python-api.md is executed: its Python blocks run in order in one namespace, and each ```text block
that follows one is the output that block must print."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "python-api.md"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```\n", re.DOTALL | re.MULTILINE)


def blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced block, in order."""
    return [(found.group(1), found.group(2)) for found in FENCE.finditer(text)]


def test_blocks_are_read_in_order():
    text = "a\n```python\nprint(1)\n```\n\n```text\n1\n```\nb\n```python\nx = 2\n```\n"
    assert blocks(text) == [("python", "print(1)\n"), ("text", "1\n"), ("python", "x = 2\n")]


@pytest.mark.slow
def test_the_worked_example_prints_what_the_page_shows(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_BENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("RAG_BENCH_QUIET", "1")
    monkeypatch.chdir(tmp_path)
    found = blocks(DOC.read_text(encoding="utf-8"))
    assert [lang for lang, _ in found].count("python") >= 5
    namespace: dict = {"__name__": "python_api_doc"}
    printed = None
    checked = 0
    for number, (lang, body) in enumerate(found):
        if lang == "python":
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(body, f"{DOC.name} block {number}", "exec"), namespace)
            printed = out.getvalue()
        elif lang == "text":
            assert printed is not None, f"block {number}: output shown before any code"
            assert printed.rstrip("\n") == body.rstrip("\n"), f"block {number}:\n{printed}"
            printed, checked = None, checked + 1
    assert checked >= 5
