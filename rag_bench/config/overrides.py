"""A configuration as the command-line overrides that reproduce it: ``overrides_for(config)``.

Each group whose option is not the default gets ``group=option``, then every setting that differs from
that option's own defaults ``group.key=value``, then every top-level setting that differs from
``Config()``'s. Composed again (``rag-bench @FILE``, ``rag_bench.run(overrides=...)``), the overrides give
back the same configuration: a sweep's chosen point is re-runnable as-is, wherever it came from (a
swept setting, a preset's value, the command line).
"""

from __future__ import annotations

import math
from dataclasses import asdict, is_dataclass
from pathlib import Path

from rag_bench.config.groups import STAGE_GROUPS
from rag_bench.config.schema import Config
from rag_bench.core.errors import ConfigError
from rag_bench.index.registry import VECTOR_INDEXES

SKIP = ("cache_dir", "quiet", "budget")  # where a run caches, what it prints and may spend, never what it computes


def overrides_for(config: Config | dict) -> list[str]:
    """The overrides that compose into ``config`` (module docstring): a ``Config``, or its dict as a run folder's
    config.yaml holds it."""
    values = asdict(config) if is_dataclass(config) else dict(config)
    default = asdict(Config())
    out: list[str] = []
    for group in STAGE_GROUPS:
        settings = dict(values.get(group.group) or {})
        name = settings.get(group.key, group.default)
        if name not in group:
            raise ConfigError(f"{group.group}.{group.key} ({name!r}) is not an option of {group.group}")
        if name != group.default:
            out.append(f"{group.path}={name}")
        index = settings.pop("index", None) if group.group == "retrieval" else None
        out += _changed(group.group, settings, asdict(group[name].schema()))
        if isinstance(index, dict):
            index_name = index.get("name", VECTOR_INDEXES.default)
            if index_name != VECTOR_INDEXES.default:
                out.append(f"retrieval/index={index_name}")
            out += _changed("retrieval.index", index, asdict(VECTOR_INDEXES[index_name].schema()))
    dataset = values.get("dataset") or {}
    out += [
        f"dataset.{k}={value_text(v)}"
        for k, v in dataset.items()
        if k in default["dataset"] and v != default["dataset"][k]
    ]
    grouped = {g.group for g in STAGE_GROUPS} | {"dataset"}
    for key, value in values.items():
        if key not in SKIP and key not in grouped and key in default and value != default[key]:
            out.append(f"{key}={value_text(value)}")
    return out


def _changed(prefix: str, settings: dict, defaults: dict) -> list[str]:
    """``prefix.key=value`` for each setting that differs from ``defaults`` (the option's name field aside)."""
    return [
        f"{prefix}.{key}={value_text(value)}"
        for key, value in settings.items()
        if key not in ("name", "mode") and key in defaults and value != defaults[key]
    ]


def value_text(value: object) -> str:
    """A value as Hydra's override grammar reads it back: null, true/false, numbers, [lists], quoted strings."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"a setting of {value} cannot be written as an override")
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(value_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{value_text(v)}" for k, v in value.items()) + "}"
    text = str(value)
    if text and all(c.isalnum() or c in "_./:-" for c in text) and text not in ("null", "true", "false"):
        return text
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def read_overrides(path: str | Path) -> list[str]:
    """The overrides of an overrides file (``winner.overrides``): one a line, ``#`` comments and blanks left out."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"@{path}: cannot be read as an overrides file ({exc})") from None
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
