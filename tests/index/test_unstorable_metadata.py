"""Metadata a database cannot hold (a NUL character for pgvector's jsonb; a key Chroma refuses): the command runs
without it while no filter names it, and a filter on it stops with one line and exit 2, never a traceback."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from rag_bench.entry import cli

from .conftest import needs_chroma, needs_pg

pytestmark = pytest.mark.db

DOCS = [
    {"id": "a", "text": "The gateway reboots when the watchdog fires after a firmware update.", "metadata": {
        "acl": "eng", "note": "line\u0000two", "#tags": ["ops"], "$x": 1, "": "blank"}},
    {"id": "b", "text": "Payroll questions go to the people team by the end of the month.", "metadata": {
        "acl": "hr", "note": "plain", "#tags": ["hr"]}},
    {"id": "c", "text": "Modbus telemetry is sampled every ten seconds, kept a year.", "metadata": {"acl": "all"}},
]  # fmt: skip
ASKED = {"id": "q1", "question": "why does the gateway reboot", "evidence": [{"doc_id": "a", "start": 0, "end": 30}]}


def _dataset(folder: Path, flt: dict) -> Path:
    folder.mkdir()
    (folder / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    (folder / "questions.jsonl").write_text(json.dumps({**ASKED, "filter": flt}) + "\n", encoding="utf-8")
    return folder


def _run(folder: Path, run_dir: Path, cache: Path, index: str) -> tuple[int, str]:
    """``rag-bench`` on ``folder`` in this process: (exit code, stderr)."""
    argv = [f"dataset.path={folder}", "embedder=fake", "retrieval=dense", f"retrieval.index={index}"]
    argv += [f"hydra.run.dir={run_dir}", f"cache_dir={cache}"]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            cli.main(argv)
        except SystemExit as ended:
            return ended.code, err.getvalue()
    return 0, err.getvalue()


CASES = [
    pytest.param("pgvector", {"note": {"$nin": ["x"]}}, "on metadata field 'note' .*holds a NUL character",
                 id="pgvector-field", marks=needs_pg),
    pytest.param("pgvector", {"acl": {"$nin": ["x\u0000"]}}, r"with .*x\\u0000.*: it holds a NUL character",
                 id="pgvector-value", marks=needs_pg),
    pytest.param("chroma", {"#tags": "ops"}, "cannot filter on metadata field '#tags' .*Chroma refuses the key",
                 id="chroma", marks=needs_chroma),
]  # fmt: skip


@pytest.mark.parametrize(("index", "flt", "message"), CASES)
def test_a_field_the_database_cannot_hold_is_left_out_and_a_filter_on_it_stops(db_cache, tmp_path, index, flt, message):
    cache = db_cache if index == "pgvector" else tmp_path / "cache"
    code, stderr = _run(_dataset(tmp_path / "ok", {"acl": "eng"}), tmp_path / "ok-run", cache, index)
    assert code == 0, stderr
    assert json.loads((tmp_path / "ok-run" / "metrics.json").read_text())
    code, stderr = _run(_dataset(tmp_path / "bad", flt), tmp_path / "bad-run", cache, index)
    lines = [line for line in stderr.splitlines() if not line.startswith("embedding ")]  # progress lines
    assert code == 2 and len(lines) == 1, stderr
    assert lines[0].startswith(f"rag-bench: error: retrieval.index={index} cannot filter") and "Traceback" not in stderr
    assert re.search(message, lines[0]), lines[0]
