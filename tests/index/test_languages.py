"""Analyzers per language: hand-worked terms, the word-by-word property, and bad settings."""

from collections import Counter

import numpy as np
import pytest
import Stemmer

from rag_bench.core.errors import ConfigError
from rag_bench.index.bm25 import analysis
from rag_bench.index.bm25.analysis import AnalysisSettings, analyzer_names, build_analyzer
from rag_bench.index.bm25.analyzers import ANALYZERS
from rag_bench.index.bm25.cjk import bigrams
from rag_bench.index.bm25.fold import fold
from rag_bench.index.bm25.terms import corpus_terms, terms_of_tokens


def terms(name, text, **settings):
    return build_analyzer(AnalysisSettings(name, **settings))(text)


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        # stop words (die, für, und) go, letters are stemmed, identifiers stay whole and unstemmed
        (
            "german",
            "Die Rechnungsprüfung für ERR_4021 und INC-2023-Q4-011 läuft.",
            ["rechnungspruf", "err_4021", "inc-2023-q4-011", "lauft"],
        ),
        ("de", "Rechnungen", ["rechnung"]),  # an ISO code names its language
        # elided articles dropped ("l'", "d'"), curly apostrophe folded first
        ("french", "L'entreprise a reçu l\u2019avis d'échéance.", ["entrepris", "reçu", "avis", "échéanc"]),
        ("spanish", "Las facturas y los pagos", ["factur", "pag"]),
        ("russian", "Счета и платежи", ["счет", "платеж"]),
        # CJK runs as overlapping pairs, the rest as the identifier analyzer cuts it
        ("japanese", "東京都の請求書", ["東京", "京都", "都の", "の請", "請求", "求書"]),
        ("japanese", "ERR_4021は東京", ["err_4021", "は東", "東京"]),
        ("chinese", "发票 号", ["发票", "号"]),  # a run of one character stays whole
        ("korean", "계정이 필요합니다", ["계정", "정이", "필요", "요합", "합니", "니다"]),
    ],
)
def test_terms_by_hand(name, text, expected):
    assert terms(name, text) == expected


def test_mecab_gives_dictionary_forms_without_particles():
    # 請求書 -> 請求 + 書; を (particle), まし/た (auxiliaries) and 。 dropped; し -> する (dictionary form)
    assert terms("japanese", "請求書を確認しました。", segmenter="mecab") == ["請求", "書", "確認", "する"]
    assert terms("japanese", "ERR_4021を書いた", segmenter="mecab") == ["err_4021", "書く"]
    assert terms("chinese", "发票号", segmenter="mecab") == ["发票", "票号"]  # mecab cuts Japanese only


def test_settings_normalize_fold_and_cut_compounds():
    assert terms("identifier", "ＡＢＣ１２３") == ["ａｂｃ１２３"]
    assert terms("identifier", "ＡＢＣ１２３", normalization="nfkc") == ["abc123"]
    # e + combining acute: a mark is no word character, so without NFC the accent is lost (and "café" missed)
    assert terms("identifier", "Cafe\u0301") == ["cafe"]
    assert terms("identifier", "Cafe\u0301", normalization="nfc") == ["café"]
    assert terms("french", "L'échéance", fold_accents=True) == ["echeanc"]
    # n = 4: the whole stem, then its 4-grams; "prüfung" keeps its -ung (R2 is empty: Snowball German)
    assert terms("german", "Prüfung", fold_accents=True, subword_ngrams=4) == [
        "prufung",
        "pruf",
        "rufu",
        "ufun",
        "fung",
    ]
    assert terms("german", "ERR_4021", subword_ngrams=4) == ["err_4021"]  # identifiers are not cut
    assert terms("japanese", "東京", subword_ngrams=2) == ["東京"]  # a term of n letters gives no n-grams


def test_fold_by_hand():
    assert [fold(w) for w in ["résumé", "Straße", "ø", "ά", "が", "한국"]] == [
        "resume",
        "Strasse",
        "o",
        "α",
        "が",
        "한국",
    ]


def test_bigrams_by_hand():
    assert bigrams("情報検索") == ["情報", "報検", "検索"] and bigrams("号") == ["号"]


def test_default_settings_leave_the_existing_analyzers_as_they_were():
    for name in ("identifier", "english"):
        assert build_analyzer(AnalysisSettings(name)) is ANALYZERS[name]


TEXTS = [
    "Die Rechnungsprüfung für ERR_4021.\nL'entreprise a reçu l\u2019avis d'échéance",
    "東京都の請求書 を確認しました。ＡＢＣ１２３ Cafe\u0301",
    "계정이 필요합니다 — v1.2.3 (INC-2023-Q4-011), don't",
    "",
    "Счета и платежи\u00a0e-mail",
]


def bags(terms):
    """Each text's terms as a multiset of strings: what BM25 sees of a term stream."""
    names = list(terms.vocab)  # ids in order
    ends = np.cumsum(terms.doc_len)
    return [Counter(names[i] for i in terms.term_of[end - n : end]) for n, end in zip(terms.doc_len, ends, strict=True)]


@pytest.mark.parametrize("name", [*analyzer_names(), "de"])
@pytest.mark.parametrize(
    "settings",
    [{}, {"normalization": "nfkc", "fold_accents": True, "subword_ngrams": 3}, {"segmenter": "mecab"}],
)
def test_a_corpus_analyzed_at_once_equals_each_text_analyzed_whole(name, settings):
    """Word by word (``terms.py``) or with numpy (CJK bigrams, ``bigram_corpus.py``): the same term stream as
    ``analyzer(text)`` of each text, ids included (rank-bm25 sums idf in that order)."""
    analyzer = build_analyzer(AnalysisSettings(name, **settings), "ja" if name == "auto" else None)
    for texts in (TEXTS, [*TEXTS[:2], "a\x00b"]):  # a text holding the marker is analyzed text by text
        found, whole = corpus_terms(texts, analyzer), terms_of_tokens([analyzer(t) for t in texts])
        assert found.vocab == whole.vocab
        assert found.term_of.tolist() == whole.term_of.tolist() and found.doc_len.tolist() == whole.doc_len.tolist()


def test_cjk_bigrams_of_a_corpus_by_hand():
    analyzer = build_analyzer(AnalysisSettings("japanese"))
    assert analyzer.corpus is not None
    found = corpus_terms(["東京都 ERR_4021", "", "号と東京"], analyzer)
    assert bags(found) == [
        Counter(["東京", "京都", "err_4021"]),
        Counter(),
        Counter(["号と", "と東", "東京"]),
    ]


def test_every_language_of_the_installed_stemmer_has_an_analyzer():
    languages = set(Stemmer.algorithms()) - {"porter", "dutch_porter"}
    assert languages <= set(analyzer_names())
    assert {"chinese", "japanese", "korean", "auto", "identifier"} <= set(analyzer_names())


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"analyzer": "klingon"}, "retrieval.analyzer ('klingon') must be one of: arabic,"),
        ({"analyzer": "xx"}, "(or a language's ISO 639-1 code, e.g. de)"),
        ({"normalization": "nfd"}, "retrieval.normalization ('nfd') must be one of: none, nfc, nfkc"),
        ({"segmenter": "jieba"}, "retrieval.segmenter ('jieba') must be one of: bigram, mecab"),
        ({"subword_ngrams": 1}, "retrieval.subword_ngrams (1) must be 0 (off) or from 2 to 16"),
        ({"subword_ngrams": 17}, "retrieval.subword_ngrams (17) must be 0 (off) or from 2 to 16"),
    ],
)
def test_bad_settings_name_the_setting_and_the_fix(settings, message):
    with pytest.raises(ConfigError) as info:
        analysis.check(AnalysisSettings(**settings))
    assert message in str(info.value)


def test_a_language_the_installed_stemmer_lacks_says_to_upgrade_it(monkeypatch):
    monkeypatch.setattr(Stemmer, "algorithms", lambda: ["english", "porter"])
    with pytest.raises(
        ConfigError, match=r"retrieval.analyzer \(estonian\) needs a Snowball stemmer .*\(pip install -U PyStemmer\)"
    ):
        analysis.check(AnalysisSettings("estonian"))


def test_mecab_not_installed_says_how_to_install_it(monkeypatch):
    real = analysis.importlib.util.find_spec
    monkeypatch.setattr(analysis.importlib.util, "find_spec", lambda m: None if m == "fugashi" else real(m))
    with pytest.raises(ConfigError, match=r"pip install 'rag-bench\[japanese\]', or set retrieval.segmenter=bigram"):
        analysis.check(AnalysisSettings("japanese", segmenter="mecab"))
