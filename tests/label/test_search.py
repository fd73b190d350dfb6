"""Corpus search: BM25 over recursive chunks, checked against rank-bm25, and term highlights."""

from __future__ import annotations

from rank_bm25 import BM25Okapi

from rag_bench.core.types import Document
from rag_bench.index.bm25.analyzers import identifier_tokens
from rag_bench.label.search import CorpusSearch, highlights


def test_highlights_are_whole_tokens_ignoring_case():
    assert highlights("Err_4021 and err_4021.", ["err_4021"]) == ((0, 8), (13, 21))
    assert highlights("err_4021 err. x-err", ["err"]) == ((9, 12),)  # not inside err_4021 or x-err
    assert highlights("Don\u2019t stop", ["don't"]) == ((0, 5),)
    assert highlights("anything", []) == ()


def test_search_scores_equal_rank_bm25_over_the_same_chunks():
    docs = [
        Document("a.md", "# Alpha\nThe gateway KG-450 reboots nightly.\n\n" + "Filler words here. " * 60),
        Document("b.md", "Billing runs monthly; the gateway is not billed."),
        Document("c.md", "Nothing relevant at all."),
    ]
    search = CorpusSearch(docs, size=200)
    assert len(search.chunks) > 3 and all(len(c) <= 200 for c in search.chunks)
    oracle = BM25Okapi([identifier_tokens(c.text) for c in search.chunks])
    expected = oracle.get_scores(identifier_tokens("gateway KG-450"))
    hits = search.search("gateway KG-450", k=10)
    assert [h.chunk.doc_id for h in hits] == ["a.md", "b.md"]  # only chunks holding a term
    for hit in hits:
        assert hit.score == expected[search.chunks.index(hit.chunk)]
    first = hits[0]
    assert [first.chunk.text[a:b] for a, b in first.highlights] == ["gateway", "KG-450"]
    assert search.search("   ", k=10) == []
