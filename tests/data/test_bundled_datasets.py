"""The bundled datasets: every span resolves, categories meet their counts, ids stay stable."""

import hashlib
import re
from collections import Counter

import pytest

from rag_bench.data.bundled import bundled_names, dataset_folder
from rag_bench.data.native import load_dataset

# sha256 of the question ids, one per line, in file order: renumbering or dropping a question
# breaks baselines and users' comparisons, so it must be a deliberate change made here.
# kestrel-kb: 44 filtered questions appended (access-control, version, selective).
ID_DIGESTS = {
    "kestrel-kb": "bf120c6251402a64c10a1c2c0ea1512395efbb6f38e50a2aab6fdc78b835d37b",
}
MINIMUM = {"identifier": 20, "paraphrase": 20, "ambiguous": 20, "multi-evidence": 20, "context": 20, "unanswerable": 15}
FILTERED = {"access-control": 15, "version": 12, "selective": 12}  # questions that carry a metadata filter


@pytest.fixture(scope="module")
def kestrel():
    return load_dataset(dataset_folder("kestrel-kb", None))


def test_both_datasets_are_bundled():
    assert {"annual-report", "kestrel-kb"} <= set(bundled_names())


def test_kestrel_size_and_category_counts(kestrel):
    assert len(kestrel.documents) >= 40
    assert sum(len(d.text.split()) for d in kestrel.documents) >= 50_000
    assert len(kestrel.questions) >= 150 + 15 + 40
    counts = Counter(q.category for q in kestrel.questions)
    assert set(counts) == set(MINIMUM) | set(FILTERED)
    for category, minimum in {**MINIMUM, **FILTERED}.items():
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


def test_kestrel_filtered_questions(kestrel):
    """At least 40 questions carry a filter, exactly those of the filtered categories; selective ones allow < 5%."""
    from rag_bench.core.filters import MetadataTable

    filtered = [q for q in kestrel.questions if q.filter is not None]
    assert len(filtered) >= 40
    assert {q.category for q in filtered} == set(FILTERED)
    assert all(q.filter is None for q in kestrel.questions if q.category not in FILTERED)
    documents = MetadataTable([d.metadata for d in kestrel.documents])
    sizes = {d.id: len(d.text) for d in kestrel.documents}
    total = sum(sizes.values())
    for q in filtered:
        allowed = documents.mask(q.filter)
        share = sum(size for size, ok in zip(sizes.values(), allowed, strict=True) if ok) / total
        if q.category == "selective":
            assert share < 0.05, (q.id, share)  # by text, a proxy for the share of chunks at any chunk size
        if q.category == "access-control":
            assert not documents.mask(q.filter).all(), q.id


def test_kestrel_metadata_covers_every_document(kestrel):
    for d in kestrel.documents:
        assert {"doc_type", "date", "acl", "status"} <= set(d.metadata), d.id
        assert isinstance(d.metadata["date"], int) and 20200101 <= d.metadata["date"] <= 20251231, d.id
        assert d.metadata["status"] in ("current", "superseded"), d.id
