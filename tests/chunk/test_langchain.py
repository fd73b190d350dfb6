import importlib.util
import re
import string

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_bench.chunk.langchain import SEPARATORS, cut_before, langchain_ranges, merge_splits
from rag_bench.chunk.units import measure
from rag_bench.testing import FakeEmbedder

ALPHABET = string.ascii_letters + "  ..!?,;\n#-_0123456789"
texts = st.text(alphabet=ALPHABET, min_size=0, max_size=600)
_CHAR = re.compile(r"\S")


def char_tokens(text):
    """A tokenizer with one token per non-space character: a split counts the same alone and in place."""
    return np.array([m.span() for m in _CHAR.finditer(text)], dtype=np.int64).reshape(-1, 2)


def texts_of(text, ranges):
    return [text[a:b].strip() for a, b in ranges if text[a:b].strip()]


def test_separator_opens_the_next_split():
    assert cut_before("a.b..c", 0, 6, ".") == [(0, 1), (1, 3), (3, 4), (4, 6)]
    assert cut_before(".ab", 0, 3, ".") == [(0, 3)]  # the empty split before it is dropped
    assert cut_before("a\n\n\nb\n\nc", 0, 8, "\n\n") == [(0, 1), (1, 5), (5, 8)]  # occurrences do not overlap
    assert cut_before("xab", 1, 3, "") == [(1, 2), (2, 3)]


def test_merge_in_characters_by_hand():
    # "ab", ". cd", ". ef" measure 2, 4, 4: 2 + 4 fits in 8, 2 + 4 + 4 = 10 does not
    text = "ab. cd. ef"
    assert texts_of(text, langchain_ranges(text, measure(text, "chars"), 8, 0)) == ["ab. cd", ". ef"]
    # with size 10 all three fit
    assert texts_of(text, langchain_ranges(text, measure(text, "chars"), 10, 0)) == ["ab. cd. ef"]


def test_overlap_drops_splits_from_the_front_by_hand():
    # chars, size 5, overlap 2: "a" 1, " b" 2, " c" 2 -> total 5; " d" would make 7, so "a b c" closes;
    # drop "a" (total 4 > 2), drop " b" (total 2, not > 2): " c" starts the next chunk, and so on.
    text = "a b c d e f"
    ranges = langchain_ranges(text, measure(text, "chars"), 5, 2)
    assert ranges == [(0, 5), (3, 7), (5, 9), (7, 11)]
    assert texts_of(text, ranges) == ["a b c", "c d", "d e", "e f"]


def test_special_tokens_count_once_per_split_and_once_per_join():
    # tokens with [CLS] and [SEP]: "a" costs 1 + 2, each " x" 1 + 2, each join 2 more.
    # "a" + " b" = 3 + 3 + 2 = 8 fits in 8; a third word would make 13. A count over the
    # whole chunk (rag-bench's recursive) fits 6 words in 8 tokens.
    text = "a b c d e f"
    units = measure(text, "tokens", FakeEmbedder().token_spans, special=2)
    assert texts_of(text, langchain_ranges(text, units, 8, 0)) == ["a b", "c d", "e f"]
    assert merge_splits([(0, 1), (1, 3)], units, 8, 0) == [(0, 3)]
    assert merge_splits([(0, 1), (1, 3), (3, 5)], units, 12, 0) == [(0, 3), (3, 5)]


def test_long_split_is_split_again_and_not_merged_with_its_neighbours():
    # chars, size 6, at "\n\n": "aa" (2), "\n\nbbb ccc dd" (12, too long), "\n\ne" (3).
    # The long split goes down to "\n" then " ": "\nbbb", " ccc", " dd"; " dd" + "\n\ne" would
    # fit in 6 but a too-long split's chunks are never merged with its neighbours.
    text = "aa\n\nbbb ccc dd\n\ne"
    ranges = langchain_ranges(text, measure(text, "chars"), 6, 0)
    assert ranges == [(0, 2), (2, 3), (3, 7), (7, 11), (11, 14), (14, 17)]
    assert texts_of(text, ranges) == ["aa", "bbb", "ccc", "dd", "e"]


def test_a_split_of_exactly_size_is_too_long():
    # " cd" measures 3 = size, so it is not a good split: it is cut into characters and merged again
    text = "ab cd"
    assert langchain_ranges(text, measure(text, "chars"), 3, 0) == [(0, 2), (2, 5)]
    assert langchain_ranges(text, measure(text, "chars"), 4, 0) == [(0, 2), (2, 5)]
    assert langchain_ranges(text, measure(text, "chars"), 6, 0) == [(0, 5)]


def test_empty_text_has_no_chunks():
    assert langchain_ranges("", measure("", "chars"), 5, 0) == []


@pytest.mark.skipif(
    importlib.util.find_spec("langchain_text_splitters") is None, reason="the LangChain oracle is not installed"
)
@settings(max_examples=200, deadline=None)
@given(
    text=texts,
    tokens=st.booleans(),
    size=st.integers(4, 80),
    overlap_share=st.floats(0, 0.9),
)
def test_same_chunks_as_langchain(text, tokens, size, overlap_share):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    overlap = int(overlap_share * size)
    if tokens:
        units = measure(text, "tokens", char_tokens, special=2)
        length = lambda s: len(_CHAR.findall(s)) + 2  # noqa: E731 - a length function with [CLS] and [SEP]
    else:
        units, length = measure(text, "chars"), len
    oracle = RecursiveCharacterTextSplitter(
        separators=list(SEPARATORS), keep_separator=True, chunk_size=size, chunk_overlap=overlap, length_function=length
    )
    assert texts_of(text, langchain_ranges(text, units, size, overlap)) == oracle.split_text(text)
