"""Issue 32 goal 6: the default cold run (bundled kestrel-kb, local MiniLM) against its embedding time alone.

``rag-bench`` with its defaults runs in a fresh process with a fresh cache (so every chunk and question is
embedded); its wall time, start-up and imports included, is compared with the time its dense stage spent
embedding (``stats.seconds["dense embed"]``: chunks and questions through the vector cache). Goal: wall time
<= 1.1x the embedding time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import Check, report


def main() -> None:
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        out = Path(tmp) / "run"
        env = {**os.environ, "RAG_BENCH_CACHE": str(Path(tmp) / "cache"), "RAG_BENCH_QUIET": "1"}
        load = os.getloadavg()[0]
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "rag_bench", f"hydra.run.dir={out}"], env=env, check=True, capture_output=True
        )
        wall = time.perf_counter() - start
        seconds = json.loads((out / "metrics.json").read_text())["stats"]["seconds"]
    embed = seconds["dense embed"]
    details = [
        f"default cold run: {wall:.1f} s wall (process start to exit); embedding {embed:.1f} s; "
        f"load average {load:.2f} -> {os.getloadavg()[0]:.2f}",
        "stages: " + ", ".join(f"{k} {v:.2f} s" for k, v in seconds.items()),
    ]
    checks = [Check("32.6 default cold run", "wall time / embedding time", wall / embed, "<=", 1.1)]
    report("Issue 32 goal 6: the default cold run against its embedding", checks, details)


if __name__ == "__main__":
    main()
