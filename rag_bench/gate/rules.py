"""What the gate checks: one ``GateRule`` per metric (a margin for its drop, or a ceiling for a lower-is-better
metric), from ``--metric``/``--max-drop`` pairs or a YAML/JSON file, checked in one place."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rag_bench.core.errors import ConfigError
from rag_bench.score.names import Metric, higher_is_better, parse_metric

DEFAULT_METRIC = "recall@10"
DEFAULT_MAX_DROP = 0.02


@dataclass(frozen=True)
class GateRule:
    """Gate one metric: its mean may drop by at most ``max_drop`` (absolute)."""

    metric: Metric
    max_drop: float
    ceiling: float | None = None  # lower-is-better metrics: the current mean may not exceed it


def make_rules(metrics: Sequence[str], max_drops: Sequence[float]) -> tuple[GateRule, ...]:
    """Pair ``--metric`` with ``--max-drop`` in order; no max drops at all means the default for each."""
    if max_drops and len(max_drops) != len(metrics):
        raise ConfigError(
            f"each --metric needs its own --max-drop (got {len(metrics)} --metric, {len(max_drops)} --max-drop)"
        )
    drops = list(max_drops) if max_drops else [DEFAULT_MAX_DROP] * len(metrics)
    return tuple(_rule(name, drop, "--max-drop") for name, drop in zip(metrics, drops, strict=True))


def _rule(name: object, max_drop: object, where: str) -> GateRule:
    if not isinstance(name, str):
        raise ConfigError(f"{where}: metric ({name!r}) must be a metric name such as recall@10")
    metric = parse_metric(name)
    if not higher_is_better(metric):
        raise ConfigError(
            f"{where}: {metric} is lower-is-better; hold it under a ceiling with {{metric: {metric}, max: 0}}"
        )
    if isinstance(max_drop, bool) or not isinstance(max_drop, int | float) or not 0 <= max_drop <= 1:
        raise ConfigError(f"{where}: max_drop of {metric} ({max_drop!r}) must be a number from 0 to 1, e.g. 0.02")
    return GateRule(metric, float(max_drop))


def _ceiling_rule(name: object, ceiling: object, where: str) -> GateRule:
    if not isinstance(name, str):
        raise ConfigError(f"{where}: metric ({name!r}) must be a metric name such as leak@10")
    metric = parse_metric(name)
    if higher_is_better(metric):
        raise ConfigError(f"{where}: {metric} is higher-is-better; gate it with max_drop, not max")
    if isinstance(ceiling, bool) or not isinstance(ceiling, int | float) or not 0 <= ceiling <= 1:
        raise ConfigError(f"{where}: max of {metric} ({ceiling!r}) must be a number from 0 to 1, e.g. 0")
    return GateRule(metric, 0.0, float(ceiling))


def load_rules(path: str | Path) -> tuple[GateRule, ...]:
    """Rules from a YAML or JSON list of ``{metric: recall@10, max_drop: 0.02}``."""
    import yaml

    path = Path(path)
    try:
        entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"gate config {path} cannot be read ({exc.strerror})") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"gate config {path} is not valid YAML or JSON ({exc})") from exc
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"gate config {path} must be a non-empty list of {{metric: NAME, max_drop: X}} entries")
    rules = []
    for i, entry in enumerate(entries, start=1):
        where = f"gate config {path} entry {i}"
        if isinstance(entry, dict) and set(entry) == {"metric", "max"}:
            rules.append(_ceiling_rule(entry["metric"], entry["max"], where))
            continue
        if not isinstance(entry, dict) or set(entry) != {"metric", "max_drop"}:
            raise ConfigError(f"{where} ({entry!r}) must have exactly the keys metric, max_drop (or metric, max)")
        rules.append(_rule(entry["metric"], entry["max_drop"], where))
    return tuple(rules)


def check_unique(rules: Sequence[GateRule]) -> tuple[GateRule, ...]:
    """``rules``, or the default rule when empty; a ConfigError when a metric is gated twice."""
    names = [str(r.metric) for r in rules]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError(f"metric {', '.join(twice)} is gated more than once; keep one max_drop per metric")
    return tuple(rules) or (GateRule(parse_metric(DEFAULT_METRIC), DEFAULT_MAX_DROP),)
