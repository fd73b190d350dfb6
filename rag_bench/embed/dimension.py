"""Embedding dimension as a knob: truncate-and-renormalise, or PCA fitted on the corpus.

Matryoshka models (Voyage) are trained so that the first d coordinates of a vector are
themselves a good d-dimensional embedding: such a model is embedded once at its largest
dimension and every smaller dimension is a prefix, renormalised. Other models (the local
MiniLM) get a PCA fitted on the corpus's document vectors: the top d principal axes of
the centred vectors; queries are centred with the corpus mean and projected on the same axes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rag_bench.embed.base import normalise


def truncate(vectors: np.ndarray, dimension: int) -> np.ndarray:
    """First ``dimension`` coordinates of each row, renormalised to unit length."""
    return normalise(vectors[:, :dimension])


@dataclass(frozen=True)
class PCA:
    """A projection onto the top principal axes of a set of vectors."""

    mean: np.ndarray  # (native_dim,)
    axes: np.ndarray  # (dimension, native_dim), orthonormal rows

    @classmethod
    def fit(cls, vectors: np.ndarray, dimension: int) -> PCA:
        """Top ``dimension`` axes of ``vectors`` (n, native_dim) by singular value decomposition."""
        data = np.asarray(vectors, dtype=np.float64)
        mean = data.mean(axis=0)
        _, _, vt = np.linalg.svd(data - mean, full_matrices=False)
        axes = np.zeros((dimension, data.shape[1]))
        kept = min(dimension, vt.shape[0])
        axes[:kept] = vt[:kept] * np.sign(vt[:kept, :1] + 1e-300)  # sign fixed for reproducibility
        return cls(mean.astype(np.float32), axes.astype(np.float32))

    def apply(self, vectors: np.ndarray) -> np.ndarray:
        """(n, dimension) unit vectors: centred, projected, renormalised."""
        return normalise((np.asarray(vectors, np.float32) - self.mean) @ self.axes.T)


def reduce_dimension(
    docs: np.ndarray, queries: np.ndarray, target: int, matryoshka: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Document and query vectors at ``target`` dimensions: unchanged at the native one, else truncated
    (a Matryoshka model) or projected on a PCA fitted on the documents."""
    if target == docs.shape[1]:
        return docs, queries
    if matryoshka:
        return truncate(docs, target), truncate(queries, target)
    pca = PCA.fit(docs, target)
    return pca.apply(docs), pca.apply(queries)
