"""The console summary: what a warm run says it did, and the notes on numbers not to take at face value."""

from rag_bench.report.run.console import console_table, notes, work_done


def payload(**stats):
    base = {"chunks": 10, "embedded": 0, "cache_hits": 0, "reused": {"chunks": True, "bm25": True, "dense": True}}
    return {
        "dataset": "tiny",
        "n_questions": 3,
        "n_unlabelled": 1,
        "metrics": {"recall@10": 0.5},
        "ci95": {"recall@10": [0.25, 0.75]},
        "stats": {**base, **stats},
    }


def test_a_run_served_wholly_from_the_cache_says_so_not_zero_vectors():
    assert work_done(payload()["stats"]) == "nothing embedded: chunks, bm25, dense reused from the cache"
    cold = payload(embedded=12, cache_hits=0, reused={"chunks": False, "bm25": False, "dense": False})["stats"]
    assert work_done(cold) == "12 texts embedded, 0 vectors from cache"
    part = payload(embedded=2, cache_hits=10, reused={"chunks": True, "bm25": True, "dense": False})["stats"]
    assert work_done(part) == "2 texts embedded, 10 vectors from cache, reused from cache: chunks, bm25"


def test_truncated_chunks_and_shortfalls_are_printed():
    run = {**payload(truncated=2), "shortfall": {"documents@10": 4}}
    assert notes(run) == [
        "note: 2 chunks (20% of 10) are longer than the embedder's input and were embedded truncated (fix: measure "
        "chunks in the embedder's tokens, chunker.unit=tokens, so none is cut)",
        "note: 4 questions have fewer than 10 distinct documents among their candidates, so metrics at 10 count "
        "only those (raise retrieval.depth to reach it)",
    ]
    table = console_table(run).splitlines()
    assert (
        table[0] == "tiny: 3 questions scored (1 without labels excluded), 10 chunks, nothing embedded: chunks, "
        "bm25, dense reused from the cache"
    )
    assert table[1].startswith("note: 2 chunks") and table[-1] == "recall@10      0.500  [0.250, 0.750]"
    assert notes(payload()) == []


def test_a_sweep_point_is_one_line_and_the_summary_is_the_reports_table_as_text():
    from rag_bench.report.run.console import point_line

    line = point_line(3, {**payload(truncated=2), "metrics": {"recall@10": 0.5, "ndcg@10": 0.25}}, "/tmp/s/3")
    assert line == (
        "point 3: recall@10 0.500, ndcg@10 0.250; nothing embedded: chunks, bm25, dense reused from the cache; "
        "2 chunks embedded truncated (chunker.unit=tokens) -> /tmp/s/3"
    )
