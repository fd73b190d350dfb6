import numpy as np
import pytest

from rag_bench.run_folder.work import measure_work


def test_dense_retrieval_embeds_every_chunk_and_question_once():
    work = measure_work(["aaaa", "bb", "c"], ["qq", "q"], dense=True)
    assert (work.embedded_texts, work.embedded_chars) == (5, 4 + 2 + 1 + 2 + 1)
    assert (work.reranked_pairs, work.reranked_chars, work.cost_usd) == (0, 0, None)


def test_bm25_alone_embeds_nothing():
    assert measure_work(["aaaa"], ["q"], dense=False).chars == 0


def test_reranking_reads_question_and_candidate_per_pair():
    reranked = np.array([[2, 0, -1], [1, -1, -1]])  # question 0 reads chunks 2 and 0, question 1 chunk 1
    work = measure_work(["aaaa", "bb", "c"], ["qq", "q"], dense=False, reranked=reranked)
    assert work.reranked_pairs == 3
    assert work.reranked_chars == (2 + 1) + (2 + 4) + (1 + 2)
    assert work.chars == work.reranked_chars


def test_api_cost_of_the_configuration_by_hand():
    # estimate_tokens = utf-8 bytes // 3 + 1: "aaaaaa" -> 3, "qqq" -> 2
    work = measure_work(["aaaaaa"], ["qqq"], dense=True, reranked=np.array([[0]]), embed_price=2.0, rerank_price=1.0)
    embed_tokens, rerank_tokens = 3 + 2, 2 * 1 + 3
    assert work.cost_usd == pytest.approx((embed_tokens * 2.0 + rerank_tokens * 1.0) / 1e6)
