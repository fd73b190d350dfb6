"""Malformed datasets through the real command line: one line on stderr, exit 2, no traceback, files untouched.

Each example starts from a valid two-document, three-question dataset, applies one to three
defects that each make it invalid (a value of the wrong kind, bytes that are not UTF-8, a lone
surrogate escape, NaN, a truncated line, a duplicate id, an unknown field), mixed with
harmless noise (CRLF line ends, a BOM, blank lines, odd Unicode in texts), and runs
``rag_bench.entry.cli.main`` in-process, the function behind ``python -m rag_bench``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag_bench.entry import cli

DOCS = [
    {"id": "a.md", "text": "# Guide\nThe KG-450 gateway ships firmware v2.1.\n\nSupport answers daily."},
    {"id": "b.txt", "text": "Invoices are monthly. Refunds take a week.", "title": "Billing"},
]


def base_questions(text: str) -> list[dict]:
    return [
        {"id": "q1", "question": f"Which firmware? {text}", "evidence": [{"doc_id": "a.md", "start": 8, "end": 47}]},
        {"id": "q2", "question": "How often?", "evidence": [{"doc_id": "b.txt", "text": "Invoices are monthly."}]},
        {"id": "q3", "question": "Relevant?", "judgements": {"a.md": 1, "b.txt": 0}, "category": "c"},
    ]


WRONG = st.sampled_from([True, False, 1.5, -3, [], {}, [1], {"x": 1}, "", "  "])
# (file, line index, JSON path, values that are invalid there)
FIELDS = [
    ("questions", 0, ("id",), st.sampled_from([True, 1.5, [], {}, "", "a b"])),
    ("questions", 1, ("question",), st.sampled_from(["", "  \t", 3, True, [], {}])),
    ("questions", 0, ("evidence",), st.sampled_from([{}, "a.md", 5, True])),
    ("questions", 0, ("evidence", 0, "end"), st.sampled_from([True, 47.0, "47", -1, 10**9, None, []])),
    ("questions", 0, ("evidence", 0, "start"), st.sampled_from([False, 8.5, "8", 99, -5, {}])),
    ("questions", 0, ("evidence", 0, "doc_id"), st.sampled_from(["nope.md", True, [], None, 1.0])),
    ("questions", 1, ("evidence", 0, "text"), st.sampled_from(["", "   ", "not in b", 7, "e"])),
    ("questions", 2, ("judgements", "a.md"), st.sampled_from([1.0, True, "1", None, 10**15, []])),
    ("questions", 2, ("judgements",), st.sampled_from([[], "a.md", 1, {"zzz": 1}])),
    ("questions", 2, ("category",), WRONG.filter(lambda v: not isinstance(v, str))),
    ("questions", 1, ("answer",), st.sampled_from([42, 1.5, True, ["x"], {"a": 1}])),
    ("questions", 1, ("split",), st.sampled_from([1, 2.5, False, []])),
    ("questions", 1, ("source",), st.sampled_from([1, [], {}])),
    ("questions", 1, ("flags",), st.sampled_from(["easy", [1], [None], {}])),
    ("documents", 0, ("text",), st.sampled_from([None, 5, True, [], {}])),
    ("documents", 1, ("id",), st.sampled_from([True, "", "a.md", "x y", 2.5])),
    ("documents", 1, ("title",), st.sampled_from([1, [], True])),
    ("documents", 0, ("metadata",), st.sampled_from(["m", 1, []])),
]
BAD_BYTES = st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\x80abc", b"\xe2\x82", b"\xf8\x88\x80\x80\x80"])
SURROGATES = st.integers(0xD800, 0xDFFF).map(lambda n: f"\\u{n:04x}")


@st.composite
def defect(draw):
    """One change that makes the dataset invalid: (kind, arguments)."""
    kind = draw(st.sampled_from(["field", "bytes", "surrogate", "nan", "truncate", "duplicate", "unknown"]))
    if kind == "field":
        name, line, path, values = draw(st.sampled_from(FIELDS))
        return kind, (name, line, path, draw(values))
    if kind == "bytes":
        return kind, (draw(st.sampled_from(["questions", "documents"])), draw(BAD_BYTES))
    if kind == "surrogate":
        return kind, (draw(st.sampled_from(["questions", "documents"])), draw(SURROGATES))
    if kind == "nan":
        return kind, draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999"]))
    if kind == "truncate":
        return kind, (draw(st.sampled_from(["questions", "documents"])), draw(st.integers(1, 60)))
    return kind, draw(st.sampled_from(["questions", "documents"]))


def set_path(row: dict, path: tuple, value) -> None:
    """Set ``row[path]``; skipped when an earlier defect removed the path (the row is invalid anyway)."""
    target = row
    try:
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    except (KeyError, IndexError, TypeError):
        pass


def render(rows: dict[str, list[dict]], defects: list, noise: dict) -> dict[str, bytes]:
    """The two files' bytes with the defects and the noise applied."""
    rows = json.loads(json.dumps(rows))
    for kind, args in defects:
        if kind == "field":
            name, line, path, value = args
            set_path(rows[name][line], path, value)
        elif kind == "unknown":
            rows[args][0]["evidance" if args == "questions" else "txt"] = []
        elif kind == "duplicate":
            rows[args].append(dict(rows[args][0]))
    raw = {name: [json.dumps(r, ensure_ascii=False).encode() for r in rows[name]] for name in rows}
    for kind, args in defects:
        if kind in ("bytes", "surrogate"):
            name, what = args
            key = b'"question": "' if name == "questions" else b'"text": "'
            line = raw[name][0]
            at = line.find(key)
            if at >= 0:  # absent when an earlier defect replaced the string
                at += len(key)
                # a letter after each: two escaped surrogates side by side would make a valid pair (\ud800\udc00)
                inserted = (what if isinstance(what, bytes) else what.encode()) + b"x"
                raw[name][0] = line[:at] + inserted + line[at:]
        elif kind == "nan":
            raw["questions"][2] = raw["questions"][2].replace(b'"a.md": 1', f'"a.md": {args}'.encode())
        elif kind == "truncate":
            name, cut = args
            # at least the opening brace stays: a second cut of the same line must not leave a blank (valid) line
            raw[name][-1] = raw[name][-1][: max(1, min(cut, len(raw[name][-1]) - 1))]
    end = b"\r\n" if noise["crlf"] else b"\n"
    files = {}
    for name, lines in raw.items():
        body = (end + (end if noise["blank"] else b"")).join(lines) + end
        files[name] = (b"\xef\xbb\xbf" if noise["bom"] else b"") + body
    return files


def run_cli(folder: Path, run_dir: Path) -> tuple[int, str]:
    """``rag_bench.entry.cli.main`` on the dataset: (exit code, stderr)."""
    err = io.StringIO()
    argv = [f"dataset.path={folder}", "embedder=fake", f"hydra.run.dir={run_dir}", f"cache_dir={run_dir / 'cache'}"]
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), pytest.raises(SystemExit) as info:
        cli.main(argv)
    return info.value.code, err.getvalue()


@pytest.mark.slow
@settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    defects=st.lists(defect(), min_size=1, max_size=3),
    text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=12),
    noise=st.fixed_dictionaries({"crlf": st.booleans(), "bom": st.booleans(), "blank": st.booleans()}),
)
def test_malformed_dataset_is_one_line_exit_2_and_untouched(defects, text, noise):
    rows = {"documents": DOCS, "questions": base_questions(text)}
    files = render(rows, defects, noise)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "data"
        folder.mkdir()
        for name, data in files.items():
            (folder / f"{name}.jsonl").write_bytes(data)
        code, stderr = run_cli(folder, Path(tmp) / "run")
        lines = stderr.splitlines()
        assert code == 2, stderr
        assert len(lines) == 1 and lines[0].startswith("rag-bench: error: "), stderr
        assert "Traceback" not in stderr
        assert str(folder) in lines[0]  # it names the file
        assert {p.name: p.read_bytes() for p in folder.iterdir()} == {f"{n}.jsonl": d for n, d in files.items()}


def test_the_noise_alone_is_harmless(tmp_path):
    """The control: CRLF, BOM and blank lines without a defect load and run (exit 0)."""
    files = render(
        {"documents": DOCS, "questions": base_questions("é \U0001f680")}, [], {"crlf": 1, "bom": 1, "blank": 1}
    )
    folder = tmp_path / "data"
    folder.mkdir()
    for name, data in files.items():
        (folder / f"{name}.jsonl").write_bytes(data)
    out = io.StringIO()
    argv = [f"dataset.path={folder}", "embedder=fake", f"hydra.run.dir={tmp_path / 'run'}", f"cache_dir={tmp_path}/c"]
    with contextlib.redirect_stdout(out):
        cli.main(argv)  # returns normally: no SystemExit
    assert "3 questions scored" in out.getvalue()


@pytest.mark.parametrize(
    ("questions", "expected"),
    [
        (
            b'{"id": "q1", "question": "caf\xe9?"}\n',
            "questions.jsonl:1: question: holds bytes that are not UTF-8 (0xe9)",
        ),
        (b'{"id": "q1", "question": "x \\udc00"}\n', "questions.jsonl:1: question: holds a lone surrogate \\udc00"),
        (
            b'{"id": "q1", "question": "?", "evidence": [{"doc_id": "b.txt", "start": 0, "end": true}]}\n',
            "questions.jsonl:1: evidence[0].end: must be an integer, got bool",
        ),
    ],
)
def test_the_installed_command_prints_one_line(tmp_path, questions, expected):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    (folder / "questions.jsonl").write_bytes(questions)
    env = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "rag_bench", f"dataset.path={folder}", "embedder=fake"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and expected in done.stderr and "fix:" in done.stderr
    assert (folder / "questions.jsonl").read_bytes() == questions
