"""Result objects as chunks: by offsets, by text (verbatim, tolerant, repeated), and every error naming its place."""

import numpy as np
import pytest

from rag_bench.core.errors import DataError
from rag_bench.core.types import Document
from rag_bench.retrieve.external.results import ResultReader, Tally, Where, to_candidates

from .conftest import DOCUMENTS

WHERE = Where("run.jsonl", line=7)


def reader():
    return ResultReader({doc_id: Document(doc_id, text) for doc_id, text in DOCUMENTS.items()})


def test_offsets_name_the_chunk_and_text_is_located_verbatim():
    r = reader()
    ranked = r.ranking(
        [
            {"doc_id": "a.md", "start": 0, "end": 17, "score": 2.0},
            {"doc_id": "c.md", "text": "six hours", "score": 1.5},
        ],
        WHERE,
    )
    assert [(x.chunk.id, x.chunk.text, x.score) for x in ranked] == [
        ("a.md:0-17", "Alpha beta gamma.", 2.0),
        ("c.md:37-46", "six hours", 1.5),
    ]
    assert (r.tally.by_offsets, r.tally.located_exact, r.tally.located_tolerant, r.tally.results) == (1, 1, 0, 2)


def test_reflowed_text_with_straight_quotes_is_located_tolerantly_in_the_original_offsets():
    r = reader()
    # the document has "\n\n" before Delta and typographic quotes; the result has one space and ASCII quotes
    [found] = r.ranking([{"doc_id": "a.md", "text": 'noon. Delta "quoted" text'}], WHERE)
    text = DOCUMENTS["a.md"]
    assert (found.chunk.start, found.chunk.end) == (text.index("noon."), text.index(" here."))
    assert found.chunk.text == "noon.\n\nDelta \u201cquoted\u201d text" and found.score is None
    assert (r.tally.located_exact, r.tally.located_tolerant) == (0, 1)


def test_a_repeated_text_takes_the_first_occurrence_the_list_does_not_hold_yet():
    r = reader()
    sentence = "Aphids were counted on sticky traps."
    ranked = r.ranking([{"doc_id": "b.md", "text": sentence}, {"doc_id": "b.md", "text": sentence}], WHERE)
    assert [x.chunk.id for x in ranked] == ["b.md:0-36", "b.md:37-73"]
    assert r.tally.ambiguous == 2
    # a third copy has no free occurrence left: it is the first again, which this list already holds
    with pytest.raises(DataError, match=r"run.jsonl:7: results\[2\]: lists chunk b.md:0-36 twice"):
        r.ranking([{"doc_id": "b.md", "text": sentence}] * 3, WHERE)


def test_offsets_and_text_must_agree_which_catches_byte_offsets():
    text = DOCUMENTS["a.md"]
    start = text.index("\u201cquoted")
    byte_start = len(text[:start].encode("utf-8"))  # ASCII before it: equal; after a quote, bytes run ahead
    end_chars = start + len("\u201cquoted\u201d")
    end_bytes = byte_start + len("\u201cquoted\u201d".encode())
    ok = reader().ranking([{"doc_id": "a.md", "start": start, "end": end_chars, "text": "\u201cquoted\u201d"}], WHERE)
    assert ok[0].chunk.text == "\u201cquoted\u201d"
    with pytest.raises(DataError) as err:
        reader().ranking(
            [{"doc_id": "a.md", "start": byte_start, "end": end_bytes, "text": "\u201cquoted\u201d"}], WHERE
        )
    assert str(err.value).startswith("run.jsonl:7: results[0]: offsets [")
    assert "code points" in str(err.value)


@pytest.mark.parametrize(
    ("result", "message"),
    [
        ({"doc_id": "z.md", "start": 0, "end": 5}, r"results\[0\].doc_id: unknown document 'z.md' \(fix: use the"),
        ({"doc_id": "a.md", "text": "not in there"}, r"results\[0\].text: text 'not in there' does not occur"),
        ({"doc_id": "a.md"}, r"results\[0\]: names neither offsets nor text"),
        ({"doc_id": "a.md", "start": 5, "end": 500}, r"\[5, 500\) is not a span of document 'a.md' \(85 characters\)"),
        ({"doc_id": "a.md", "start": 5}, r"results\[0\].end: must be an integer, got None"),
        ({"doc_id": "a.md", "strat": 5, "end": 9}, r"results\[0\].strat: unknown field 'strat'"),
        ({"doc_id": "a.md", "start": 0, "end": 5, "score": "high"}, r"results\[0\].score: must be a finite number"),
        ("a.md:0-5", r"results\[0\]: must be an object, got str"),
    ],
)
def test_bad_results_name_the_line_the_field_and_the_fix(result, message):
    with pytest.raises(DataError, match=message) as err:
        reader().ranking([result], WHERE)
    assert str(err.value).startswith("run.jsonl:7: ") and "(fix: " in str(err.value)


def test_scores_are_on_every_result_or_none_and_never_rise():
    one = {"doc_id": "a.md", "start": 0, "end": 5}
    two = {"doc_id": "a.md", "start": 5, "end": 10}
    with pytest.raises(DataError, match=r"results\[1\].score: some results have a score and some do not"):
        reader().ranking([{**one, "score": 1.0}, two], WHERE)
    with pytest.raises(DataError, match=r"results\[1\].score: score 2 is higher than the one before it \(1\)"):
        reader().ranking([{**one, "score": 1.0}, {**two, "score": 2.0}], WHERE)
    tied = reader().ranking([{**one, "score": 1.0}, {**two, "score": 1.0}], WHERE)
    assert [x.score for x in tied] == [1.0, 1.0]


def test_a_service_error_names_the_question():
    where = Where("retrieval.url http://127.0.0.1:9/search", question="q2")
    with pytest.raises(DataError) as err:
        reader().ranking([{"doc_id": "nope"}], where)
    assert str(err.value).startswith("retrieval.url http://127.0.0.1:9/search (question 'q2'): results[0].doc_id:")


def test_candidates_share_one_table_cut_at_depth_and_pad():
    r = reader()
    a = r.ranking([{"doc_id": "a.md", "start": 0, "end": 5}, {"doc_id": "c.md", "start": 0, "end": 8}], WHERE)
    b = r.ranking([{"doc_id": "c.md", "start": 0, "end": 8, "score": 9.0}], WHERE)
    tally = Tally()
    found = to_candidates([a, b, []], 1, tally, {"source": "x"})
    assert [c.id for c in found.chunks] == ["a.md:0-5", "c.md:0-8"]
    assert found.indices.tolist() == [[0], [1], [-1]]
    assert found.scores.tolist() == [[-1.0], [9.0], [-np.inf]]  # no score: -rank
    assert tally.cut_at_depth == 1 and found.stats.details["source"] == "x"
    deeper = to_candidates([a, b, []], 5, Tally(), {})
    assert deeper.indices.tolist() == [[0, 1], [1, -1], [-1, -1]]
    assert deeper.scores[0].tolist() == [-1.0, -2.0]
