"""Large files written whole: ``core.files.write_bytes`` (1 MiB write calls, ``PieceWriter``) against one
``write`` call of the same bytes, the way ``open(path, "wb").write(data)`` does it.

On this project's shared virtual machine (ext4), one write(2) of more than about 8 MiB took 0.3-0.7 s for
55 MB while 1 MiB calls took 0.015 s; elsewhere the two are alike. Sizes are those of a 10,000-question run:
per_question.parquet (3 MB), report.html (13 MB), run.trec (22 MB), the run kept for reuse (55 MB).
Reported, not a goal: files.write_atomic time / one-write time at each size (median and slowest of 7, taking
turns: the slow single writes come and go, so a best-of hides them), each into a new file in a temporary folder
(``BENCH_TMP`` or the system's), fsync excluded on both sides.

Usage: python benchmarks/perf/bench_write.py
"""

from __future__ import annotations

import os
import statistics
import tempfile
from itertools import count
from pathlib import Path

from common import Check, best_of, report

from rag_bench.core import files

SIZES_MB = (3, 13, 22, 55)


def main() -> None:
    checks, details = [], []
    numbers = count()
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        folder = Path(tmp)

        def fresh() -> Path:
            return folder / f"f{next(numbers)}"

        for size in SIZES_MB:
            data = os.urandom(size * 1_000_000)
            sides = {
                "pieces": lambda data=data: files.write_atomic(fresh(), lambda h: h.write(data), durable=False),
                "one write": lambda data=data: fresh().write_bytes(data),
            }
            seconds: dict[str, list[float]] = {name: [] for name in sides}
            for _ in range(7):
                for name, fn in sides.items():
                    seconds[name].append(best_of(fn, 1))
            for path in folder.iterdir():
                path.unlink()
            median = {name: statistics.median(times) for name, times in seconds.items()}
            details.append(
                f"{size} MB: files.write_atomic median {median['pieces'] * 1e3:.1f} ms, slowest "
                f"{max(seconds['pieces']) * 1e3:.1f} ms; one write median {median['one write'] * 1e3:.1f} ms, "
                f"slowest {max(seconds['one write']) * 1e3:.1f} ms (load average {os.getloadavg()[0]:.2f})"
            )
            ratio = median["pieces"] / median["one write"]
            checks.append(Check("files", f"write_atomic / one write call, {size} MB (median)", ratio, "info", 0))
    report("Large files: 1 MiB write calls against one write call", checks, details)


if __name__ == "__main__":
    main()
