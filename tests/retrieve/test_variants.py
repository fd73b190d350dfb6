import json

import numpy as np
import pytest

from rag_bench.chunk.registry import CHUNKERS
from rag_bench.config.schema import Config, DatasetConfig
from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError, DataError
from rag_bench.core.types import Chunk, Dataset, Document, Question
from rag_bench.core.workspace import Workspace
from rag_bench.data.native import load_dataset
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.embed.store import VectorStore, text_key
from rag_bench.pipeline.run import chunk_dataset, run
from rag_bench.retrieve.base import Candidates, Query, RetrievalStats
from rag_bench.retrieve.fusion.rrf import rrf
from rag_bench.retrieve.registry import RETRIEVERS
from rag_bench.retrieve.resources import Resources
from rag_bench.retrieve.variants import VariantRetriever, by_position, with_variants
from rag_bench.testing import FakeEmbedder

CHUNKS = [Chunk("d", 10 * i, 10 * i + 10, f"chunk {i}") for i in range(5)]
LISTS = {  # text -> the chunk indices a fake retriever ranks for it, best first
    "the question": [0, 1, 2],
    "other question": [4, 3],
    "kw": [2, 3],
    "p1": [3, 0],
    "p2": [4],
    "p3": [1],
    "a passage": [4, 0],
}


class ListRetriever:
    """Ranks the fixed list LISTS[text] (padded with -1 to depth); records every query asked."""

    name = "fixed"

    def __init__(self, parts: bool = False) -> None:
        self.asked: list[list[Query]] = []
        self.parts = parts

    def retrieve(self, queries, depth):
        self.asked.append(list(queries))
        indices = np.full((len(queries), depth), -1, dtype=np.int64)
        for row, q in enumerate(queries):
            ranked = LISTS[q.text][:depth]
            indices[row, : len(ranked)] = ranked
        scores = np.where(indices >= 0, 1.0 / (1 + np.arange(depth)), -np.inf)
        stats = RetrievalStats(index_bytes=100, embedded=len(queries), seconds=0.5)
        found = Candidates(CHUNKS, indices, scores, stats)
        if not self.parts:
            return found
        return Candidates(CHUNKS, indices, scores, RetrievalStats(seconds=0.25), {"one": found, "two": found})


QUERIES = [Query("q1", "the question"), Query("q2", "other question")]
VARIANTS = {
    "q1": {"keywords": ("kw",), "paraphrase": ("p1", "p2")},
    "q2": {"keywords": (), "paraphrase": ("p3",)},
}


def test_fusion_equals_hand_computed_rrf():
    found = VariantRetriever(ListRetriever(), VARIANTS, original_weight=2.0, k_rrf=60).retrieve(QUERIES, 3)
    # q1: question [0, 1, 2] (weight 2), kw [2, 3], p1 [3, 0], p2 [4]
    expected_q1 = {
        0: 2 / 61 + 1 / 62,
        1: 2 / 62,
        2: 2 / 63 + 1 / 61,
        3: 1 / 62 + 1 / 61,
        4: 1 / 61,
    }
    row = [c for c in found.indices[0] if c >= 0]
    assert row == [0, 2, 3, 1, 4]
    assert found.scores[0, :5] == pytest.approx([expected_q1[c] for c in row])
    # q2: question [4, 3] (weight 2), no keywords, p3 [1]: 4 = 2/61, 3 = 2/62, 1 = 1/61
    assert [c for c in found.indices[1] if c >= 0] == [4, 3, 1]
    assert found.scores[1, :3] == pytest.approx([2 / 61, 2 / 62, 1 / 61])


def test_each_kind_is_one_call_and_hyde_is_asked_in_document_mode():
    inner = ListRetriever()
    variants = {"q1": {"hyde": ("a passage",), "keywords": ("kw",)}, "q2": {"hyde": (), "keywords": ()}}
    VariantRetriever(inner, variants).retrieve(QUERIES, 2)
    assert inner.asked == [
        QUERIES,
        [Query("q1", "a passage", "document", variant="hyde")],
        [Query("q1", "kw", "query", variant="keywords")],
    ]


def test_original_weight_zero_leaves_the_question_out():
    inner = ListRetriever()
    found = VariantRetriever(inner, VARIANTS, original_weight=0.0, k_rrf=0).retrieve(QUERIES, 3)
    assert [[q.text for q in asked] for asked in inner.asked] == [["kw"], ["p1", "p2", "p3"]]  # one call a kind
    # q1 with k = 0: 3 = 1/2 + 1/1, 2 = 1/1, 4 = 1/1, 0 = 1/2: ties by chunk index
    assert [c for c in found.indices[0] if c >= 0] == [3, 2, 4, 0]
    assert found.scores[0, :4] == pytest.approx([1.5, 1.0, 1.0, 0.5])
    assert set(found.parts) == {"keywords", "paraphrase"}


def test_parts_keep_the_question_lists_and_count_the_index_once():
    found = VariantRetriever(ListRetriever(parts=True), VARIANTS).retrieve(QUERIES, 3)
    assert list(found.parts) == ["one", "two", "keywords", "paraphrase"]
    assert [p.stats.index_bytes for p in found.parts.values()] == [100, 100, 0, 0]
    # keywords: one rewrite (q1 "kw") asked once, listed by both inner parts
    assert found.parts["keywords"].stats.embedded == 2
    assert found.parts["keywords"].stats.seconds == pytest.approx(0.5 + 0.5 + 0.25)
    # the paraphrase part is the fusion of the paraphrases alone: q1 = p1 [3, 0] + p2 [4]
    assert [c for c in found.parts["paraphrase"].indices[0] if c >= 0] == [3, 4, 0]


def test_by_position_spreads_rewrites_over_runs():
    indices = np.array([[1, 2], [3, -1], [5, 6]])
    runs = by_position(indices, np.array([0, 0, 2]), 3)
    assert len(runs) == 2
    assert runs[0].tolist() == [[1, 2], [-1, -1], [5, 6]]
    assert runs[1].tolist() == [[3, -1], [-1, -1], [-1, -1]]


DATASET = Dataset("tiny", (), (Question("q1", "the question"), Question("q2", "other question")))


def line(qid, kind, *texts):
    return {"question_id": qid, "kind": kind, "texts": list(texts)}


def write_lines(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_unknown_question_id_is_a_clear_error(tmp_path):
    path = write_lines(
        tmp_path / "v.jsonl",
        [
            {"question_id": "q1", "kind": "keywords", "texts": ["kw"]},
            {"question_id": "q2", "kind": "keywords", "texts": []},
            {"question_id": "q9", "kind": "keywords", "texts": ["x"]},
        ],
    )
    cfg = RETRIEVERS.settings("bm25", query_variants=str(path))
    with pytest.raises(DataError, match=r"v\.jsonl:3: question_id: question 'q9' is not a question of dataset 'tiny'"):
        with_variants(ListRetriever(), cfg, DATASET)


def test_missing_question_id_is_a_clear_error(tmp_path):
    path = write_lines(tmp_path / "v.jsonl", [{"question_id": "q1", "kind": "keywords", "texts": ["kw"]}])
    cfg = RETRIEVERS.settings("bm25", query_variants=str(path))
    with pytest.raises(DataError, match=r"has no 'keywords' line for 1 of the 2 questions of 'tiny' \(q2\)"):
        with_variants(ListRetriever(), cfg, DATASET)


def test_stale_question_text_is_a_clear_error(tmp_path):
    rows = [
        {"question_id": "q1", "kind": "keywords", "texts": ["kw"], "question": "the old question"},
        {"question_id": "q2", "kind": "keywords", "texts": [], "question": "other question"},
    ]
    cfg = RETRIEVERS.settings("bm25", query_variants=str(write_lines(tmp_path / "v.jsonl", rows)))
    with pytest.raises(DataError, match=r"v\.jsonl:1: question: .*'the old question'.*the rewrite is stale"):
        with_variants(ListRetriever(), cfg, DATASET)


def test_kind_missing_from_the_file_is_a_clear_error(tmp_path):
    rows = [{"question_id": q, "kind": "keywords", "texts": []} for q in ("q1", "q2")]
    cfg = RETRIEVERS.settings(
        "bm25", query_variants=str(write_lines(tmp_path / "v.jsonl", rows)), variant_kinds=["hyde"]
    )
    with pytest.raises(DataError, match=r"has no 'hyde' line for 2 of the 2 questions"):
        with_variants(ListRetriever(), cfg, DATASET)


def test_file_is_found_in_the_dataset_folder(tmp_path, monkeypatch):
    rows = [line("q1", "keywords", "kw"), line("q2", "hyde"), line("q2", "keywords"), line("q1", "hyde")]
    write_lines(tmp_path / "v.jsonl", rows)
    monkeypatch.chdir(tmp_path.parent)
    wrapped = with_variants(ListRetriever(), RETRIEVERS.settings("bm25", query_variants="v.jsonl"), DATASET, tmp_path)
    assert wrapped.kinds == ["hyde", "keywords"]  # every kind in the file, in the order of KINDS
    with pytest.raises(DataError, match=r"nope\.jsonl: retrieval\.query_variants: no such file"):
        with_variants(ListRetriever(), RETRIEVERS.settings("bm25", query_variants="nope.jsonl"), DATASET, tmp_path)


def test_no_variants_leaves_the_retriever_as_it_is(tmp_path):
    inner = ListRetriever()
    assert with_variants(inner, RETRIEVERS.settings("hybrid"), DATASET) is inner
    assert with_variants(inner, RETRIEVERS.settings("dense", query_variants="x", variant_kinds=[]), DATASET) is inner


def test_original_weight_zero_needs_a_rewrite_for_every_question(tmp_path):
    rows = [line("q1", "keywords", "kw"), line("q2", "keywords")]
    cfg = RETRIEVERS.settings("bm25", query_variants=str(write_lines(tmp_path / "v.jsonl", rows)), original_weight=0.0)
    with pytest.raises(DataError, match=r"question 'q2' \(1 in all\) has no rewrite of kinds \['keywords'\]"):
        with_variants(ListRetriever(), cfg, DATASET)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"variant_kinds": ["keywords"]}, r"variant_kinds \(\['keywords'\]\) needs retrieval\.query_variants"),
        ({"query_variants": "v", "variant_kinds": ["synonyms"]}, r"must list distinct kinds among: paraphrase, hyde"),
        ({"query_variants": "v", "variant_kinds": ["hyde", "hyde"]}, r"must list distinct kinds"),
        ({"query_variants": "v", "original_weight": -1.0}, r"retrieval\.original_weight \(-1\.0\)"),
        ({"original_weight": 0.0}, r"retrieval\.original_weight=0 leaves the question out"),
    ],
)
def test_bad_settings_fail_at_start(settings, message):
    with pytest.raises(ConfigError, match=message):
        RETRIEVERS.settings("hybrid", **settings)


DOC_TEXTS = [
    "# Routers\nThe KR-7 router is reset with the pin on its back. Firmware v2 ships in June.",
    "# Billing\nInvoices go out monthly. Refunds take a week and need form RF-2.",
    "# Support\nCall support daily between nine and five. Tickets close after a week.",
]


def small_corpus(tmp_path):

    docs = tuple(Document(f"d{i}.md", text) for i, text in enumerate(DOC_TEXTS))
    questions = (Question("q1", "How do I reset the router?"), Question("q2", "When are invoices sent?"))
    dataset = Dataset("small", docs, questions)
    ws, embedder = Workspace(DiskCache(tmp_path / "cache")), FakeEmbedder()
    corpus, _ = chunk_dataset(ws, dataset, CHUNKERS.settings("fixed", size=40), embedder)
    return ws, dataset, corpus, embedder


def test_hybrid_lists_of_every_rewrite_are_fused_and_hyde_is_embedded_as_a_passage(tmp_path):

    ws, dataset, corpus, embedder = small_corpus(tmp_path)
    hybrid = RETRIEVERS.build(RETRIEVERS.settings("hybrid", depth=4), Resources(ws, corpus, dataset, embedder))
    hyde = "The router is reset by pressing the pin."
    variants = {"q1": {"hyde": (hyde,), "keywords": ("reset router",)}, "q2": {"hyde": (), "keywords": ("invoices",)}}
    questions = [Query.of(q) for q in dataset.questions]
    embedder.calls.clear()
    found = VariantRetriever(hybrid, variants, original_weight=1.5, k_rrf=10).retrieve(questions, 4)
    assert (1, "document") in embedder.calls  # the HyDE passage, in document mode
    assert (2, "query") in embedder.calls and (2, "document") not in embedder.calls  # keywords as queries
    # the oracle: the hybrid's own list for each text alone, fused by hand with rrf
    alone = {text: hybrid.retrieve([Query(qid, text, mode)], 4).indices for qid, text, mode in [
        ("q1", "How do I reset the router?", "query"), ("q1", hyde, "document"), ("q1", "reset router", "query"),
        ("q2", "When are invoices sent?", "query"), ("q2", "invoices", "query"),
    ]}  # fmt: skip
    q1, _ = rrf([alone["How do I reset the router?"], alone[hyde], alone["reset router"]], 10, [1.5, 1.0, 1.0])
    q2, _ = rrf([alone["When are invoices sent?"], alone["invoices"]], 10, [1.5, 1.0])
    assert [c for c in found.indices[0] if c >= 0] == [c for c in q1[0] if c >= 0]
    assert [c for c in found.indices[1] if c >= 0] == [c for c in q2[0] if c >= 0]
    assert list(found.parts) == ["bm25", "dense", "hyde", "keywords"]


def test_a_sweep_over_kinds_embeds_each_text_once_and_reuses_each_kinds_lists(tmp_path):

    folder = tmp_path / "small"
    folder.mkdir()
    docs = [{"id": f"d{i}.md", "text": t} for i, t in enumerate(DOC_TEXTS)]
    (folder / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    rows = [
        {"id": "q1", "question": "How do I reset the router?", "evidence": [{"doc_id": "d0.md", "text": "pin"}]},
        {"id": "q2", "question": "When are invoices sent?", "evidence": [{"doc_id": "d1.md", "text": "monthly"}]},
    ]
    (folder / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    lines = [line("q1", "hyde", "Press the pin to reset it."), line("q2", "hyde", "Invoices go out monthly.")]
    lines += [line("q1", "keywords", "reset router"), line("q2", "keywords", "invoices sent")]
    variants = write_lines(tmp_path / "v.jsonl", lines)

    def point(kinds):
        retrieval = RETRIEVERS.settings("hybrid", query_variants=str(variants), variant_kinds=kinds)
        config = Config(
            dataset=DatasetConfig("small", str(folder)),
            chunker=CHUNKERS.settings("fixed", size=40),
            embedder=EMBEDDERS.settings("fake"),
            retrieval=retrieval,
            cache_dir=str(tmp_path / "cache"),
            bootstrap=10,
        )
        return run(config).stats

    sweep = [point(kinds) for kinds in ([], ["hyde"], ["keywords"], ["hyde", "keywords"])]
    passages = {c.indexed_text for c in run_chunks(folder, tmp_path)}
    documents = passages | {"Press the pin to reset it.", "Invoices go out monthly."}
    queries = {"How do I reset the router?", "When are invoices sent?", "reset router", "invoices sent"}
    assert sum(s.embedded for s in sweep) == len(documents) + len(queries)
    assert [s.embedded for s in sweep] == [len(passages) + 2, 2, 2, 0]
    assert sweep[3].reused == {"chunks": True, "bm25": True, "dense": True, "hyde": True, "keywords": True}
    cache = DiskCache(tmp_path / "cache")
    for mode, texts in (("document", documents), ("query", queries)):
        stored = VectorStore(cache, "fake/hash-64", 64, mode).known()
        assert set(stored) == {text_key(t) for t in texts}


def run_chunks(folder, tmp_path):

    dataset = load_dataset(folder, "small")
    return chunk_dataset(
        Workspace.open(tmp_path / "cache"), dataset, CHUNKERS.settings("fixed", size=40), FakeEmbedder()
    )[0].chunks


def test_score_fusion_of_variants_by_hand():
    from rag_bench.retrieve.fusion.methods import Fusion

    fused = VariantRetriever(ListRetriever(), VARIANTS, original_weight=2.0, fusion=Fusion("convex")).retrieve(
        QUERIES, 3
    )
    # q1: question [0, 1, 2] scores (1, 1/2, 1/3) -> min-max (1, 0.25, 0), weight 2; kw [2, 3] -> (1, 0);
    # p1 [3, 0] -> (1, 0); p2 [4] -> 1 (one candidate); a list lacking a chunk gives it 0
    assert [c for c in fused.indices[0] if c >= 0] == [0, 2, 3, 4, 1]
    assert fused.scores[0, :5] == pytest.approx([2.0, 1.0, 1.0, 1.0, 0.5])
    # q2: question [4, 3] -> (1, 0), weight 2; p3 [1] -> 1: 4 = 2, 1 = 1, 3 = 0 (RRF put 3 before 1)
    assert [c for c in fused.indices[1] if c >= 0] == [4, 1, 3]
    assert fused.scores[1, :3] == pytest.approx([2.0, 1.0, 0.0])
