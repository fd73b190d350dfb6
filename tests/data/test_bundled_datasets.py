"""The bundled datasets: every span resolves, categories meet their counts, ids stay stable."""

import hashlib
import re
from collections import Counter

import pytest

from rag_bench.data.bundled import bundled_names, dataset_folder
from rag_bench.data.native import load_dataset

# sha256 of the question ids, one per line, in file order: renumbering or dropping a question
# breaks baselines and users' comparisons, so it must be a deliberate change made here.
ID_DIGESTS = {
    "kestrel-kb": "0c6f71fe21ee84ee46ee8f051b904a3c74038df0d76556178d2deacc974d662a",
}
MINIMUM = {"identifier": 20, "paraphrase": 20, "ambiguous": 20, "multi-evidence": 20, "context": 20, "unanswerable": 15}


@pytest.fixture(scope="module")
def kestrel():
    return load_dataset(dataset_folder("kestrel-kb", None))


def test_both_datasets_are_bundled():
    assert {"annual-report", "kestrel-kb"} <= set(bundled_names())


def test_kestrel_size_and_category_counts(kestrel):
    assert len(kestrel.documents) >= 40
    assert sum(len(d.text.split()) for d in kestrel.documents) >= 50_000
    assert len(kestrel.questions) >= 150 + 15
    counts = Counter(q.category for q in kestrel.questions)
    assert set(counts) == set(MINIMUM)
    for category, minimum in MINIMUM.items():
        assert counts[category] >= minimum, category


def test_kestrel_labels_match_their_category(kestrel):
    for q in kestrel.questions:
        assert bool(q.spans) == (q.category != "unanswerable"), q.id
        if q.category == "multi-evidence":
            assert 2 <= len(q.spans) <= 4, q.id
        if q.spans:
            assert q.answer, q.id


@pytest.mark.parametrize("name", ["annual-report", "kestrel-kb"])
def test_evidence_is_body_text_not_a_title(name):
    ds = load_dataset(dataset_folder(name, None))
    docs = {d.id: d for d in ds.documents}
    for q in ds.questions:
        for span in q.spans:
            text = docs[span.doc_id].text[span.start : span.end]
            assert len(text) >= 40, (q.id, text)
            assert not re.match(r"\s*#", text), (q.id, text)  # not a heading line
            assert text.strip() != (docs[span.doc_id].title or ""), q.id


@pytest.mark.parametrize("name", sorted(ID_DIGESTS))
def test_question_ids_are_stable(name):
    ds = load_dataset(dataset_folder(name, None))
    ids = "\n".join(q.id for q in ds.questions)
    assert hashlib.sha256(ids.encode()).hexdigest() == ID_DIGESTS[name]


def test_kestrel_ids_follow_their_pattern(kestrel):
    assert all(re.fullmatch(r"(tech|biz)-\d{3}", q.id) for q in kestrel.questions)
