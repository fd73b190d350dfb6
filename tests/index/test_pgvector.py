"""pgvector on the embedded server: exact equals in-memory exact, HNSW recall rises with ef_search, builds are reused,
filters never leak under pre, and a user's DSN works the same."""

from __future__ import annotations

import numpy as np
import pytest

from rag_bench.config.schema import Config
from rag_bench.core.errors import ConfigError
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.index.registry import VECTOR_INDEXES
from rag_bench.pipeline.run import run
from rag_bench.report.run.outputs import write_run
from rag_bench.retrieve.registry import RETRIEVERS

from .conftest import needs_chroma, needs_pg

pytestmark = [pytest.mark.db, needs_pg]


def run_kb(cache, index: str = "exact", filter_mode: str = "pre", **settings):
    """kestrel-kb, dense retrieval over ``index``; the hashing embedder keeps the suite fast (no model to run)."""
    index_cfg = VECTOR_INDEXES[index].schema(**settings)
    retrieval = RETRIEVERS.settings("dense", index=index_cfg, filter_mode=filter_mode)
    return run(Config(embedder=EMBEDDERS["fake"].schema(), retrieval=retrieval, cache_dir=str(cache), bootstrap=50))


def test_exact_method_equals_in_memory_exact(db_cache):
    memory = run_kb(db_cache, "exact")
    sql = run_kb(db_cache, "pgvector", method="exact")
    # The same chunks in the same order, up to ties: a float4 sum in another order can swap two equal scores.
    finite = np.isfinite(memory.scores)
    np.testing.assert_allclose(sql.scores[finite], memory.scores[finite], rtol=0, atol=1e-6)
    rows, cols = np.nonzero(sql.ranked != memory.ranked)
    assert len(rows) < 0.01 * sql.ranked.size
    for q, c in zip(rows, cols, strict=True):
        swapped = np.flatnonzero(memory.ranked[q] == sql.ranked[q, c])[0]
        assert abs(memory.scores[q, swapped] - memory.scores[q, c]) < 1e-6  # a tie, broken the other way
    assert sql.evaluation.summary.keys() == memory.evaluation.summary.keys()
    for name, summary in memory.evaluation.summary.items():
        assert sql.evaluation.summary[name].mean == summary.mean, name
    assert sql.stats.ann_recall == 1.0 and sql.stats.index["plan_uses_index"] is False


def test_hnsw_recall_rises_with_ef_search_and_builds_once(db_cache, tmp_path):
    found = {ef: run_kb(db_cache, "pgvector", ef_search=ef) for ef in (10, 40, 200)}
    recall = {ef: r.stats.ann_recall for ef, r in found.items()}
    assert recall[10] <= 0.5  # pgvector returns at most ef_search rows: 10 of the 20 asked
    assert recall[10] < recall[40] <= recall[200] and recall[200] >= 0.95
    filtered = {ef: r.stats.filtered_ann_recall for ef, r in found.items()}
    assert filtered[10] < filtered[40] < filtered[200]
    built = [r.stats.index["built"] for r in found.values()]
    assert built[1:] == [False, False]  # the table and the HNSW index of the first run were reused
    assert all(r.stats.index["plan_uses_index"] for r in found.values())
    assert all(r.stats.index["disk_bytes"] > 643 * 64 * 4 for r in found.values())
    write_run(found[40], tmp_path)
    sql = (tmp_path / "pgvector.sql").read_text()
    assert "SET hnsw.ef_search = 40;" in sql and "Index Scan using" in sql
    assert sql.count("SELECT id, -(embedding <#> ") == len(found[40].dataset.questions)
    assert "jsonb_path_exists(metadata, '$.\"acl\" ? (@ == $v0 || @ == $v1)'::jsonpath" in sql


def test_selective_filters_lose_recall_in_hnsw_and_iterative_scan_recovers_it(db_cache):
    plain = run_kb(db_cache, "pgvector")
    iterative = run_kb(db_cache, "pgvector", iterative_scan="strict_order")
    selective = [q.id for q in plain.dataset.questions if q.category == "selective"]
    per_q = plain.evaluation.per_question.set_index("question_id")
    assert (per_q.loc[selective, "selectivity"] < 0.05).all()
    assert plain.stats.filtered_ann_recall < 0.8  # ef_search 40 over a filter allowing ~2% of rows
    assert iterative.stats.filtered_ann_recall > plain.stats.filtered_ann_recall
    assert iterative.stats.filtered_ann_recall >= 0.9  # the graph's own approximation remains


def _acl_leak(result) -> float:
    table = result.evaluation.per_question.set_index("question_id")
    acl = [q.id for q in result.dataset.questions if q.category == "access-control"]
    return float(table.loc[acl, "leak@10"].mean())


INDEXES = [
    pytest.param("exact", {}, id="exact"),
    pytest.param("hnsw", {}, id="hnsw"),
    pytest.param("pgvector", {"method": "exact"}, id="pgvector-exact"),
    pytest.param("pgvector", {"method": "hnsw"}, id="pgvector-hnsw"),
    pytest.param("pgvector", {"method": "ivfflat", "lists": 10, "probes": 10}, id="pgvector-ivfflat"),
    pytest.param("chroma", {}, id="chroma", marks=needs_chroma),
]


@pytest.mark.parametrize(("index", "settings"), INDEXES)
def test_access_control_questions_never_leak_under_pre(db_cache, index, settings):
    pre = run_kb(db_cache, index, "pre", **settings)
    none = run_kb(db_cache, index, "none", **settings)
    assert _acl_leak(pre) == 0.0
    assert _acl_leak(none) > 0.0
    assert pre.evaluation.summary["leak@10"].mean == 0.0


def test_users_own_server_by_dsn(db_cache):
    from rag_bench.index.postgres.server import embedded_dsn

    dsn = embedded_dsn(db_cache / "pgvector")  # stands in for a server the user runs
    embedded = run_kb(db_cache, "pgvector", method="exact")
    own = run_kb(db_cache, "pgvector", method="exact", dsn=dsn)
    np.testing.assert_array_equal(own.ranked, embedded.ranked)
    assert own.stats.index["server"] == dsn and embedded.stats.index["server"] == "embedded PostgreSQL"


def test_unreachable_dsn_is_one_clear_error(db_cache):
    with pytest.raises(ConfigError, match=r"retrieval.index.dsn: cannot connect to postgresql://me:\*\*\*@"):
        run_kb(db_cache, "pgvector", dsn="postgresql://me:secret@/none?host=/nonexistent-socket-folder")


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"method": "annoy"}, "retrieval.index.method"),
        ({"m": 16, "ef_construction": 20}, "at least 2 \\* retrieval.index.m \\(32\\)"),
        ({"method": "ivfflat", "iterative_scan": "strict_order"}, "ivfflat allows off or relaxed_order"),
        ({"ef_search": 0}, "retrieval.index.ef_search \\(0\\) must be an integer from 1 to 1000"),
    ],
)
def test_settings_are_checked(settings, message):
    with pytest.raises(ConfigError, match=message):
        VECTOR_INDEXES["pgvector"].schema(**settings)


def test_build_settings_leave_out_search_settings():
    a = VECTOR_INDEXES["pgvector"].schema(ef_search=10, probes=3, lists=7)
    b = VECTOR_INDEXES["pgvector"].schema(ef_search=200, iterative_scan="relaxed_order")
    assert a.build_settings() == b.build_settings() == {"method": "hnsw", "m": 16, "ef_construction": 64}
