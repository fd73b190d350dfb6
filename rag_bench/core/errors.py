"""Project exceptions: one small hierarchy for errors a user can fix.

    RagBenchError            anything the user can fix; the CLI prints one line, exit 2
    ├── ConfigError          a bad setting: names the key, the value, what is allowed
    ├── DataError            a bad input file: names the file, line, field and the fix
    └── ServiceError         a remote service failed for good (after retries)

Tracebacks are for bugs: every other exception is one.
"""

from __future__ import annotations

from pathlib import Path


class RagBenchError(Exception):
    """An error the user can fix; its message says how."""


class ConfigError(RagBenchError):
    """A configuration value is invalid."""


class ServiceError(RagBenchError):
    """A remote service (embedding, rerank or generation API) failed for good."""


class DataError(RagBenchError):
    """A dataset file is invalid: ``file:line: field: problem (fix: ...)``."""

    def __init__(
        self,
        path: str | Path,
        problem: str,
        *,
        line: int | None = None,
        field: str | None = None,
        fix: str | None = None,
    ) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.problem = problem
        self.fix = fix
        where = self.path if line is None else f"{self.path}:{line}"
        text = f"{where}: {field}: {problem}" if field else f"{where}: {problem}"
        if fix:
            text += f" (fix: {fix})"
        super().__init__(text)
