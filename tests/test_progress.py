"""Progress output: plain lines without a terminal, tqdm's bar on one, nothing when quiet or TQDM_DISABLE is set."""

import fcntl
import io
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import threading

import pytest

from rag_bench.core.progress import progress, quiet_while, track


def lines(stream: io.StringIO) -> list[str]:
    """The lines written, elapsed seconds cut off (", 0.0 s")."""
    text = stream.getvalue()
    assert "\r" not in text
    return [re.sub(r", \d+\.\d s$", "", line) for line in text.splitlines()]


@pytest.fixture(autouse=True)
def loud(monkeypatch):
    for name in ("RAG_BENCH_QUIET", "TQDM_DISABLE"):
        monkeypatch.delenv(name, raising=False)


def test_a_log_gets_a_line_at_each_quarter():
    out = io.StringIO()
    with progress(8, "embedding", "text", out) as bar:
        for _ in range(8):
            bar.update(1)
    assert lines(out) == [
        "embedding: 0/8 texts (0%)",
        "embedding: 2/8 texts (25%)",
        "embedding: 4/8 texts (50%)",
        "embedding: 6/8 texts (75%)",
        "embedding: 8/8 texts (100%)",
    ]


def test_a_jump_over_several_quarters_prints_one_line_and_an_early_end_prints_where_it_stopped():
    out = io.StringIO()
    with progress(8, "asking", "question", out) as bar:
        bar.update(5)  # 62 %: past 25 and 50 at once
        bar.update(1)  # 75 %
        bar.update(1)  # 87 %: no milestone
    assert lines(out) == [
        "asking: 0/8 questions (0%)",
        "asking: 5/8 questions (62%)",
        "asking: 6/8 questions (75%)",
        "asking: 7/8 questions (87%)",  # the loop ended short of 8: the last count is printed
    ]


def test_unknown_total_prints_start_and_end_and_notes_once_per_change():
    out = io.StringIO()
    with progress(None, "generating", "request", out) as bar:
        bar.update(2)
        bar.set_postfix_str("waiting")
        bar.set_postfix_str("waiting")
        bar.update(1)
    assert lines(out) == ["generating: 0 requests", "generating: waiting", "generating: 3 requests"]


def test_workers_reporting_from_threads_lose_no_count():
    out = io.StringIO()
    with progress(8000, "asking", "question", out) as bar:
        workers = [threading.Thread(target=lambda: [bar.update(1) for _ in range(1000)]) for _ in range(8)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    shown = lines(out)
    assert len(shown) == 5 and shown[-1] == "asking: 8000/8000 questions (100%)"


def test_track_reports_each_item_after_its_loop_body():
    out = io.StringIO()
    seen = [item for item in track(["a", "b", "c", "d"], "answering", "question", out)]
    assert seen == ["a", "b", "c", "d"]
    assert lines(out)[-1] == "answering: 4/4 questions (100%)"
    assert len(lines(out)) == 5


def test_nothing_to_do_prints_nothing():
    out = io.StringIO()
    with progress(0, "embedding", "text", out) as bar:
        bar.update(0)
    assert out.getvalue() == ""


@pytest.mark.parametrize("name", ["TQDM_DISABLE", "RAG_BENCH_QUIET"])
@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_environment_switches_silence_logs_and_terminals(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    out = io.StringIO()
    with progress(4, "embedding", "text", out) as bar:
        bar.update(4)
    primary, replica = terminal()
    with os.fdopen(replica, "w") as tty, progress(4, "embedding", "text", tty) as bar:
        bar.update(4)
    assert out.getvalue() == "" and read_all(primary) == ""


@pytest.mark.parametrize("value", ["0", "false", "no", "off", ""])
def test_a_false_environment_value_keeps_progress_on(monkeypatch, value):
    monkeypatch.setenv("TQDM_DISABLE", value)
    out = io.StringIO()
    with progress(1, "embedding", "text", out) as bar:
        bar.update(1)
    assert lines(out) == ["embedding: 0/1 texts (0%)", "embedding: 1/1 texts (100%)"]


def test_quiet_while_silences_only_its_block():
    out = io.StringIO()
    with quiet_while(True), progress(2, "quiet", "text", out) as bar:
        bar.update(2)
    with quiet_while(False), progress(1, "loud", "text", out) as bar:
        bar.update(1)
    assert lines(out) == ["loud: 0/1 texts (0%)", "loud: 1/1 texts (100%)"]


def test_a_terminal_gets_tqdms_bar_redrawn_in_place():
    primary, replica = terminal()
    with os.fdopen(replica, "w") as tty, progress(3, "embedding", "text", tty) as bar:
        for _ in range(3):
            bar.update(1)
    frames = read_all(primary)
    assert "\r" in frames and "embedding:" in frames and "| 0/3 [" in frames  # frames redrawn after \r
    assert "embedding: 0/3 texts (0%)" not in frames  # not the plain lines


def terminal(columns: int = 100) -> tuple[int, int]:
    """A pseudo-terminal ``(primary, replica)`` of 24 rows and ``columns`` columns, as a terminal window has."""
    primary, replica = pty.openpty()
    fcntl.ioctl(replica, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    return primary, replica


def test_a_terminal_without_a_width_gets_plain_lines_instead_of_an_invisible_bar():
    primary, replica = terminal(columns=0)  # tqdm would draw zero-width frames: nothing
    with os.fdopen(replica, "w") as tty, progress(2, "embedding", "text", tty) as bar:
        bar.update(2)
    frames = read_all(primary)
    assert [re.sub(r", \d+\.\d s$", "", line) for line in frames.splitlines()] == [
        "embedding: 0/2 texts (0%)",
        "embedding: 2/2 texts (100%)",
    ]


def read_all(fd: int) -> str:
    """Everything written to the pseudo-terminal so far (it is closed on the other side)."""
    chunks = []
    while select.select([fd], [], [], 0.2)[0]:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the other side is closed and drained
            break
        if not data:
            break
        chunks.append(data)
    os.close(fd)
    return b"".join(chunks).decode("utf-8", "replace")


def cli(tmp_path, *args: str, env: dict | None = None, stderr=subprocess.PIPE) -> subprocess.CompletedProcess:
    """A cold run (fresh cache) of the real command on annual-report with the fake embedder."""
    environment = {**os.environ, "RAG_BENCH_CACHE": str(tmp_path / "cache"), **(env or {})}
    for name in ("RAG_BENCH_QUIET", "TQDM_DISABLE"):
        if name not in (env or {}):
            environment.pop(name, None)
    command = [sys.executable, "-m", "rag_bench", "dataset=annual-report", "embedder=fake", "retrieval=dense"]
    return subprocess.run(
        [*command, f"hydra.run.dir={tmp_path / 'run'}", *args],
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env=environment,
        timeout=300,
    )


def test_a_run_logged_without_a_terminal_prints_plain_progress_lines(tmp_path):
    done = cli(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "\r" not in done.stderr
    shown = [re.sub(r", \d+\.\d s$", "", line) for line in done.stderr.splitlines() if line.startswith("embedding")]
    assert shown == [
        "embedding chunks: 0/61 texts (0%)",
        "embedding chunks: 61/61 texts (100%)",  # one commit of 64 texts: straight from 0 to 100 %
        "embedding questions: 0/40 texts (0%)",
        "embedding questions: 40/40 texts (100%)",
    ]


@pytest.mark.parametrize(
    ("args", "env"), [((), {"TQDM_DISABLE": "1"}), ((), {"RAG_BENCH_QUIET": "1"}), (("quiet=true",), {})]
)
def test_a_quiet_run_prints_no_progress(tmp_path, args, env):
    done = cli(tmp_path, *args, env=env)
    assert done.returncode == 0, done.stderr
    assert "embedding" not in done.stderr and "\r" not in done.stderr
    assert "annual-report: 40 questions scored" in done.stdout


def test_a_run_on_a_terminal_draws_a_bar(tmp_path):
    primary, replica = terminal()
    chunks: list[bytes] = []
    reader = threading.Thread(target=drain, args=(primary, chunks))  # a full terminal buffer would block the run
    reader.start()
    try:
        done = cli(tmp_path, stderr=replica)
    finally:
        os.close(replica)
        reader.join(timeout=30)
        os.close(primary)
    frames = b"".join(chunks).decode("utf-8", "replace")
    assert done.returncode == 0, frames
    assert "\r" in frames and "embedding chunks:" in frames and "| 0/61 [" in frames
    assert "embedding chunks: 0/61 texts (0%)" not in frames


def drain(fd: int, chunks: list[bytes]) -> None:
    """Read the pseudo-terminal until its other side is closed (EIO)."""
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            return
        if not data:
            return
        chunks.append(data)
