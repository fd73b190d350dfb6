"""Retriever details in a run's stats, and candidate lists cached before details existed."""

import json
import pickle
from dataclasses import replace

from rag_bench.report.run.outputs import write_run
from rag_bench.retrieve.base import RetrievalStats


def test_rag_bench_own_retrievers_are_named_and_report_no_details(tiny, tmp_path, run_with):
    hybrid = run_with(f"dataset.path={tiny}")
    assert hybrid.stats.retriever == "hybrid(bm25, dense)" and hybrid.stats.retrieval == {}
    bm25 = run_with(f"dataset.path={tiny}", "retrieval=bm25")
    assert bm25.stats.retriever == "bm25"
    assert hybrid.reusable and bm25.reusable  # every list through the candidate cache: may be served whole
    payload = write_run(bm25, tmp_path / "run")
    stats = json.loads((tmp_path / "run" / "metrics.json").read_text())["stats"]
    assert stats["retriever"] == payload["stats"]["retriever"] == "bm25" and stats["retrieval"] == {}


def test_stats_pickled_without_details_read_back():
    old = RetrievalStats(index_bytes=5)
    state = {k: v for k, v in vars(old).items() if k != "details"}  # as an entry written before the field
    revived = pickle.loads(pickle.dumps(old))
    object.__setattr__(revived, "__dict__", state)
    assert revived.details is None and replace(revived, reused=True).details is None
