"""The ``rag-bench`` command: a Hydra app for runs and sweeps, plus verbs (report, gate, ...).

User errors (``RagBenchError``, and a command line Hydra cannot compose) print one
line and exit 2; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import importlib
import io
import sys
from dataclasses import dataclass, field
from pathlib import Path

from rag_bench.errors import RagBenchError

USAGE_ERROR = 2

# verb -> "module:function"; the function takes the verb's arguments and returns an exit code
VERBS: dict[str, str] = {
    "report": "rag_bench.report.sweep_cli:main",
    "diff": "rag_bench.report.diff_cli:main",
    "gate": "rag_bench.gate.cli:gate_main",
    "compare": "rag_bench.gate.cli:compare_main",
    "import": "rag_bench.data.importers.cli:main",
    "check-generation": "rag_bench.generate.cli:main",
    "contextualize": "rag_bench.contextualize.cli:main",
    "label": "rag_bench.label.cli:main",
    "dataset-stats": "rag_bench.label.stats:main",
    "synthesize": "rag_bench.synthesize.run:main",
    "rewrite": "rag_bench.rewrite.cli:main",
}


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in VERBS:
        module, function = VERBS[argv[0]].split(":")
        try:
            sys.exit(getattr(importlib.import_module(module), function)(argv[1:]))
        except RagBenchError as exc:
            fail(exc)
    run_hydra(argv)


def fail(exc: Exception) -> None:
    print(f"rag-bench: error: {exc}", file=sys.stderr)
    sys.exit(USAGE_ERROR)


def run_hydra(argv: list[str]) -> None:
    """Compose the config from ``configs/`` and the overrides, then run (or sweep) the pipeline."""
    import hydra

    from rag_bench.config import register
    from rag_bench.data.bundled import project_folder

    register()
    main_function = hydra.main(version_base="1.3", config_path=str(project_folder("configs")), config_name="config")
    sys.argv = [sys.argv[0], *map(group_alias, argv)]
    real_stderr, held = sys.stderr, io.StringIO()
    PROCESS.job_started, PROCESS.real_stderr = False, real_stderr
    sys.stderr = held  # hold Hydra's own messages until a job starts
    try:
        main_function(task)()
    except SystemExit as exc:
        # Hydra exits 1 when it cannot compose the command line: that is a usage error.
        if exc.code == 1 and not PROCESS.job_started:
            from rag_bench.compose import condense, explain

            message = explain(condense(held.getvalue()), argv)
            print(f"rag-bench: error: {message}", file=real_stderr)
            held = io.StringIO()
            sys.exit(USAGE_ERROR)
        raise
    finally:
        if not PROCESS.job_started:
            sys.stderr = real_stderr
            real_stderr.write(held.getvalue())


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

    def workspace(self, cache_dir: str | None):
        """The workspace of ``cache_dir`` (None: the default folder), made on first use."""
        from rag_bench.workspace import Workspace

        if cache_dir not in self.workspaces:
            self.workspaces[cache_dir] = Workspace.open(cache_dir)
        return self.workspaces[cache_dir]


PROCESS = Process()


# value-style keys that select a nested config group: ``retrieval.index=hnsw`` is ``retrieval/index=hnsw``
GROUP_ALIASES = {"retrieval.index": "retrieval/index"}


def group_alias(override: str) -> str:
    """``override`` with a group alias on its left-hand side replaced by the group it names."""
    key, sep, value = override.partition("=")
    return f"{GROUP_ALIASES[key]}{sep}{value}" if sep and key in GROUP_ALIASES else override


def task(cfg) -> float:
    """The Hydra task: release held stderr, then run one job."""
    if not PROCESS.job_started:
        PROCESS.job_started = True
        sys.stderr = PROCESS.real_stderr or sys.__stderr__
    return run_job(cfg)


def run_job(cfg) -> float:
    """One Hydra job: validate, run, write outputs into Hydra's output folder, print the table.

    Returns the objective metric, which Hydra's optimising sweepers (Optuna) maximise. In a
    multirun, a point whose folder already holds finished outputs of the same config is skipped,
    so rerunning a sweep into the same folder resumes it.
    """
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from rag_bench.config import objective_name, validate
    from rag_bench.data.conventions import hint as conventions_hint
    from rag_bench.pipeline import run
    from rag_bench.report.console import console_table
    from rag_bench.run_folder.fingerprint import fingerprint
    from rag_bench.run_folder.write import config_yaml, finished, write_run

    hydra_cfg = HydraConfig.get()
    out_dir = Path(hydra_cfg.runtime.output_dir)
    try:
        config = validate(cfg)
        text = config_yaml(config)
        prints = fingerprint(config)
        payload = finished(out_dir, text, prints) if hydra_cfg.mode == RunMode.MULTIRUN else None
        if payload is not None:
            print(f"skipped: {out_dir} already holds this point's results")
            return payload["metrics"].get(objective_name(config), float("nan"))
        advice = conventions_hint(config)
        if advice and advice not in PROCESS.hints:  # its source publishes under other settings: say how, once
            PROCESS.hints.add(advice)
            print(advice, file=sys.stderr)
        payload = write_run(run(config, PROCESS.workspace(config.cache_dir)), out_dir, text, prints)
    except RagBenchError as exc:
        fail(exc)
    print(console_table(payload))
    print(f"outputs: {out_dir}")
    return payload["metrics"].get(objective_name(config), float("nan"))
