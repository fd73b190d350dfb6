"""The gate: per metric, one of three verdicts (docs/ci-gate.md argues the rules and their defaults).

With the drop ``mean(baseline) - mean(current)`` and the one-sided sign-flip test of the per-question
differences (``rag_bench.score.paired``), each metric at level alpha on its own:

- pass: no drop, or a drop within ``max_drop``;
- regression: a drop beyond ``max_drop`` that the test confirms (p < alpha);
- inconclusive: a drop beyond ``max_drop`` that the test cannot confirm (the question set is too small or the
  change too noisy to tell). ``on_inconclusive`` decides: ``fail`` (the default) or ``warn``.

In ``non-inferiority`` mode the burden of proof is reversed: a metric passes only when the data show its drop
is within the margin (the sign-flip test of ``d + max_drop`` > 0 gives p < alpha); a confirmed drop beyond
the margin is a regression, anything else inconclusive.

Beside each verdict: the smallest drop the shared questions could detect at alpha with 80% power
(``score.paired.detectable_drop``, with the spread of the per-question differences, ``_spread``).

A metric where lower is better (``leak@k``) is held under a ceiling instead: ``{metric: leak@10,
max: 0}`` fails whenever the current run's mean exceeds ``max`` (no test: one leaked chunk is a leak).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.gate.rules import GateRule
from rag_bench.run_folder.runs import (
    QuestionSets,
    Run,
    first_hit_ranks,
    hits_at,
    labelled,
    metric_values,
    question_sets,
    question_texts,
)
from rag_bench.score.paired import detectable_drop, paired_test

FLIP_K = 10  # hit@k used for flipped questions when a gated metric has no k
POWER = 0.8  # of the smallest detectable drop printed beside each verdict
MODES = ("superiority", "non-inferiority")
ON_INCONCLUSIVE = ("fail", "warn")
_EPS = 1e-12  # a drop equal to the margin up to rounding is within it
PASSING = ("no drop", "within margin", "under ceiling", "non-inferior")


@dataclass(frozen=True)
class GatePolicy:
    """How the gate decides: the test's level and seed, what an inconclusive metric does, which hypothesis
    carries the burden of proof, and whether a question set that changed is refused."""

    alpha: float = 0.05
    seed: int = 0
    on_inconclusive: str = "fail"  # fail | warn
    mode: str = "superiority"  # superiority: fail on a confirmed drop; non-inferiority: pass on a confirmed small one
    same_questions: bool = False  # refuse runs whose question sets differ (default: gate the shared ones)

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1:
            raise ConfigError(f"--alpha ({self.alpha}) must be between 0 and 1, e.g. 0.05")
        if self.on_inconclusive not in ON_INCONCLUSIVE:
            raise ConfigError(f"--on-inconclusive ({self.on_inconclusive!r}) must be one of: fail, warn")
        if self.mode not in MODES:
            raise ConfigError(f"--mode ({self.mode!r}) must be one of: {', '.join(MODES)}")


@dataclass(frozen=True)
class Verdict:
    """The outcome for one metric; ``status`` is no drop | within margin | non-inferior | under ceiling (pass),
    regression, or inconclusive."""

    rule: GateRule
    n: int
    baseline: float
    current: float
    delta: float  # mean(current - baseline)
    ci_low: float
    ci_high: float
    p_value: float  # one-sided: current lower than baseline (non-inferiority mode: the drop exceeds the margin)
    status: str
    detectable: float = float("nan")  # the smallest drop these questions detect at alpha with 80% power

    @property
    def regressed(self) -> bool:
        return self.status == "regression"

    @property
    def inconclusive(self) -> bool:
        return self.status == "inconclusive"


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
    n_questions: int  # labelled questions both runs scored (the shared ones)
    policy: GatePolicy
    verdicts: tuple[Verdict, ...]
    flips: dict[int, tuple[Flip, ...]]  # k -> flips of hit@k, lost first
    n_probes: int = 0  # filtered questions without labels: in leak@k only
    questions: QuestionSets | None = None  # what the two runs share, added, removed, changed

    @property
    def alpha(self) -> float:
        return self.policy.alpha

    @property
    def regressed(self) -> bool:
        return any(v.regressed for v in self.verdicts)

    @property
    def inconclusive(self) -> bool:
        return any(v.inconclusive for v in self.verdicts)

    @property
    def passed(self) -> bool:
        """No regression, and no inconclusive metric unless the policy only warns of them."""
        return not self.regressed and not (self.inconclusive and self.policy.on_inconclusive == "fail")

    @property
    def headline(self) -> str:
        """PASS, REGRESSION or INCONCLUSIVE (with ``, warned`` when the policy lets it pass)."""
        if self.regressed:
            return "REGRESSION"
        if self.inconclusive:
            return "INCONCLUSIVE" + (", warned" if self.policy.on_inconclusive == "warn" else "")
        return "PASS"


def run_gate(baseline: Run, current: Run, rules: Sequence[GateRule], policy: GatePolicy = GatePolicy()) -> GateResult:
    """Verdict per rule on the questions both runs share, and the questions whose hit@k flipped."""
    sets = question_sets([baseline, current], policy.same_questions)
    ids = sets.shared
    verdicts = tuple(_verdict(baseline, current, ids, rule, policy) for rule in rules)
    ks = sorted({rule.metric.k or FLIP_K for rule in rules})
    texts = question_texts(baseline) or question_texts(current)
    n_labelled = int(labelled(baseline).loc[ids].sum())
    return GateResult(
        baseline=baseline.label,
        current=current.label,
        n_questions=n_labelled,
        policy=policy,
        verdicts=verdicts,
        flips={k: flipped(baseline, current, ids, k, texts) for k in ks},
        n_probes=len(ids) - n_labelled,
        questions=sets,
    )


def _verdict(baseline: Run, current: Run, ids: list[str], rule: GateRule, policy: GatePolicy) -> Verdict:
    before = metric_values(baseline, rule.metric).loc[ids].to_numpy()
    after = metric_values(current, rule.metric).loc[ids].to_numpy()
    keep = np.isfinite(before) & np.isfinite(after)  # questions the metric does not apply to are NaN
    if not keep.any():
        raise ConfigError(
            f"metric {rule.metric} has no value on any question of {baseline.label} and {current.label} "
            "(character metrics need evidence spans); gate another metric"
        )
    before, after = before[keep], after[keep]
    test = paired_test(before, after, alternative="less", seed=policy.seed)
    detectable = detectable_drop(_spread(before, after), test.n, policy.alpha, POWER)
    drop, p_value = -test.delta, test.p_value
    if rule.ceiling is not None:  # lower is better: the current mean itself is held down (no test, no power)
        status = "regression" if test.current > rule.ceiling + _EPS else "under ceiling"
        detectable = float("nan")
    elif policy.mode == "non-inferiority":
        # the drop is within the margin when current + margin beats baseline, confirmed by the test
        p_value = paired_test(before, after + rule.max_drop, alternative="greater", seed=policy.seed).p_value
        if p_value < policy.alpha:
            status = "non-inferior"
        elif drop > rule.max_drop + _EPS and test.p_value < policy.alpha:
            status = "regression"
        else:
            status = "inconclusive"
    elif not drop > 0:
        status = "no drop"
    elif drop <= rule.max_drop + _EPS:
        status = "within margin"
    else:
        status = "regression" if test.p_value < policy.alpha else "inconclusive"
    return Verdict(
        rule, test.n, test.baseline, test.current, test.delta, test.ci_low, test.ci_high, p_value, status, detectable
    )


def _spread(before: np.ndarray, after: np.ndarray) -> float:
    """The spread a drop is detected against: sqrt(mean(d^2)) of the paired differences d, the standard deviation
    the sign-flip test's statistic has under the null (each d_i as likely as -d_i); for a hit metric,
    sqrt(share of questions that changed). When no question changed, that of the scores themselves times
    sqrt(2) (two independent runs of that spread: an upper bound of what a change gives)."""
    diff = after - before
    if np.any(diff != 0):
        return float(np.sqrt(np.mean(diff**2)))
    return float(np.std(before, ddof=1) * np.sqrt(2)) if len(before) > 1 else float("nan")


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
