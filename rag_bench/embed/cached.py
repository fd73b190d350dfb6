"""Embedding through the disk cache: each distinct text is embedded once per model (vectors in ``store.py``).

A batch (``COMMIT_EVERY`` texts of a local embedder, a request of an API one) is committed as soon as it
is embedded, so a run that is killed loses at most the batch in flight and a rerun sends only what is missing.

Concurrent processes (parallel launchers, cluster jobs) share the cache without embedding a text
twice: a process claims the texts of a batch before embedding them (one lease, ``claims.py``), leaves
texts that another process holds to it, and waits for their vectors to appear; leases of a holder that
died are broken. With ``memory_map`` the corpus matrix is written as the batches are committed
(``matrix_build.py``), not read back from them at the end.

An API embedder (one with ``submit``: ``remote.py``) keeps its workers busy: batches are claimed and
submitted while earlier ones are in flight, up to its ``in_flight`` texts, and each is committed as
soon as it comes back, so the pipe stays full and a killed run loses only the requests in flight.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np

from rag_bench.core.progress import progress
from rag_bench.embed.base import Embedder
from rag_bench.embed.store import VectorStore, text_keys

EMBED_EVERY = 64  # texts per call of a local embedder (its batches, so its vectors, do not depend on the cache)
COMMIT_EVERY = 4 * EMBED_EVERY  # texts per cache entry of a local embedder: a killed run loses at most one entry
CLAIM_EVERY = 8 * COMMIT_EVERY  # texts a local embedder claims with one lease (one look at the cache per lease)
POLL_S = (0.05, 1.0)  # first and longest wait between looks at texts another process is embedding


@dataclass
class EmbedStats:
    """What one stage asked for: distinct texts newly embedded vs served from the cache (a text repeated within
    the call is embedded, or served, once: it is neither embedded again nor "from the cache")."""

    embedded: int = 0
    cache_hits: int = 0


def embed_cached(
    embedder: Embedder,
    store: VectorStore,
    texts: Sequence[str],
    input_type: str,
    label: str = "embedding",
    memory_map: bool = False,
) -> tuple[np.ndarray, EmbedStats]:
    """(len(texts), dim) float32 vectors of ``texts``, embedding only texts the cache lacks.

    With ``memory_map`` the result is a read-only memory map of one cache entry holding these
    texts' vectors (written on first use, from the batches one at a time); no more than one
    batch of vectors is then held in memory, and the store drops any in-memory copy, so a large
    corpus is held once, by the page cache, rather than twice.
    """
    keys = text_keys(texts)
    if memory_map and keys:
        return _embed_mapped(embedder, store, keys, texts, input_type, label)
    todo = _missing(store.known, keys, texts)
    known = store.known()
    sent = _embed(embedder, store, todo, input_type, label)
    stats = EmbedStats(embedded=sent, cache_hits=len(set(keys)) - sent)
    out = np.stack([known[k] for k in keys]) if keys else np.zeros((0, embedder.dimension), np.float32)
    return out, stats


def _embed_mapped(
    embedder: Embedder, store: VectorStore, keys: list[bytes], texts: Sequence[str], input_type: str, label: str
) -> tuple[np.memmap, EmbedStats]:
    """``embed_cached`` with ``memory_map``: the matrix entry of ``keys``, built from the batches when absent."""
    mapped = store.matrix(keys)
    if mapped is not None:
        return mapped, EmbedStats(embedded=0, cache_hits=len(set(keys)))
    embedded = 0
    while True:
        todo = _missing(store.index, keys, texts)
        with store.building(keys) as build:  # the rows of each batch committed go into the matrix at once
            embedded += _embed(embedder, store, todo, input_type, label)
            mapped = store.save_matrix(keys, build)  # None: a batch went missing meanwhile, so embed it again
        if mapped is not None:
            store.forget()
            return mapped, EmbedStats(embedded=embedded, cache_hits=len(set(keys)) - embedded)


def _embed(embedder: Embedder, store: VectorStore, todo: dict[bytes, str], input_type: str, label: str) -> int:
    """Embed the texts of ``todo`` (by key; emptied as they are cached) that no other process holds,
    ``COMMIT_EVERY`` per commit (claimed ``CLAIM_EVERY`` at a time with one lease, so the claim and the look
    at the cache are paid once per lease; the embedder is called ``EMBED_EVERY`` texts at a time, so its
    vectors are those of any other batching).

    Returns once every key of ``todo`` is in the store: embedded here (the count returned) or by
    another process, whose claimed texts are waited for (and taken over if it dies).
    """
    if hasattr(embedder, "submit") and hasattr(embedder, "in_flight"):
        return _embed_pipelined(embedder, store, todo, input_type, label)
    pending, done, arrived = todo, 0, store.arrived
    sent, wait = 0, POLL_S[0]
    with progress(len(todo), label, "text") as bar:
        while pending:
            mine = store.claims.take(pending, CLAIM_EVERY)
            if mine:
                try:
                    batch = mine  # quiet claims, and no other store's batch seen since ``todo`` was made: all new
                    if not store.claims.quiet or store.arrived != arrived:
                        known = store.refresh()  # committed by a holder that released them just now
                        batch = [k for k in mine if k not in known]
                    for start in range(0, len(batch), COMMIT_EVERY):
                        part = batch[start : start + COMMIT_EVERY]
                        store.commit(part, _embed_part(embedder, [pending[k] for k in part], input_type))
                        sent += len(part)
                        store.tally.embedded += len(part)
                        bar.update(len(part))
                finally:
                    store.claims.release(mine)
                for key in mine:
                    del pending[key]
                done += len(mine)
                if done > len(pending):  # a dict is walked from its first slot, deleted ones too: compact it
                    pending, done = dict(pending), 0
                bar.update(len(mine) - len(batch))
                wait = POLL_S[0]
                continue
            wait = _await_others(store, pending, bar, wait)
    return sent


def _embed_part(embedder: Embedder, texts: list[str], input_type: str) -> np.ndarray:
    """Vectors of one cache entry's texts, from embedder calls of ``EMBED_EVERY`` texts each."""
    calls = [embedder.embed(texts[i : i + EMBED_EVERY], input_type) for i in range(0, len(texts), EMBED_EVERY)]
    return calls[0] if len(calls) == 1 else np.concatenate(calls)


def _embed_pipelined(embedder, store: VectorStore, todo: dict[bytes, str], input_type: str, label: str) -> int:
    """``_embed`` for an embedder with ``submit``: up to ``embedder.in_flight`` texts submitted at once,
    ``embedder.batch_size`` per commit, each batch committed when it comes back (the oldest first).

    When a batch fails, the batches already in flight are still committed as they finish, then the
    error is raised: what was paid for is kept.
    """
    pending = todo
    flying: deque[tuple[list[bytes], list[bytes], Future | None]] = deque()  # (claimed, sent, its vectors)
    sent, wait, failure = 0, POLL_S[0], None
    with progress(len(todo), label, "text") as bar:
        while pending or flying:
            while failure is None and pending and sum(len(f[0]) for f in flying) < embedder.in_flight:
                mine = store.claims.take(pending, embedder.batch_size)
                if not mine:
                    break
                known = store.refresh(store.claims.quiet)  # committed by a holder that released them just now
                batch = [k for k in mine if k not in known]
                future = embedder.submit([pending[k] for k in batch], input_type) if batch else None
                for key in mine:
                    del pending[key]
                flying.append((mine, batch, future))
            if flying:
                mine, batch, future = flying.popleft()
                try:
                    if future is not None:
                        store.commit(batch, future.result())
                        sent += len(batch)
                        store.tally.embedded += len(batch)
                except Exception as exc:
                    failure = failure or exc
                finally:
                    store.claims.release(mine)
                bar.update(len(mine))
                wait = POLL_S[0]
                continue
            if failure is not None:
                raise failure
            wait = _await_others(store, pending, bar, wait)
    if failure is not None:
        raise failure
    return sent


def _await_others(store: VectorStore, pending: dict[bytes, str], bar, wait: float) -> float:
    """Sleep ``wait`` while other processes embed the texts they claimed, then drop from ``pending`` those they
    committed and break the claims of holders that died; returns the next wait (doubling, up to POLL_S[1])."""
    bar.set_postfix_str("waiting for texts another process is embedding")
    time.sleep(wait)
    known = store.refresh()
    arrived = [k for k in pending if k in known]
    for key in arrived:
        del pending[key]
    bar.update(len(arrived))
    store.claims.break_stale(pending)
    return min(wait * 2, POLL_S[1])


def _missing(view, keys: list[bytes], texts: Sequence[str]) -> dict[bytes, str]:
    """The text of each distinct key not in the store's ``view`` (``known`` or ``index``), in first-seen order;
    when some are missing, the view is refreshed (another store may have embedded them meanwhile)."""
    known = view()
    if known:
        missing = {key: text for key, text in zip(keys, texts, strict=True) if key not in known}
    else:  # a fresh cache: every text (a repeated key keeps its first place; its text is the same)
        missing = dict(zip(keys, texts, strict=True))
    if not missing:
        return {}
    seen = len(known)
    known = view(refresh=True)
    if len(known) == seen:  # nothing new: no key of ``missing`` arrived
        return missing
    return {key: text for key, text in missing.items() if key not in known}
