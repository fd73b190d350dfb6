import pytest

from rag_bench.generate.text import normalise, token_f1, words


def test_normalise_drops_case_punctuation_symbols_and_articles():
    assert normalise("The £12.7 million!") == "127 million"
    assert normalise("  An  apple, a PEAR and the plum. ") == "apple pear and plum"
    assert normalise("“Quoted” — text") == "quoted text"


def test_token_f1_hand_worked():
    # answer tokens: paris is capital (3); reference: paris (1); common 1 -> P 1/3, R 1
    assert token_f1("Paris is the capital", "Paris") == pytest.approx(2 * (1 / 3) * 1 / (1 / 3 + 1))
    # answer: yellow green (2); reference: yellow yellow (2); common multiset 1 -> P = R = 1/2
    assert token_f1("yellow green", "yellow yellow") == pytest.approx(0.5)
    assert token_f1("no overlap", "paris") == 0.0
    assert token_f1("", "") == 1.0
    assert token_f1("the", "paris") == 0.0  # normalises to nothing


def test_words_keep_identifiers_whole():
    assert words("Error ERR_4021 in v3") == ["error", "err_4021", "in", "v3"]
