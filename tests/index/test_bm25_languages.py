"""BM25 under each language analyzer equals rank-bm25's BM25Okapi on the same tokens; auto's mixed term stream."""

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from rag_bench.index.bm25.analysis import AnalysisSettings, build_analyzer
from rag_bench.index.bm25.detect import detect
from rag_bench.index.bm25.index import BM25Index
from rag_bench.index.bm25.mixed import mixed_terms
from rag_bench.index.bm25.terms import terms_of_tokens

pytestmark = pytest.mark.usefixtures("indexing")  # the numpy path and the C loops

CORPORA = {
    "german": (
        [
            "Die Rechnungsprüfung prüft jede Rechnung zweimal.",
            "Rechnungen über 10.000 Euro brauchen eine Freigabe; die Prüfung dauert.",
            "Zahlungserinnerung nach 7 Tagen, Mahngebühr 5 Euro (QB-E5120).",
            "Der Datenschutz gilt für alle Rechnungen und Zahlungen.",
        ],
        ["Prüfung der Rechnungen", "QB-E5120 Mahngebühr", "Zahlungen"],
    ),
    "french": (
        [
            "L'entreprise reçoit les factures électroniques.",
            "Les relances sont envoyées avant l'échéance des factures.",
            "L'erreur QB-E2210 : numéro de TVA non vérifié.",
        ],
        ["échéance des factures", "erreur QB-E2210", "entreprises"],
    ),
    "japanese": (
        [
            "請求書の発行と登録番号",
            "API キーの認証エラー QB-E1043",
            "障害報告：請求書の PDF 生成が遅延",
            "東京都の請求書",
        ],
        ["請求書の登録番号", "QB-E1043 エラー", "東京"],
    ),
    "chinese": (["开具电子发票前填写纳税人识别号", "红字发票冲销原发票", "账户安全与密码"], ["发票", "密码重置"]),
    "korean": (
        ["계정이 필요합니다", "서비스를 이용하려면 계정을 만드세요", "비밀번호 재설정"],
        ["계정 서비스", "비밀번호"],
    ),
}
SETTINGS = [{}, {"fold_accents": True, "subword_ngrams": 4, "normalization": "nfkc"}, {"segmenter": "mecab"}]


@pytest.mark.parametrize("language", sorted(CORPORA))
@pytest.mark.parametrize("settings", SETTINGS)
def test_scores_equal_rank_bm25_on_the_analyzers_tokens(language, settings):
    texts, queries = CORPORA[language]
    analyze = build_analyzer(AnalysisSettings(language, **settings))
    index = BM25Index.from_texts(texts, analyze)
    oracle = BM25Okapi([analyze(t) for t in texts])
    for query in queries:
        tokens = analyze(query)
        assert tokens, query  # each query holds a term of the corpus: the check is not vacuous
        assert np.array_equal(index.scores(tokens), oracle.get_scores(tokens))
        assert index.scores(tokens).max() > 0


def test_auto_indexes_each_text_with_its_own_analyzer_and_equals_rank_bm25():
    texts = [t for language in ("german", "french", "japanese") for t in CORPORA[language][0]]
    keys = ["de"] * 4 + ["fr"] * 3 + ["ja"] * 4
    settings = AnalysisSettings("auto")
    analyzers = {key: build_analyzer(settings, key) for key in ("de", "fr", "ja")}
    found = mixed_terms(texts, keys, analyzers.__getitem__)
    tokens = [analyzers[k](t) for k, t in zip(keys, texts, strict=True)]
    whole = terms_of_tokens(tokens)
    assert found.vocab == whole.vocab and found.term_of.tolist() == whole.term_of.tolist()
    assert found.doc_len.tolist() == whole.doc_len.tolist()
    index, oracle = BM25Index.from_terms(found), BM25Okapi(tokens)
    for key, query in [("de", "Prüfung der Rechnungen"), ("fr", "échéance des factures"), ("ja", "請求書の登録番号")]:
        query_tokens = analyzers[key](query)
        assert np.array_equal(index.scores(query_tokens), oracle.get_scores(query_tokens))


def test_mixed_terms_of_no_text_and_of_empty_texts():
    analyzer = build_analyzer(AnalysisSettings("german"))
    assert mixed_terms([], [], lambda _: analyzer).doc_len.tolist() == []
    found = mixed_terms(["", "die"], ["de", "fr"], lambda _: analyzer)  # "die" is a stop word: no term
    assert found.doc_len.tolist() == [0, 0] and found.vocab == {}


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Wie hoch ist die Gebühr?", "de"),
        ("What is the fee for this?", "en"),
        ("Quel est le délai de paiement ?", "fr"),
        ("¿Cuál es el plazo de pago?", "es"),
        ("請求書はいつ届きますか", "ja"),  # kana: Japanese
        ("发票什么时候到", "zh"),  # Han alone: Chinese
        ("계정이 필요합니다", "ko"),
        ("Какой срок оплаты?", "ru"),
        ("Ποιος είναι ο όρος;", "el"),
        ("ERR_4021", None),  # letters, but no stop word: no guess
        ("12 345", None),
    ],
)
def test_detect_by_script_then_stop_words(text, code):
    assert detect(text) == code
