"""embedder=onnx: a tiny model built in the test with the ``onnx`` package (no download), and the MiniLM folder."""

import shutil

import numpy as np
import pytest

from rag_bench.core.errors import ConfigError
from rag_bench.embed.local import MiniLMEmbedder, model_path, tokenizer_blob
from rag_bench.embed.registry import EMBEDDERS
from rag_bench.testing.tiny_onnx import VOCAB, embedding_model, save_tokenizer

DIM = 4


@pytest.fixture
def table():
    rng = np.random.default_rng(7)
    return rng.normal(size=(len(VOCAB), DIM)).astype(np.float32)


@pytest.fixture
def folder(tmp_path, table):
    embedding_model(tmp_path / "tiny", table)
    save_tokenizer(tmp_path / "tiny")
    return tmp_path / "tiny"


def unit(v):
    return v / np.linalg.norm(v)


def test_mean_pooling_is_the_mean_of_the_token_rows(folder, table):
    model = EMBEDDERS.build(EMBEDDERS.settings("onnx", path=str(folder), threads=1))
    got = model.embed(["audit fee", "the incident report"], "document")
    cls, sep = VOCAB["[CLS]"], VOCAB["[SEP]"]
    first = table[[cls, VOCAB["audit"], VOCAB["fee"], sep]].mean(axis=0)
    second = table[[cls, VOCAB["the"], VOCAB["incident"], VOCAB["report"], sep]].mean(axis=0)
    np.testing.assert_allclose(got, np.stack([unit(first), unit(second)]), atol=1e-6)
    assert model.dimension == DIM and model.name == f"onnx/tiny@{DIM}" and model.cache_name.startswith("onnx/tiny@4+")


def test_cls_pooling_max_length_and_no_normalisation(folder, table):
    cls = EMBEDDERS.build(EMBEDDERS.settings("onnx", path=str(folder), pooling="cls"))
    np.testing.assert_allclose(cls.embed(["fee rose"], "query")[0], unit(table[VOCAB["[CLS]"]]), atol=1e-6)
    raw = EMBEDDERS.build(EMBEDDERS.settings("onnx", path=str(folder), normalize=False, max_length=3))
    # cut at 3 tokens: [CLS] audit [SEP]
    expected = table[[VOCAB["[CLS]"], VOCAB["audit"], VOCAB["[SEP]"]]].mean(axis=0)
    np.testing.assert_allclose(raw.embed(["audit fee rose"], "document")[0], expected, atol=1e-6)
    assert raw.count_tokens(["audit fee rose"]).tolist() == [5]  # before the cut
    assert raw.cache_name != cls.cache_name  # settings are in the vectors' name


def test_a_model_with_token_type_ids_and_a_family_prefix(tmp_path, table):
    folder = tmp_path / "e5-tiny"
    embedding_model(folder, table, with_token_types=True)
    save_tokenizer(folder)
    model = EMBEDDERS.build(EMBEDDERS.settings("onnx", path=str(folder)))
    assert model.prefixes == {"query": "query: ", "document": "passage: "}  # the E5 family, by folder name
    # "query:" is split by the whitespace pre-tokenizer into "query" and ":", both unknown words
    unk = VOCAB["[UNK]"]
    expected = table[[VOCAB["[CLS]"], unk, unk, VOCAB["fee"], VOCAB["[SEP]"]]].mean(axis=0)
    np.testing.assert_allclose(model.embed(["fee"], "query")[0], unit(expected), atol=1e-6)


def test_the_minilm_folder_gives_the_local_embedders_vectors_bit_for_bit(tmp_path):
    folder = tmp_path / "all-MiniLM-L6-v2"
    folder.mkdir()
    shutil.copy(model_path(), folder / "model.onnx")
    (folder / "tokenizer.json").write_bytes(tokenizer_blob())
    model = EMBEDDERS.build(EMBEDDERS.settings("onnx", path=str(folder), max_length=256, threads=1))
    texts = [f"passage {i}: " + "the incident report names the affected service " * (i % 5) for i in range(12)]
    assert np.array_equal(model.embed(texts, "document"), MiniLMEmbedder(threads=1).embed(texts))


def test_missing_files_and_bad_settings_name_the_setting(tmp_path, folder):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match=r"embedder.path \(.*empty\) holds no model.onnx"):
        EMBEDDERS.build(EMBEDDERS.settings("onnx", path=str(tmp_path / "empty")))
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ConfigError, match=r"holds no tokenizer.json; save the model's tokenizer there"):
        EMBEDDERS.build(EMBEDDERS.settings("onnx", path=str(folder)))
    with pytest.raises(ConfigError, match=r"embedder.path must name the folder"):
        EMBEDDERS.build(EMBEDDERS.settings("onnx"))
    with pytest.raises(ConfigError, match=r"embedder.pooling \('max'\) must be one of: mean, cls"):
        EMBEDDERS.settings("onnx", pooling="max")
