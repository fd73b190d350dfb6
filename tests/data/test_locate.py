"""Locating excerpts: verbatim first, then tolerant of whitespace and Unicode forms."""

from rag_bench.data.locate import Match, find_excerpt


def test_verbatim_match_counts_occurrences():
    assert find_excerpt("ab ab ab", "ab") == Match(0, 2, True, 3)
    assert find_excerpt("aaa", "aa") == Match(0, 2, True, 2)  # overlapping occurrences count


def test_whitespace_reflowed_excerpt_maps_back_to_document_offsets():
    text = "intro. a  line\nbreak here"
    found = find_excerpt(text, "a line break")
    assert found == Match(7, 20, False, 1)
    assert text[found.start : found.end] == "a  line\nbreak"


def test_excerpt_with_surrounding_whitespace_and_typographic_quotes():
    text = 'He said "stop" \u2013 then left.'
    found = find_excerpt(text, "  said \u201cstop\u201d - then ")
    assert found is not None and not found.exact
    assert text[found.start : found.end] == 'said "stop" \u2013 then'


def test_nfkc_forms_match_and_keep_original_characters():
    text = "the \ufb01le\u00a0system"  # ligature fi, no-break space
    found = find_excerpt(text, "file system")
    assert found is not None and text[found.start : found.end] == "\ufb01le\u00a0system"


def test_changed_word_case_or_empty_excerpt_is_no_match():
    text = "Rotate the signing key every 90 days."
    assert find_excerpt(text, "rotate the signing key") is None  # case is not folded
    assert find_excerpt(text, "Rotate the signing keys") is None
    assert find_excerpt(text, "   ") is None
    assert find_excerpt(text, "Rotate  the", tolerant=False) is None
