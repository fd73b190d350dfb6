"""A cross-encoder exported to ONNX, from a local folder (``reranker=onnx reranker.path=FOLDER``).

The folder holds ``model.onnx`` and the model's ``tokenizer.json``. Each (question, passage) pair is
tokenized as one input (the tokenizer's pair template: ``[CLS] question [SEP] passage [SEP]`` for BERT
models, with token type ids), cut at ``max_length`` tokens (the longer segment loses a token first, as
sentence-transformers' CrossEncoder truncates), and the model's
logit is the score: a (batch, 1) output as is, or column 1 ("relevant") of a (batch, 2) one. Pairs
run in batches of at most ``TOKEN_BUDGET`` padded tokens on one onnxruntime session (``embed/onnx.py``),
``threads`` questions at a time. Scores go through the same per-(model, question, passage) cache as the
API rerankers' (``remote.py``), so one deep pass serves every shallower depth, across runs too.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from rag_bench.core.cache import digest
from rag_bench.core.errors import ConfigError
from rag_bench.core.workspace import Workspace
from rag_bench.embed.onnx import CODE_DIGEST, TOKEN_BUDGET, open_session, token_batches, tokenizer_from
from rag_bench.rerank.base import CutRerankerConfig
from rag_bench.rerank.remote import Batching, RemoteReranker


@dataclass
class OnnxRerankerConfig(CutRerankerConfig):
    """A cross-encoder exported to ONNX, in a folder with its tokenizer.json (``reranker=onnx``)."""

    name: str = "onnx"
    model: str | None = None  # a label in names and reports; null = the folder's name
    path: str | None = None  # the folder holding model.onnx and tokenizer.json
    model_file: str = "model.onnx"
    max_length: int = 512  # tokens per (question, passage) pair, special tokens included
    threads: int | None = None  # questions scored at once; null = one per core

    def __post_init__(self) -> None:
        CutRerankerConfig.__post_init__(self)
        if not 4 <= self.max_length <= 1_000_000:
            raise ConfigError(f"reranker.max_length ({self.max_length}) must lie between 4 and 1000000")
        if self.threads is not None and self.threads < 1:
            raise ConfigError(f"reranker.threads ({self.threads}) must be at least 1, or null for one per core")


class CrossEncoder:
    """Scores (question, passage) pairs with an ONNX cross-encoder (a ``remote.Transport`` that runs here)."""

    def __init__(self, folder: Path, cfg: OnnxRerankerConfig, tokenizer_blob: bytes) -> None:
        self._path = folder / cfg.model_file
        self._tokenizer = tokenizer_from(tokenizer_blob, cfg.max_length)

    @cached_property
    def _session(self):
        return open_session(self._path)

    @cached_property
    def _inputs(self) -> set[str]:
        return {i.name for i in self._session.get_inputs()}

    def request(self, question: str, documents: list[str]):
        encodings = self._tokenizer.encode_batch([(question, d) for d in documents])
        scores = np.zeros(len(documents))
        for rows in token_batches([len(e.ids) for e in encodings], TOKEN_BUDGET):
            scores[rows] = self._run([encodings[r] for r in rows.tolist()])
        return list(enumerate(scores.tolist())), 0, 0, {}

    def _run(self, encodings: list) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)  # (pairs, tokens), 0 = padding
        mask, types = np.zeros_like(ids), np.zeros_like(ids)
        for row, e in enumerate(encodings):
            ids[row, : len(e.ids)], mask[row, : len(e.ids)], types[row, : len(e.ids)] = e.ids, 1, e.type_ids
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        logits = np.asarray(self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0])
        logits = logits.reshape(len(encodings), -1)  # (pairs, 1) or (pairs, 2)
        return logits[:, -1].astype(np.float64)

    def classify(self, exc: Exception):
        return None  # nothing here is a service failure: every error is raised as it is


def build(cfg: OnnxRerankerConfig, ws: Workspace) -> RemoteReranker:
    """The reranker an ``OnnxRerankerConfig`` describes; ConfigError naming the setting when a file is missing."""
    if not cfg.path:
        raise ConfigError("reranker.path must name the folder of the ONNX cross-encoder for reranker=onnx")
    folder = Path(cfg.path).expanduser()
    model, tokenizer = folder / cfg.model_file, folder / "tokenizer.json"
    for path, fix in (
        (model, "export the model there, or set reranker.model_file"),
        (tokenizer, "save the model's tokenizer there (tokenizer.save_pretrained(folder) writes it)"),
    ):
        if not path.is_file():
            raise ConfigError(f"reranker.path ({cfg.path}) holds no {path.name}; {fix}")
    blob = tokenizer.read_bytes()
    label = cfg.model or folder.name
    files = (hashlib.sha256(model.read_bytes()).hexdigest(), hashlib.sha256(blob).hexdigest())
    name = f"onnx/{label}+{digest(files, cfg.max_length, CODE_DIGEST)[:12]}"
    threads = cfg.threads or os.cpu_count() or 1
    settings = SimpleNamespace(
        model=label, concurrency=threads, max_retries=0, backoff_s=1.0, max_total_s=1e9, price_per_million=None
    )
    try:
        encoder = CrossEncoder(folder, cfg, blob)
    except Exception as exc:  # tokenizers' own error: a file that is not a tokenizer.json
        raise ConfigError(f"reranker.path ({cfg.path}): tokenizer.json cannot be read: {exc}") from None
    reranker = RemoteReranker(
        name, f"ONNX cross-encoder ({label})", encoder, Batching(10**6, 10**12), settings, ws.cache, None
    )
    reranker.name = f"onnx/{label}"
    return reranker
