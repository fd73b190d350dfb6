"""The ``rag-bench`` console entry: its help page, the verbs (report, gate, ...), else a Hydra run or sweep.

``rag-bench --help`` (``-h``, ``help``) prints rag-bench's own page (``help.py``) without importing Hydra;
``rag-bench help VERB`` is ``rag-bench VERB --help``; ``--help-config`` is Hydra's app help. Everything
else goes to the Hydra app (``hydra_app.py``) as overrides and flags. User errors print one line and exit 2.
"""

from __future__ import annotations

import difflib
import importlib
import re
import sys
from dataclasses import dataclass
from typing import NoReturn

from rag_bench.core.errors import ConfigError, RagBenchError
from rag_bench.core.files import is_write_fault
from rag_bench.entry.failing import fail, fail_write, write_hint


@dataclass(frozen=True)
class Verb:
    """A verb: ``target`` (``module:function``, called with the verb's arguments, returns an exit code)
    and ``summary``, its line on ``rag-bench --help``."""

    target: str
    summary: str


VERBS: dict[str, Verb] = {
    "report": Verb("rag_bench.report.sweep.cli:main", "summarise a sweep folder: one row per point, the best, plots"),
    "diff": Verb("rag_bench.report.diff.cli:main", "questions whose hit flipped between two runs, side by side"),
    "gate": Verb("rag_bench.gate.cli:gate_main", "fail when a metric drops past its margin, by a paired test"),
    "compare": Verb("rag_bench.gate.cli:compare_main", "means with 95% intervals per run, paired tests vs the first"),
    "import": Verb("rag_bench.importers.cli:main", "write a dataset folder from BEIR, Chroma, SQuAD, TREC, chunks"),
    "label": Verb("rag_bench.label.cli:main", "a local app to write and review labelled questions"),
    "dataset-stats": Verb("rag_bench.label.stats:main", "a question set's health: per document, category, evidence"),
    "synthesize": Verb("rag_bench.synthesize.cli:main", "generate candidate questions and check them"),
    "rewrite": Verb("rag_bench.rewrite.cli:main", "write query variants (paraphrase, hyde, ...) for a dataset"),
    "contextualize": Verb("rag_bench.contextualize.cli:main", "write a contexts file for chunker.prefix=contexts"),
    "check-generation": Verb("rag_bench.generate.cli:main", "answer a run's questions; blame retrieval or generation"),
}

HELP_FLAGS = ("--help", "-h")  # anywhere before a verb: this page
HYDRA_APP_HELP = "--help-config"  # Hydra's own app help: every config group (schema/ too) and the composed config
_WORD = re.compile(r"[A-Za-z][\w-]*")  # a bare word: a verb, never a Hydra override (those hold "=")


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if any(arg.startswith("@") for arg in argv) and not (argv and argv[0] in VERBS):
        argv = with_overrides_files(argv)
    if argv[:1] == ["help"] and len(argv) > 1:
        if argv[1] not in VERBS:
            fail(ConfigError(f"help {argv[1]}: not a verb{did_you_mean(argv[1])}; the verbs: {', '.join(VERBS)}"))
        argv = [argv[1], "--help"]
    if argv and argv[0] in VERBS:
        run_verb(argv[0], argv[1:])
    if argv[:1] == ["help"] or any(arg in HELP_FLAGS for arg in argv):
        from rag_bench.core.paths import project_folder
        from rag_bench.entry.help import page

        print(page(VERBS, project_folder("configs")), end="")
        return
    from rag_bench.entry.hydra_app import run_hydra
    from rag_bench.entry.planning import DRY_RUN

    argv = ["--help" if arg == HYDRA_APP_HELP else arg for arg in argv]
    dry = DRY_RUN in argv
    run_hydra([arg for arg in argv if arg != DRY_RUN], hint=not_a_verb(argv), dry_run=dry)


def console() -> None:
    """The process's entry (``rag-bench``, ``python -m rag_bench``): ``main``, then ``exit_now`` with its code.

    A traceback (a bug) and an exit with a message instead of a code leave as Python leaves, and so does every
    exit under a profiler or tracer (``python -m cProfile``, coverage, a debugger), which writes its results as
    the interpreter ends."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        main()
        return
    try:
        main()
    except SystemExit as exc:
        if exc.code is not None and not isinstance(exc.code, int):
            raise
        exit_now(exc.code or 0)
    exit_now(0)


def exit_now(code: int) -> NoReturn:
    """End the process with ``code`` without tearing down the interpreter's objects one by one (pandas', pyarrow's,
    Hydra's: 0.1-0.3 s at the end of every run), as mypy's ``hard_exit`` does. What finalizing does that a user
    would miss is done first, in its order: the threads' exit hooks (an idle thread pool stops) and a join of
    every other thread (``threading._shutdown``), then the ``atexit`` handlers (logging's last flush, temporary
    folders' cleanup), then the standard streams' buffers. Every file rag-bench writes is closed when written.
    """
    import atexit
    import os
    import threading

    threading._shutdown()  # noqa: SLF001 - the interpreter's own first step of finalizing
    atexit._run_exitfuncs()  # noqa: SLF001
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (| head): as Python reports an unflushable stdout
            code = code or 120
    os._exit(code)


def with_overrides_files(argv: list[str]) -> list[str]:
    """``argv`` with each ``@FILE`` replaced by the overrides in FILE (a sweep's ``winner.overrides``), in place, so
    later arguments still override them; a file that cannot be read is one line, exit 2."""
    from rag_bench.config.overrides import read_overrides

    try:
        return [o for arg in argv for o in (read_overrides(arg[1:]) if arg.startswith("@") else [arg])]
    except RagBenchError as exc:
        fail(exc)


def run_verb(name: str, args: list[str]) -> None:
    """Run the verb ``name`` and exit with its code; its user errors are one line and exit 2."""
    module, function = VERBS[name].target.split(":")
    try:
        sys.exit(getattr(importlib.import_module(module), function)(args))
    except RagBenchError as exc:
        fail(exc)
    except OSError as exc:
        if not is_write_fault(exc):
            raise
        fail_write(exc, write_hint(exc))


def did_you_mean(word: str) -> str:
    """`` (did you mean gate?)`` for the verb closest to ``word``, else ""."""
    close = difflib.get_close_matches(word, VERBS, n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def not_a_verb(argv: list[str]) -> str:
    """What ends Hydra's error line when the first argument is a bare word that is no verb, else ""."""
    if not argv or not _WORD.fullmatch(argv[0]):
        return ""
    return f"; {argv[0]} is not a verb either{did_you_mean(argv[0])}: rag-bench --help lists them"
