"""Embedding through the disk cache: each distinct text is embedded once per model.

Vectors live in the cache as batches under the namespace
``vectors/<model>/<dimension>/<input type>``; a batch entry holds the sha256 of each
text and its vector. A batch is committed as soon as it is embedded, so a run that is
killed loses at most the batch in flight and a rerun sends only what is missing.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from rag_bench.cache import DiskCache
from rag_bench.embed.base import Embedder

COMMIT_EVERY = 64  # texts per cache entry


@dataclass
class EmbedStats:
    """What one stage asked for: texts newly embedded vs served from the cache."""

    embedded: int = 0
    cache_hits: int = 0

    def add(self, other: EmbedStats) -> None:
        self.embedded += other.embedded
        self.cache_hits += other.cache_hits


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


def pack(keys: list[bytes], vectors: np.ndarray) -> bytes:
    """Batch payload: n, dim (uint32 each), n 32-byte keys, then (n, dim) float32."""
    n, dim = vectors.shape
    return struct.pack("<II", n, dim) + b"".join(keys) + np.ascontiguousarray(vectors, np.float32).tobytes()


def unpack(payload: bytes) -> tuple[list[bytes], np.ndarray]:
    n, dim = struct.unpack_from("<II", payload)
    keys = [payload[8 + 32 * i : 8 + 32 * (i + 1)] for i in range(n)]
    vectors = np.frombuffer(payload, dtype=np.float32, offset=8 + 32 * n, count=n * dim).reshape(n, dim)
    return keys, vectors


class VectorStore:
    """The cached vectors of one (model, dimension, input type)."""

    def __init__(self, cache: DiskCache, model: str, dimension: int, input_type: str) -> None:
        self.cache = cache
        self.namespace = f"vectors/{model.replace('/', '--')}/{dimension}/{input_type}"
        self._known: dict[bytes, np.ndarray] | None = None

    def known(self) -> dict[bytes, np.ndarray]:
        """Every cached vector of this namespace by text key (read once, then kept in memory)."""
        if self._known is None:
            self._known = {}
            for _, payload in self.cache.entries(self.namespace):
                keys, vectors = unpack(payload)
                self._known.update(zip(keys, vectors, strict=True))
        return self._known

    def commit(self, keys: list[bytes], vectors: np.ndarray) -> None:
        entry = hashlib.sha256(b"".join(keys)).hexdigest()
        self.cache.put(self.namespace, entry, pack(keys, vectors))
        self.known().update(zip(keys, vectors, strict=True))


def embed_cached(
    embedder: Embedder, store: VectorStore, texts: Sequence[str], input_type: str, label: str = "embedding"
) -> tuple[np.ndarray, EmbedStats]:
    """(len(texts), dim) float32 vectors of ``texts``, embedding only texts the cache lacks."""
    keys = [text_key(t) for t in texts]
    known = store.known()
    missing: dict[bytes, str] = {}
    for key, text in zip(keys, texts, strict=True):
        if key not in known:
            missing.setdefault(key, text)
    todo = list(missing.items())
    with tqdm(total=len(todo), desc=label, unit="text", disable=not todo, leave=False) as bar:
        for first in range(0, len(todo), COMMIT_EVERY):
            batch = todo[first : first + COMMIT_EVERY]
            vectors = embedder.embed([t for _, t in batch], input_type)
            store.commit([k for k, _ in batch], vectors)
            bar.update(len(batch))
    out = np.stack([known[k] for k in keys]) if keys else np.zeros((0, embedder.dimension), np.float32)
    return out, EmbedStats(embedded=len(todo), cache_hits=len(texts) - len(todo))
