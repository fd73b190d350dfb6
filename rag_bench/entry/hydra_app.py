"""The Hydra app behind ``rag-bench [OVERRIDES]`` and ``rag-bench -m ...``: compose, run (or sweep), write.

A command line Hydra cannot compose, a ``RagBenchError`` and a file that cannot be written (full disk,
read-only or unwritable folder, a file where a folder belongs) print one line and exit 2 (``failing.py``);
anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import io
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from rag_bench.core.errors import RagBenchError
from rag_bench.core.files import check_writable, is_write_fault, naming
from rag_bench.entry.collection import pause_collection, resume_collection
from rag_bench.entry.failing import RUN_DIR_HINT, USAGE_ERROR, fail, fail_write, printed_os_error, write_hint


def run_hydra(argv: list[str], hint: str = "", dry_run: bool = False) -> None:
    """Compose the config from ``configs/`` and the overrides, then run (or sweep) the pipeline.

    ``hint`` ends the error line when Hydra cannot compose the command line (a mistyped verb, say).
    ``dry_run``: print each point's plan and the total instead (``planning.py``); a sweep a budget stopped
    exits ``planning.BUDGET_STOP``.
    """
    from rag_bench.entry.planning import Planning, budget_exit, dry_overrides, finish_dry

    PROCESS.planning = Planning(dry=dry_run)
    folder = None
    if dry_run:
        argv, folder = dry_overrides(argv)
    pause_collection()
    try:
        _run_hydra(argv, hint)
    finally:
        resume_collection()  # a no-op once a job started; else (a usage error, Hydra's help) collecting again
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    if dry_run:
        finish_dry(PROCESS.planning, folder)
    budget_exit(PROCESS.planning)


def _run_hydra(argv: list[str], hint: str) -> None:
    import hydra

    from rag_bench.config.compose_cache import cache_dir_override, installed
    from rag_bench.config.schema import register
    from rag_bench.core.paths import project_folder

    register()
    main_function = hydra.main(version_base="1.3", config_path=str(project_folder("configs")), config_name="config")
    sys.argv = [sys.argv[0], *map(group_alias, argv)]
    real_stderr = sys.stderr
    PROCESS.job_started, PROCESS.real_stderr = False, real_stderr
    PROCESS.hold()  # hold Hydra's own messages while no job runs
    try:
        with installed(cache_dir_override(argv)):  # compositions through the cache (compose_cache.py)
            main_function(task)()
    except SystemExit as exc:
        held = PROCESS.release()
        # Hydra exits 1 when it cannot compose the command line (a usage error), or when one of its own
        # steps failed: a run folder that cannot be made or written is a write fault, not a bug
        fault = printed_os_error(held) if exc.code == 1 else None
        if fault is not None:
            fail_write(fault, RUN_DIR_HINT)
        if exc.code == 1 and not PROCESS.job_started:
            from rag_bench.config.compose import condense, explain

            message = explain(condense(held), argv)
            print(f"rag-bench: error: {message}{hint}", file=real_stderr)
            sys.exit(USAGE_ERROR)
        real_stderr.write(held)
        raise
    finally:
        real_stderr.write(PROCESS.release())


@dataclass
class Process:
    """What lives as long as the process: whether a Hydra job has started (Hydra's messages are held
    until then), the stderr to give back, and one workspace per cache folder, kept across the jobs a
    sweep runs in this process. Module-level (not a closure), so that launchers which pickle the task
    function (joblib, submitit) can send it to other processes, where it starts afresh."""

    job_started: bool = False
    real_stderr: object = None
    workspaces: dict = field(default_factory=dict)
    hints: set = field(default_factory=set)  # dataset-convention hints already printed
    planning: object = None  # entry/planning.py's Planning: a dry run's plans, a budget's spending
    held: io.StringIO | None = None

    def hold(self) -> None:
        """Send stderr to a buffer (Hydra's messages between jobs)."""
        self.held = io.StringIO()
        sys.stderr = self.held

    def release(self) -> str:
        """Give the real stderr back; return what was held (once; "" afterwards)."""
        text = self.held.getvalue() if self.held is not None else ""
        self.held = None
        sys.stderr = self.real_stderr or sys.__stderr__
        return text

    def workspace(self, cache_dir: str | None):
        """The workspace of ``cache_dir`` (None: the default folder), made on first use."""
        from rag_bench.core.workspace import Workspace

        if cache_dir not in self.workspaces:
            workspace = Workspace.open(cache_dir)
            try:  # a cache that is a file, read-only or full fails here, before any work
                check_writable(workspace.cache.root / "probe")
            except OSError as exc:
                raise naming(exc, workspace.cache.root) from exc
            self.workspaces[cache_dir] = workspace
        return self.workspaces[cache_dir]


PROCESS = Process()


# value-style keys that select a nested config group: ``retrieval.index=hnsw`` is ``retrieval/index=hnsw``; and
# the settings of tracking=mlflow, which live in its Hydra callback (configs/tracking/mlflow.yaml)
GROUP_ALIASES = {
    "retrieval.index": "retrieval/index",
    "tracking.uri": "hydra.callbacks.mlflow.uri",
    "tracking.experiment": "hydra.callbacks.mlflow.experiment",
}


def group_alias(override: str) -> str:
    """``override`` with a group alias on its left-hand side replaced by the group it names."""
    key, sep, value = override.partition("=")
    return f"{GROUP_ALIASES[key]}{sep}{value}" if sep and key in GROUP_ALIASES else override


def task(cfg) -> float:
    """The Hydra task: release held stderr, run one job, hold stderr again."""
    resume_collection()
    PROCESS.job_started = True
    sys.stderr.flush()
    (PROCESS.real_stderr or sys.__stderr__).write(PROCESS.release())
    try:
        return run_job(cfg)
    finally:
        PROCESS.hold()


def run_job(cfg) -> float:
    """One Hydra job: validate, run, write outputs into Hydra's output folder, print the table.

    Returns the objective metric, which Hydra's optimising sweepers (Optuna) maximise (negated when it is
    lower-is-better, ``score/names.maximised``). In a
    multirun, a point whose folder already holds finished outputs of the same config is skipped,
    so rerunning a sweep into the same folder resumes it.
    """
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from rag_bench.config.schema import objective_name, validate
    from rag_bench.report.run.console import console_table, point_line
    from rag_bench.run_folder.fingerprint import fingerprint
    from rag_bench.run_folder.write import finished
    from rag_bench.score.names import maximised

    hydra_cfg = HydraConfig.get()
    out_dir = Path(hydra_cfg.runtime.output_dir)
    config = None
    try:
        config = validate(cfg)
        if hydra_cfg.mode == RunMode.MULTIRUN:
            as_sweep_point(config)
        if config.budget.capped or (PROCESS.planning is not None and PROCESS.planning.dry):
            line = plan_or_stop(config, hydra_cfg, out_dir)
            if line is not None:  # a dry run's plan, or a point the budget stops
                print(line, flush=True)
                return float("nan")
        prints = fingerprint(config)
        payload = finished(out_dir, config, prints) if hydra_cfg.mode == RunMode.MULTIRUN else None
        if payload is not None:
            print(f"skipped: {out_dir} already holds this point's results")
            return maximised(objective_name(config), payload["metrics"].get(objective_name(config), float("nan")))
        advise(config)
        payload, spent = run_or_serve(config, out_dir, prints)
        if PROCESS.planning is not None:
            PROCESS.planning.spend(spent)
    except RagBenchError as exc:
        fail(exc)
    except OSError as exc:
        if not is_write_fault(exc):
            raise
        fail_write(exc, write_hint(exc, out_dir, getattr(config, "cache_dir", None)))
    if hydra_cfg.mode == RunMode.MULTIRUN:  # a sweep: one line per point, the summary table once at the end
        print(point_line(hydra_cfg.job.num, payload, out_dir), flush=True)
    else:
        print(console_table(payload))
        print(f"outputs: {out_dir}")
    return maximised(objective_name(config), payload["metrics"].get(objective_name(config), float("nan")))


def plan_or_stop(config, hydra_cfg, out_dir: Path) -> str | None:
    """A dry run's line for this point; else, under a budget, why the point is not run (``not_run.json``), or None."""
    from rag_bench.entry.planning import Planning, plan_job

    if PROCESS.planning is None:  # a job in another launcher's process
        PROCESS.planning = Planning()
    return plan_job(PROCESS.planning, lambda: PROCESS.workspace(config.cache_dir), config, hydra_cfg, out_dir)


def plan_point_config(cfg, number: int, overrides: list[str]) -> float:
    """A dry run's sweep point (``hydra_plugins/rag_bench_launchers/plan.py``): validate, print its plan line."""
    from rag_bench.config.schema import validate
    from rag_bench.entry.planning import dry_point, point_label, point_plan

    resume_collection()
    PROCESS.job_started = True
    (PROCESS.real_stderr or sys.__stderr__).write(PROCESS.release())
    try:
        config = validate(cfg)
        as_sweep_point(config)  # as run_job's sweep points (and so their run cache keys)
        planning = PROCESS.planning
        planning.budget = planning.budget or config.budget
        plan = point_plan(config, PROCESS.workspace(config.cache_dir), planning.pending)
        print(dry_point(planning, point_label(overrides, number, sys.argv[1:]), config.budget, plan), flush=True)
    except RagBenchError as exc:
        fail(exc)
    finally:
        PROCESS.hold()
    return float("nan")


def as_sweep_point(config) -> None:
    """A sweep counts and names a file a parser cannot read, and goes on (``parser.failures=auto`` in a sweep)."""
    if config.parser.failures == "auto":
        config.parser.failures = "skip"


def advise(config) -> None:
    """Print, once a process, the overrides that make a run follow its dataset's conventions (when they differ)."""
    from rag_bench.config.hints import conventions_hint

    advice = conventions_hint(config)
    if advice and advice not in PROCESS.hints:  # its source publishes under other settings: say how, once
        PROCESS.hints.add(advice)
        print(advice, file=sys.stderr)


def run_or_serve(config, out_dir: Path, prints: dict[str, str]) -> tuple[dict, float]:
    """Serve the outputs of an earlier run of this config on these files (``run_folder/reuse.py``), else run it.

    Returns the payload and the estimated API cost spent now (0 when served)."""
    from rag_bench.run_folder import reuse

    workspace = PROCESS.workspace(config.cache_dir)
    payload = reuse.serve(workspace.cache, reuse.run_key(config, prints), out_dir)
    if payload is not None:
        return payload, 0.0
    payload, result = compute(config, out_dir, prints)
    return payload, result.stats.cost_usd


def compute(config, out_dir: Path, prints: dict[str, str], retriever=None) -> tuple[dict, object]:
    """Run the pipeline, write the run folder into ``out_dir`` and keep its files for reuse when they may be
    served again; return the metrics.json object and the ``pipeline.RunResult``.

    ``retriever``: one built by the caller (the Python API) instead of ``config.retrieval``'s.
    """
    from rag_bench.pipeline.run import run
    from rag_bench.report.run.outputs import write_outputs
    from rag_bench.run_folder import reuse
    from rag_bench.run_folder.write import config_yaml

    workspace = PROCESS.workspace(config.cache_dir)
    result = run(config, workspace, retriever)
    payload, written = write_outputs(result, out_dir, config_yaml(config), prints)
    if result.reusable:
        reuse.keep(workspace.cache, reuse.run_key(config, prints), written)
    return payload, result
