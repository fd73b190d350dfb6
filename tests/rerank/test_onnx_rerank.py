"""reranker=onnx: a tiny cross-encoder built in the test with the ``onnx`` package (no download)."""

import numpy as np
import pytest

from rag_bench.core.cache import DiskCache
from rag_bench.core.errors import ConfigError
from rag_bench.core.workspace import Workspace
from rag_bench.rerank.base import rerank
from rag_bench.rerank.registry import RERANKERS
from rag_bench.testing.tiny_onnx import VOCAB, cross_encoder, save_tokenizer


@pytest.fixture
def folder(tmp_path):
    weights = np.zeros(len(VOCAB), np.float32)
    weights[VOCAB["audit"]], weights[VOCAB["fee"]], weights[VOCAB["rose"]] = 2.0, 1.0, 0.25
    weights[VOCAB["[SEP]"]] = 0.5
    cross_encoder(tmp_path / "tiny-ce", weights)
    save_tokenizer(tmp_path / "tiny-ce")
    return tmp_path / "tiny-ce"


def test_a_pair_scores_the_weights_of_its_passage_tokens(folder, tmp_path):
    model = RERANKERS.build(RERANKERS.settings("onnx", path=str(folder)), Workspace(DiskCache(tmp_path / "c")))
    scores = model.score("what fee", ["audit fee rose", "revenue fell", "fee", "audit audit"])
    # second segment: passage words and its closing [SEP] (0.5); the question's words never count
    np.testing.assert_allclose(scores, [2 + 1 + 0.25 + 0.5, 0.5, 1 + 0.5, 4 + 0.5])
    assert model.name == "onnx/tiny-ce"


def test_scores_are_cached_per_question_and_passage_and_max_length_cuts_the_passage(folder, tmp_path):
    ws = Workspace(DiskCache(tmp_path / "c"))
    ranked = np.array([[0, 1, 2]])
    passages = ["revenue fell", "audit fee rose", "fee"]
    first = RERANKERS.build(RERANKERS.settings("onnx", path=str(folder)), ws)
    out, scores = rerank(ranked, ["fee"], passages, first, depth=3)
    assert out[0].tolist() == [1, 2, 0] and first.usage.texts == 3
    again = RERANKERS.build(RERANKERS.settings("onnx", path=str(folder)), Workspace(DiskCache(tmp_path / "c")))
    rerank(ranked, ["fee"], passages, again, depth=2, keep=1)
    assert again.usage.texts == 0 and again.usage.cached == 2  # served from the disk cache
    cut = RERANKERS.build(RERANKERS.settings("onnx", path=str(folder), max_length=6), ws)
    # 6 tokens: the longer segment loses a token first, then each in turn: [CLS] what [SEP] audit fee [SEP]
    assert cut.score("what fee", ["audit fee rose"]).tolist() == [2 + 1 + 0.5]


def test_a_folder_without_tokenizer_json_names_the_setting(folder, tmp_path):
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ConfigError, match=r"reranker.path \(.*tiny-ce\) holds no tokenizer.json"):
        RERANKERS.build(RERANKERS.settings("onnx", path=str(folder)), Workspace(DiskCache(tmp_path)))
