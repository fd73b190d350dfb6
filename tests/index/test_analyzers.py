import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_bench.core.errors import ConfigError
from rag_bench.index.bm25.analyzers import (
    _IDENTIFIER,
    ANALYZERS,
    ENGLISH_STOPWORDS,
    english_tokens,
    get_analyzer,
    identifier_split,
    identifier_split_words,
    identifier_tokens,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("INC-2023-Q4-011", ["inc-2023-q4-011"]),
        ("ERR_4021", ["err_4021"]),
        ("v1.2.3", ["v1.2.3"]),
        ("KOS-E1107", ["kos-e1107"]),
        ("CVE-2024-31877", ["cve-2024-31877"]),
        ("AER-503-INGEST", ["aer-503-ingest"]),
        ("4.2.1", ["4.2.1"]),
        ("e-mail", ["e-mail"]),
        ("don't", ["don't"]),
        ("don\u2019t", ["don't"]),  # curly apostrophe folded
        ("see src/rag_bench/entry/cli.py", ["see", "src/rag_bench/entry/cli.py"]),
    ],
)
def test_identifier_tokens_keep_identifiers_whole(text, expected):
    assert identifier_tokens(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A bug.", ["a", "bug"]),
        ("Blocked by (KG-450), again!", ["blocked", "by", "kg-450", "again"]),
        ('"v2.0-rc1"; -flag- _x_', ["v2.0-rc1", "flag", "x"]),
        ("C++ and C#", ["c", "and", "c"]),
        ("a--b a..b a/ b", ["a", "b", "a", "b", "a", "b"]),
        ("Tabs\tand\nnewlines", ["tabs", "and", "newlines"]),
        ("Größe ÉTÉ", ["größe", "été"]),
        ("", []),
        (" ...!? ", []),
    ],
)
def test_identifier_tokens_split_on_other_punctuation(text, expected):
    assert identifier_tokens(text) == expected


def test_english_tokens_stopwords_and_porter_stemming():
    assert english_tokens("running studies") == ["run", "studi"]
    assert english_tokens("The cats are in the garden") == ["cat", "garden"]
    assert english_tokens("Generalizations of oscillators") == ["gener", "oscil"]


def test_english_tokens_possessives_and_word_breaks():
    # "'s" is dropped; a trailing apostrophe is not part of the word.
    text = "The protein's role; the PROTEINS\u2019 roles."
    assert english_tokens(text) == ["protein", "role", "protein", "role"]
    assert english_tokens("e-mail 1,000 cells, U.S.A.") == ["e", "mail", "1,000", "cell", "u.s.a"]
    assert english_tokens("ERR_4021 in v1.2.3") == ["err_4021", "v1.2.3"]


def test_english_stopwords_are_the_lucene_set():
    assert len(ENGLISH_STOPWORDS) == 33
    assert {"the", "a", "with", "their", "such"} <= ENGLISH_STOPWORDS
    assert english_tokens(" ".join(sorted(ENGLISH_STOPWORDS))) == []


def test_get_analyzer_by_name():
    text = "Blocked by KG-450."
    assert get_analyzer("identifier")(text) == identifier_tokens(text) == ["blocked", "by", "kg-450"]
    assert get_analyzer("english")("The cats") == english_tokens("The cats") == ["cat"]
    assert sorted(ANALYZERS) == ["english", "identifier"]


def test_unknown_analyzer_error_names_value_and_choices():
    with pytest.raises(ConfigError) as info:
        get_analyzer("foo")
    assert str(info.value) == "retrieval.analyzer ('foo') must be one of: english, identifier"


@settings(max_examples=400, deadline=None)
@given(words=st.lists(st.text(alphabet="aZ09_-./',;:!?()[]\"+é½²Σ\u0301", max_size=12), max_size=20))
def test_identifier_split_equals_the_regex_on_every_word(words):
    assert [list(terms) for terms in identifier_split_words(words)] == [_IDENTIFIER.findall(w) for w in words]
    assert [identifier_split(w) for w in words] == [_IDENTIFIER.findall(w) for w in words]
