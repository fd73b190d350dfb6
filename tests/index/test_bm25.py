import math
import pickle

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from rag_bench.errors import ConfigError
from rag_bench.index.bm25 import BM25Index
from rag_bench.index.topk import top_k

CORPUS = [
    ["the", "cat", "sat", "on", "the", "mat"],
    ["the", "dog", "sat"],
    ["a", "cat", "and", "a", "dog", "and", "a", "cat"],
    ["the", "end"],
]


def _oracle_search(docs, queries, depth, k1=1.5, b=0.75, epsilon=0.25):
    """rank-bm25 scores of every doc, top-k over the docs sharing a term with the query."""
    ref = BM25Okapi(docs, k1=k1, b=b, epsilon=epsilon)
    scores = np.array([ref.get_scores(q) for q in queries]).reshape(len(queries), len(docs))
    valid = np.array([[bool(set(q) & set(d)) for d in docs] for q in queries]).reshape(scores.shape)
    return top_k(scores, depth, valid)


def test_scores_hand_worked():
    docs = [["a", "b"], ["a"], ["c", "c", "d"]]  # N = 3, avgdl = 2
    index = BM25Index.build(docs, k1=1.5, b=0.75, epsilon=0.25)
    idf_b = math.log(2.5) - math.log(1.5)  # df 1, same for c and d
    idf_a_raw = math.log(1.5) - math.log(2.5)  # df 2: negative, floored to eps * mean idf
    mean_idf = (idf_a_raw + idf_b + idf_b + idf_b) / 4
    floor = 0.25 * mean_idf
    # doc 0, "b": tf 1, dl 2 = avgdl -> 1 * 2.5 / (1 + 1.5)
    # doc 2, "c": tf 2, dl 3 -> 2 * 2.5 / (2 + 1.5 * (0.25 + 0.75 * 1.5))
    expected_c = idf_b * 5.0 / (2 + 1.5 * (0.25 + 0.75 * 1.5))
    assert index.scores(["b"]) == pytest.approx([idf_b, 0.0, 0.0], abs=1e-15)
    assert index.scores(["c"]) == pytest.approx([0.0, 0.0, expected_c], abs=1e-15)
    assert index.idf[index.vocab["a"]] == pytest.approx(floor)
    # doc 1, "a": tf 1, dl 1 -> floor * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 0.5))
    assert index.scores(["a"])[1] == pytest.approx(floor * 2.5 / (1 + 1.5 * 0.625))


@pytest.mark.parametrize(
    ("k1", "b", "epsilon"), [(1.5, 0.75, 0.25), (0.9, 0.4, 0.25), (1.2, 0.0, 0.0), (2.0, 1.0, 1.0)]
)
def test_scores_equal_rank_bm25_exactly(k1, b, epsilon):
    index = BM25Index.build(CORPUS, k1=k1, b=b, epsilon=epsilon)
    ref = BM25Okapi(CORPUS, k1=k1, b=b, epsilon=epsilon)
    queries = [["cat"], ["the", "cat"], ["cat", "cat", "dog"], ["unknown"], [], ["a", "the", "zzz", "a"]]
    for query in queries:
        ours = index.scores(query)
        assert ours.dtype == np.float64 and ours.shape == (4,)
        assert np.array_equal(ours, ref.get_scores(query))


def test_negative_idf_uses_epsilon_floor_like_rank_bm25():
    docs = [["x", "y"], ["x"], ["x", "z"], ["x", "y", "w"], ["v"]]  # x in 4 of 5 docs
    index = BM25Index.build(docs, epsilon=0.5)
    ref = BM25Okapi(docs, epsilon=0.5)
    assert index.idf[index.vocab["x"]] == ref.idf["x"] == 0.5 * ref.average_idf
    assert index.average_idf == ref.average_idf
    assert np.array_equal(index.scores(["x", "y", "x"]), ref.get_scores(["x", "y", "x"]))


corpora = st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=12), min_size=1, max_size=25).filter(
    lambda docs: any(docs)
)  # rank-bm25 divides by the vocabulary size
queries = st.lists(st.sampled_from("abcdefghxyz"), max_size=10)  # x, y, z never indexed


@settings(max_examples=200, deadline=None)
@given(
    docs=corpora,
    query=queries,
    k1=st.floats(0.01, 3.0),
    b=st.floats(0.0, 1.0),
    epsilon=st.floats(0.0, 1.0),
)
def test_scores_equal_rank_bm25_on_random_corpora(docs, query, k1, b, epsilon):
    # rank-bm25 divides 0/0 (NaN) for an empty doc when b = 1; documented divergence.
    assume(b < 1.0 or all(docs))
    index = BM25Index.build(docs, k1=k1, b=b, epsilon=epsilon)
    ref = BM25Okapi(docs, k1=k1, b=b, epsilon=epsilon)
    assert np.array_equal(index.scores(query), ref.get_scores(query))


@settings(max_examples=100, deadline=None)
@given(docs=corpora, batch=st.lists(queries, max_size=4), depth=st.integers(0, 30))
def test_search_matches_oracle_top_k_on_random_corpora(docs, batch, depth):
    index = BM25Index.build(docs)
    indices, values = index.search(batch, depth)
    want_indices, want_values = _oracle_search(docs, batch, depth)
    assert np.array_equal(indices, want_indices)
    assert np.array_equal(values, want_values)


def test_search_ranks_by_score_then_index_and_pads():
    docs = [["q"], ["other"], ["q", "q"], ["q"], ["z"]]  # docs 0 and 3 tie
    index = BM25Index.build(docs)
    indices, values = index.search([["q"], ["nothing"], []], depth=5)
    assert indices.dtype == np.int64 and values.dtype == np.float64
    assert indices.tolist() == [[2, 0, 3, -1, -1], [-1] * 5, [-1] * 5]
    assert values[0, 1] == values[0, 2] > 0
    assert values[0, 0] > values[0, 1]
    assert np.all(np.isneginf(values[0, 3:])) and np.all(np.isneginf(values[1:]))


def test_search_returns_only_docs_with_a_query_term_even_if_score_is_zero():
    docs = [["a", "b"], ["a", "c"], ["d"], ["e"]]  # df(a) = N/2: idf exactly 0
    index = BM25Index.build(docs)
    indices, values = index.search([["a"]], depth=4)
    assert indices.tolist() == [[0, 1, -1, -1]]
    assert values[0, :2].tolist() == [0.0, 0.0]


def test_search_sparse_and_bitmap_paths_agree_with_oracle():
    docs = [["common", f"w{i % 7}"] for i in range(100)] + [["rare", "common"]]
    batch = [["rare"], ["rare", "w3"], ["common", "rare"], ["w1", "w1"]]
    indices, values = BM25Index.build(docs).search(batch, depth=10)
    want_indices, want_values = _oracle_search(docs, batch, 10)
    assert indices[0].tolist() == [100] + [-1] * 9
    assert np.array_equal(indices, want_indices)
    assert np.array_equal(values, want_values)


def test_search_depth_zero_and_bad_depth():
    index = BM25Index.build(CORPUS)
    indices, values = index.search([["cat"]], depth=0)
    assert indices.shape == values.shape == (1, 0)
    with pytest.raises(ConfigError, match=r"retrieval.depth \(-1\)"):
        index.search([["cat"]], depth=-1)


def test_empty_corpus_and_empty_docs():
    empty = BM25Index.build([])
    assert empty.scores(["a"]).shape == (0,)
    assert empty.search([["a"]], 3)[0].tolist() == [[-1, -1, -1]]
    blank = BM25Index.build([[], []])
    assert blank.scores(["a"]).tolist() == [0.0, 0.0]
    assert blank.search([["a"]], 2)[0].tolist() == [[-1, -1]]
    some_blank = BM25Index.build([[], ["a"], []])
    assert np.array_equal(some_blank.scores(["a"]), BM25Okapi([[], ["a"], []]).get_scores(["a"]))


def test_does_not_mutate_inputs():
    docs = [list(doc) for doc in CORPUS]
    query = ["cat", "dog"]
    index = BM25Index.build(docs)
    index.scores(query)
    index.search([query], 2)
    assert docs == CORPUS and query == ["cat", "dog"]


def test_pickle_round_trip_and_nbytes():
    index = BM25Index.build(CORPUS)
    clone = pickle.loads(pickle.dumps(index))
    assert np.array_equal(clone.scores(["cat", "the"]), index.scores(["cat", "the"]))
    n_terms, n_postings = len(index.vocab), 14  # distinct terms; distinct (term, doc) pairs
    assert n_terms == 9 and index.doc_ids.size == n_postings
    # indptr int64, doc_ids int32, weights float64, idf float64, doc_len int64
    assert index.nbytes == clone.nbytes == (n_terms + 1) * 8 + n_postings * (4 + 8) + n_terms * 8 + 4 * 8


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k1": -1.0}, r"retrieval.bm25.k1 \(-1.0\) must be >= 0"),
        ({"b": 1.5}, r"retrieval.bm25.b \(1.5\) must be in \[0, 1\]"),
        ({"epsilon": float("nan")}, r"retrieval.bm25.epsilon \(nan\) must be a finite number"),
        ({"k1": "1.2"}, r"retrieval.bm25.k1 \('1.2'\) must be a finite number"),
    ],
)
def test_bad_parameters_raise_config_error(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        BM25Index.build(CORPUS, **kwargs)


def test_untokenized_input_is_rejected():
    with pytest.raises(TypeError, match="tokenized"):
        BM25Index.build(["the cat sat"])
    with pytest.raises(TypeError, match="not a string"):
        BM25Index.build(CORPUS).scores("cat")


def test_lucene_variant_by_hand():
    import math

    docs = [["a", "b"], ["a", "a", "c"], ["d"]]
    index = BM25Index.build(docs, k1=0.9, b=0.4, variant="lucene")
    avgdl = 6 / 3
    idf_a = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    expected_doc1 = idf_a * 2 / (2 + 0.9 * (1 - 0.4 + 0.4 * 3 / avgdl))
    assert index.scores(["a"])[1] == pytest.approx(expected_doc1, rel=1e-12)
    assert index.scores(["zzz"]).tolist() == [0.0, 0.0, 0.0]


def test_lucene_length_norm_rounds_long_documents():
    from rag_bench.index.bm25 import lucene_length

    # below 24 exact; above, 24 + the top four significant bits of (length - 24)
    assert lucene_length(np.array([0, 23, 24, 31, 100, 1000])).tolist() == [0, 23, 24, 31, 96, 984]


def test_unknown_variant_is_a_config_error():
    with pytest.raises(ConfigError, match="bm25_variant"):
        BM25Index.build([["a"]], variant="bm42")
