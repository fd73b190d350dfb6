"""A sweep point that was not run, and why (``not_run.json``): written when a budget stops the sweep before it.

``{"reason": "budget.usd (0.01): ...", "planned_usd": 0.0042, "planned_seconds": 3.1}``. A later run of the point
removes it (``manifest.RUN_FILES``); the sweep report lists the points that hold one (``report/sweep/collect.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

from rag_bench.core.files import write_text

NOT_RUN = "not_run.json"


def write_not_run(folder: Path, reason: str, planned_usd: float, planned_seconds: float) -> Path:
    """Record in ``folder`` (made if absent) that its point was not run, and why."""
    record = {"reason": reason, "planned_usd": planned_usd, "planned_seconds": planned_seconds}
    folder.mkdir(parents=True, exist_ok=True)
    return write_text(folder / NOT_RUN, json.dumps(record, indent=2) + "\n")


def read_not_run(folder: Path) -> str | None:
    """Why the point in ``folder`` was not run, or None (run, or no readable record)."""
    try:
        record = json.loads((folder / NOT_RUN).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    reason = record.get("reason") if isinstance(record, dict) else None
    return reason if isinstance(reason, str) else None
