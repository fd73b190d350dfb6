"""A two-document dataset with one existing question, and a replay file of candidates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

GUIDE = (
    "# Retention guide\r\n"
    "Backups \U0001f4be are kept for 35 days in the primary region.\r\n"
    "\r\n"
    "## Logs\r\n"
    "Audit logs are retained for seven years to satisfy the regulator.\r\n"
)
BILLING = "# Billing\nInvoices are issued monthly. Refunds take up to ten working days.\n"
# three more documents so that BM25's idf is positive for words found in one document (with N = 2
# documents, Okapi's idf of a word in one of them is ln(1.5 / 1.5) = 0 and every score ties)
FILLER = {
    "hr.md": "# Leave\nStaff take twenty days of leave a year, booked through the portal.\n",
    "security.md": "# Security\nPasswords rotate every ninety days; tokens expire after an hour.\n",
    "office.md": "# Office\nThe office opens at eight and closes at six on weekdays.\n",
}
EXISTING = {
    "id": "kb-001",
    "question": "How long are backups kept?",
    "evidence": [{"doc_id": "guide.md", "text": "kept for 35 days"}],
}


@pytest.fixture
def dataset(tmp_path) -> Path:
    folder = tmp_path / "data"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "guide.md").write_bytes(GUIDE.encode("utf-8"))
    (folder / "docs" / "billing.md").write_bytes(BILLING.encode("utf-8"))
    for name, text in FILLER.items():
        (folder / "docs" / name).write_text(text, encoding="utf-8")
    (folder / "questions.jsonl").write_text(json.dumps(EXISTING) + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def texts() -> dict[str, str]:
    return {"guide.md": GUIDE, "billing.md": BILLING}


def write_candidates(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def candidates_file(tmp_path):
    """write(rows) -> the path of a replay file holding them."""
    return lambda rows: write_candidates(tmp_path / "candidates.jsonl", rows)
