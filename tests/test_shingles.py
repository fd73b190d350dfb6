"""Word 3-shingles and near-identical texts (core/shingles.py): hand-made values and a brute-force oracle."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_bench.core.shingles import first_copies, jaccard, shingles


def test_jaccard_by_hand():
    # "a b c d": {abc, bcd}; "a b c e": {abc, bce}: 1 shared of 3
    assert jaccard(shingles("a b c d"), shingles("a b c e")) == pytest.approx(1 / 3)
    # case and runs of whitespace do not matter; repeats count once: {abc, bcd, cda, dab} vs {abc, bcd}
    assert jaccard(shingles("A  b\nc d a b c"), shingles("a b c d")) == pytest.approx(2 / 4)
    assert jaccard(shingles("x y"), shingles("X y")) == 1.0  # short texts: one shingle of their words
    assert jaccard(shingles("x y"), shingles("x y z")) == 0.0
    assert jaccard(shingles(""), shingles("  ")) == 0.0 and len(shingles("")) == 0
    assert len(shingles("one two three four five")) == 3


def test_first_copies_by_hand():
    base = " ".join(f"w{i}" for i in range(40))
    near = base.replace("w20", "changed")  # 3 of 38 shingles differ: J = 35 / 41 = 0.854
    other = " ".join(f"v{i}" for i in range(40))
    sets = [shingles(t) for t in (base, other, base, near, other.upper())]
    assert jaccard(sets[0], sets[3]) == pytest.approx(35 / 41)
    assert first_copies(sets, 0.9).tolist() == [-1, -1, 0, -1, 1]
    assert first_copies(sets, 0.85).tolist() == [-1, -1, 0, 0, 1]
    assert first_copies([shingles(""), shingles("a b c"), shingles("")]).tolist() == [-1, -1, 0]


def brute(sets, threshold):
    out = []
    for i, a in enumerate(sets):
        found = -1
        for j in range(i):
            b = sets[j]
            same = (len(a) == 0 and len(b) == 0) or (len(a) + len(b) > 0 and jaccard(a, b) >= threshold)
            if same:
                found = j
                break
        out.append(found)
    return out


texts = st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), max_size=9).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(texts, max_size=12), st.sampled_from([0.2, 0.5, 0.75, 0.9, 1.0]))
def test_prefix_filtering_finds_every_pair_the_brute_force_finds(sample, threshold):
    sets = [shingles(t) for t in sample]
    assert first_copies(sets, threshold).tolist() == brute(sets, threshold)


def test_shingles_are_sorted_and_distinct():
    found = shingles("a b c a b c a b c")
    assert len(found) == 3 and len(np.unique(found)) == 3
    assert np.array_equal(found, np.sort(found))
