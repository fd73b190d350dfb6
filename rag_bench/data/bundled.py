"""Where bundled datasets and configs live: the clone's top level, or the installed package."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from rag_bench.errors import ConfigError

_CLONE = Path(__file__).resolve().parents[2]


def project_folder(name: str) -> Path:
    """``configs`` or ``datasets``: the clone's folder when run from a clone, else the installed copy."""
    if (_CLONE / name).is_dir() and (_CLONE / "pyproject.toml").is_file():
        return _CLONE / name
    return Path(str(resources.files("rag_bench").joinpath(f"_{name}")))


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
