"""A run folder holds one run's files: what a run wrote is recorded, and a rerun removes what it does not write.

metrics.json records the names of the files its run wrote (``files``, itself included). Before a run
(computed, or served from the run cache) writes its folder, ``clear_earlier`` removes the files an
earlier run there wrote that this one does not write (a hybrid run after a pgvector one leaves no
``pgvector.sql``): the names the earlier metrics.json records, and every name a run folder's files have
ever had (``RUN_FILES``), for a folder whose metrics.json is gone (a write that stopped midway) or
predates the record. Only plain file names directly in the folder are removed, so a user's other files,
Hydra's ``.hydra/`` folder and its job log stay.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

KEY = "files"  # metrics.json's list of the run's files
METRICS = "metrics.json"
# every name rag-bench has written into a run folder: its outputs and the index logs (``IndexReport.log_name``)
RUN_FILES = (
    "config.yaml",
    METRICS,
    "not_run.json",  # a point a budget stopped (not_run.py): gone once the point runs
    "report.html",
    "per_question.csv",
    "per_question.parquet",
    "run.trec",
    "run_documents.trec",
    "pgvector.sql",
    "chroma.log",
)


def clear_earlier(out_dir: Path, names: Iterable[str]) -> list[str]:
    """Remove the earlier run's files from ``out_dir`` that are not among ``names`` (the files this run writes),
    and the earlier metrics.json, so a write that stops midway never leaves old metrics beside new files;
    return the names removed."""
    keep = set(names) - {METRICS}
    removed = []
    for name in sorted((recorded(out_dir) | set(RUN_FILES)) - keep):
        path = out_dir / name
        if path.is_symlink() or path.is_file():
            path.unlink(missing_ok=True)
            removed.append(name)
    return removed


def recorded(out_dir: Path) -> set[str]:
    """The files the run in ``out_dir`` recorded in its metrics.json (plain names only); empty when it has none."""
    try:
        names = json.loads((out_dir / METRICS).read_text(encoding="utf-8")).get(KEY)
    except (OSError, ValueError, AttributeError):  # absent, unreadable, not JSON, not an object
        return set()
    if not isinstance(names, list):
        return set()
    return {name for name in names if plain(name)}


def plain(name: object) -> bool:
    """Whether ``name`` names a file directly in the folder (no path, not hidden): never ``../x`` or ``.hydra``."""
    return isinstance(name, str) and bool(name) and "/" not in name and "\\" not in name and not name.startswith(".")
