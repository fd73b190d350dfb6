"""The ``rag-bench`` command: a Hydra app for runs and sweeps, plus verbs (report, gate, ...).

User errors (``RagBenchError``, and a command line Hydra cannot compose) print one
line and exit 2; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import importlib
import io
import sys
from pathlib import Path

from rag_bench.errors import RagBenchError

USAGE_ERROR = 2

# verb -> "module:function"; the function takes the verb's arguments and returns an exit code
VERBS: dict[str, str] = {
    "report": "rag_bench.report.sweep_cli:main",
    "gate": "rag_bench.gate.cli:gate_main",
    "compare": "rag_bench.gate.cli:compare_main",
    "import": "rag_bench.data.importers.cli:main",
    "check-generation": "rag_bench.generate.cli:main",
    "contextualize": "rag_bench.chunk.contextualize:main",
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
    entered = False
    real_stderr, held = sys.stderr, io.StringIO()

    @hydra.main(version_base="1.3", config_path=str(project_folder("configs")), config_name="config")
    def task(cfg):
        nonlocal entered
        if not entered:
            entered = True
            sys.stderr = real_stderr
        return run_job(cfg)

    sys.argv = [sys.argv[0], *argv]
    sys.stderr = held  # hold Hydra's own messages until a job starts
    try:
        task()
    except SystemExit as exc:
        # Hydra exits 1 when it cannot compose the command line: that is a usage error.
        if exc.code == 1 and not entered:
            print(f"rag-bench: error: {condense(held.getvalue())}", file=real_stderr)
            held = io.StringIO()
            sys.exit(USAGE_ERROR)
        raise
    finally:
        sys.stderr = real_stderr
        if not entered:
            real_stderr.write(held.getvalue())


def condense(message: str) -> str:
    """Hydra's multi-line composition error as one line (search path and hints dropped)."""
    parts: list[str] = []
    for line in message.splitlines():
        if line.startswith("Config search path"):
            break
        text = line.strip()
        if not text or text.startswith(
            ("Set the environment variable", "To append", "full_key:", "reference_type", "object_type")
        ):
            continue
        if line.startswith("\t") and parts and parts[-1].endswith((":", ",")):
            parts[-1] += f" {text},"
        else:
            parts.append(text)
    return " ".join(parts).rstrip(",")


def run_job(cfg) -> dict:
    """One Hydra job: validate, run, write outputs into Hydra's output folder, print the table."""
    from hydra.core.hydra_config import HydraConfig

    from rag_bench.config import validate
    from rag_bench.pipeline import run
    from rag_bench.report.run_outputs import console_table, write_run

    try:
        config = validate(cfg)
        result = run(config)
        out_dir = Path(HydraConfig.get().runtime.output_dir)
        payload = write_run(result, out_dir)
    except RagBenchError as exc:
        fail(exc)
    print(console_table(payload))
    print(f"outputs: {out_dir}")
    return payload
