"""``--dry-run`` and ``budget.*`` for the Hydra app: a plan per point and in total, and a sweep stopped before a point
would take it past its budget.

Dry run: the sweep's points are composed by Hydra as usual (basic launcher, output folders in a temporary folder
removed afterwards, no sweep report); each job prints its point's plan (``pipeline/plan.py``) instead of running,
and the totals, with where a budget would stop the sweep, are printed when Hydra is done.

Budget: before each point, its plan against the cache as it is now; the point is not run when what the sweep
spent so far (the points' estimated API cost as their runs counted it; wall-clock seconds since the first
point) plus the point's plan would exceed ``budget.usd`` or ``budget.seconds``. Once one point is stopped,
every later point is stopped too, so the sweep ends where its plan said. Each stopped point's folder gets
``not_run.json`` with the reason; rag-bench then exits ``BUDGET_STOP``.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rag_bench.core.errors import ConfigError

if TYPE_CHECKING:  # the console entry imports this module: the pipeline is imported only when a job plans
    from rag_bench.config.schema import BudgetConfig
    from rag_bench.pipeline.plan import PointPlan

DRY_RUN = "--dry-run"
BUDGET_STOP = 3  # exit code of a sweep that a budget stopped (finished points kept); 2 is a usage error
BASIC_LAUNCHER = "hydra._internal.core_plugins.basic_launcher.BasicLauncher"


@dataclass
class Planning:
    """One process's plan or budget: the points planned, what was spent, and whether the sweep was stopped."""

    dry: bool = False
    pending: dict = field(default_factory=dict)  # dry run: texts earlier points would embed
    points: list[tuple[str, PointPlan]] = field(default_factory=list)
    budget: BudgetConfig | None = None  # the first point's (the same in every point of a sweep)
    spent_usd: float = 0.0
    started: float | None = None  # the first point's start (time.monotonic)
    stopped: list[tuple[str, str]] = field(default_factory=list)  # (point, reason) of each point not run
    planned_seconds: float = 0.0  # dry run: the planned points' seconds so far
    planned_usd: float = 0.0  # the running point's planned cost: it counts when its run counted less

    def spend(self, counted_usd: float) -> None:
        """Add a finished point's cost: what its run counted, or its plan when that was more (a plan's tokens
        are an over-estimate; billing may count fewer), so the sweep never stops later than its plan said."""
        self.spent_usd += max(counted_usd, self.planned_usd)
        self.planned_usd = 0.0

    def elapsed(self) -> float:
        if self.dry:
            return self.planned_seconds
        if self.started is None:
            self.started = time.monotonic()
        return time.monotonic() - self.started


def over_budget(budget: BudgetConfig, spent_usd: float, elapsed_s: float, plan: PointPlan) -> str | None:
    """Why running a point with ``plan`` would take the sweep past ``budget``, or None."""
    if budget.usd is not None and spent_usd + plan.usd > budget.usd:
        return (
            f"budget.usd ({budget.usd:g}): spent ${spent_usd:.6f} + this point's estimate ${plan.usd:.6f} "
            f"= ${spent_usd + plan.usd:.6f} would exceed it"
        )
    if budget.seconds is not None and elapsed_s + plan.seconds > budget.seconds:
        return (
            f"budget.seconds ({budget.seconds:g}): {elapsed_s:.1f} s so far + this point's estimate "
            f"{plan.seconds:.1f} s would exceed it"
        )
    return None


def check_launcher(budget: BudgetConfig, launcher: str) -> None:
    """A budget needs the points run one after another in this process (the basic launcher)."""
    if budget.capped and launcher != BASIC_LAUNCHER:
        raise ConfigError(
            f"budget.usd/budget.seconds need the basic launcher, not {launcher.rsplit('.', 1)[-1]}: points on a "
            "parallel or cluster launcher run at once in other processes, where none sees what the others spent; "
            "drop hydra/launcher=... or the budget (rag-bench --dry-run ... prints the plan's total)"
        )


def decide(planning: Planning, label: str, budget: BudgetConfig, plan: PointPlan) -> str | None:
    """Whether a point runs: None, or why not (recorded in ``planning.stopped``); later points stop too."""
    reason = None
    if planning.stopped:
        reason = f"the sweep stopped before point {planning.stopped[0][0]} ({planning.stopped[0][1]})"
    else:
        reason = over_budget(budget, planning.spent_usd, planning.elapsed(), plan)
    if reason is not None:
        planning.stopped.append((label, reason))
    return reason


def part_text(plan: PointPlan) -> str:
    """The plan of one point as one line's body: each component's texts, tokens and cost, then the time."""
    bits = []
    for part in plan.parts:
        unit = "pairs" if part.what == "reranking" else "texts"
        text = f"{part.what} {part.sent} {unit}" + (f" ({part.cached} cached)" if part.cached else "")
        if part.tokens is not None:
            cost = "price unknown" if part.usd is None else f"${part.usd:.6f}"
            text += f", {part.tokens} tokens, {cost}"
        bits.append(f"{text} [{part.model}]")
    bits.append(f"~{plan.seconds:.1f} s" + ("" if plan.timed else " (part of the time unknown: nothing recorded yet)"))
    return "; ".join([*(bits or ["nothing to embed or rerank"]), *plan.notes])


def dry_point(planning: Planning, label: str, budget: BudgetConfig, plan: PointPlan) -> str:
    """Add a point to a dry run; its line."""
    stop = decide(planning, label, budget, plan) if budget.capped else None
    planning.points.append((label, plan))
    if stop is None:
        planning.spent_usd += plan.usd
        planning.planned_seconds += plan.seconds
    return f"plan{' ' if label else ''}{label}: {part_text(plan)}" + (f" -> NOT RUN: {stop}" if stop else "")


def totals(planning: Planning) -> list[str]:
    """The plan's total lines: every point, and where the budget would stop the sweep."""
    plans = [p for _, p in planning.points]
    texts = sum(part.sent for p in plans for part in p.parts if part.what != "reranking")
    pairs = sum(part.sent for p in plans for part in p.parts if part.what == "reranking")
    usd, seconds = sum(p.usd for p in plans), sum(p.seconds for p in plans)
    timed = all(p.timed for p in plans)
    unknown = [] if timed else ["time: no run on this cache has measured some of this work yet (0 s counted)"]
    unknown += [] if all(p.priced for p in plans) else ["a model's price is unknown (configs/prices.yaml)"]
    source = "from throughput recorded in the cache by earlier runs on this machine" if timed else "partly unknown"
    lines = [
        f"plan total: {len(plans)} point{'' if len(plans) == 1 else 's'}; {texts} texts to embed after the cache, "
        f"{pairs} rerank pairs, "
        f"{sum(p.tokens for p in plans)} API tokens, ${usd:.6f} estimated; ~{seconds:.1f} s ({source})",
        *(f"  note: {n}" for n in unknown),
    ]
    if planning.budget is not None and planning.budget.capped:
        if planning.stopped:
            run = len(plans) - len(planning.stopped)
            lines.append(
                f"with this budget: {run} points run (${planning.spent_usd:.6f}, ~{planning.planned_seconds:.1f} s), "
                f"the sweep stops before point {planning.stopped[0][0]}: {planning.stopped[0][1]}"
            )
        else:
            lines.append("with this budget: every point runs")
    lines.append("dry run: nothing was embedded, reranked or written")
    return lines


def plan_job(planning: Planning, workspace: Callable, config, hydra_cfg, out_dir: Path) -> str | None:
    """A Hydra job's plan: a dry run's line; else, under a budget, why the point is not run (``not_run.json``
    written), or None. ``workspace()`` gives the cache's workspace."""
    from hydra.types import RunMode

    from rag_bench.run_folder.not_run import write_not_run

    if not planning.dry:  # before any work: a budget needs the points in this process, one after another
        check_launcher(config.budget, str(hydra_cfg.launcher.get("_target_", "")))
    planning.budget = planning.budget or config.budget
    number = hydra_cfg.job.num if hydra_cfg.mode == RunMode.MULTIRUN else None
    label = point_label(list(hydra_cfg.overrides.task), number, sys.argv[1:])
    if planning.dry:
        return dry_point(planning, label, config.budget, point_plan(config, workspace(), planning.pending))
    plan = point_plan(config, workspace())
    reason = decide(planning, label, config.budget, plan)
    if reason is None:
        planning.planned_usd = plan.usd
        return None
    write_not_run(out_dir, reason, plan.usd, plan.seconds)
    return f"point{' ' if label else ''}{label}: not run: {reason} -> {out_dir}"


def point_plan(config, workspace, pending: dict | None = None) -> PointPlan:
    """A point's plan: nothing to do when the run cache holds its outputs (``run_folder/reuse.py``: it would be
    served), else ``pipeline/plan.py``'s."""
    from rag_bench.pipeline.plan import PointPlan, plan_point
    from rag_bench.run_folder import reuse
    from rag_bench.run_folder.fingerprint import fingerprint

    if reuse.kept(workspace.cache, reuse.run_key(config, fingerprint(config))):
        return PointPlan(other_seconds=0.0, notes=["served from the run cache: nothing to embed, rerank or pay"])
    return plan_point(config, workspace, pending)


def dry_overrides(argv: list[str]) -> tuple[list[str], Path]:
    """``argv`` for a dry run: the planning launcher, Hydra's folders in a temporary folder, no sweep report."""
    folder = Path(tempfile.mkdtemp(prefix="rag-bench-plan-"))
    dropped = ("hydra/launcher=", "hydra.sweep.dir=", "hydra.run.dir=", "hydra.output_subdir=")
    kept = [a for a in argv if a != DRY_RUN and not a.startswith(dropped)]
    extra = [
        "hydra/launcher=rag_bench_plan",  # hydra_plugins/rag_bench_launchers/plan.py
        f"hydra.sweep.dir={folder.as_posix()}/sweep",
        f"hydra.run.dir={folder.as_posix()}/run",
        "hydra.output_subdir=null",
        "~hydra.callbacks.sweep_report",
    ]
    return kept + extra, folder


def finish_dry(planning: Planning, folder: Path) -> None:
    """Print the totals; remove the temporary folder."""
    shutil.rmtree(folder, ignore_errors=True)
    for line in totals(planning):
        print(line)


def point_label(overrides: list[str], number: int | None, argv: list[str]) -> str:
    """``3 (chunker.size=800 retrieval=bm25)``: the job's number and its own overrides: those of keys the command
    line gives every point alike (no comma in the value) are left out."""
    common = {a.split("=", 1)[0] for a in argv if "=" in a and "," not in a.split("=", 1)[1]}
    own = " ".join(o for o in overrides if o.split("=", 1)[0] not in common and not o.startswith(("sweep=", "hydra")))
    return " ".join(part for part in ("" if number is None else str(number), f"({own})" if own else "") if part)


def budget_exit(planning: Planning) -> None:
    """Exit ``BUDGET_STOP`` with one line when a budget stopped points."""
    if planning.stopped and not planning.dry:
        names = ", ".join(label.split(" ", 1)[0] for label, _ in planning.stopped)
        what = f"sweep stopped by its budget: points {names} not run" if names else "run not started: over budget"
        print(
            f"rag-bench: {what} ({planning.stopped[0][1]}); finished points are kept: raise the budget and run "
            "the same command to run the rest",
            file=sys.stderr,
        )
        sys.exit(BUDGET_STOP)
