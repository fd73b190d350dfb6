"""The C loops of BM25 (rag_bench/index/_loops*.c: indexing, search) against the numpy code they replace."""

import json
import re
import subprocess
import sys
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_bench.index.bm25 import compiled
from rag_bench.index.bm25 import index as bm25_module
from rag_bench.index.bm25 import numpy_search as bm25_numpy
from rag_bench.index.bm25.analyzers import english_tokens, identifier_tokens
from rag_bench.index.bm25.index import BM25Index
from rag_bench.index.bm25.terms import MARKER, corpus_terms, word_codes

from .conftest import needs_loops

# Control characters that are whitespace (\x0b, \x1c, \x1f) and that are not (\x01, \x0e, \x1b, \x7f), the
# Unicode spaces word_codes maps to " ", and multi-byte characters (2, 3 and 4 bytes in UTF-8).
ALPHABET = "aZ09Σσς İı\u0307'’._-,\n\t\u00a0\u2028\u3000\x1c\x0b\x1f\x01\x0e\x1b\x7f½ßﬁ😀" + "abcdefgh" * 3
WORDS = st.one_of(
    st.text(alphabet=ALPHABET, max_size=12),
    st.text(alphabet="ab😀", min_size=9, max_size=60),  # past the 16 bytes a hash-table slot holds
    st.just(f" {MARKER} "),  # the marker as corpus_terms puts it between two texts
)
ASCII_SPACES = rb"[\t\n\x0b\x0c\r\x1c-\x1f ]+"  # what the C loops split bytes at


@contextmanager
def path(name):
    """BM25 indexing on the numpy code ("numpy") or on the C loops ("c")."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compiled, "LOOPS", compiled.LOOPS if name == "c" else None)
        yield


def numbered(raw: bytes) -> tuple[list[int], bytes]:
    """The oracle: each word's number by first appearance, and the distinct words joined by spaces."""
    words = [w for w in re.split(ASCII_SPACES, raw) if w]
    distinct = list(dict.fromkeys(words))
    number = {w: k for k, w in enumerate(distinct)}
    return [number[w] for w in words], b" ".join(distinct)


@needs_loops
def test_number_words_by_hand():
    codes, words = compiled.number_words(b" ab cd\tab")
    assert codes.dtype == np.int64 and codes.tolist() == [0, 1, 0] and words == ["ab", "cd"]
    codes, words = compiled.number_words("x \x00 é\x01 x\x1c\x00".encode())  # NUL, 0x01 are word bytes; 0x1c a space
    assert codes.tolist() == [0, 1, 2, 0, 1] and words == ["x", "\x00", "é\x01"]
    for empty in (b"", b"  \t\n\x1f"):
        codes, words = compiled.number_words(empty)
        assert codes.tolist() == [] and words == []


@needs_loops
def test_postings_by_hand():
    # doc 0 holds terms 1 0, doc 1 holds 1 1: term 0 in doc 0 once; term 1 in doc 0 once, doc 1 twice
    term, doc, tf = compiled.postings(np.array([1, 0, 1, 1]), np.array([2, 2]), 2)
    assert term.tolist() == [0, 1, 1] and doc.tolist() == [0, 0, 1] and tf.tolist() == [1, 1, 2]
    assert term.dtype == doc.dtype == tf.dtype == np.int64
    empty = compiled.postings(np.zeros(0, np.int64), np.zeros(3, np.int64), 4)  # three empty documents
    assert [a.tolist() for a in empty] == [[], [], []]


@needs_loops
@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(WORDS, max_size=40), parts=st.integers(1, 4))
def test_word_codes_equal_the_numpy_path(pieces, parts):
    text = " ".join(pieces)
    with path("c"):
        codes, words = word_codes(text)
    with path("numpy"):
        want_codes, want_words = word_codes(text, parts)
    assert words == want_words and codes.dtype == want_codes.dtype and np.array_equal(codes, want_codes)
    assert words == list(dict.fromkeys(text.split())) and [words[c] for c in codes] == text.split()


@needs_loops
@settings(max_examples=300, deadline=None)
@given(
    raw=st.binary(max_size=200)
    | st.lists(st.sampled_from([b"a", b"\x00", b"\x80", b"\xff", b" ", b"\x1f"])).map(b"".join)
)
def test_any_bytes_are_numbered_like_the_oracle(raw):
    codes, words = compiled.LOOPS.number_words(raw)  # invalid UTF-8 too: the words are not decoded here
    want_codes, want_words = numbered(raw)
    assert np.frombuffer(codes, dtype=np.int64).tolist() == want_codes and words == want_words


@needs_loops
def test_words_of_every_length_at_the_end_of_the_buffer_and_a_growing_table():
    for n in range(1, 40):  # the last word's bytes are read up to the buffer's end, never past it
        raw = b"yy " + b"y" * n
        codes, words = compiled.number_words(raw)
        assert codes.tolist() == ([0, 0] if n == 2 else [0, 1]) and words == list(dict.fromkeys(["yy", "y" * n]))
    rng = np.random.default_rng(7)
    vocabulary = [f"w{i}" + "é" * (i % 23) for i in range(30_000)]  # 30,000 distinct words of 2 to 48 bytes
    text = " ".join(vocabulary[i] for i in rng.zipf(1.2, 100_000) % len(vocabulary))
    codes, words = compiled.number_words(text.encode())
    with path("numpy"):
        want_codes, want_words = word_codes(text)
    assert len(words) > 1_000 and words == want_words and np.array_equal(codes, want_codes)


@needs_loops
@pytest.mark.parametrize("n_terms", [1, 2, 7, 300, 5_000])
@pytest.mark.parametrize("limit", [2**32, 0, 40])  # 0 and 40: the numpy path in blocks of 1 document, or a few
def test_postings_equal_the_numpy_path(monkeypatch, n_terms, limit):
    rng = np.random.default_rng(n_terms)
    for n_docs in (0, 1, 13, 400):
        doc_len = rng.integers(0, 30, n_docs) * (rng.random(n_docs) > 0.2)  # some empty documents
        term_of = rng.zipf(1.3, int(doc_len.sum())) % n_terms  # (n_tokens,) int64
        monkeypatch.setattr(bm25_module, "KEY32_LIMIT", limit)
        want = bm25_module._postings(term_of, doc_len, n_terms)
        got = compiled.postings(term_of, doc_len, n_terms)
        for a, b in zip(got, want, strict=True):
            assert a.dtype == b.dtype == np.int64 and np.array_equal(a, b)


@needs_loops
def test_bad_input_is_a_value_error():
    loops = compiled.LOOPS
    with pytest.raises(ValueError, match=r"term id outside \[0, n_terms\) \(n_terms = 2\)"):
        loops.postings(np.array([0, 2]), np.array([2]), 2)
    with pytest.raises(ValueError, match="doc_len must be >= 0 and sum to len"):
        loops.postings(np.array([0, 1]), np.array([3]), 2)
    with pytest.raises(ValueError, match="doc_len sums to 1, not len"):
        loops.postings(np.array([0, 1]), np.array([1]), 2)
    with pytest.raises(ValueError, match=r"n_terms \(-1\) must be >= 0"):
        loops.postings(np.array([], np.int64), np.array([], np.int64), -1)
    with pytest.raises(ValueError, match="term_of must be an aligned int64 buffer"):
        loops.postings(np.array([0], np.int32), np.array([1]), 2)


def corpus(seed: int, n: int) -> list[str]:
    """Texts with sentence case, punctuation, identifiers, non-ASCII words and odd whitespace."""
    rng = np.random.default_rng(seed)
    words = ["The", "cat", "sat,", "INC-2023-Q4-011", "ERR_4021.", "v1.2.3", "naïve", "Straße", "don’t", "ΣΊΣΥΦΟΣ"]
    words += [f"Item-{i}" for i in range(40)]
    spaces = [" ", " ", "  ", "\n", "\t", "\u00a0", "\u3000", "\x1c"]
    texts = []
    for k in rng.integers(0, 40, n):
        pairs = zip(rng.integers(0, len(words), k), rng.integers(0, len(spaces), k), strict=True)
        texts.append("".join(words[w] + spaces[s] for w, s in pairs))
    return texts


@needs_loops
@pytest.mark.parametrize("analyze", [identifier_tokens, english_tokens])
def test_the_whole_index_is_the_same_with_and_without_the_extension(analyze):
    texts = corpus(1, 500)
    with path("numpy"):
        want_terms, want = corpus_terms(texts, analyze), BM25Index.from_texts(texts, analyze)
    with path("c"):
        got_terms, got = corpus_terms(texts, analyze), BM25Index.from_texts(texts, analyze)
    assert list(got_terms.vocab.items()) == list(want_terms.vocab.items())
    assert np.array_equal(got_terms.term_of, want_terms.term_of) and np.array_equal(
        got_terms.doc_len, want_terms.doc_len
    )
    assert list(got.vocab.items()) == list(want.vocab.items()) and len(got.vocab) >= 40
    for name in ("indptr", "doc_ids", "weights", "idf", "doc_len"):
        assert getattr(got, name).dtype == getattr(want, name).dtype
        assert np.array_equal(getattr(got, name), getattr(want, name))


def test_without_the_extension_the_numpy_path_builds_the_index():
    # As on a machine without a C compiler: the import of rag_bench.index.bm25._loops fails.
    code = (
        "import json, sys\n"
        "sys.modules['rag_bench.index.bm25._loops'] = None  # 'import' now raises ImportError\n"
        "from rag_bench.index.bm25 import compiled\n"
        "from rag_bench.index.bm25.analyzers import identifier_tokens\n"
        "from rag_bench.index.bm25.index import BM25Index\n"
        "index = BM25Index.from_texts(json.loads(sys.argv[1]), identifier_tokens)\n"
        "print(json.dumps([compiled.LOOPS is None, compiled.built(), index.vocab, index.doc_ids.tolist()]))\n"
    )
    texts = ["b a", "", "a\u00a0c a"]
    done = subprocess.run([sys.executable, "-c", code, json.dumps(texts)], capture_output=True, text=True, check=True)
    no_loops, built, vocab, doc_ids = json.loads(done.stdout)
    assert no_loops is True and built is False
    assert vocab == {"b": 0, "a": 1, "c": 2} and doc_ids == [0, 0, 2, 2]  # b: doc 0; a: docs 0, 2; c: doc 2


def csr(postings: list[list[tuple[int, float]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(indptr, doc_ids int32, weights) of per-term [(doc, weight), ...] lists, each sorted by doc."""
    indptr = np.cumsum([0, *map(len, postings)]).astype(np.int64)
    docs = np.array([d for term in postings for d, _ in term], dtype=np.int32)
    weights = np.array([w for term in postings for _, w in term], dtype=np.float64)
    return indptr, docs, weights


def numpy_search(indptr, doc_ids, weights, per_query, n_docs, depth):
    """The numpy loop (``bm25_numpy``): the reference the C kernel must equal bit for bit."""
    indices = np.full((len(per_query), depth), -1, dtype=np.int64)
    values = np.full((len(per_query), depth), -np.inf, dtype=np.float64)
    positive = bm25_numpy.positive_terms(indptr, weights)
    bm25_numpy.search_batch(indptr, doc_ids, weights, positive, per_query, n_docs, indices, values)
    return indices, values


def same(got: tuple[np.ndarray, ...], want: tuple[np.ndarray, ...]) -> bool:
    """Arrays of the same dtype and shape with the same bytes (so 0.0 and -0.0 differ)."""
    pairs = zip(got, want, strict=True)
    return all(a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes() for a, b in pairs)


@needs_loops
def test_search_by_hand():
    # 4 documents; term 0 in docs 0 and 2 (weights 1.0, 2.0), term 1 in doc 2 (0.5): the query [1, 0]
    # sums doc 2 to 0.5 + 2.0 = 2.5 and doc 0 to 1.0; doc 1 and doc 3 hold no query term.
    index = csr([[(0, 1.0), (2, 2.0)], [(2, 0.5)]])
    indices, scores = compiled.search(*index, [[1, 0], [], [1]], 4, 3)
    assert indices.dtype == np.int64 and scores.dtype == np.float64 and indices.shape == scores.shape == (3, 3)
    assert indices.tolist() == [[2, 0, -1], [-1, -1, -1], [2, -1, -1]]
    assert scores.tolist() == [[2.5, 1.0, -np.inf], [-np.inf] * 3, [0.5, -np.inf, -np.inf]]
    indices[0, 0] = 7  # writable, as the numpy loop's arrays
    for depth in (0, 1):
        assert compiled.search(*index, [[0]], 4, depth)[0].tolist() == [[2][:depth]]
    assert compiled.search(*index, [], 4, 2)[0].shape == (0, 2)


@needs_loops
@pytest.mark.parametrize("weight", [1.0, 0.0, -0.5])  # all positive: the block scan; else the marked scan
def test_search_breaks_ties_by_index_in_every_branch(weight):
    # one term in every third of 2,000 documents, all with the same weight: 667 ties
    n_docs, docs = 2_000, list(range(0, 2_000, 3))
    index = csr([[(d, weight) for d in docs], [(5, 2.0)]])
    for per_query, depth in (([[0]], 100), ([[0]], 700), ([[1]], 3), ([[1, 0]], 10)):  # many postings, few
        got = compiled.search(*index, per_query, n_docs, depth)
        assert same(got, numpy_search(*index, per_query, n_docs, depth))
    indices, scores = compiled.search(*index, [[0]], n_docs, 100)
    assert indices[0].tolist() == docs[:100] and np.all(scores == weight)


# ties, the least positive double (its bits are 1), a tiny weight, zeros of both signs, a negative one
WEIGHTS = [2.5, 1.0, 1.0, 0.25, 5e-324, 1e-300, 0.0, -0.0, -0.75]


@needs_loops
@settings(max_examples=200, deadline=None)
@given(n_docs=st.integers(1, 3_000), seed=st.integers(0, 2**32 - 1), depth=st.integers(0, 60), wide=st.booleans())
def test_search_equals_the_numpy_loop_on_random_postings(n_docs, seed, depth, wide):
    rng = np.random.default_rng(seed)
    postings = []
    for density in rng.choice([0.002, 0.02, 0.3, 1.0], rng.integers(1, 7)):  # few postings (listed) to many (a scan)
        docs = np.flatnonzero(rng.random(n_docs) < density).tolist()
        kind = rng.integers(3)  # every weight > 0 (few values, many ties), any of WEIGHTS, or distinct > 0
        drawn = rng.uniform(0.1, 3.0, len(docs)) if kind == 2 else rng.choice(WEIGHTS[: 6 + 3 * kind], len(docs))
        postings.append(list(zip(docs, drawn.tolist(), strict=True)))
    per_query = [rng.integers(0, len(postings), rng.integers(0, 6)).tolist() for _ in range(6)]  # repeats too
    indptr, doc_ids, weights = csr(postings)
    want = numpy_search(indptr, doc_ids, weights, per_query, n_docs, depth)
    got = compiled.search(indptr, doc_ids.astype(np.int64) if wide else doc_ids, weights, per_query, n_docs, depth)
    assert same(got, want)


@needs_loops
def test_search_bad_input_is_a_value_error():
    search = compiled.LOOPS.search
    indptr, docs, weights = np.array([0, 2, 3]), np.array([0, 2, 2], np.int32), np.array([1.0, 2.0, 0.5])
    queries = (np.array([0, 1]), np.array([1]))  # term_ptr, terms: one query, term 1
    with pytest.raises(ValueError, match=r"terms holds a term id outside \[0, n_terms\) \(n_terms = 2\)"):
        search(indptr, docs, weights, queries[0], np.array([2]), 4, 3)
    with pytest.raises(ValueError, match=r"doc_ids holds a document outside \[0, n_docs\) \(n_docs = 2\)"):
        search(indptr, docs, weights, *queries, 2, 3)
    with pytest.raises(ValueError, match=r"indptr must be non-decreasing, within \[0, len\(weights\)\] \(3\)"):
        search(np.array([0, 4, 3]), docs, weights, *queries, 4, 3)
    with pytest.raises(ValueError, match=r"term_ptr must be non-decreasing, within \[0, len\(terms\)\] \(1\)"):
        search(indptr, docs, weights, np.array([0, 2]), queries[1], 4, 3)
    with pytest.raises(ValueError, match="doc_ids must be an aligned buffer of one int32 or int64 per weight"):
        search(indptr, docs.astype(np.int16), weights, *queries, 4, 3)
    with pytest.raises(ValueError, match="weights must be an aligned float64 buffer"):
        search(indptr, docs, weights.astype(np.float32)[:1], *queries, 4, 3)
    with pytest.raises(ValueError, match=r"n_docs \(4\) and depth \(-1\) must be >= 0"):
        search(indptr, docs, weights, *queries, 4, -1)
