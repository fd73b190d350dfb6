"""Cleaning (repeated lines, near-duplicates) by hand-worked examples, and the parse cache on real files."""

from __future__ import annotations

import json

from made_files import docx_file, pdf

from rag_bench.core.cache import DiskCache
from rag_bench.data.native import load_dataset
from rag_bench.parse.clean import file_repeats, join, key, page_repeats, strip_pages
from rag_bench.parse.duplicates import near_duplicates, shingles
from rag_bench.parse.registry import PARSERS
from rag_bench.parse.run import ParseRun


def test_line_keys_fold_digits_and_skip_rules():
    assert key("  Page 3 of 12 ") == key("Page 4 of 12") == "Page # of #"
    assert key("|---|---|") is None and key("   ") is None and key("x" * 201) is None


def test_running_header_and_page_numbers_go_a_repeated_body_line_stays():
    words = ("alpha", "beta", "gamma")
    pages = [
        f"Acme Handbook\n{w} one\n{w} two\nSame sentence.\n{w} four\n{w} five\n{w} six\nPage {n}"
        for n, w in enumerate(words, start=1)
    ]
    edge = page_repeats(pages, 0.5)  # edges: lines 1-3 and 6-8; "Same sentence." (line 4) is body text
    assert edge == {"Acme Handbook", "Page #"}
    cleaned, removed = strip_pages(pages, edge, set())
    assert removed == 6
    assert cleaned[0] == "alpha one\nalpha two\nSame sentence.\nalpha four\nalpha five\nalpha six"


def test_a_line_on_one_page_of_three_is_not_repeated():
    assert page_repeats(["Intro\nx", "Body\ny", "Body\nz"], 0.5) == {"Body"}  # 2 of 3 pages >= ceil(1.5) = 2
    assert page_repeats(["Intro\nx", "Body\ny", "Other\nz"], 0.5) == set()
    assert page_repeats(["One page only"], 0.5) == set()


def test_lines_across_files_need_three_files_and_the_share():
    files = [["Home Pricing\nA"], ["Home Pricing\nB"], ["Home Pricing\nC"], ["D"]]
    assert file_repeats(files, 0.5) == {"Home Pricing"}  # 3 of 4 files, need max(3, 2)
    assert file_repeats(files[:2], 0.5) == set()  # 2 files: never boilerplate


def test_join_separates_pages_by_a_blank_line_and_records_their_starts():
    assert join(["ab\n", "", "cd"]) == ("ab\n\n\n\ncd", (0, 4, 6))


def test_near_duplicates_by_jaccard_of_word_5grams():
    a = "one two three four five six seven"
    b = "one two three four five six eight"
    # shingles: a = {12345, 23456, 34567}, b = {12345, 23456, 34568}: 2 shared of 4 -> 0.5
    assert len(shingles(a)) == 3
    assert near_duplicates([a, b, "other words entirely here now"], 0.5) == {1: (0, 0.5)}
    assert near_duplicates([a, b], 0.51) == {}


def _folder(tmp_path, questions):
    folder = tmp_path / "ds"
    (folder / "docs").mkdir(parents=True)
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    return folder


V1 = ["# Travel", "Version 1 of the travel policy for all staff members.", "Hotels cost at most 150 euros per night.",
      "Trains are the default for trips under five hours in Europe."]  # fmt: skip
V2 = [*V1[:2], "Hotels cost at most 170 euros per night.", V1[3]]


def test_duplicates_drop_keeps_the_first_version_and_relocates_evidence_by_excerpt(tmp_path):
    questions = [
        {"id": "q1", "question": "?", "evidence": [{"doc_id": "v2.pdf", "text": "Trains are the default"}]},
        {"id": "q2", "question": "?", "evidence": [{"doc_id": "v2.pdf", "text": "at most 170 euros"}]},
    ]
    folder = _folder(tmp_path, questions)
    pdf(folder / "docs" / "v1.pdf", [V1], header=False)
    pdf(folder / "docs" / "v2.pdf", [V2], header=False)
    run = ParseRun(PARSERS.settings("auto", duplicates="drop", near=0.5))
    dataset = load_dataset(folder, parse=run)
    assert [d.id for d in dataset.documents] == ["v1.pdf"] and run.counts.duplicates == 1
    assert dataset.questions[0].spans[0].doc_id == "v1.pdf"  # found again in the version kept
    assert dataset.questions[1].lost[0].text == "at most 170 euros"  # only v2 said it: lost by dropping v2
    flagged = load_dataset(folder, parse=ParseRun(PARSERS.settings("auto", duplicates="flag", near=0.5)))
    assert dict(flagged.documents[1].metadata) == {"duplicate_of": "v1.pdf"}


def test_the_parse_cache_serves_a_second_load_and_a_new_reader_parses_again(tmp_path):
    folder = _folder(tmp_path, [{"id": "q1", "question": "?", "evidence": [{"doc_id": "a.pdf", "text": "body"}]}])
    pdf(folder / "docs" / "a.pdf", [["A body line."]])
    docx_file(folder / "docs" / "b.docx")
    cache = DiskCache(tmp_path / "cache")
    first, second = ParseRun(PARSERS.settings("auto"), cache), ParseRun(PARSERS.settings("auto"), cache)
    assert load_dataset(folder, parse=first) == load_dataset(folder, parse=second)
    assert (first.counts.parsed, first.counts.cached) == (2, 0)
    assert (second.counts.parsed, second.counts.cached) == (0, 2)
    layout = ParseRun(PARSERS.settings("layout"), cache)  # another PDF reader; the same Word reader
    load_dataset(folder, parse=layout)
    assert (layout.counts.parsed, layout.counts.cached) == (1, 1)
    pdf(folder / "docs" / "a.pdf", [["A changed body line."]])  # new bytes, new key
    changed = ParseRun(PARSERS.settings("auto"), cache)
    load_dataset(folder, parse=changed)
    assert (changed.counts.parsed, changed.counts.cached) == (1, 1)
