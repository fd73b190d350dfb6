"""The C paths of diversity=collapse at their edges, against ``core.shingles`` (Python's split, lower and hash):
words at the 8-byte short-word limit and around the 64-byte blocks the words are found in, words that end in
NUL, repeated shingles (and a text of one shingle repeated, whose values do not spread over buckets), and the
pair search over rows whose prefix counts differ (its table grown mid-call, kept from row to row)."""

import numpy as np
import pytest

from rag_bench.core.shingles import first_copies, shingles
from rag_bench.index.bm25 import compiled
from rag_bench.retrieve.diversity import near
from rag_bench.retrieve.diversity.collapse import ShingleStore

pytestmark = pytest.mark.skipif(not compiled.built(), reason="the BM25 extension is not built")

EDGE_WORDS = ["a", "abcdefgh", "ABCDEFGH", "abcdefghi", "a\x00", "\x00", "ab\x00c", "x", "Zz9", "résumé", "日本", "ÀB"]


def edge_texts(rng: np.random.Generator) -> list[str]:
    texts = []
    for _ in range(60):
        size = int(rng.choice([1, 2, 3, 7, 40, 120]))
        gaps = rng.choice([" ", "  ", "\n", "\t\x0b", "\x1f"], size)
        picks = rng.integers(0, len(EDGE_WORDS), size).tolist()  # (numpy's str arrays would drop a final NUL)
        texts.append("".join(EDGE_WORDS[w] + str(g) for w, g in zip(picks, gaps, strict=True)))
    for length in (62, 63, 64, 65, 127, 128, 129):  # a word across, or ending at, a 64-byte block's end
        texts.append("q" * (length - 1) + " tail")
        texts.append(("w" * 7 + " ") * (length // 8) + "W" * (length % 8))
    texts += ["same old phrase " * 50, "same " * 100, "", " \n ", "abcdefgh"]  # one shingle repeated: one bucket
    return texts


@pytest.mark.parametrize("seed", range(5))
def test_edge_texts_are_shingled_as_core_shingles_does(seed):
    texts = edge_texts(np.random.default_rng(seed))
    values, offsets = near.shingle_sets(texts)
    for i, text in enumerate(texts):
        assert values[offsets[i] : offsets[i + 1]].tolist() == shingles(text).tolist(), repr(text)


def test_a_text_of_one_repeated_shingle_is_one_value():
    values, offsets = near.shingle_sets(["same " * 100, "x y z " * 40])
    assert np.diff(offsets).tolist() == [1, 3]  # "same same same"; "x y z", "y z x", "z x y"


def test_a_store_numbers_a_text_given_twice_as_two_equal_sets_then_finds_it():
    store = ShingleStore()
    first = store.numbers(["a b c d", "x y", "a b c d"])
    assert first.tolist() == [0, 1, 2]
    assert store.values[store.offsets[0] : store.offsets[1]].tolist() == shingles("a b c d").tolist()
    assert store.values[store.offsets[2] : store.offsets[3]].tolist() == shingles("a b c d").tolist()
    later = store.numbers(["x y", "new text here", "a b c d"])
    assert later[1] == 3 and len(store.offsets) == 5  # only the new text shingled
    assert store.values[store.offsets[later[0]] : store.offsets[later[0] + 1]].tolist() == shingles("x y").tolist()
    assert store.values[store.offsets[later[2]] : store.offsets[later[2] + 1]].tolist() == shingles("a b c d").tolist()


@pytest.mark.parametrize("seed", range(10))
def test_rows_of_unequal_prefix_counts_pair_as_first_copies_does(seed):
    """Short and long texts (3 to 300 shingles), near copies of each other, in rows of 30; thresholds down to
    near 0 put whole sets in the prefixes, so the pair table grows between rows."""
    rng = np.random.default_rng(seed)
    base = [" ".join(f"t{int(w)}" for w in rng.integers(0, 50, int(n))) for n in rng.choice([5, 40, 300], 12)]
    texts = base + [t.replace("t1 ", "t99 ", 1) for t in base] + [base[0]] * 2
    values, offsets = near.shingle_sets(texts)
    slots = np.stack([rng.permutation(len(texts))[:30] for _ in range(8)])
    slots[rng.random(slots.shape) < 0.1] = -1
    for threshold in (0.9, 0.5, 1e-12):
        expected = [
            [copy >= 0 for copy in first_copies([shingles(texts[s]) for s in row if s >= 0], threshold)]
            for row in slots.tolist()
        ]
        flags = near.copied(slots, values, offsets, threshold)
        assert [f[row >= 0].tolist() for f, row in zip(flags, slots, strict=True)] == expected
