"""Building an index in fresh memory without numpy's transparent-huge-page request.

numpy asks the kernel for transparent huge pages (``madvise(MADV_HUGEPAGE)``) on every allocation of
4 MiB or more. Where the kernel's THP defrag setting is ``madvise`` (a common default, and this
machine's), the first touch of such memory may stall while the kernel compacts memory to find a
2 MiB page. Building a BM25 index touches hundreds of MB of fresh arrays once, so huge pages buy it
nothing and the stalls cost a third of the build: on 50,000 documents the CLI's BM25 stage took
1.17-1.65 s with the request and 1.06 s without it (``NUMPY_MADVISE_HUGEPAGE=0``, numpy's documented
switch, which only works at import). ``small_pages()`` turns the request off while an index is built
and back on afterwards; results are the same bit for bit, only the time changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np


def _switch() -> Callable[[bool], bool] | None:
    """numpy's ``_set_madvise_hugepage`` (it returns the previous setting), or None where it has none."""
    core = getattr(np, "_core", None)  # numpy 2
    if core is None:
        import numpy.core as core  # numpy 1.26
    return getattr(core.multiarray, "_set_madvise_hugepage", None)


_SET = _switch()


@contextmanager
def small_pages() -> Iterator[None]:
    """numpy allocates without asking for huge pages inside the block (the setting is restored after)."""
    if _SET is None:
        yield
        return
    before = _SET(False)
    try:
        yield
    finally:
        _SET(before)
