"""Numbers beyond what an array or a float holds: one line and exit 2, or the same result as a sane value."""

import json

import numpy as np
import pytest

from .conftest import rag_bench_cli, write_jsonl


def test_a_run_file_score_beyond_the_float_range_is_one_line_and_exit_2(tiny, tmp_path):
    big = int("1" * 400)  # json.dumps writes all 400 digits; float(big) raises OverflowError
    result = {"doc_id": "a.md", "start": 0, "end": 5, "score": big}
    path = write_jsonl(tmp_path / "run.jsonl", [{"question_id": "q1", "results": [result]}])
    assert json.dumps(big) in path.read_text()
    done = rag_bench_cli(
        f"dataset.path={tiny}", "embedder=fake", "retrieval=external", f"retrieval.run={path}", cache=tmp_path / "c"
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"rag-bench: error: {path}:1: results[0].score: must be a finite number, got an integer of 400 digits, "
        "beyond the float range (fix: send a number, or leave score out)"
    ]


@pytest.mark.parametrize("retrieval", ["bm25", "hybrid"])
def test_a_depth_beyond_the_corpus_gives_what_the_corpus_size_gives(tiny, run_with, retrieval):
    sane = run_with(f"dataset.path={tiny}", f"retrieval={retrieval}", "retrieval.depth=1000")
    # the largest depth a setting may take (core/limits.py), far beyond the corpus
    huge = run_with(f"dataset.path={tiny}", f"retrieval={retrieval}", "retrieval.depth=1000000000")
    n_chunks = len(sane.chunks)
    assert huge.ranked.shape[1] <= 2 * n_chunks  # capped at the corpus (hybrid: one list per index, fused)
    assert np.array_equal(huge.ranked, sane.ranked) and np.array_equal(huge.scores, sane.scores)
    assert {k: s.mean for k, s in huge.evaluation.summary.items()} == {
        k: s.mean for k, s in sane.evaluation.summary.items()
    }
