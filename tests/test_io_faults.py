"""Write faults and damaged run folders through the real ``rag-bench`` command: one line, exit 2, nothing lost."""

import json
import os
import re
import shutil
import subprocess
import sys
import uuid

import pytest

FAST = ("embedder=fake", "dataset=annual-report")
# progress output: a bar's frame on a terminal (the bars clear themselves), else a plain line
# (rag_bench/core/progress.py)
PROGRESS = re.compile(r"^\s*[\w ]+:\s+\d+%\||^[\w ]+: \d+(/\d+ \w+ \(\d+%\)| \w+), \d+\.\d s$")


def rag_bench(*args, cache, patch=None):
    """``python -m rag_bench ARGS`` (with ``patch``, Python run first in the same process, e.g. a full disk)."""
    env = {**os.environ, "RAG_BENCH_CACHE": str(cache)}
    code = f"{patch}\nfrom rag_bench.entry.cli import main\nmain()" if patch else None
    command = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "rag_bench", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def one_line(done, starts: str) -> str:
    """The single stderr line of a run that must have stopped with exit 2."""
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip() and not PROGRESS.match(line)]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(starts), lines[0]
    return lines[0]


@pytest.fixture
def mounted(tmp_path):
    """Mount tmpfs folders (``mounted("ro")``, ``mounted("size=48k")``); unmounted afterwards; skipped where
    mount is not allowed (not root, or in a container without the capability)."""
    points = []

    def mount(options):
        point = tmp_path / f"mnt-{uuid.uuid4().hex[:6]}"
        point.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)], capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode().strip()})")
        points.append(point)
        return point

    yield mount
    for point in points:
        subprocess.run(["umount", str(point)], check=True)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """One finished run (fake embedder), copied by the tests that damage it."""
    root = tmp_path_factory.mktemp("faults")
    done = rag_bench(*FAST, f"hydra.run.dir={root / 'run'}", cache=root / "cache")
    assert done.returncode == 0, done.stderr
    return root / "run"


def test_cache_that_is_a_file(tmp_path):
    cache = tmp_path / "cache"
    cache.write_text("not a folder")
    line = one_line(rag_bench(*FAST, f"hydra.run.dir={tmp_path / 'run'}", cache=cache), "rag-bench: cannot write ")
    assert f"{cache}: File exists" in line
    assert "RAG_BENCH_CACHE" in line
    assert cache.read_text() == "not a folder"
    assert not (tmp_path / "run" / "metrics.json").exists()


def test_cache_on_a_read_only_filesystem(tmp_path, mounted):
    cache = mounted("ro")
    line = one_line(rag_bench(*FAST, f"hydra.run.dir={tmp_path / 'run'}", cache=cache), "rag-bench: cannot write ")
    assert f"{cache}: Read-only file system (fix: that filesystem is read-only" in line
    assert "RAG_BENCH_CACHE" in line


def test_run_dir_below_a_regular_file(tmp_path):
    (tmp_path / "plain").write_text("x")
    out = tmp_path / "plain" / "run"
    line = one_line(rag_bench(*FAST, f"hydra.run.dir={out}", cache=tmp_path / "cache"), "rag-bench: cannot write ")
    assert line.startswith(f"rag-bench: cannot write {out}: Not a directory (fix: ")
    assert "hydra.run.dir" in line


def test_run_dir_on_a_read_only_filesystem(tmp_path, mounted):
    out = mounted("ro") / "run"
    line = one_line(rag_bench(*FAST, f"hydra.run.dir={out}", cache=tmp_path / "cache"), "rag-bench: cannot write ")
    assert f"{out}: Read-only file system" in line


def test_full_disk_under_the_run_dir_keeps_the_earlier_run(tmp_path, run_dir):
    """ENOSPC from the shared writer while metrics.json is written: the earlier run's files stay whole."""
    out = tmp_path / "run"
    shutil.copytree(run_dir, out)
    earlier = (out / "per_question.csv").read_bytes()
    patch = (
        "import errno\nfrom rag_bench.core import files\nreal = files._fill\n"
        "def fill(tmp, write):\n"
        "    if 'metrics.json' in tmp.name:\n"
        "        raise OSError(errno.ENOSPC, 'No space left on device')\n"
        "    real(tmp, write)\n"
        "files._fill = fill"
    )
    done = rag_bench(*FAST, "chunker.size=300", f"hydra.run.dir={out}", cache=tmp_path / "cache", patch=patch)
    line = one_line(done, f"rag-bench: cannot write {out / 'metrics.json'}: No space left on device (fix: free space")
    assert "hydra.run.dir" in line
    assert not (out / "metrics.json").exists()  # the run is not marked finished ...
    assert (out / "per_question.csv").read_bytes() != earlier  # ... though its other files were replaced whole
    assert not [p for p in out.iterdir() if p.name.startswith(".tmp-")]


def test_real_full_disk_under_the_run_dir(tmp_path, mounted):
    out = mounted("size=48k") / "run"
    line = one_line(rag_bench(*FAST, f"hydra.run.dir={out}", cache=tmp_path / "cache"), "rag-bench: cannot write ")
    assert "No space left on device" in line
    assert not (out / "metrics.json").exists()


def test_a_sweep_point_that_cannot_be_written_leaves_the_finished_ones(tmp_path):
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    (sweep / "400").write_text("in the way")  # the second point's folder is a file
    done = rag_bench(
        "-m", *FAST, "chunker.size=200,400", f"hydra.sweep.dir={sweep}", "hydra.sweep.subdir=${chunker.size}",
        cache=tmp_path / "cache",
    )  # fmt: skip
    one_line(done, f"rag-bench: cannot write {sweep / '400'}: File exists (fix: ")
    finished = json.loads((sweep / "200" / "metrics.json").read_text())
    assert finished["config"]["chunker"]["size"] == 200
    assert (sweep / "400").read_text() == "in the way"


def test_contextualize_out_below_a_file_fails_before_work(tmp_path):
    (tmp_path / "plain").write_text("x")
    out = tmp_path / "plain" / "contexts.jsonl"
    done = rag_bench("contextualize", "dataset=annual-report", f"out={out}", cache=tmp_path / "cache")
    one_line(done, f"rag-bench: cannot write {out}: File exists (fix: ")
    assert not (tmp_path / "cache" / "chunks").exists()  # nothing was chunked or generated first


def test_gate_on_an_empty_per_question_csv(tmp_path, run_dir):
    current = tmp_path / "current"
    shutil.copytree(run_dir, current)
    (current / "per_question.csv").write_bytes(b"")
    done = rag_bench("gate", "--baseline", str(run_dir), "--current", str(current), cache=tmp_path / "cache")
    one_line(done, f"rag-bench: error: {current / 'per_question.csv'}: is empty (fix: rerun `rag-bench`")


def test_gate_on_a_per_question_csv_cut_short(tmp_path, run_dir):
    current = tmp_path / "current"
    shutil.copytree(run_dir, current)
    rows = (run_dir / "per_question.csv").read_bytes().splitlines(keepends=True)
    (current / "per_question.csv").write_bytes(b"".join(rows[:11]))  # header and 10 of 40 questions
    done = rag_bench("gate", "--baseline", str(run_dir), "--current", str(current), cache=tmp_path / "cache")
    one_line(
        done, f"rag-bench: error: {current / 'per_question.csv'}: holds 10 labelled rows but metrics.json scored 40"
    )


def test_gate_on_a_metrics_json_that_is_not_utf8(tmp_path, run_dir):
    current = tmp_path / "current"
    shutil.copytree(run_dir, current)
    (current / "metrics.json").write_bytes(b'{"dataset": "\xff"}')
    done = rag_bench("gate", "--baseline", str(run_dir), "--current", str(current), cache=tmp_path / "cache")
    one_line(done, f"rag-bench: error: {current / 'metrics.json'}: is not UTF-8 (byte 13) (fix: ")


def test_report_on_a_sweep_point_with_an_empty_per_question_csv(tmp_path):
    sweep = tmp_path / "sweep"
    done = rag_bench("-m", *FAST, "chunker.size=200,400", f"hydra.sweep.dir={sweep}", cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    (sweep / "1" / "per_question.csv").write_bytes(b"")
    line = one_line(rag_bench("report", str(sweep), cache=tmp_path / "cache"), "rag-bench: error: ")
    assert line.startswith(f"rag-bench: error: {sweep / '1' / 'per_question.csv'}: is empty (fix: ")
    assert "delete its metrics.json and rerun the sweep" in line


def test_given_chunker_without_chunks_jsonl_names_the_import(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "documents.jsonl").write_text('{"id": "a", "text": "Alpha text here."}\n')
    (data / "questions.jsonl").write_text('{"id": "q1", "question": "Alpha?", "judgements": {"a": 1}}\n')
    done = rag_bench("embedder=fake", f"dataset.path={data}", "chunker=given", cache=tmp_path / "cache")
    line = one_line(done, f"rag-bench: error: {data / 'chunks.jsonl'}: ")
    assert "rag-bench import prechunked" in line
    assert "chunks.jsonl" in line.partition("fix:")[2]
    assert "contextualize" not in line
