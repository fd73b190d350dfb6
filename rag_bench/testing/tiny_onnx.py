"""Tiny ONNX models and tokenizers built on the spot, for tests of ``embedder=onnx`` and ``reranker=onnx``.

Nothing is downloaded: the graphs are made with the ``onnx`` package (a test dependency) and the tokenizer
with ``tokenizers``, so every output can be worked out by hand:

- ``embedding_model``: ``last_hidden_state[b, t] = table[input_ids[b, t]]`` (a lookup), so mean pooling
  gives the mean of the rows of the text's tokens ([CLS] and [SEP] included) and CLS pooling row 1;
- ``cross_encoder``: ``logits[b, 0] = sum over tokens of weight[input_ids] x attention_mask x token_type_ids``,
  the sum of the weights of the passage's tokens (the second segment, its [SEP] included).

The tokenizer is a whitespace word-level one over ``VOCAB`` with BERT's templates:
``[CLS] a [SEP]`` and, for pairs, ``[CLS] a [SEP] b [SEP]`` with type ids 0 then 1.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SPECIAL = ["[PAD]", "[CLS]", "[SEP]", "[UNK]"]
WORDS = ["audit", "fee", "rose", "revenue", "fell", "the", "what", "was", "report", "incident"]
VOCAB = {word: i for i, word in enumerate(SPECIAL + WORDS)}


def save_tokenizer(folder: Path) -> Path:
    """Write ``tokenizer.json`` (word level over ``VOCAB``, BERT templates) into ``folder``."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    tokenizer = Tokenizer(models.WordLevel(VOCAB, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", VOCAB["[CLS]"]), ("[SEP]", VOCAB["[SEP]"])],
    )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tokenizer.json"
    tokenizer.save(str(path))
    return path


def embedding_model(folder: Path, table: np.ndarray, with_token_types: bool = False) -> Path:
    """Write ``model.onnx``: (batch, tokens) ids -> (batch, tokens, dim) rows of ``table`` (vocab, dim)."""
    from onnx import TensorProto, helper, numpy_helper

    inputs = [_ids("input_ids"), _ids("attention_mask")] + ([_ids("token_type_ids")] if with_token_types else [])
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "input_ids"], ["last_hidden_state"])],
        "tiny-embedder",
        inputs,
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "tokens", table.shape[1]])],
        [numpy_helper.from_array(np.asarray(table, np.float32), "table")],
    )
    return _save(graph, folder)


def cross_encoder(folder: Path, weights: np.ndarray) -> Path:
    """Write ``model.onnx``: the sum of ``weights[id]`` over the second segment's tokens, as (batch, 1) logits."""
    from onnx import TensorProto, helper, numpy_helper

    nodes = [
        helper.make_node("Gather", ["weights", "input_ids"], ["per_token"]),  # (batch, tokens)
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["token_type_ids"], ["second"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["per_token", "mask"], ["kept"]),
        helper.make_node("Mul", ["kept", "second"], ["passage"]),
        helper.make_node("ReduceSum", ["passage", "axes"], ["logits"], keepdims=1),  # (batch, 1)
    ]
    graph = helper.make_graph(
        nodes,
        "tiny-cross-encoder",
        [_ids("input_ids"), _ids("attention_mask"), _ids("token_type_ids")],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        [
            numpy_helper.from_array(np.asarray(weights, np.float32), "weights"),
            numpy_helper.from_array(np.array([1], np.int64), "axes"),
        ],
    )
    return _save(graph, folder)


def _ids(name: str):
    from onnx import TensorProto, helper

    return helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])


def _save(graph, folder: Path) -> Path:
    import onnx
    from onnx import helper

    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "model.onnx"
    onnx.save(model, str(path))
    return path
