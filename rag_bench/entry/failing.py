"""The one-line user errors of every command: a ``RagBenchError`` or a file that cannot be written prints
one line and exits 2 (``fail``, ``fail_write``), with the setting that moves the file (``write_hint``)."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from rag_bench.core.files import is_write_fault, os_error_line

USAGE_ERROR = 2


def fail(exc: Exception) -> None:
    """``rag-bench: error: <exc>``, exit 2."""
    print(f"rag-bench: error: {exc}", file=sys.stderr)
    sys.exit(USAGE_ERROR)


def fail_write(exc: OSError, where: str = "") -> None:
    """``rag-bench: cannot write <path>: <reason> (fix: ...)``, exit 2."""
    print(f"rag-bench: {os_error_line(exc, where)}", file=sys.stderr)
    sys.exit(USAGE_ERROR)


RUN_DIR_HINT = "hydra.run.dir=... (hydra.sweep.dir=... with -m) can name a writable folder"
# the last line of a traceback Hydra printed for an OSError, e.g. ``NotADirectoryError: [Errno 20] Not a
# directory: '/tmp/x/run'`` (Hydra prints what fails in its own steps: making the run folder, saving .hydra/)
_PRINTED_OS_ERROR = re.compile(r"^(?:\w+\.)*\w+Error: \[Errno (\d+)\] (.+?): ((['\"]).*\4)$")


def printed_os_error(text: str) -> OSError | None:
    """The write fault whose traceback Hydra printed into ``text`` (its last line), or None."""
    lines = text.rstrip().splitlines()
    for line in reversed(lines[-4:]):
        found = _PRINTED_OS_ERROR.match(line.strip())
        if found:
            error = OSError(int(found.group(1)), found.group(2), ast.literal_eval(found.group(3)))
            return error if is_write_fault(error) else None
    return None


def write_hint(exc: OSError, out_dir: Path | None = None, cache_dir: str | None = None) -> str:
    """The setting that chooses where the failed file lives: the cache folder, or the run folder."""
    from rag_bench.core.cache import cache_root
    from rag_bench.core.files import inside

    cache = cache_root(cache_dir)
    if inside(exc.filename, cache):
        return f"cache_dir=... or RAG_BENCH_CACHE (now {cache}) can name a writable folder"
    return RUN_DIR_HINT if out_dir is not None and inside(exc.filename, out_dir) else ""
