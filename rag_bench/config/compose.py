"""Hydra composition for every verb, with Hydra's multi-line errors as one line.

``rag-bench`` itself runs under ``hydra.main`` (for multiruns) and condenses what Hydra prints;
the other verbs (check-generation, contextualize, ...) compose their settings with ``compose``.
Both end in the same one-line message, with a key of another option explained
(``chunker.piece_size is not a setting of chunker=fixed; its settings are: ...``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from omegaconf import DictConfig
from omegaconf.errors import OmegaConfBaseException

from rag_bench.core.errors import ConfigError
from rag_bench.core.options import Options

SKIPPED = ("Set the environment variable", "To append", "full_key:", "reference_type", "object_type")


def condense(message: str) -> str:
    """Hydra's multi-line composition error as one line (search path and hints dropped)."""
    parts: list[str] = []
    for line in message.splitlines():
        if line.startswith("Config search path"):
            break
        text = line.strip()
        if not text or text.startswith(SKIPPED):
            continue
        if line.startswith("\t") and parts and parts[-1].endswith((":", ",")):
            parts[-1] += f" {text},"
        else:
            parts.append(text)
    return " ".join(parts).rstrip(",")


def explain(message: str, overrides: Sequence[str] = (), groups: Sequence[Options] = ()) -> str:
    """A condensed message, with an unknown key named against the chosen option's settings, and the fix for
    the usual slips (a dataset folder given as ``dataset=`` or bare)."""
    from rag_bench.config.groups import explain_unknown_key

    return explain_unknown_key(message, overrides, groups) + usage_hint(message)


_MISSING_DATASET = re.compile(r"Could not find 'dataset/(.+?)'")
_NOT_A_RUN_KEY = re.compile(r"Could not override '([\w.]+)'\. Key '(\w+)' not in 'Config'")
_BARE = re.compile(r"Error parsing override '([^']*)' missing EQUAL")


def usage_hint(message: str) -> str:
    """``; ...`` with the fix for a dataset option that does not exist (a folder belongs in ``dataset.path``),
    an argument that is not KEY=VALUE, or a tracking setting without ``tracking=mlflow``; "" otherwise."""
    if "'hydra.callbacks.mlflow." in message:  # tracking.uri / tracking.experiment (hydra_app.GROUP_ALIASES)
        return " (fix: tracking.uri and tracking.experiment are settings of tracking=mlflow; add tracking=mlflow)"
    found = _MISSING_DATASET.search(message)
    if found:
        return f" (fix: a dataset folder of your own is dataset.path={found.group(1)}; dataset= names a bundled one)"
    found = _NOT_A_RUN_KEY.search(message)
    if found:
        return _run_key_hint(*found.groups())
    found = _BARE.search(message)
    if found:
        arg = found.group(1)
        if Path(arg).expanduser().is_dir():
            return f" (fix: arguments are KEY=VALUE; for the dataset folder {arg}: rag-bench dataset.path={arg})"
        return " (fix: arguments are KEY=VALUE overrides, e.g. chunker.size=400; rag-bench --help lists them)"
    return ""


def _run_key_hint(override: str, key: str) -> str:
    """The fix for a top-level key a run does not have: the nearest one it has, or where an output path goes."""
    from dataclasses import fields
    from difflib import get_close_matches

    from rag_bench.config.schema import Config

    if key in ("out", "output", "output_dir", "outdir"):
        return " (fix: a run's folder is hydra.run.dir=PATH; out= belongs to verbs such as rag-bench rewrite)"
    near = get_close_matches(key, [f.name for f in fields(Config)], n=1, cutoff=0.6)
    if near:
        return f" (fix: did you mean {near[0]}{override[len(key) :]}=...? rag-bench --help lists the settings)"
    return " (fix: rag-bench --help lists the settings and groups of a run)"


def compose(
    config_dir: Path, overrides: Sequence[str], label: str, search: Sequence[Path] = (), groups: Sequence[Options] = ()
) -> DictConfig:
    """``config.yaml`` of ``config_dir`` with ``overrides``; ``search`` adds config folders (the main groups,
    a user's own options), ``groups`` names the verb's own config groups for its messages.

    A composition error is one ConfigError: ``<label>: <what Hydra said, condensed>``.
    """
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.errors import HydraException

    folders = ",".join(f"file://{Path(folder).as_posix()}" for folder in search)
    extra = [f"hydra.searchpath=[{folders}]"] if folders else []
    try:
        with initialize_config_dir(config_dir=str(config_dir), version_base="1.3"):
            return hydra_compose(config_name="config", overrides=[*overrides, *extra])
    except (HydraException, OmegaConfBaseException) as exc:
        text = str(exc) if exc.__cause__ is None else f"{exc}\n{exc.__cause__}"
        raise ConfigError(f"{label}: {explain(condense(text), overrides, groups)}") from None
