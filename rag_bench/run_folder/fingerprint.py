"""A run's identity beyond its config text: the content of every file its numbers depend on.

``fingerprint(config)`` = sha256 of every file below the dataset folder (path and content, sorted; hidden
files too, since the loader reads whatever ``docs/`` holds), and of each file a setting names (a contexts
file, a chunk manifest, a run file, a variants file ...: any string setting that names an existing
file, found from the current folder or, as its reader also looks, from the dataset's). The code and
the versions of the libraries that compute numbers are ``core.cache.code_version``, recorded beside it.
A run folder records it in metrics.json; a sweep resumes a point only when config and fingerprint both
match, and every reader of a run folder that loads its dataset checks that the dataset is still the one
the run scored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import asdict, is_dataclass
from pathlib import Path


def folder_hash(folder: Path) -> str:
    """sha256 over each file below ``folder``, hidden ones included: relative path and content."""
    h = hashlib.sha256()
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        h.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def documents_hash(folder: Path) -> str:
    """sha256 over the files a dataset's documents come from (``documents.jsonl`` or ``docs/``, and
    ``metadata.jsonl``): what stays the same while its questions are written and edited."""
    h = hashlib.sha256()
    sources = [folder / "documents.jsonl", folder / "metadata.jsonl", *sorted((folder / "docs").rglob("*"))]
    for path in (p for p in sources if p.is_file()):
        h.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def file_hash(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def fingerprint(config) -> dict[str, str]:
    """{"dataset": hash of its folder, "documents": hash of its documents' files, "<setting key>": hash of each
    file a setting names}."""

    folder = config.dataset.folder
    out = {"dataset": folder_hash(folder), "documents": documents_hash(folder)}
    for key, value in _strings(asdict(config) if is_dataclass(config) else dict(config)):
        if key.startswith("dataset.") or not value or len(value) > 4096 or "\0" in value:
            continue
        path = Path(value).expanduser()
        for place in (path, folder / path):  # as the readers resolve a relative name (variants, contexts)
            if place.is_file():
                out[key] = file_hash(place)
                break
    return out


def _strings(tree: dict, prefix: str = "") -> Iterator[tuple[str, str]]:
    for key, value in tree.items():
        if isinstance(value, dict):
            yield from _strings(value, f"{prefix}{key}.")
        elif isinstance(value, str):
            yield f"{prefix}{key}", value
