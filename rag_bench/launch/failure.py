"""A sweep whose job died: one clear line instead of the engine's traceback, and how to resume."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from hydra.errors import CompactHydraException

T = TypeVar("T")
_SUBMITIT = re.compile(r"Job (?P<job>\S+) \(task: \d+\) with path (?P<path>\S+)_result\.pkl (?P<what>.*?)(\n|$)")


class SweepStopped(CompactHydraException):
    """A sweep point's job failed, died or was cancelled (Hydra prints only this message)."""


def describe(exc: BaseException) -> str:
    """What went wrong with a job, in one line: submitit names the job, its state and its log."""
    text = str(exc)
    found = _SUBMITIT.search(text)
    if found:
        return f"job {found['job']} {found['what']} (its log: {found['path']}_log.err)"
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(exc).__name__)
    return f"{type(exc).__name__}: {first}"


def reporting(engine: str, sweep_dir: str, failures: tuple[type[BaseException], ...], launch: Callable[[], T]) -> T:
    """``launch()``, with any of ``failures`` raised again as one ``SweepStopped`` line that says how to resume."""
    try:
        return launch()
    except failures as exc:
        raise SweepStopped(
            f"sweep {sweep_dir} stopped on {engine}: {describe(exc)}. The points that finished are kept: "
            "rerun the same command to compute the others, reusing what the cache holds"
        ) from None
