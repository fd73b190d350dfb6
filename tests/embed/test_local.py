import hashlib
from importlib import resources

import numpy as np
import pytest

from rag_bench.embed.local import MAX_TOKENS, TOKENIZER_SHA256, MiniLMEmbedder, load_tokenizer, token_batches


@pytest.fixture(scope="module")
def model():
    return MiniLMEmbedder(threads=1)


def test_bundled_tokenizer_is_the_pinned_file():
    blob = resources.files("rag_bench.embed").joinpath("data/all-MiniLM-L6-v2/tokenizer.json").read_bytes()
    assert hashlib.sha256(blob).hexdigest() == TOKENIZER_SHA256


def test_padding_is_off_and_truncation_is_256():
    tokenizer = load_tokenizer(MAX_TOKENS)
    assert len(tokenizer.encode("hello world").ids) == 4  # [CLS] hello world [SEP], not padded to 128
    assert len(tokenizer.encode("word " * 1000).ids) == 256


def test_vectors_are_unit_length_and_similar_texts_are_closer(model):
    v = model.embed(["The cat sits on the mat.", "A cat is sitting on a mat.", "Quarterly revenue rose."])
    assert v.shape == (3, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.3


def test_batching_does_not_change_vectors(model):
    texts = [f"sentence number {i} about topic {i % 3}" for i in range(40)]
    together = model.embed(texts)
    alone = np.stack([model.embed([t])[0] for t in texts[:3]])
    np.testing.assert_allclose(together[:3], alone, atol=1e-5)


def test_token_counts_and_spans(model):
    assert model.count_tokens(["hello world", "word " * 300]).tolist() == [4, 302]
    text = "Incident INC-2023-Q4-011"
    spans = model.token_spans(text)
    assert spans[0].tolist() == [0, 8] and spans[-1][1] == len(text)


def test_token_batches_by_hand():
    # lengths [5, 300, 200, 6], budget 512: sorted 5, 6, 200, 300; 2 x 6 = 12 fits, 3 x 200 = 600 does not,
    # 2 x 300 = 600 does not: [[0, 3], [2], [1]]
    assert [b.tolist() for b in token_batches([5, 300, 200, 6], 512)] == [[0, 3], [2], [1]]
    assert [b.tolist() for b in token_batches([600], 512)] == [[0]]  # longer than the budget: alone
    assert token_batches([], 512) == []
    lengths = [3, 9, 9, 1, 40, 2, 17, 9]
    batches = token_batches(lengths, 32)
    assert sorted(i for b in batches for i in b.tolist()) == list(range(8))  # every text once
    assert all(len(b) * max(lengths[i] for i in b) <= 32 or len(b) == 1 for b in batches)


def test_vectors_do_not_depend_on_threads_or_batching(model):
    texts = [f"passage {i}: " + "the incident report names the affected service " * (i % 7) for i in range(50)]
    alone = np.stack([model.embed([t])[0] for t in texts])  # one text per call, one thread
    together = MiniLMEmbedder(threads=2).embed(texts)  # batched by token budget, two batches at a time
    assert np.array_equal(alone, together)  # bit for bit
    assert model.embed([]).shape == (0, 384)


class Counting:
    """A tokenizer that records the texts it encodes (``encode_batch``), else the tokenizer itself."""

    def __init__(self, inner, seen):
        self.inner, self.seen = inner, seen

    def encode_batch(self, texts):
        self.seen.extend(texts)
        return self.inner.encode_batch(texts)


def test_each_text_is_tokenized_once_and_its_ids_are_the_truncating_tokenizers():
    model = MiniLMEmbedder(threads=1)
    full, cut = [], []
    model.__dict__["_counter"] = Counting(load_tokenizer(None), full)
    model.__dict__["_tokenizer"] = Counting(load_tokenizer(MAX_TOKENS), cut)
    texts = ["hello world", "word " * 300, "Incident INC-2023-Q4-011 " * 20, "word " * 254, "word " * 255]
    vectors = model.embed(texts)
    assert full == texts and cut == ["word " * 300, "word " * 255]  # longer than 256 tokens: encoded again, cut
    assert model._token_ids(texts) == [e.ids for e in load_tokenizer(MAX_TOKENS).encode_batch(texts)]
    assert np.array_equal(vectors, np.stack([MiniLMEmbedder(threads=1).embed([t])[0] for t in texts]))
    full.clear()
    counts = model.count_tokens([*texts, "not embedded yet"])  # the kept counts; the new text is counted
    assert counts.tolist() == [4, 302, 222, 256, 257, 5] and full == ["not embedded yet"]
    assert counts.tolist() == [len(e.ids) for e in load_tokenizer(None).encode_batch([*texts, "not embedded yet"])]


def test_counts_past_the_kept_number_start_afresh_and_are_counted_again(monkeypatch):
    from rag_bench.embed import onnx

    monkeypatch.setattr(onnx, "COUNTS_KEPT", 2)
    model = MiniLMEmbedder(threads=1)
    model.embed(["one", "two words", "three more words"])
    model.embed(["four"])  # past two kept counts: the three are dropped, "four" kept
    assert set(model._counts) == {"four"}
    assert model.count_tokens(["one", "two words", "four"]).tolist() == [3, 4, 3]  # [CLS] ... [SEP]
