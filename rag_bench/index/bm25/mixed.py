"""A corpus whose texts are analyzed by different analyzers (``retrieval.analyzer=auto``), as one term stream.

The texts of each language go through ``corpus_terms`` together (each distinct word analyzed once
per language), and the streams are put back in corpus order over one vocabulary, its ids renumbered
in order of first appearance: the same ``Terms`` as ``terms_of_tokens([analyzer_i(text_i) ...])``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from rag_bench.index.bm25.terms import Terms, corpus_terms


def mixed_terms(texts: Sequence[str], keys: Sequence[str | None], analyzer_of: Callable[[str | None], object]) -> Terms:
    """``texts[i]`` analyzed by ``analyzer_of(keys[i])`` (one analyzer per distinct key), as one term stream."""
    groups: dict[str | None, list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    terms: list[str] = []  # every group's vocabulary, one after another
    pieces: list[np.ndarray | None] = [None] * len(texts)  # (doc_len,) ids into ``terms`` of each text's tokens
    doc_len = np.zeros(len(texts), dtype=np.int64)
    for key, members in groups.items():
        found = corpus_terms([texts[i] for i in members], analyzer_of(key))
        offset = len(terms)
        terms.extend(found.vocab)  # insertion order is id order
        bounds = np.cumsum(found.doc_len)
        for i, start, end in zip(members, bounds - found.doc_len, bounds, strict=True):
            pieces[i] = found.term_of[start:end] + offset
            doc_len[i] = end - start
    stream = np.concatenate([p for p in pieces if p is not None]) if texts else np.zeros(0, np.int64)
    names = np.array(terms, dtype=object)[stream] if len(stream) else np.zeros(0, dtype=object)
    term_of, vocab = pd.factorize(names)
    return Terms(dict(zip(vocab.tolist(), range(len(vocab)), strict=True)), term_of.astype(np.int64), doc_len)
