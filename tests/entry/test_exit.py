"""The process's end (``entry/cli.py`` ``exit_now``): the exit code, and what finalizing would have done, done."""

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import atexit, sys, tempfile, threading, time
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path
    from rag_bench.entry.cli import exit_now

    out = Path(sys.argv[1])
    pool = ThreadPoolExecutor(2)  # idle workers after their work: stopped by their exit hook, not waited for forever
    assert pool.submit(lambda: 2 + 2).result() == 4
    kept = tempfile.TemporaryDirectory()  # never cleaned up by hand: its finalizer runs at exit
    (out / "temporary").write_text(kept.name)
    atexit.register(lambda: (out / "atexit").write_text("ran"))
    worker = threading.Thread(target=lambda: (time.sleep(0.3), (out / "thread").write_text("finished")))
    worker.start()
    sys.stdout.write("buffered, unflushed")
    exit_now(int(sys.argv[2]))
    """
)


@pytest.mark.parametrize("code", [0, 2])
def test_exit_now_keeps_the_code_and_finishes_what_finalizing_would(tmp_path, code):
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path), str(code)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == code, done.stderr
    assert done.stdout == "buffered, unflushed" and done.stderr == ""
    assert (tmp_path / "atexit").read_text() == "ran"
    assert (tmp_path / "thread").read_text() == "finished"  # a running thread was waited for
    temporary = (tmp_path / "temporary").read_text()
    assert temporary and not __import__("os").path.exists(temporary)  # the temporary folder was removed


def test_the_command_exits_with_its_code_and_prints_everything(tmp_path, capsys, monkeypatch):
    from rag_bench.entry.cli import main

    monkeypatch.setenv("COLUMNS", "100")  # the page's width, here and in the command

    bad = subprocess.run(
        [sys.executable, "-m", "rag_bench", "chunker.size=-5", f"hydra.run.dir={tmp_path / 'run'}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 2 and bad.stderr.startswith("rag-bench: error: ") and "chunker.size" in bad.stderr
    page = subprocess.run([sys.executable, "-m", "rag_bench", "--help"], capture_output=True, text=True, timeout=60)
    main(["--help"])  # the same page in this process: the command printed all of it
    assert page.returncode == 0 and page.stdout == capsys.readouterr().out and len(page.stdout) > 1000


def test_a_profiled_run_ends_as_python_ends_so_the_profile_is_written(tmp_path):
    stats = tmp_path / "help.prof"
    done = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(stats), "-m", "rag_bench", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "rag-bench" in done.stdout
    assert stats.stat().st_size > 0  # cProfile writes it after the module returns; os._exit would skip that
