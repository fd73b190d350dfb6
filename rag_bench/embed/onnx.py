"""Sentence embeddings from an ONNX model on onnxruntime: any model exported to ONNX in a local folder
(``embedder=onnx embedder.path=FOLDER``), and the machinery the offline default (``local.py``) runs on.

The folder holds ``model.onnx`` (or ``embedder.model_file``) and the model's ``tokenizer.json``
(Hugging Face ``tokenizers`` format). A sentence vector is the model's output pooled over the tokens
(``mean``: mean of the last hidden states over the attention mask, as sentence-transformers' mean
pooling; ``cls``: the first token's state, as BGE and the E5 family's CLS models), or the output itself
when the model already returns one vector per text (a 2-d output); then L2-normalised unless
``normalize`` is false. Inputs are cut at ``max_length`` tokens, special tokens included.

Throughput (benchmarks/perf/bench_embed.py): texts are tokenized once, sorted by length and cut into
batches of at most ``TOKEN_BUDGET`` padded tokens, so a batch's activations stay in the core's cache.
Each batch runs on one onnxruntime thread and ``threads`` batches run at once from a small thread
pool on one session. A text's vector does not depend on its batch or on the thread count (bit for bit).
"""

from __future__ import annotations

import hashlib
import inspect
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from rag_bench.core.cache import digest, library_versions
from rag_bench.core.errors import ConfigError
from rag_bench.core.options import one_of
from rag_bench.embed.base import EmbedderConfig, normalise

# This file's code and ``normalise``, run by onnxruntime and tokenizers, turn weights and a tokenizer into
# vectors: their digest with those two versions is part of every ONNX model's vectors' name in the cache.
CODE_DIGEST = hashlib.sha256(
    Path(__file__).read_bytes()
    + inspect.getsource(normalise).encode()
    + repr(sorted(library_versions(("onnxruntime", "tokenizers")).items())).encode()
).hexdigest()[:12]
TOKEN_BUDGET = 512  # padded tokens per batch (rows x width); a longer text runs alone
POOLINGS = ("mean", "cls")
MAX_LENGTH = 1_000_000
COUNTS_KEPT = 250_000  # token counts an encoder keeps from its embedding for count_tokens (then starts afresh)


@dataclass
class OnnxConfig(EmbedderConfig):
    """A sentence-embedding model exported to ONNX, in a folder with its tokenizer.json (``embedder=onnx``)."""

    name: str = "onnx"
    model: str | None = None  # a label in names and reports; null = the folder's name
    path: str | None = None  # the folder holding model.onnx and tokenizer.json
    model_file: str = "model.onnx"  # the ONNX file in that folder
    pooling: str = "mean"  # mean (over the attention mask) or cls (the first token)
    normalize: bool = True  # L2-normalise each vector (inner product = cosine)
    max_length: int = 512  # tokens per input, special tokens included; longer inputs are cut
    threads: int | None = None  # batches run at once; null = one per core

    def __post_init__(self) -> None:
        EmbedderConfig.__post_init__(self)
        one_of("embedder.pooling", self.pooling, POOLINGS)
        if not 2 <= self.max_length <= MAX_LENGTH:
            raise ConfigError(f"embedder.max_length ({self.max_length}) must lie between 2 and {MAX_LENGTH}")
        if self.threads is not None and self.threads < 1:
            raise ConfigError(f"embedder.threads ({self.threads}) must be at least 1, or null for one per core")


def open_session(path: Path):
    """An onnxruntime session on the CPU that runs one batch on one thread (``OnnxEncoder`` runs several)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def tokenizer_from(blob: bytes, truncate: int | None):
    """A ``tokenizers`` tokenizer from a tokenizer.json's bytes, padding off, truncation at ``truncate`` (None: off)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_str(blob.decode("utf-8"))
    tokenizer.no_padding()
    if truncate is None:
        tokenizer.no_truncation()
    else:
        tokenizer.enable_truncation(max_length=truncate)
    return tokenizer


class OnnxEncoder:
    """Texts -> pooled, (normalised) vectors with an ONNX session and a tokenizer, batched by token budget."""

    special_tokens = 2  # [CLS] and [SEP] (or <s> and </s>)

    def __init__(
        self,
        session: Callable[[], object],
        tokenizer: Callable[[int | None], object],
        max_tokens: int,
        pooling: str = "mean",
        normalize: bool = True,
        threads: int | None = None,
    ) -> None:
        self._open_session, self._open_tokenizer = session, tokenizer
        self.max_tokens = max_tokens
        self.pooling, self.normalize = pooling, normalize
        self.threads = threads or os.cpu_count() or 1
        self._counts: dict[str, int] = {}  # tokens of each text embedded so far (before truncation), for count_tokens

    @cached_property
    def _session(self):
        return self._open_session()

    @cached_property
    def _inputs(self) -> set[str]:
        return {i.name for i in self._session.get_inputs()}

    @cached_property
    def _pool(self) -> ThreadPoolExecutor:
        return ThreadPoolExecutor(self.threads, thread_name_prefix="onnx-embed")

    @cached_property
    def _tokenizer(self):
        return self._open_tokenizer(self.max_tokens)

    @cached_property
    def _counter(self):
        return self._open_tokenizer(None)

    def embed(self, texts: Sequence[str], input_type: str = "document") -> np.ndarray:
        """(len(texts), dimension) float32 vectors; input types differ only by their prefixes (``prefixes.py``)."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        ids = self._token_ids(list(texts))
        batches = token_batches([len(row) for row in ids], TOKEN_BUDGET)
        run = self._pool.map if self.threads > 1 and len(batches) > 1 else map
        parts = list(run(lambda b: self._embed_ids(ids, b), batches))
        out = np.zeros((len(texts), parts[0].shape[1]), dtype=np.float32)
        for rows, vectors in zip(batches, parts, strict=True):
            out[rows] = vectors
        return out

    def _token_ids(self, texts: list[str]) -> list[list[int]]:
        """Each text's ids as the truncating tokenizer makes them, each text tokenized once (then kept for
        ``count_tokens``): the counting tokenizer's ids are the same for a text within ``max_tokens``
        (truncation changes nothing there), so only longer texts go through the truncating one."""
        ids = [e.ids for e in self._counter.encode_batch(texts)]
        if len(self._counts) > COUNTS_KEPT:  # a long sweep's many chunkings: keep the latest
            self._counts.clear()
        self._counts.update(zip(texts, map(len, ids), strict=True))
        long = [i for i, row in enumerate(ids) if len(row) > self.max_tokens]
        if long:
            for i, encoding in zip(long, self._tokenizer.encode_batch([texts[i] for i in long]), strict=True):
                ids[i] = encoding.ids
        return ids

    def count_tokens(self, texts: Sequence[str]) -> np.ndarray:
        """Tokens per text before truncation, special tokens included (the counts ``embed`` kept, else counted)."""
        counts = [self._counts.get(t, -1) for t in texts]
        missing = [i for i, n in enumerate(counts) if n < 0]
        if missing:
            for i, encoding in zip(missing, self._counter.encode_batch([texts[i] for i in missing]), strict=True):
                counts[i] = len(encoding.ids)
        return np.array(counts, dtype=np.int64)

    def token_spans(self, text: str) -> np.ndarray:
        """(n_tokens, 2) character offsets of the tokens of ``text`` (no special tokens)."""
        enc = self._counter.encode(text, add_special_tokens=False)
        return np.array(enc.offsets, dtype=np.int64).reshape(-1, 2)

    def _embed_ids(self, ids: list[list[int]], rows: np.ndarray) -> np.ndarray:
        """Pooled vectors of the token id lists ``ids[rows]``: (len(rows), dimension)."""
        width = max(len(ids[r]) for r in rows)
        batch = np.zeros((len(rows), width), dtype=np.int64)  # (batch, tokens), 0 = padding
        mask = np.zeros_like(batch)
        for row, r in enumerate(rows.tolist()):
            batch[row, : len(ids[r])] = ids[r]
            mask[row, : len(ids[r])] = 1
        feed = {"input_ids": batch, "attention_mask": mask, "token_type_ids": np.zeros_like(batch)}
        hidden = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        if hidden.ndim == 2:  # the model pools itself: (batch, dimension)
            pooled = hidden
        elif self.pooling == "cls":
            pooled = hidden[:, 0]
        else:  # (batch, tokens, dimension) summed over the mask
            pooled = (hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        return normalise(pooled) if self.normalize else np.asarray(pooled, dtype=np.float32)


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


class OnnxEmbedder(OnnxEncoder):
    """A model in a folder (``embedder=onnx``), named by its label and dimension, its vectors by its files too."""

    def __init__(self, cfg: OnnxConfig, folder: Path, model_bytes: bytes, tokenizer_blob: bytes) -> None:
        super().__init__(
            lambda: open_session(folder / cfg.model_file),
            lambda truncate: tokenizer_from(tokenizer_blob, truncate),
            cfg.max_length,
            cfg.pooling,
            cfg.normalize,
            cfg.threads,
        )
        self.dimension = int(self.embed(["dimension"]).shape[1])
        label = cfg.model or folder.name
        self.model = label
        self.name = f"onnx/{label}@{self.dimension}"
        files = (hashlib.sha256(model_bytes).hexdigest(), hashlib.sha256(tokenizer_blob).hexdigest())
        settings = (cfg.pooling, cfg.normalize, cfg.max_length)
        self.cache_name = f"{self.name}+{digest(files, settings, CODE_DIGEST)[:12]}"


def build(cfg: OnnxConfig) -> OnnxEmbedder:
    """The embedder an ``OnnxConfig`` describes; ConfigError naming the setting when the folder lacks a file."""
    if not cfg.path:
        raise ConfigError("embedder.path must name the folder of the ONNX model for embedder=onnx")
    folder = Path(cfg.path).expanduser()
    model, tokenizer = folder / cfg.model_file, folder / "tokenizer.json"
    if not folder.is_dir():
        raise ConfigError(f"embedder.path ({cfg.path}) is not a folder; set it to the folder holding {cfg.model_file}")
    if not model.is_file():
        raise ConfigError(
            f"embedder.path ({cfg.path}) holds no {cfg.model_file}; export the model there, or set "
            "embedder.model_file to the ONNX file's name"
        )
    if not tokenizer.is_file():
        raise ConfigError(
            f"embedder.path ({cfg.path}) holds no tokenizer.json; save the model's tokenizer there "
            "(tokenizer.save_pretrained(folder) writes it)"
        )
    try:
        return OnnxEmbedder(cfg, folder, model.read_bytes(), tokenizer.read_bytes())
    except ConfigError:
        raise
    except Exception as exc:  # onnxruntime's and tokenizers' own errors: a file that is not what it should be
        raise ConfigError(
            f"embedder.path ({cfg.path}): the model or tokenizer.json cannot be used: "
            f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        ) from None
