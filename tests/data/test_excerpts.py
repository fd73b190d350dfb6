"""Excerpts located in a parse's text (verbatim, tolerant, loose), page hints, lost evidence, and the loader's one
error for every excerpt problem of a questions file."""

from __future__ import annotations

import json

import pytest

from rag_bench.core.errors import DataError
from rag_bench.core.types import Document, Lost, Span
from rag_bench.data.loose import find_loose, nearest
from rag_bench.data.native import load_dataset
from rag_bench.data.questions import parse_question


@pytest.mark.parametrize(
    ("text", "excerpt", "span"),
    [
        ("the infor-\nmation here", "the information", (0, 17)),  # hyphenation at a line end
        ("a **bold** `code` \\*x", "a bold code *x", (0, 21)),  # Markdown markup and escapes
        ("<p>to <b>be</b> or</p>", "to be or", (3, 18)),  # HTML tags
        ("the \ufb01le and \u201cquote\u201d", 'the file and "quote"', (0, 19)),  # ligature, typographic quotes
        ("| eu-west | 40 |", "eu-west 40", (2, 14)),  # a table row against a plain excerpt
    ],
)
def test_loose_matches_what_parsers_do_to_text(text, excerpt, span):
    assert find_loose(text, excerpt).places == (span,)


def test_loose_never_changes_a_word_or_its_case():
    assert find_loose("the information", "the informations").places == ()
    assert find_loose("The Information", "the information").places == ()


def test_nearest_points_at_the_most_similar_stretch():
    near = nearest("Intro. Rollback needs no approval above five percent. End.", "Rollback needs approval above 5%")
    assert (near.start, near.end) == (7, 39) and 0.5 < near.similarity < 1


DOC = Document(
    "r.pdf", "Header\nPage 1 text: limit is 40.\n\nHeader\nPage 2 text: limit is 40.", pages=(0, 34), parser="pypdf"
)


def _q(evidence):
    return parse_question({"id": "q", "question": "?", "evidence": evidence}, {DOC.id: DOC})


def test_a_page_hint_picks_the_occurrence_on_that_page():
    first, second = 7 + 13, 34 + 7 + 13  # after "Header\n" + "Page 1 text: ", and page 2 starts at 34
    assert _q([{"doc_id": "r.pdf", "text": "limit is 40."}]).spans == (Span("r.pdf", first, first + 12),)
    assert _q([{"doc_id": "r.pdf", "text": "limit is 40.", "page": 2}]).spans == (Span("r.pdf", second, second + 12),)


def test_an_excerpt_the_parse_lacks_is_lost_not_an_error_and_offsets_alone_are_refused():
    question = _q([{"doc_id": "r.pdf", "text": "limit is 50."}, {"doc_id": "r.pdf", "text": "Page 2 text"}])
    assert question.lost == (Lost("r.pdf", "limit is 50."),) and len(question.spans) == 1
    assert question.labelled and question.has_evidence
    with pytest.raises(DataError, match=r"evidence\[0\]: has no excerpt text and document 'r.pdf' is parsed"):
        _q([{"doc_id": "r.pdf", "start": 0, "end": 5}])


def test_evidence_without_a_document_is_found_in_any_document():
    assert _q([{"text": "Page 2 text"}]).spans == (Span("r.pdf", 41, 52),)  # 34 + len("Header\n")
    assert _q([{"text": "nowhere"}]).lost == (Lost(None, "nowhere"),)


def test_the_loader_reports_every_excerpt_problem_of_a_file_in_one_error(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("Rollback needs no approval when errors exceed five percent.\n")
    rows = [
        {"id": "q1", "question": "?", "evidence": [{"doc_id": "a.md", "text": "needs **no** approval"}]},
        {"id": "q2", "question": "?", "evidence": [{"doc_id": "a.md", "text": "Rollback needs no approval"}]},
        {"id": "q3", "question": "?", "evidence": [{"doc_id": "a.md", "text": "exceed 5 percent"}]},
    ]
    (tmp_path / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(DataError) as caught:
        load_dataset(tmp_path)
    message = str(caught.value)
    assert message.startswith(
        f"{tmp_path / 'questions.jsonl'}: 2 excerpts could not be located: line 1 evidence[0].text"
    )
    assert "; line 3 evidence[0].text: excerpt 'exceed 5 percent' not found" in message
    assert "nearest match 'needs no approval' at [9, 26), 100% alike" in message  # markup in a verbatim file
    assert "nearest match 'eed five percent' at [42, 58), 71% alike" in message
    assert "\n" not in message
