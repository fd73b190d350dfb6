"""The gate: per metric, fail only on a drop beyond its margin that a paired test says is real.

A metric regresses when ``mean(baseline) - mean(current) > max_drop`` and the one-sided
sign-flip test of the per-question differences (``rag_bench.score.paired``) gives p < alpha.
Each metric is tested at alpha on its own (no correction across the gated metrics).

A metric where lower is better (``leak@k``) is held under a ceiling instead: ``{metric: leak@10,
max: 0}`` fails whenever the current run's mean exceeds ``max`` (no test: one leaked chunk is a leak).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.run_folder.runs import (
    Run,
    common_questions,
    first_hit_ranks,
    hits_at,
    labelled,
    metric_values,
    question_texts,
)
from rag_bench.score.names import Metric, higher_is_better, parse_metric
from rag_bench.score.paired import paired_test

DEFAULT_METRIC = "recall@10"
DEFAULT_MAX_DROP = 0.02
FLIP_K = 10  # hit@k used for flipped questions when a gated metric has no k
_EPS = 1e-12  # a drop equal to the margin up to rounding is within it


@dataclass(frozen=True)
class GateRule:
    """Gate one metric: its mean may drop by at most ``max_drop`` (absolute)."""

    metric: Metric
    max_drop: float
    ceiling: float | None = None  # lower-is-better metrics: the current mean may not exceed it


@dataclass(frozen=True)
class Verdict:
    """The outcome for one metric; ``status`` is no drop | within margin | not significant | regression."""

    rule: GateRule
    n: int
    baseline: float
    current: float
    delta: float  # mean(current - baseline)
    ci_low: float
    ci_high: float
    p_value: float  # one-sided: current lower than baseline
    status: str

    @property
    def regressed(self) -> bool:
        return self.status == "regression"


@dataclass(frozen=True)
class Flip:
    """A question whose hit@k changed: ``lost`` from hit to miss, else from miss to hit."""

    question_id: str
    text: str | None
    rank_before: float  # rank of the first hit, NaN when none within the retrieval depth
    rank_after: float
    lost: bool


@dataclass(frozen=True)
class GateResult:
    baseline: str
    current: str
    n_questions: int  # labelled questions both runs scored
    alpha: float
    verdicts: tuple[Verdict, ...]
    flips: dict[int, tuple[Flip, ...]]  # k -> flips of hit@k, lost first
    n_probes: int = 0  # filtered questions without labels: in leak@k only

    @property
    def passed(self) -> bool:
        return not any(v.regressed for v in self.verdicts)


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


def run_gate(baseline: Run, current: Run, rules: Sequence[GateRule], alpha: float = 0.05, seed: int = 0) -> GateResult:
    """Verdict per rule, and the questions whose hit@k flipped for each k the rules use."""
    if not 0 < alpha < 1:
        raise ConfigError(f"--alpha ({alpha}) must be between 0 and 1, e.g. 0.05")
    ids = common_questions([baseline, current])
    verdicts = tuple(_verdict(baseline, current, ids, rule, alpha, seed) for rule in rules)
    ks = sorted({rule.metric.k or FLIP_K for rule in rules})
    texts = question_texts(baseline) or question_texts(current)
    n_labelled = int(labelled(baseline).loc[ids].sum())
    return GateResult(
        baseline=baseline.label,
        current=current.label,
        n_questions=n_labelled,
        alpha=alpha,
        verdicts=verdicts,
        flips={k: flipped(baseline, current, ids, k, texts) for k in ks},
        n_probes=len(ids) - n_labelled,
    )


def _verdict(baseline: Run, current: Run, ids: list[str], rule: GateRule, alpha: float, seed: int) -> Verdict:
    before = metric_values(baseline, rule.metric).loc[ids].to_numpy()
    after = metric_values(current, rule.metric).loc[ids].to_numpy()
    keep = np.isfinite(before) & np.isfinite(after)  # questions the metric does not apply to are NaN
    if not keep.any():
        raise ConfigError(
            f"metric {rule.metric} has no value on any question of {baseline.label} and {current.label} "
            "(character metrics need evidence spans); gate another metric"
        )
    test = paired_test(before[keep], after[keep], alternative="less", seed=seed)
    drop = -test.delta
    if rule.ceiling is not None:  # lower is better: the current mean itself is held down
        status = "regression" if test.current > rule.ceiling + _EPS else "under ceiling"
    elif not drop > 0:
        status = "no drop"
    elif drop <= rule.max_drop + _EPS:
        status = "within margin"
    elif test.p_value >= alpha:
        status = "not significant"
    else:
        status = "regression"
    return Verdict(
        rule, test.n, test.baseline, test.current, test.delta, test.ci_low, test.ci_high, test.p_value, status
    )


def flipped(baseline: Run, current: Run, ids: list[str], k: int, texts: dict[str, str]) -> tuple[Flip, ...]:
    """Labelled questions whose hit@k went 1 -> 0 (lost) or 0 -> 1, in question order, lost first."""
    ids = [q for q in ids if labelled(baseline)[q] and labelled(current)[q]]  # a filtered probe has no hit@k
    before, after = hits_at(baseline, k).loc[ids], hits_at(current, k).loc[ids]
    rank_before, rank_after = first_hit_ranks(baseline).loc[ids], first_hit_ranks(current).loc[ids]
    flips = [
        Flip(q, texts.get(q), float(rank_before[q]), float(rank_after[q]), lost=bool(before[q] > after[q]))
        for q in ids
        if before[q] != after[q]
    ]
    return tuple(sorted(flips, key=lambda f: not f.lost))
