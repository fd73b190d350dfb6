"""One LangChain ranking of kestrel-kb through every route (file, HTTP, Python, LangChain, the Python API).

The chunks come from LangChain's RecursiveCharacterTextSplitter (add_start_index=True) and are ranked by
rank-bm25; the reference hit@k and MRR are computed here from the splitter's own offsets, by the
definition (a chunk hits a span of its document when they overlap by at least tau * the shorter length).
Every route must give exactly those values per question.
"""

import json
import sys
from pathlib import Path

import pytest

import rag_bench
from rag_bench.data.bundled import dataset_folder
from rag_bench.data.native import load_dataset
from rag_bench.testing.retrieval_server import FakeRetrievalServer

from .conftest import write_jsonl

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))  # kestrel_chain, the targets below
import kestrel_chain  # noqa: E402

KS, DEPTH, TAU = [1, 3, 5, 10], 10, 0.5


@pytest.fixture(scope="module")
def kestrel():
    return load_dataset(dataset_folder("kestrel-kb", None), "kestrel-kb")


@pytest.fixture(scope="module")
def rankings(kestrel):
    """question id -> the retriever's documents, best first."""
    retriever = kestrel_chain._kestrel(DEPTH)
    return {q.id: retriever.invoke(q.text) for q in kestrel.questions}


@pytest.fixture(scope="module")
def reference(kestrel, rankings):
    """question id -> {hit@k, mrr@10} from the splitter's start_index, for labelled questions."""
    out = {}
    for q in kestrel.questions:
        if not q.spans:
            continue
        first = None
        for rank, doc in enumerate(rankings[q.id], start=1):
            start = doc.metadata["start_index"]
            end = start + len(doc.page_content)
            for s in q.spans:
                overlap = min(end, s.end) - max(start, s.start)
                if doc.metadata["doc_id"] == s.doc_id and overlap >= TAU * min(end - start, s.end - s.start):
                    first = first or rank
        row = {f"hit@{k}": float(first is not None and first <= k) for k in KS}
        row["mrr@10"] = 1.0 / first if first is not None else 0.0
        out[q.id] = row
    assert 100 < len(out) < len(kestrel.questions)  # kestrel-kb has unanswerable questions too
    hits = [r["hit@10"] for r in out.values()]
    assert 0.2 < sum(hits) / len(hits) < 1.0  # a real mix of hits and misses
    return out


@pytest.fixture(scope="module")
def text_results(rankings):
    """question id -> results naming each chunk by its text only (a chunk-text run)."""
    return {
        qid: [{"doc_id": d.metadata["doc_id"], "text": d.page_content} for d in docs] for qid, docs in rankings.items()
    }


def assert_matches(per_question, reference):
    table = per_question.set_index("question_id")
    for qid, want in reference.items():
        for name, value in want.items():
            assert table.at[qid, name] == pytest.approx(value, abs=1e-15), (qid, name)
    assert set(table.index[table["labelled"]]) == set(reference)


def metrics_of(reference):
    return {name: sum(r[name] for r in reference.values()) / len(reference) for name in ("hit@10", "mrr@10")}


def test_jsonl_file_route(tmp_path, run_with, reference, text_results):
    rows = [{"question_id": qid, "results": results} for qid, results in text_results.items()]
    path = write_jsonl(tmp_path / "langchain.jsonl", rows)
    result = run_with(
        "dataset=kestrel-kb", "retrieval=external", f"retrieval.run={path}", f"ks={KS}", f"retrieval.depth={DEPTH}"
    )
    assert_matches(result.evaluation.per_question, reference)
    details = result.stats.retrieval["external"]
    assert details["located_exact"] == details["results"] and details["ambiguous"] == details["unmentioned"] == 0
    assert result.reusable is False


def test_http_route(tmp_path, run_with, reference, text_results):
    with FakeRetrievalServer(text_results) as server:
        result = run_with(
            "dataset=kestrel-kb",
            "retrieval=http",
            f"retrieval.url={server.url}",
            f"ks={KS}",
            f"retrieval.depth={DEPTH}",
        )
        sent = server.received()
    assert_matches(result.evaluation.per_question, reference)
    assert len(sent) == len(text_results) and {r.body["k"] for r in sent} == {DEPTH}
    assert {r.body["id"]: r.body["question"] for r in sent}["tech-001"] == "What does KOS-E1107 mean during a rollout?"
    details = result.stats.retrieval["http"]
    assert details["requests"] == len(text_results) and details["from_cache"] == 0
    latency = details["latency_ms"]
    assert 0 < latency["p50"] <= latency["p95"] <= latency["max"] < 10_000


def test_python_route(run_with, reference):
    result = run_with(
        "dataset=kestrel-kb",
        "retrieval=python",
        "retrieval.target=kestrel_chain:search",
        f"ks={KS}",
        f"retrieval.depth={DEPTH}",
    )
    assert_matches(result.evaluation.per_question, reference)
    assert result.stats.retriever == "python kestrel_chain:search"
    assert result.reusable is False  # a function of the user's: its runs are never served from the run cache


def test_langchain_route_uses_start_index(run_with, reference):
    overrides = ("dataset=kestrel-kb", "retrieval=langchain", "retrieval.target=kestrel_chain:make_retriever")
    result = run_with(*overrides, f"ks={KS}", f"retrieval.depth={DEPTH}")
    assert_matches(result.evaluation.per_question, reference)
    details = result.stats.retrieval["langchain"]
    assert details["by_offsets"] == details["results"] > 0 and details["located_exact"] == 0
    assert result.reusable is False


def test_python_api_with_a_function_and_with_a_langchain_retriever(tmp_path, kestrel, reference):
    by_function = rag_bench.evaluate("kestrel-kb", kestrel_chain.search, ks=KS, cache_dir=tmp_path / "cache")
    retriever = kestrel_chain._kestrel(DEPTH)
    out = tmp_path / "run"
    by_langchain = rag_bench.evaluate(kestrel, retriever, ks=KS, cache_dir=tmp_path / "cache", out=out)
    for payload in (by_function, by_langchain):
        for name, value in metrics_of(reference).items():
            assert payload["metrics"][name] == pytest.approx(value, abs=1e-12)
        assert payload["n_questions"] == len(reference)
    expected = {"mode": "python", "depth": DEPTH, "target": "kestrel_chain:search", "filter_mode": "none"}
    assert by_function["config"]["retrieval"].items() >= expected.items()
    assert by_langchain["config"]["retrieval"]["mode"] == "langchain"
    assert by_langchain["stats"]["retriever"] == "langchain kestrel_chain:BM25Chunks"
    # the run folder is complete: the gate and check-generation read it
    assert json.loads((out / "metrics.json").read_text()) == by_langchain
    assert {p.name for p in out.iterdir()} >= {"config.yaml", "metrics.json", "per_question.csv", "run.trec"}
