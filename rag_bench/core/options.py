"""Settings of one option of a config group (a chunker, an embedder, a retriever ...), made and checked.

Every stage keeps a registry ``{name: entry}`` whose entries carry the option's settings
dataclass as ``entry.schema``; these helpers are shared by all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields

from rag_bench.core.errors import ConfigError


def settings_of(group: str, name: str, registry: Mapping[str, object], values: Mapping[str, object], key: str = "name"):
    """The checked settings of option ``name`` of ``group``: its schema's defaults, then ``values``.

    A key the option does not have is a ConfigError naming the keys it has (never ignored).
    """
    if name not in registry:
        raise ConfigError(f"{group}.{key} ({name!r}) must be one of: {', '.join(sorted(registry))}")
    schema = registry[name].schema
    known = [f.name for f in fields(schema)]
    unknown = [key for key in values if key not in known]
    if unknown:
        raise ConfigError(not_a_setting(group, name, unknown[0], known))
    return schema(**values)


def not_a_setting(group: str, name: str, key: str, known: list[str]) -> str:
    """The message for a key that option ``name`` of ``group`` does not have."""
    others = ", ".join(k for k in known if k not in ("name", "mode"))
    has = f"its settings are: {others}" if others else "it has no settings"
    return f"{group}.{key} is not a setting of {group}={name}; {has}"
