"""The BM25 stage of a real run: its build and search steps are timed apart, and its lists are rank-bm25's."""

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from rag_bench.config.compose import compose
from rag_bench.config.schema import register, validate
from rag_bench.core.paths import project_folder
from rag_bench.index.bm25.analyzers import identifier_tokens
from rag_bench.index.topk import top_k_row
from rag_bench.pipeline.run import run

pytestmark = pytest.mark.usefixtures("indexing")  # every test on the numpy path and on the C loops


def bm25_run(tmp_path):
    register()
    overrides = ["dataset=annual-report", "embedder=fake", "retrieval=bm25", f"cache_dir={tmp_path}", "bootstrap=10"]
    return run(validate(compose(project_folder("configs"), overrides, "test")))


def test_build_and_search_are_timed_steps_of_the_bm25_stage(tmp_path):
    result = bm25_run(tmp_path)
    seconds = result.stats.seconds
    assert {"bm25", "bm25 build", "bm25 search"} <= set(seconds)
    assert seconds["bm25 build"] > 0 and seconds["bm25 search"] > 0
    assert seconds["bm25 build"] + seconds["bm25 search"] <= seconds["bm25"] + 1e-3  # steps inside the stage
    again = bm25_run(tmp_path)  # a new workspace on the same cache: the lists come from disk, no step ran
    assert again.stats.reused["bm25"] and "bm25 build" not in again.stats.seconds


def test_run_lists_are_rank_bm25s_on_the_analyzed_chunks(tmp_path):
    result = bm25_run(tmp_path)
    passages = [c.indexed_text for c in result.chunks]
    rank = BM25Okapi([identifier_tokens(p) for p in passages])
    depth = result.ranked.shape[1]
    for row, question in enumerate(result.dataset.questions[:10]):
        ref = rank.get_scores(identifier_tokens(question.text))
        want, want_scores = top_k_row(ref, depth, valid=ref != 0)  # score descending, then chunk order
        got = result.ranked[row][result.ranked[row] >= 0]
        assert got.tolist() == want.tolist()
        assert np.array_equal(result.scores[row][: len(got)], want_scores)
