"""Where the project's folders live: the clone's top level, or the copies installed inside the package."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

_CLONE = Path(__file__).resolve().parents[2]


def project_folder(name: str) -> Path:
    """``configs`` or ``datasets``: the clone's folder when run from a clone, else the installed copy."""
    if (_CLONE / name).is_dir() and (_CLONE / "pyproject.toml").is_file():
        return _CLONE / name
    return Path(str(resources.files("rag_bench").joinpath(f"_{name}")))
