import json
import os
import subprocess
import sys

import pytest

from rag_bench.index import kernels

NO_NUMBA = not kernels.available()


def run_python(code: str, numba_cache: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": numba_cache}
    command = [sys.executable, "-c", code]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=True)


def test_numpy_estimate_by_hand():
    # 1,000 queries x (20 us + 50,000 docs x 1.5 ns) + 34.8M postings x 5 ns = 0.02 + 0.075 + 0.174 s
    assert kernels.numpy_seconds(1_000, 34_800_000, 50_000) == pytest.approx(0.269)


def test_forced_paths_and_small_searches_never_import_numba(tmp_path):
    code = (
        "import json, sys\n"
        "from rag_bench.index import kernels\n"
        "from rag_bench.index.bm25 import BM25Index\n"
        "index = BM25Index.build([['a', 'b'], ['b'], ['c']])\n"
        "found = index.search([['b'], ['c', 'a']], 2)\n"
        "kernels.PATH = 'numpy'\n"
        "big = kernels.choose(10**6, 10**12, 10**6)\n"
        "print(json.dumps(['numba' in sys.modules, found[0].tolist(), big is None]))\n"
    )
    imported, indices, forced_none = json.loads(run_python(code, str(tmp_path)).stdout)
    assert imported is False and forced_none is True
    assert indices == [[1, 0], [2, 0]]  # "b": doc 1 (shorter) above doc 0; "c a": doc 2 (c, rarer) then doc 0


@pytest.mark.skipif(NO_NUMBA, reason="numba is not installed")
def test_kernel_compiles_once_in_view_and_only_when_it_pays(tmp_path):
    cache = str(tmp_path / "numba")
    code = (
        "import json, sys\n"
        "from rag_bench.index import kernels\n"
        "module = kernels.load()\n"
        "before = module.ready()\n"
        "middle = kernels.choose(1, 500_000_000, 1_000)  # numpy loop ~2.5 s: not worth a ~10 s compile\n"
        "large = kernels.choose(1, 10_000_000_000, 1_000)  # ~50 s: compile\n"
        "print(json.dumps([before, middle is None, large is module, module.ready()]))\n"
    )
    first = run_python(code, cache)
    assert json.loads(first.stdout) == [False, True, True, True]
    assert "compiling the BM25 query kernel" in first.stderr and first.stderr.count("\n") == 1
    assert os.listdir(cache)  # numba's cache is on disk
    # A later process finds it there: the kernel runs for a 2.5 s search, with no compiling and no message.
    second = run_python(code.replace("before = module.ready()", "before = not module.ready()"), cache)
    assert json.loads(second.stdout) == [False, False, True, True] and second.stderr == ""
