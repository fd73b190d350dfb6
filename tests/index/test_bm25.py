import json
import math
import pickle
import subprocess
import sys
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from rag_bench.core.errors import ConfigError
from rag_bench.index.bm25 import compiled
from rag_bench.index.bm25 import index as bm25_module
from rag_bench.index.bm25.index import BM25Index
from rag_bench.index.topk import top_k

from .conftest import needs_loops

pytestmark = pytest.mark.usefixtures("indexing")  # every test on the numpy path and on the C loops

LOOPS = compiled.LOOPS  # the C extension (None where it was not built), before any test sets compiled.LOOPS
PATHS = ["numpy", pytest.param("c", marks=needs_loops)]


@contextmanager
def search_path(name):
    """BM25Index.search through the numpy loop ("numpy") or the C kernel ("c")."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compiled, "LOOPS", LOOPS if name == "c" else None)
        yield


CORPUS = [
    ["the", "cat", "sat", "on", "the", "mat"],
    ["the", "dog", "sat"],
    ["a", "cat", "and", "a", "dog", "and", "a", "cat"],
    ["the", "end"],
]


def _oracle_search(docs, queries, depth, k1=1.5, b=0.75, epsilon=0.25):
    """rank-bm25 scores of every doc, top-k over the docs sharing a term with the query (as wide as the
    depth, or the corpus when that is smaller)."""
    ref = BM25Okapi(docs, k1=k1, b=b, epsilon=epsilon)
    scores = np.array([ref.get_scores(q) for q in queries]).reshape(len(queries), len(docs))
    valid = np.array([[bool(set(q) & set(d)) for d in docs] for q in queries]).reshape(scores.shape)
    return top_k(scores, min(depth, len(docs)), valid)


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


@pytest.mark.parametrize("path", PATHS)
@settings(max_examples=100, deadline=None)
@given(docs=corpora, batch=st.lists(queries, max_size=4), depth=st.integers(0, 30))
def test_search_matches_oracle_top_k_on_random_corpora(path, docs, batch, depth):
    index = BM25Index.build(docs)
    with search_path(path):
        indices, values = index.search(batch, depth)
    want_indices, want_values = _oracle_search(docs, batch, depth)
    assert np.array_equal(indices, want_indices)
    assert np.array_equal(values, want_values)


@pytest.mark.parametrize("path", PATHS)
def test_search_ranks_by_score_then_index_and_pads(path):
    docs = [["q"], ["other"], ["q", "q"], ["q"], ["z"]]  # docs 0 and 3 tie
    index = BM25Index.build(docs)
    with search_path(path):
        indices, values = index.search([["q"], ["nothing"], []], depth=5)
    assert indices.dtype == np.int64 and values.dtype == np.float64
    assert indices.tolist() == [[2, 0, 3, -1, -1], [-1] * 5, [-1] * 5]
    assert values[0, 1] == values[0, 2] > 0
    assert values[0, 0] > values[0, 1]
    assert np.all(np.isneginf(values[0, 3:])) and np.all(np.isneginf(values[1:]))


@pytest.mark.parametrize("path", PATHS)
def test_search_returns_only_docs_with_a_query_term_even_if_score_is_zero(path):
    docs = [["a", "b"], ["a", "c"], ["d"], ["e"]]  # df(a) = N/2: idf exactly 0
    index = BM25Index.build(docs)
    with search_path(path):
        indices, values = index.search([["a"]], depth=4)
    assert indices.tolist() == [[0, 1, -1, -1]]
    assert values[0, :2].tolist() == [0.0, 0.0]


@pytest.mark.parametrize("path", PATHS)
def test_search_sparse_and_bitmap_paths_agree_with_oracle(path):
    docs = [["common", f"w{i % 7}"] for i in range(100)] + [["rare", "common"]]
    batch = [["rare"], ["rare", "w3"], ["common", "rare"], ["w1", "w1"]]
    index = BM25Index.build(docs)
    with search_path(path):
        indices, values = index.search(batch, depth=10)
    want_indices, want_values = _oracle_search(docs, batch, 10)
    assert indices[0].tolist() == [100] + [-1] * 9
    assert np.array_equal(indices, want_indices)
    assert np.array_equal(values, want_values)


@pytest.mark.parametrize("path", PATHS)
def test_search_depth_zero_and_bad_depth(path):
    index = BM25Index.build(CORPUS)
    with search_path(path):
        indices, values = index.search([["cat"]], depth=0)
        assert indices.shape == values.shape == (1, 0)
        assert index.search([], depth=3)[0].shape == (0, 3)
        with pytest.raises(ConfigError, match=r"retrieval.depth \(-1\)"):
            index.search([["cat"]], depth=-1)


@pytest.mark.parametrize("path", PATHS)
def test_empty_corpus_and_empty_docs(path):
    empty = BM25Index.build([])
    assert empty.scores(["a"]).shape == (0,)
    blank = BM25Index.build([[], []])
    assert blank.scores(["a"]).tolist() == [0.0, 0.0]
    with search_path(path):
        assert empty.search([["a"]], 3)[0].shape == (1, 0)  # no document to return: no column
        assert blank.search([["a"]], 2)[0].tolist() == [[-1, -1]]
    some_blank = BM25Index.build([[], ["a"], []])
    assert np.array_equal(some_blank.scores(["a"]), BM25Okapi([[], ["a"], []]).get_scores(["a"]))


@pytest.mark.parametrize("path", PATHS)
def test_a_depth_beyond_the_corpus_is_capped_at_its_size(path):
    index = BM25Index.build(CORPUS)  # 4 documents
    with search_path(path):
        indices, values = index.search([["cat"], ["dog", "end"]], 10**12)  # 8 TB per query if not capped
        same = index.search([["cat"], ["dog", "end"]], 4)
    assert indices.shape == values.shape == (2, 4)
    # cat and dog: df = N/2, idf 0, so their documents tie at 0 and come in index order; end: doc 3 only
    assert indices.tolist() == [[0, 2, -1, -1], [3, 1, 2, -1]]
    assert np.array_equal(indices, same[0]) and np.array_equal(values, same[1])


@pytest.mark.parametrize("path", PATHS)
def test_does_not_mutate_inputs(path):
    docs = [list(doc) for doc in CORPUS]
    query = ["cat", "dog"]
    index = BM25Index.build(docs)
    arrays = [a.copy() for a in (index.indptr, index.doc_ids, index.weights)]
    index.scores(query)
    with search_path(path):
        index.search([query], 2)
    assert docs == CORPUS and query == ["cat", "dog"]
    assert all(np.array_equal(a, b) for a, b in zip(arrays, (index.indptr, index.doc_ids, index.weights), strict=True))


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
        ({"k1": -1.0}, r"BM25 k1 \(-1.0\) must be >= 0"),
        ({"b": 1.5}, r"BM25 b \(1.5\) must be in \[0, 1\]"),
        ({"epsilon": float("nan")}, r"BM25 epsilon \(nan\) must be a finite number"),
        ({"k1": "1.2"}, r"BM25 k1 \('1.2'\) must be a finite number"),
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
    from rag_bench.index.bm25.index import lucene_length

    # below 24 exact; above, 24 + the top four significant bits of (length - 24)
    assert lucene_length(np.array([0, 23, 24, 31, 100, 1000])).tolist() == [0, 23, 24, 31, 96, 984]


def test_unknown_variant_is_a_config_error():
    with pytest.raises(ConfigError, match="bm25_variant"):
        BM25Index.build([["a"]], variant="bm42")


def test_vocab_ids_follow_first_appearance():
    index = BM25Index.build([["b", "a", "b"], [], ["c", "a"]])
    assert list(index.vocab.items()) == [("b", 0), ("a", 1), ("c", 2)]
    assert type(index.vocab) is dict  # not a defaultdict: looking up an unknown term adds nothing
    assert index.indptr.tolist() == [0, 1, 3, 4] and index.doc_ids.tolist() == [0, 0, 2, 2]


def zipf_docs(n_docs, seed, vocab=300):
    """Tokenized docs with Zipfian term frequencies (p(rank r) ~ 1/(r + 5)) and lengths 1-39."""
    rng = np.random.default_rng(seed)
    p = 1.0 / (np.arange(vocab) + 5.0)
    lengths = rng.integers(1, 40, n_docs).tolist()
    terms = rng.choice(vocab, size=sum(lengths), p=p / p.sum()).tolist()
    starts = np.cumsum([0, *lengths]).tolist()
    return [[f"t{t}" for t in terms[start : start + n]] for start, n in zip(starts[:-1], lengths, strict=True)]


def both_paths(index, batch, depth):
    """(indices, values) of the numpy loop and of the C kernel, in that order."""
    with search_path("numpy"):
        slow = index.search(batch, depth)
    with search_path("c"):
        fast = index.search(batch, depth)
    return slow, fast


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Same dtype, shape and bytes: bit for bit (0.0 and -0.0 differ)."""
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@needs_loops
@pytest.mark.parametrize("depth", [1, 10, 100, 300])
def test_c_kernel_equals_numpy_loop_and_rank_bm25_on_a_zipf_corpus(depth):
    docs = zipf_docs(8000, seed=3)  # 125 blocks of 64 docs: block skipping is on for depth <= 125
    rng = np.random.default_rng(4)
    batch = [[f"t{t}" for t in rng.integers(0, 320, rng.integers(0, 7))] for _ in range(300)]  # t300+ unknown
    index = BM25Index.build(docs)
    (slow_idx, slow_val), (fast_idx, fast_val) = both_paths(index, batch, depth)
    assert same_bits(fast_idx, slow_idx) and same_bits(fast_val, slow_val)
    postings = [sum(index.doc_ids[a:b].size for a, b in index._spans(q)) for q in batch]
    assert min(postings) * 8 <= 8000 < max(postings) * 8  # both the few- and the many-postings branch ran
    want_idx, want_val = _oracle_search(docs, batch[:12], depth)
    assert np.array_equal(fast_idx[:12], want_idx) and np.array_equal(fast_val[:12], want_val)


@needs_loops
@settings(max_examples=60, deadline=None)
@given(
    n_docs=st.integers(1, 900),
    seed=st.integers(0, 2**32 - 1),
    depth=st.integers(0, 20),
    epsilon=st.sampled_from([0.0, 0.25, 1.0]),
)
def test_c_kernel_equals_numpy_loop_on_random_zipf_corpora(n_docs, seed, depth, epsilon):
    docs = zipf_docs(n_docs, seed, vocab=40)  # few terms: frequent ones get negative (floored) idf
    rng = np.random.default_rng(seed)
    batch = [[f"t{t}" for t in rng.integers(0, 42, rng.integers(0, 6))] for _ in range(20)]
    index = BM25Index.build(docs, epsilon=epsilon)
    (slow_idx, slow_val), (fast_idx, fast_val) = both_paths(index, batch, depth)
    assert same_bits(fast_idx, slow_idx) and same_bits(fast_val, slow_val)


@pytest.mark.parametrize("path", PATHS)
def test_search_breaks_ties_by_index_across_blocks(path):
    # x in every third doc, y in the rest; idf(y) = -idf(x), so the mean idf is 0 and y weighs 0.
    docs = [["x"] if i % 3 == 0 else ["y"] for i in range(7000)]
    index = BM25Index.build(docs)
    assert index.weights[index.indptr[index.vocab["y"]]] == 0.0
    x_docs, y_docs = list(range(0, 7000, 3)), [i for i in range(7000) if i % 3]
    with search_path(path):
        indices, values = index.search([["x"], ["x", "y"]], depth=100)
        assert indices.tolist() == [x_docs[:100], x_docs[:100]]  # all x docs tie: lowest indices win
        assert np.all(values == values[0, 0]) and values[0, 0] > 0
        # every doc holds a query term: 2334 x docs, then the y docs (score 0) in index order
        deep_idx, deep_val = index.search([["x", "y"]], depth=3000)
    assert deep_idx[0].tolist() == x_docs + y_docs[:666]
    assert np.all(deep_val[0, 2334:] == 0.0)


@pytest.mark.parametrize("path", PATHS)
def test_search_keeps_negative_scores_of_matching_docs_only(path):
    docs = [["a", "b"]] * 9 + [["c"]]  # idf(a) < 0, and the mean idf < 0: a's floored weight is negative
    index = BM25Index.build(docs)
    ref = BM25Okapi(docs).get_scores(["a"])
    with search_path(path):
        indices, values = index.search([["a"]], depth=10)
    assert indices.tolist() == [list(range(9)) + [-1]]  # doc 9 scores 0 > a's score but lacks "a"
    assert values[0, :9].tolist() == ref[:9].tolist() and ref[0] < 0 and np.isneginf(values[0, 9])


def test_search_runs_the_c_kernel_where_it_was_built(monkeypatch):
    calls = []
    kernel = compiled.search
    monkeypatch.setattr(compiled, "search", lambda *args: calls.append(args) or kernel(*args))
    index = BM25Index.build(CORPUS)
    indices, _ = index.search([["mat", "end"], ["zzz"]], 2)
    assert len(calls) == (compiled.LOOPS is not None)  # once for the batch with the extension, never without
    assert indices.tolist() == [[3, 0], [-1, -1]]  # mat (doc 0) and end (doc 3) weigh alike but doc 3 is shorter


def test_without_the_extension_search_runs_the_numpy_loop_with_the_same_results():
    # N = 5, avgdl = 1.6; x and y: idf ln(3.5/2.5); per unit idf, doc 0 (x and y, dl 2) scores
    # 2 * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 2/1.6)) = 1.80, doc 1 (y, dl 1) 1.20, doc 2 (x twice, dl 3) 1.11
    docs = [["x", "y"], ["y"], ["x", "x", "z"], ["w"], ["v"]]
    code = (
        "import json, sys\n"
        "sys.modules['rag_bench.index.bm25._loops'] = None  # as without a C compiler: the import raises ImportError\n"
        "from rag_bench.index.bm25 import compiled, index\n"
        "idx, val = index.BM25Index.build(json.loads(sys.argv[1])).search([['x', 'y'], ['z'], ['q']], 3)\n"
        "print(json.dumps([compiled.LOOPS is None, idx.tolist(), val.tolist()]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(docs)], capture_output=True, text=True, timeout=120, check=True
    )
    no_loops, indices, values = json.loads(done.stdout)
    want_idx, want_val = _oracle_search(docs, [["x", "y"], ["z"], ["q"]], 3)
    assert no_loops is True
    assert indices == want_idx.tolist() == [[0, 1, 2], [2, -1, -1], [-1, -1, -1]]
    assert values == want_val.tolist()


@pytest.mark.parametrize("limit", [0, 20, 30])  # as past 2**32 (term, doc) pairs: blocks of documents
def test_postings_in_blocks_of_documents_build_the_same_index(monkeypatch, limit):
    rng = np.random.default_rng(3)
    docs = [[f"t{x}" for x in row[: rng.integers(0, 12)]] for row in rng.zipf(1.3, (40, 12)) % 9]
    whole = BM25Index.build(docs)
    monkeypatch.setattr(bm25_module, "KEY32_LIMIT", limit)  # up to 9 terms: blocks of 1 to 3+ documents
    blocks = BM25Index.build(docs)
    for name in ("indptr", "doc_ids", "weights", "idf", "doc_len"):
        assert np.array_equal(getattr(whole, name), getattr(blocks, name))
        assert getattr(whole, name).dtype == getattr(blocks, name).dtype
