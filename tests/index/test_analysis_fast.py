"""The fast paths of the language analyzers and of detection give what the plain, token-by-token way gives.

``LanguageAnalysis.split_words`` stems the distinct words of letters in one call and looks the
rest up (``snowball.py``); ``detect`` counts scripts with a numpy table and votes once per
distinct word (``detect.py``). Here both are checked, term for term and code for code, against
plain versions written out below from the modules' documented steps, on real text: every
document and question of the bundled multilingual set and of kestrel-kb, under every language
analyzer, whichever script the text is in.
"""

import json
import random
import re
from functools import cache

import pytest
import Stemmer

from rag_bench.core.paths import project_folder
from rag_bench.data.languages import CODES
from rag_bench.index.bm25 import detect as detection
from rag_bench.index.bm25.analysis import AnalysisSettings, analyzer_names, build_analyzer
from rag_bench.index.bm25.analyzers import normalize
from rag_bench.index.bm25.cjk import RUN, bigrams
from rag_bench.index.bm25.fold import fold
from rag_bench.index.bm25.snowball import CJK_LANGUAGES, ELISIONS, LanguageAnalysis, snowball_languages
from rag_bench.index.bm25.stopwords import STOPWORDS
from rag_bench.index.bm25.terms import Terms, corpus_terms, terms_of_tokens

IDENTIFIER = re.compile(r"[^\W_]+(?:[-_./'][^\W_]+)*")  # the identifier analyzer's token (analyzers.py)
LANGUAGES = [*snowball_languages(), *CJK_LANGUAGES]


def real_texts() -> list[str]:
    """Every document and question of the bundled multilingual set and of kestrel-kb."""
    texts = []
    multilingual = project_folder("datasets") / "multilingual"
    for name, field in (("documents.jsonl", "text"), ("questions.jsonl", "question")):
        for line in (multilingual / name).read_text(encoding="utf-8").splitlines():
            texts.append(json.loads(line)[field])
    kestrel = project_folder("datasets") / "kestrel-kb"
    texts += [path.read_text(encoding="utf-8") for path in sorted((kestrel / "docs").rglob("*.md"))]
    texts += [json.loads(line)["question"] for line in (kestrel / "questions.jsonl").read_text().splitlines()]
    return texts


TEXTS = real_texts()


class PlainAnalysis:
    """One language's analysis token by token, no memo: identifier tokens and segmenter terms of each word;
    elided article dropped, stop word dropped, letters stemmed (a fresh stemmer's ``stemWord`` per token)."""

    def __init__(self, language: str, fold_stopwords: bool = False) -> None:
        stop = STOPWORDS.get(language, frozenset())
        self.stop = stop | {fold(w) for w in stop} if fold_stopwords else stop
        self.elisions = ELISIONS.get(language, frozenset())
        stems = language in Stemmer.algorithms() and language not in CJK_LANGUAGES
        self.stemmer = Stemmer.Stemmer(language) if stems else None

    def token(self, token: str) -> list[str]:
        head, apostrophe, rest = token.partition("'")
        if apostrophe and head in self.elisions and rest:
            token = rest
        if token in self.stop:
            return []
        return [self.stemmer.stemWord(token)] if self.stemmer and token.isalpha() else [token]

    def word(self, word: str) -> list[str]:
        """A word's terms: those of the tokens outside its CJK runs, then the runs' bigrams."""
        parts = RUN.split(word)  # other, run, other, ...
        terms = [t for other in parts[0::2] for token in IDENTIFIER.findall(other) for t in self.token(token)]
        return terms + [gram for run in parts[1::2] for gram in bigrams(run)]

    def text(self, text: str) -> list[str]:
        """A normalized text's terms: its words' (CJK runs blanked), then every run's bigrams, in text order."""
        words = [t for word in RUN.sub(" ", text).split() for t in self.word(word)]
        return words + [gram for run in RUN.findall(text) for gram in bigrams(run)]


def distinct_words() -> list[str]:
    """The distinct normalized words of the real texts, in order of first appearance."""
    return list(dict.fromkeys(word for text in TEXTS for word in normalize(text).split()))


def test_the_real_texts_meet_every_kind_of_word():
    words = distinct_words()
    assert len(TEXTS) > 150 and len(words) > 5000
    assert any(RUN.search(w) for w in words) and any("'" in w for w in words)  # CJK runs, elisions
    assert any(w.isalpha() and not w.isascii() for w in words) and any(not w.isalnum() for w in words)
    kinds = [w for w in words if not w.isalpha() and w.isalnum()]  # digits: identifiers kept whole
    assert kinds and any(w.strip(".,;:()") != w for w in words)


@pytest.mark.parametrize("language", LANGUAGES)
def test_split_words_equals_the_plain_token_by_token_way(language):
    words = distinct_words()
    fast, plain = LanguageAnalysis(language), PlainAnalysis(language)
    found = fast.split_words(words)
    assert [list(terms) for terms in found] == [plain.word(word) for word in words]
    assert sum(map(len, found)) > len(words) // 2  # most words give a term: the comparison is not of empties
    if language in snowball_languages():
        assert any(list(terms) != [w] for terms, w in zip(found, words, strict=True) if w.isalpha())  # stems
    # words of letters only (no CJK, no digit or joiner): the path with no Python code run per word
    letters = [w for w in words if w.isalpha() and not RUN.search(w)]
    assert [list(t) for t in fast.split_words(letters)] == [plain.word(w) for w in letters]
    # a sequence that is not a list, words repeated, and no word at all
    repeated = tuple(words[:50] * 3)
    assert [list(t) for t in fast.split_words(repeated)] == [plain.word(w) for w in repeated]
    assert fast.split_words([]) == []


@pytest.mark.parametrize("language", ["french", "italian", "german", "greek", "russian"])
def test_folded_stop_words_equal_the_plain_way(language):
    words = [fold(w) for w in distinct_words()]  # folding after analysis, so the stop list holds folded forms too
    fast, plain = LanguageAnalysis(language, fold_stopwords=True), PlainAnalysis(language, fold_stopwords=True)
    assert [list(terms) for terms in fast.split_words(words)] == [plain.word(word) for word in words]


@cache
def plain_terms(language: str) -> Terms:
    """The real texts' term stream by ``PlainAnalysis``, text by text (worked out once per language)."""
    plain = PlainAnalysis(language)
    return terms_of_tokens([plain.text(normalize(text)) for text in TEXTS])


@pytest.mark.slow  # ~0.3 s a case, 74 cases: the quick pass has the split_words test above
@pytest.mark.usefixtures("indexing")  # word numbering on the numpy path and in C
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_real_corpus_analyzed_at_once_equals_the_plain_way_text_by_text(language):
    """What the BM25 build runs (``corpus_terms``, under ``auto`` for this language's code, and by name) against
    the plain analysis of each text: the same term stream, ids and document lengths included."""
    expected = plain_terms(language)
    code = CODES[language]
    cases = [(AnalysisSettings("auto"), code)]  # "english" by name is Lucene's analyzer (analyzers.py), not this
    cases += [(AnalysisSettings(language), None)] if language != "english" else []
    for settings, key in cases:
        analyzer = build_analyzer(settings, key)
        found = corpus_terms(TEXTS, analyzer)
        assert found.vocab == expected.vocab
        assert found.term_of.tolist() == expected.term_of.tolist()
        assert found.doc_len.tolist() == expected.doc_len.tolist()


def test_every_language_analyzer_is_checked():
    assert set(LANGUAGES) == set(analyzer_names()) - {"auto", "identifier"}


# ---- detection: the plain way, character by character and voter by voter (detect.py before the table)


def plain_detect(text: str) -> str | None:
    sample = text[: detection.SAMPLE]
    counts: dict[str, int] = {}
    for char in sample:
        if char.isalpha():
            script = detection.script_of(char)
            if script is not None:
                counts[script] = counts.get(script, 0) + 1
    if not counts:
        return None
    if counts.get("kana", 0) and counts.get("kana", 0) + counts.get("han", 0) >= counts.get("hangul", 0):
        return "ja"
    script = max(counts, key=lambda s: (counts[s], s))
    if script == "han":
        return "zh"
    if script in detection._BY_SCRIPT:
        return detection._BY_SCRIPT[script]
    words = re.findall(r"[^\W\d_]+", sample.lower())
    voters = detection._VOTERS[script]
    votes = [(sum(w in STOPWORDS[name] for w in words), -i, name) for i, name in enumerate(voters)]
    hits, _, name = max(votes)
    return CODES[name] if hits else None


def test_the_script_table_agrees_with_script_of_on_every_code_point():
    table = detection._table()
    for point in range(0x10000):
        char = chr(point)
        expected = detection.script_of(char) if char.isalpha() else None
        assert (detection._SCRIPTS[table[point] - 1] if table[point] else None) == expected, hex(point)
    assert table[0x10000] == 0  # beyond the BMP: no script (script_of knows none there)


def test_detect_equals_the_plain_way_on_real_texts():
    found = [detection.detect(text) for text in TEXTS]
    assert found == [plain_detect(text) for text in TEXTS]
    assert {"en", "de", "fr", "ja", "zh"} <= set(found)  # the set's five languages are told apart
    pieces = [text[i : i + 60] for text in TEXTS for i in range(0, min(len(text), 600), 45)]  # short and mixed
    assert [detection.detect(p) for p in pieces] == [plain_detect(p) for p in pieces]


def test_detect_equals_the_plain_way_on_random_text_of_every_script():
    """Seeded strings drawn from letters of each script, stop words of several voters (ties included),
    digits, marks, punctuation, and characters beyond the BMP."""
    rng = random.Random(34)
    stop = sorted(
        {w for name in ("english", "german", "french", "dutch", "arabic", "persian") for w in STOPWORDS[name]}
    )
    pool = [
        *"abcxyzÀÉüßøłǅ",  # Latin, one title-case letter
        *"αβΩжЖЯաբאבتثكदनதகᄀ가힣ぁアー漢字㐀",  # every script's range
        "\u0301",
        "\u00aa",  # a mark; a letter below U+00C0 that is not ASCII (no script)
        *"0123456789 _-.,'?!\n",
        "\U00020000",
        "\U0001d400",  # a supplementary ideograph; a mathematical letter
        *(f" {w} " for w in stop),
    ]
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(0, 80))) for _ in range(3000)]
    texts += ["x" * 1990 + " der die das", "é" * 1999 + " the", ""]  # the sample ends at character 2,000
    found = [detection.detect(text) for text in texts]
    assert found == [plain_detect(text) for text in texts]
    assert len(set(found)) >= 8  # many answers, None among them
