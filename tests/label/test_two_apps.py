"""Two label apps (two real ``rag-bench label`` processes) on one questions.jsonl: no acknowledged save is lost."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from types import SimpleNamespace

WRITERS_PER_APP = 2
SAVES_PER_WRITER = 25


def start_app(dataset) -> tuple[subprocess.Popen, int]:
    """A ``rag-bench label`` process on a free port, and that port (read from the line it prints)."""
    command = [sys.executable, "-m", "rag_bench", "label", str(dataset), "--no-browser", "--port", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    said = []
    for line in process.stdout:
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if found:
            return process, int(found.group(1))
        said.append(line)
    stop(process)
    raise AssertionError(f"label app did not start: {''.join(said)}")


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    process.stdout.close()


def test_every_save_answered_201_by_either_app_is_in_the_file(dataset, client_for):
    apps = []
    try:
        apps = [start_app(dataset) for _ in range(2)]
        clients = [client_for(SimpleNamespace(server_address=("127.0.0.1", port))) for _, port in apps]
        answers: list[tuple[str, int]] = []  # (question id, status), in any order
        lock = threading.Lock()

        def hammer(client, tag: str) -> None:
            for i in range(SAVES_PER_WRITER):  # read the version, then save on it: races the other app
                qid = f"{tag}-{i:02d}"
                status, _, _ = client.write("POST", "/api/questions", {"id": qid, "question": f"Question {qid}?"})
                with lock:
                    answers.append((qid, status))

        writers = [threading.Thread(target=hammer, args=(clients[w % 2], f"w{w}")) for w in range(2 * WRITERS_PER_APP)]
        for writer in writers:
            writer.start()
        for writer in writers:
            writer.join()
    finally:
        for process, _ in apps:
            stop(process)
    lines = (dataset / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    in_file = [json.loads(line)["id"] for line in lines]
    saved = sorted(qid for qid, status in answers if status == 201)
    assert len(answers) == 2 * WRITERS_PER_APP * SAVES_PER_WRITER
    assert {status for _, status in answers} <= {201, 409}  # acknowledged, or refused as stale
    assert saved  # some saves went through
    # every acknowledged save is in the file, once, after the two questions it started with
    assert in_file[:2] == ["kb-001", "kb-002"]  # the dataset fixture's questions
    assert sorted(in_file[2:]) == saved
