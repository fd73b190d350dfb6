"""A run folder is read back with the parser its run used: its chunk offsets index that parse's text.

``rag-bench diff``, the label app's run misses, ``check-generation`` and the sweep report's question texts read
the run's dataset again from config.yaml; with ``parser=pdfminer`` a PDF's text (and so every offset in
``per_question.csv``) differs from the default parser's.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from rag_bench.core.paths import project_folder
from rag_bench.data.native import load_dataset
from rag_bench.parse.registry import PARSERS
from rag_bench.parse.run import ParseRun
from rag_bench.run_folder.read import RunFolder, read_run

pytest.importorskip("pdfminer")


def test_a_run_is_read_back_with_its_parser(tmp_path):
    out = tmp_path / "run"
    args = ["dataset=tern-docs", "parser=pdfminer", "retrieval=bm25", f"hydra.run.dir={out}", f"cache_dir={tmp_path}"]
    done = subprocess.run([sys.executable, "-m", "rag_bench", *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    folder = project_folder("datasets") / "tern-docs"
    used = {d.id: d.text for d in load_dataset(folder, parse=ParseRun(PARSERS.settings("pdfminer"))).documents}
    default = {d.id: d.text for d in load_dataset(folder).documents}
    assert any(used[i] != default[i] for i in used)  # the two parsers read some PDF differently

    assert {d.id: d.text for d in RunFolder(out).dataset().documents} == used
    run = read_run(out)
    assert {d.id: d.text for d in run.dataset.documents} == used
    for chunks in run.ranked:
        for chunk in chunks:
            assert chunk.text == used[chunk.doc_id][chunk.start : chunk.end]


def test_reading_a_run_back_parses_no_file_again(tmp_path, monkeypatch):
    """The run's own cache folder serves the parses (keyed by bytes, parser and versions), and one RunFolder
    loads its dataset once: a sweep report or `rag-bench diff` over many runs does not re-parse every PDF."""
    out = tmp_path / "run"
    args = ["dataset=tern-docs", "parser=pdfminer", "retrieval=bm25", f"hydra.run.dir={out}", f"cache_dir={tmp_path}"]
    done = subprocess.run([sys.executable, "-m", "rag_bench", *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    runs: list[ParseRun] = []
    parse = RunFolder.parse
    monkeypatch.setattr(RunFolder, "parse", lambda self: runs.append(parse(self)) or runs[-1])

    folder = RunFolder(out)
    first = folder.dataset()
    assert folder.dataset() is first and len(runs) == 1  # loaded once
    assert runs[0].cache is not None and runs[0].cache.root == tmp_path
    assert runs[0].counts.parsed == 0 and runs[0].counts.cached == runs[0].counts.files > 0

    config = out / "config.yaml"
    config.write_text(config.read_text().replace(str(tmp_path), str(tmp_path / "gone")))
    again = RunFolder(out).dataset()  # the cache folder is gone: parsed without one, the same text
    assert runs[1].cache is None and runs[1].counts.parsed == runs[0].counts.files
    assert [d.text for d in again.documents] == [d.text for d in first.documents]
    assert not (tmp_path / "gone").exists()
