"""The bundled datasets: their names, and the folder of a ``dataset.name`` or ``dataset.path``."""

from __future__ import annotations

from pathlib import Path

from rag_bench.core.errors import ConfigError
from rag_bench.core.paths import project_folder


def bundled_names() -> list[str]:
    root = project_folder("datasets")
    return sorted(p.name for p in root.iterdir() if (p / "questions.jsonl").is_file()) if root.is_dir() else []


def dataset_folder(name: str, path: str | None) -> Path:
    """The folder of ``dataset.path`` if given, else of the bundled dataset ``name``."""
    if path:
        return Path(path).expanduser()
    folder = project_folder("datasets") / name
    if not (folder / "questions.jsonl").is_file():
        raise ConfigError(
            f"dataset.name ({name!r}) is not a bundled dataset; choose one of: {', '.join(bundled_names())}, "
            "or set dataset.path=<folder>"
        )
    return folder
