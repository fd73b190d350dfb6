import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_bench.index.bm25 import terms as terms_module
from rag_bench.index.bm25.analyzers import ANALYZERS, english_tokens, identifier_tokens
from rag_bench.index.bm25.index import BM25Index
from rag_bench.index.bm25.terms import MARKER, corpus_terms, terms_of_tokens, word_codes

pytestmark = pytest.mark.usefixtures("indexing")  # every test on the numpy path and on the C loops

# Characters where per-word analysis could differ from whole-text analysis if whitespace were not a
# hard break: final sigma, dotted I, combining marks, curly apostrophes, joiners, odd whitespace, and
# control characters below and above the spaces' byte range that are not whitespace (\x01, \x0e, \x1b, \x7f).
ALPHABET = "aZ09Σσς İı\u0307\u0301'’._-/,;:!?()\n\t\u00a0\u2028\u3000\x1c\x0b\x1f\x01\x0e\x1b\x7f½²ßﬁ"


def test_worked_example():
    terms = corpus_terms(["ERR_4021 at v1.2", "err_4021."], identifier_tokens)
    assert terms.vocab == {"err_4021": 0, "at": 1, "v1.2": 2}
    assert terms.term_of.tolist() == [0, 1, 2, 0] and terms.doc_len.tolist() == [3, 1]


def test_empty_texts_and_words_without_terms():
    terms = corpus_terms(["", "-- !!", "a", "   ", "b a"], identifier_tokens)
    assert terms.doc_len.tolist() == [0, 0, 1, 0, 2]
    assert terms.term_of.tolist() == [0, 1, 0] and terms.vocab == {"a": 0, "b": 1}
    none = corpus_terms([], identifier_tokens)
    assert none.doc_len.tolist() == [] and none.term_of.tolist() == [] and none.vocab == {}


def test_a_text_holding_the_marker_is_analyzed_text_by_text():
    texts = ["x \x00 y", "y\x00z"]
    assert MARKER == "\x00"
    terms = corpus_terms(texts, identifier_tokens)
    assert terms.doc_len.tolist() == [2, 2] and terms.term_of.tolist() == [0, 1, 1, 2]


# Analyzers normalize the joined corpus once; a plain function is called on each raw word.
ANALYZE = {**ANALYZERS, "identifier_tokens": identifier_tokens, "english_tokens": english_tokens}


@pytest.mark.parametrize("name", sorted(ANALYZE))
@settings(max_examples=150, deadline=None)
@given(texts=st.lists(st.text(alphabet=ALPHABET, max_size=60), max_size=8))
def test_equals_analyzing_each_text_on_its_own(name, texts):
    analyze = ANALYZE[name]
    want = terms_of_tokens([analyze(t) for t in texts])
    got = corpus_terms(texts, analyze)
    assert got.vocab == want.vocab and list(got.vocab) == list(want.vocab)  # same ids, same order
    assert np.array_equal(got.term_of, want.term_of) and np.array_equal(got.doc_len, want.doc_len)


def test_from_texts_builds_the_same_index_as_build():
    texts = ["The cat sat on the mat.", "INC-2023-Q4-011: the dog's ERR_4021", "", "cats, dogs; v1.2.3"]
    for analyze in (identifier_tokens, english_tokens):
        a = BM25Index.from_texts(texts, analyze)
        b = BM25Index.build([analyze(t) for t in texts])
        assert a.vocab == b.vocab
        for name in ("indptr", "doc_ids", "weights", "idf", "doc_len"):
            assert np.array_equal(getattr(a, name), getattr(b, name))


def test_from_texts_rejects_one_string():
    with pytest.raises(TypeError, match="not one string"):
        BM25Index.from_texts("one text", identifier_tokens)


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(st.text(alphabet=ALPHABET + "abcdefghij" * 3, max_size=40), max_size=12), parts=st.integers(2, 5))
def test_word_codes_are_the_same_for_any_number_of_pieces(texts, parts):
    text = " ".join(texts)
    codes, words = word_codes(text, 1)
    assert [words[c] for c in codes] == text.split()  # every word, numbered by first appearance
    assert words == list(dict.fromkeys(text.split()))
    split_codes, split_words = word_codes(text, parts)
    assert split_words == words and np.array_equal(split_codes, codes)


def test_a_long_corpus_is_numbered_in_pieces_with_the_same_result(monkeypatch, indexing):
    if indexing == "c":
        pytest.skip("pieces in threads are the numpy path's (the C loops number the corpus in one pass)")
    texts = [f"w{i % 97} x{i % 13}.  long-word-number-{i % 31}\tw{i % 7}" for i in range(3_000)]
    want = corpus_terms(texts, identifier_tokens)
    pieces, ranges = [], terms_module._word_ranges
    monkeypatch.setattr(terms_module, "_word_ranges", lambda data, lo, hi: pieces.append(lo) or ranges(data, lo, hi))
    monkeypatch.setattr(terms_module, "PART_BYTES", 1_000)
    monkeypatch.setattr(terms_module, "THREADS", 4)
    got = corpus_terms(texts, identifier_tokens)  # ~130 KB of text: four pieces, in threads
    assert len(pieces) == 4
    assert got.vocab == want.vocab and list(got.vocab) == list(want.vocab)
    assert np.array_equal(got.term_of, want.term_of) and np.array_equal(got.doc_len, want.doc_len)


@pytest.mark.parametrize("parts", [1, 3])
def test_word_codes_split_at_every_space_str_split_knows(parts):
    # Every code point str.split() splits at (29 in Python 3.11), each between two non-ASCII words.
    spaces = [chr(c) for c in range(0x110000) if chr(c).isspace()]
    text = "".join(f"wörd{i}{space}" for i, space in enumerate(spaces)) + "é\u00a0é"
    codes, words = word_codes(text, parts)
    assert [words[c] for c in codes] == text.split()
