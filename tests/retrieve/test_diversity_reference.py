"""diversity=collapse|mmr against straightforward references on random lists (seeded): the same candidates
kept, in the same order, with the same scores.

Collapse's reference shingles each candidate with ``core.shingles.shingles`` and runs ``first_copies`` on
each list; MMR's picks one candidate at a time per question in plain Python over the cached vectors.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

from rag_bench.core.cache import DiskCache
from rag_bench.core.shingles import first_copies, shingles
from rag_bench.core.types import Chunk, Dataset
from rag_bench.core.workspace import Workspace
from rag_bench.embed.cached import embed_cached
from rag_bench.embed.store import text_key, vector_store
from rag_bench.index.bm25 import compiled
from rag_bench.retrieve.base import Candidates, Corpus
from rag_bench.retrieve.diversity import mmr, near
from rag_bench.retrieve.diversity.near import shingle_sets
from rag_bench.retrieve.diversity.registry import DIVERSIFIERS
from rag_bench.retrieve.resources import Resources
from rag_bench.testing import FakeEmbedder

sys.path.insert(0, str(Path(__file__).parent))  # random_lists
from random_lists import random_lists  # noqa: E402

WORDS = ["Alpha", "beta", "gamma", "delta", "STRASSE", "Straße", "ünï", "ΣΑΣ", "x", "\x00", "\x01"]
GAPS = [" ", "  ", "\n", "\t", "\x0b", "\x1c", "\u2003", "\u00a0", "\r\n"]


def random_texts(rng: np.random.Generator, n: int) -> list[str]:
    """Texts of a few words, near copies of each other (a word changed, added or dropped), exact copies,
    and texts of 0, 1 or 2 words; Unicode words and spaces, and the control characters 0x00 and 0x01."""
    texts: list[str] = []
    for _ in range(n):
        if texts and rng.random() < 0.4:
            words = str(rng.choice(texts)).split()
            if words and rng.random() < 0.7:
                words[int(rng.integers(len(words)))] = str(rng.choice(WORDS))
            texts.append(" ".join(words) if rng.random() < 0.5 else str(rng.choice(GAPS)).join(words))
            continue
        size = int(rng.choice([0, 1, 2, 3, 8, 20, 40]))
        parts = [str(rng.choice(WORDS)) + str(rng.choice(GAPS)) for _ in range(size)]
        texts.append(("" if rng.random() < 0.7 else " ") + "".join(parts))
    return texts


def random_found(rng: np.random.Generator, chunks: list[Chunk]) -> Candidates:
    return random_lists(rng, chunks, 8, 12, ties=0.2)


def reference_collapse(found: Candidates, threshold: float) -> list[list[tuple[int, float]]]:
    out = []
    for row, values in zip(found.indices, found.scores, strict=True):
        held = [(int(c), float(s)) for c, s in zip(row, values, strict=True) if c >= 0]
        copies = first_copies([shingles(found.chunks[c].text) for c, _ in held], threshold)
        out.append([pair for pair, copy in zip(held, copies, strict=True) if copy < 0])
    return out


def lists(found: Candidates) -> list[list[tuple[int, float]]]:
    rows = zip(found.indices, found.scores, strict=True)
    return [[(int(c), float(s)) for c, s in zip(r, v, strict=True) if c >= 0] for r, v in rows]


@pytest.mark.parametrize("path", ["shingle_sets", "number_words", "python"])
@pytest.mark.parametrize("seed", range(40))
def test_shingle_sets_equal_core_shingles(monkeypatch, seed, path):
    if path == "python":
        monkeypatch.setattr(compiled, "LOOPS", None)  # Python's split and hash
    texts = random_texts(np.random.default_rng(seed), 30)
    # the extension's shingle_sets, or its number_words and numpy (the path of a text UTF-8 cannot encode)
    values, offsets = (near._numpy_shingle_sets if path == "number_words" else shingle_sets)(texts)
    assert len(offsets) == len(texts) + 1
    for i, text in enumerate(texts):
        assert values[offsets[i] : offsets[i + 1]].tolist() == shingles(text).tolist(), repr(text)


def test_a_text_utf8_cannot_encode_is_shingled_as_python_does():
    texts = ["Alpha beta gamma", "a \udc80b c d", "x"]  # a lone surrogate: the C pass refuses it, numpy takes over
    values, offsets = shingle_sets(texts)
    for i, text in enumerate(texts):
        assert values[offsets[i] : offsets[i + 1]].tolist() == shingles(text).tolist()


@pytest.mark.parametrize("built", [True, False])
@pytest.mark.parametrize("seed", range(40))
def test_collapse_equals_first_copies_list_by_list(tmp_path, monkeypatch, seed, built):
    if not built:
        monkeypatch.setattr(compiled, "LOOPS", None)
    rng = np.random.default_rng(seed)
    chunks = [Chunk(f"d{i}", 0, len(t), t) for i, t in enumerate(random_texts(rng, 25))]
    res = Resources(Workspace(DiskCache(tmp_path)), Corpus("c", chunks), Dataset("t", (), ()))
    for threshold in (0.9, 0.5, 0.2, 1.0):
        collapse = DIVERSIFIERS.build(DIVERSIFIERS.settings("collapse", threshold=threshold), res)
        for _ in range(3):  # later lists reuse the sets of the texts shingled before
            found = random_found(rng, chunks)
            result = collapse.apply(found)
            expected = reference_collapse(found, threshold)
            assert lists(result) == expected
            dropped = [int((row >= 0).sum()) - len(kept) for row, kept in zip(found.indices, expected, strict=True)]
            assert result.stats.details["dropped_per_question"] == pytest.approx(np.mean(dropped))
            assert result.stats.details["questions_with_drops"] == int(np.count_nonzero(dropped))


def mmr_value(i, held, picked, rel, vectors, lambda_):
    """lambda rel(i) - (1 - lambda) max(0, highest cosine to a picked candidate)."""
    closest = max([0.0] + [float(vectors[held[i]] @ vectors[held[j]]) for j in picked])
    return lambda_ * rel[i] - (1 - lambda_) * closest


def reference_mmr(found: Candidates, vectors: dict[int, np.ndarray], lambda_: float) -> list[list[int]]:
    out = []
    for row, values in zip(found.indices, found.scores, strict=True):
        held = [int(c) for c in row if c >= 0]
        scores = [float(s) for c, s in zip(row, values, strict=True) if c >= 0]
        low, high = (min(scores), max(scores)) if scores else (0.0, 0.0)
        rel = [(s - low) / (high - low) if high > low else 1.0 for s in scores]
        picked, left = [], list(range(len(held)))
        while left:  # equal values: the higher-ranked candidate
            best = max(left, key=lambda i: (mmr_value(i, held, picked, rel, vectors, lambda_), -i))  # noqa: B023
            picked.append(best)
            left.remove(best)
        out.append([held[i] for i in picked])
    return out


@pytest.mark.parametrize("seed", range(15))
@pytest.mark.parametrize("small_blocks", [False, True])  # questions picked, and vectors gathered, a few at a time
def test_mmr_order_equals_a_pick_at_a_time_reference(tmp_path, monkeypatch, seed, small_blocks):
    if small_blocks:
        monkeypatch.setattr(mmr, "ROW_BLOCK", 3)
        monkeypatch.setattr(mmr, "GATHER_BYTES", 1)
    rng = np.random.default_rng(seed)
    texts = [f"passage {i} " + " ".join(rng.choice(["gateway", "firmware", "fleet"], 3)) for i in range(30)]
    chunks = [Chunk(f"d{i}", 0, len(t), t) for i, t in enumerate(texts)]
    embedder = FakeEmbedder(16)
    res = Resources(Workspace(DiskCache(tmp_path)), Corpus("c", chunks), Dataset("t", (), ()), embedder)
    store = vector_store(res.workspace, embedder, "document")
    unit = rng.standard_normal((len(chunks), 16)).astype(np.float32)  # random directions: no near-ties
    unit[7] = unit[3]  # but two equal vectors: exact ties, to the higher-ranked candidate
    store.commit([text_key(t) for t in texts], unit / np.linalg.norm(unit, axis=1, keepdims=True))
    matrix, stats = embed_cached(embedder, store, res.corpus.passages, "document", "matrix", memory_map=True)
    assert stats.embedded == 0  # the vectors above, as a dense index would have left them
    vectors = {i: np.asarray(matrix[i], dtype=np.float64) for i in range(len(chunks))}
    for lambda_ in (0.0, 0.3, 0.7, 1.0):
        found = random_found(rng, chunks)
        result = DIVERSIFIERS.build(DIVERSIFIERS.settings("mmr", lambda_=lambda_), res).apply(found)
        assert [[c for c, _ in row] for row in lists(result)] == reference_mmr(found, vectors, lambda_)


@pytest.mark.parametrize("seed", range(30))
def test_near_copies_in_c_equal_first_copies_row_by_row(monkeypatch, seed):
    """The extension's near_copies and the numpy copied() against first_copies on each row, thresholds down
    to near 0 (every shingle of a set is then in its prefix)."""
    rng = np.random.default_rng(seed)
    texts = random_texts(rng, 20)
    values, offsets = shingle_sets(texts)
    slots = rng.integers(-1, len(texts), size=(6, int(rng.integers(1, 12))))
    for threshold in (1.0, 0.9, 0.5, 0.2, 1e-12):
        expected = [
            [copy >= 0 for copy in first_copies([shingles(texts[s]) for s in row if s >= 0], threshold)]
            for row in slots.tolist()
        ]
        for path in ("c", "numpy"):
            if path == "numpy":
                monkeypatch.setattr(compiled, "LOOPS", None)
            flags = near.copied(slots, values, offsets, threshold)
            assert [f[row >= 0].tolist() for f, row in zip(flags, slots, strict=True)] == expected, path
            assert not flags[slots < 0].any()
            monkeypatch.undo()


def test_mmr_names_the_matrix_by_the_corpus_passages_it_holds(tmp_path):
    """The cached passage keys are trusted for a corpus key only when they count its chunks: a key reused for
    other chunks (a hand-built Corpus) hashes them again, and MMR still reads their own vectors."""
    rng = np.random.default_rng(5)
    embedder, cache = FakeEmbedder(16), DiskCache(tmp_path)
    for n in (30, 20):  # two corpora under one key, in one cache
        texts = [f"corpus of {n}, passage {i}" for i in range(n)]
        chunks = [Chunk(f"d{i}", 0, len(t), t) for i, t in enumerate(texts)]
        res = Resources(Workspace(cache), Corpus("c", chunks), Dataset("t", (), ()), embedder)
        store = vector_store(res.workspace, embedder, "document")
        unit = rng.standard_normal((n, 16)).astype(np.float32)
        store.commit([text_key(t) for t in texts], unit / np.linalg.norm(unit, axis=1, keepdims=True))
        matrix, _ = embed_cached(embedder, store, res.corpus.passages, "document", "matrix", memory_map=True)
        vectors = {i: np.asarray(matrix[i], dtype=np.float64) for i in range(n)}
        found = random_found(rng, chunks)
        result = DIVERSIFIERS.build(DIVERSIFIERS.settings("mmr", lambda_=0.5), res).apply(found)
        assert [[c for c, _ in row] for row in lists(result)] == reference_mmr(found, vectors, 0.5)
