import json

import pytest

DOCS = [
    {
        "id": "router.md",
        "title": "Router manual",
        "text": "# Router\nThe KR-7 router ships firmware v2. Reset it with the pin.",
    },
    {"id": "billing.md", "text": "# Billing\nInvoices are monthly. Refunds take a week and need form RF-2."},
]
QUESTIONS = [
    {
        "id": "q1",
        "question": "How do I reset the KR-7, and how long do refunds take?",
        "evidence": [{"doc_id": "router.md", "text": "Reset it with the pin."}],
        "category": "how-to",
    },
    {
        "id": "q2",
        "question": "How often are invoices sent?",
        "evidence": [{"doc_id": "billing.md", "text": "Invoices are monthly."}],
        "category": "billing",
    },
]


@pytest.fixture
def tiny(tmp_path):
    """A two-document, two-question dataset folder."""
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    return folder
