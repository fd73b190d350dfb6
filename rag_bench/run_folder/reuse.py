"""A finished run served again: the output files of an earlier run of the same configuration on the same files.

A run's numbers are a function of its configuration, the files it reads (``fingerprint``: the dataset
folder and every file a setting names) and the code (``code_version``), as long as every ranked list
it scores is one the candidate cache keys by what it depends on (``RunResult.reusable``: rag-bench's
own retrievers; never an HTTP service, a Python function or LangChain, whose answers may change).
Such a run's output files are kept in the cache, namespace ``runs``, under

    key = sha256("run", the checked configuration (every field's value), fingerprint, code_version)

and a later run with the same key writes them into its own folder instead of running the pipeline.
They are byte for byte what running it again would write (every output is a function of the key),
except metrics.json's ``stats``, which tell what this run did: nothing embedded, no vector read,
no API call, ``reused: {"run": true}`` and its own seconds. An earlier run's files that these are not
are removed first (``manifest.py``). What the stats say of the configuration
itself (chunks, index size, ``work``) is kept. A changed setting, dataset file or line of rag-bench
gives another key, so a stale result is never served; a damaged entry fails its checksum and the
run is computed again.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path

from rag_bench.core.cache import DiskCache, code_version, digest
from rag_bench.core.files import write_bytes, write_text
from rag_bench.run_folder.manifest import clear_earlier

NAMESPACE = "runs"
METRICS = "metrics.json"


def run_key(config, fingerprint: dict[str, str]) -> str:
    """The cache key of a run's outputs: its configuration (``config.Config``), the files it reads, and the code.

    The configuration enters as the repr of ``asdict``: every value with its type (1 and 1.0 differ),
    which determines config.yaml too, without the cost of writing that text (about 15 ms a job).
    """
    settings = {k: v for k, v in asdict(config).items() if k != "budget"}  # a cap changes no result
    return digest("run", settings, sorted(fingerprint.items()), code_version())


def kept(cache: DiskCache, key: str) -> bool:
    """Whether outputs are kept under ``key`` (a plan's question: would this run be served?)."""
    return cache.path(NAMESPACE, key).is_file()


def keep(cache: DiskCache, key: str, written: list[Path]) -> None:
    """Store the files a run wrote (``write_outputs``' list, metrics.json among them) under ``key``.

    Not synced to the disk (``DiskCache.put``'s ``durable=False``): the run folder itself is, and an entry a
    power cut tears fails its checksum, so the next run computes it again. The sync of tens of MB at 10,000
    questions took 0.05-0.6 s on a shared disk."""
    cache.put_files(NAMESPACE, key, {path.name: path.read_bytes() for path in written}, durable=False)


def serve(cache: DiskCache, key: str, out_dir: Path) -> dict | None:
    """Write the outputs kept under ``key`` into ``out_dir`` (metrics.json last); their metrics, or None on a miss."""
    start = time.perf_counter()
    files = cache.get_files(NAMESPACE, key)
    if files is None or METRICS not in files:
        return None
    clear_earlier(out_dir, files)  # as write_folder: no old metrics, and no earlier run's files, beside these
    payload = json.loads(files.pop(METRICS))
    for name, data in files.items():
        write_bytes(out_dir / name, data)
    payload["stats"] = served_stats(payload["stats"], time.perf_counter() - start)
    write_text(out_dir / METRICS, json.dumps(payload, indent=2) + "\n")
    return payload


def served_stats(stats: dict, seconds: float) -> dict:
    """A served run's ``stats``: what the configuration is (chunks, index, work) kept, what this run did zeroed."""
    done = {"embedded": 0, "cache_hits": 0, "tokens": 0, "cost_usd": 0.0, "api": {}}
    return stats | done | {"reused": {"run": True}, "seconds": {"run": round(seconds, 4)}}
