"""One writer of the claim tests: embeds its share of the texts through the shared cache, as a sweep job would.

Usage: python claim_writer.py CACHE TEXTS_JSON SEED MAPPED LOG START_FILE DELAY_S
Waits for START_FILE, shuffles the texts with SEED and takes 80% of them (ten twice), embeds them
with a fake embedder that sleeps DELAY_S per text and appends every text it is asked for to LOG,
checks the vectors it got, and prints its stats as JSON.
"""

import json
import random
import sys
import time
from pathlib import Path

import numpy as np

from rag_bench.core.cache import DiskCache
from rag_bench.embed.cached import embed_cached
from rag_bench.embed.store import VectorStore
from rag_bench.testing import FakeEmbedder


class Slow(FakeEmbedder):
    """FakeEmbedder that takes ``delay`` seconds per text and logs every text it embeds."""

    def __init__(self, delay: float, log: str) -> None:
        super().__init__(16)
        self.delay, self.log = delay, log

    def embed(self, batch, input_type="document"):
        time.sleep(self.delay * len(batch))
        with open(self.log, "a") as log:
            log.writelines(t + "\n" for t in batch)
        return super().embed(batch, input_type)


def main(cache_dir: str, texts_file: str, seed: str, mapped: str, log: str, start_file: str, delay: str) -> None:
    texts = json.loads(Path(texts_file).read_text())
    random.Random(int(seed)).shuffle(texts)
    texts = texts[: len(texts) * 4 // 5] + texts[:10]  # 80% of the texts, ten of them twice
    while not Path(start_file).exists():
        time.sleep(0.01)
    store = VectorStore(DiskCache(cache_dir), "fake/hash-16", 16, "document")
    vectors, stats = embed_cached(Slow(float(delay), log), store, texts, "document", memory_map=mapped == "1")
    if not np.array_equal(vectors, FakeEmbedder(16).embed(texts)):
        raise SystemExit("wrong vectors")
    print(json.dumps({"embedded": stats.embedded, "cache_hits": stats.cache_hits, "n": len(texts)}))


if __name__ == "__main__":
    main(*sys.argv[1:])
