"""Per-language breakdowns: groups worked out by hand, their means, and no breakdown without languages."""

import numpy as np

from rag_bench.core.types import Chunk, Dataset, Document, Question, Span
from rag_bench.score.evaluate import evaluate
from rag_bench.score.languages import CROSS, question_languages

TEXT = "x" * 100


def dataset(languages=("de", "ja", None), question_languages=("de", "en", None, None, "fr")):
    docs = tuple(Document(f"d{i}", TEXT, language=lang) for i, lang in enumerate(languages, start=1))
    evidence = ["d1", "d1", "d2", "d3", "d3"]
    questions = tuple(
        Question(f"q{i}", "?", spans=(Span(doc, 0, 100),), language=lang)
        for i, (doc, lang) in enumerate(zip(evidence, question_languages, strict=True), start=1)
    )
    return Dataset("tiny", docs, questions)


def test_groups_by_hand():
    # q1 German on a German document; q2 English on it: cross-language; q3 no language, its evidence Japanese;
    # q4 no language, evidence without one: no group; q5 French on a document without a language: French
    assert question_languages(dataset()) == ["de", CROSS, "ja", None, "fr"]


def test_judged_documents_count_as_evidence():
    docs = (Document("a", TEXT, language="de"), Document("b", TEXT, language="fr"))
    questions = (
        Question("q", "?", judgements={"a": 1, "b": 0}, language="de"),  # b is judged not relevant: not evidence
        Question("r", "?", judgements={"a": 1, "b": 2}, language="de"),
    )
    assert question_languages(Dataset("j", docs, questions)) == ["de", CROSS]


def test_no_language_anywhere_means_no_breakdown():
    data = dataset(languages=(None, None, None), question_languages=(None,) * 5)
    assert question_languages(data) is None
    chunks = [Chunk(f"d{i}", 0, 100, TEXT) for i in (1, 2, 3)]
    ranked = np.array([[0], [0], [1], [2], [2]])
    ev = evaluate(data, chunks, ranked, -ranked.astype(float), [1], 0.5, resamples=10)
    assert ev.by_language == {} and "language" not in ev.per_question.columns


def test_means_per_group_by_hand():
    data = dataset()
    chunks = [Chunk(f"d{i}", 0, 100, TEXT) for i in (1, 2, 3)]  # chunk i holds document i + 1 whole
    ranked = np.array([[0, -1], [1, -1], [2, 1], [2, -1], [0, 1]])  # q1 hit@1, q2 miss, q3 hit@2, q4 hit@1, q5 miss
    ev = evaluate(data, chunks, ranked, np.where(ranked >= 0, 1.0, -np.inf), [1, 3], 0.5, resamples=10)
    assert list(ev.by_language) == ["de", "fr", "ja", CROSS]  # languages in order, cross-language last
    assert ev.language_counts == {"de": 1, "fr": 1, "ja": 1, CROSS: 1}
    assert ev.by_language["de"]["recall@1"] == 1.0 and ev.by_language[CROSS]["recall@3"] == 0.0
    assert ev.by_language["ja"]["recall@1"] == 0.0 and ev.by_language["ja"]["mrr@3"] == 0.5
    assert ev.by_language["fr"]["recall@3"] == 0.0
    column = ev.per_question["language"]
    assert column.fillna("-").tolist() == ["de", CROSS, "ja", "-", "fr"]  # no group: missing, as a category
