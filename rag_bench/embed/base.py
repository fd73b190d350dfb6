"""The embedding stage: its protocol and the registry of embedders by config name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

INPUT_TYPES = ("document", "query")


class Embedder(Protocol):
    """Turns texts into unit-length vectors; ``input_type`` is ``document`` or ``query``."""

    name: str  # identifies the model in cache keys, e.g. "local/all-MiniLM-L6-v2-int8"
    dimension: int

    def embed(self, texts: Sequence[str], input_type: str) -> np.ndarray:
        """(len(texts), dimension) float32, rows of unit length."""
        ...


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)
