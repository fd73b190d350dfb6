"""The analyzer that BM25's settings name: ``retrieval.analyzer`` and the settings every analyzer takes.

``retrieval.analyzer`` is ``identifier``, ``english`` (``analyzers.py``), a language
(``snowball.py``: every language the installed PyStemmer stems, and chinese, japanese, korean;
an ISO 639-1 code names its language, "de" -> german, "en" -> english), or ``auto``: each
document and question analyzed as its ``language`` says, else as ``detect.py`` guesses
(``mixed.py``; identifier where it cannot tell). Under ``auto`` English is analyzed as every other
language (identifiers whole, Snowball's English stemmer, ``stopwords.py``), not as ``english``, whose
Lucene-like tokenizer splits "QB-E2210" in two and so would miss it in a French document's terms.

Every analyzer then takes ``normalization`` (Unicode form before lower-casing), ``fold_accents``
(accents dropped from each term) and ``subword_ngrams`` (a term of n + 1 letters or more also gives
its character n-grams, so a compound such as "rechnungsprüfung" matches "prüfung"): with their
defaults (none, false, 0) an analyzer is exactly as before, and the analysis of each distinct word
is still done once (``terms.py``). ``segmenter`` cuts Japanese CJK runs (bigram or mecab).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from rag_bench.core.errors import ConfigError
from rag_bench.data.languages import LANGUAGES, language_code
from rag_bench.index.bm25.analyzers import ANALYZERS, Analyzer, normalize
from rag_bench.index.bm25.bigram_corpus import bigram_corpus, expand
from rag_bench.index.bm25.cjk import SEGMENTERS, bigrams
from rag_bench.index.bm25.fold import fold, normalizer
from rag_bench.index.bm25.snowball import CJK_LANGUAGES, LanguageAnalysis, snowball_languages
from rag_bench.index.bm25.terms import Terms

MAX_NGRAM = 16


@dataclass(frozen=True)
class AnalysisSettings:
    """What an analyzer is built from (BM25's keys of the same names)."""

    analyzer: str = "identifier"
    normalization: str = "none"
    fold_accents: bool = False
    subword_ngrams: int = 0
    segmenter: str = "bigram"


def analyzer_names() -> list[str]:
    """Every value ``retrieval.analyzer`` takes by name (codes aside)."""
    return sorted({*ANALYZERS, "auto", *snowball_languages(), *CJK_LANGUAGES})


def language_name(value: str) -> str:
    """The analyzer name of a ``retrieval.analyzer`` value: itself, or the language an ISO code names."""
    if value in analyzer_names():
        return value
    code = language_code(value) if isinstance(value, str) else None
    return LANGUAGES[code] if code else value


def check(s: AnalysisSettings) -> None:
    """ConfigError naming the setting and the fix for anything that cannot be built."""
    name = language_name(s.analyzer)
    if name not in analyzer_names():
        if name in LANGUAGES.values():  # a Snowball language this PyStemmer lacks
            raise ConfigError(
                f"retrieval.analyzer ({s.analyzer}) needs a Snowball stemmer that the installed PyStemmer lacks; "
                "upgrade it (pip install -U PyStemmer) or choose another analyzer"
            )
        raise ConfigError(
            f"retrieval.analyzer ({s.analyzer!r}) must be one of: {', '.join(analyzer_names())} "
            "(or a language's ISO 639-1 code, e.g. de)"
        )
    normalizer(s.normalization)
    if s.segmenter not in SEGMENTERS:
        raise ConfigError(f"retrieval.segmenter ({s.segmenter!r}) must be one of: {', '.join(SEGMENTERS)}")
    if s.segmenter == "mecab" and not all(importlib.util.find_spec(m) for m in ("fugashi", "unidic_lite")):
        raise ConfigError(
            "retrieval.segmenter (mecab) needs fugashi and unidic-lite; install them with "
            "pip install 'rag-bench[japanese]', or set retrieval.segmenter=bigram"
        )
    if s.subword_ngrams != 0 and not 2 <= s.subword_ngrams <= MAX_NGRAM:
        raise ConfigError(
            f"retrieval.subword_ngrams ({s.subword_ngrams}) must be 0 (off) or from 2 to {MAX_NGRAM} (4 suits German)"
        )


def build_analyzer(s: AnalysisSettings, language: str | None = None) -> Analyzer:
    """The analyzer ``s`` names; under ``auto``, the one for ISO code ``language`` (identifier for None)."""
    check(s)
    name = language_name(s.analyzer)
    auto = name == "auto"
    if auto:
        name = LANGUAGES[language] if language else "identifier"
    if name == "identifier" or (name == "english" and not auto):
        base = ANALYZERS[name]
    else:
        analysis = LanguageAnalysis(name, s.segmenter, fold_stopwords=s.fold_accents)
        whole = None if analysis.segment is not bigrams else partial(_bigrams, analysis=analysis)
        base = Analyzer(name, normalize, analysis.split, analysis.split_words, whole)
    return with_settings(base, s)


def with_settings(base: Analyzer, s: AnalysisSettings) -> Analyzer:
    """``base`` with Unicode normalisation before it and folding and subword n-grams after it."""
    form = normalizer(s.normalization)
    if form is None and not s.fold_accents and not s.subword_ngrams:
        return base
    after = _Terms(s.fold_accents, s.subword_ngrams)

    def normalized(text: str) -> str:
        return base.normalize(form(text) if form else text)

    def split(text: str) -> list[str]:
        return after.each(base.split(text))

    def split_many(words: Sequence[str]) -> list[Sequence[str]]:
        return after.words(base.split_words(words))

    def corpus(texts: Sequence[str], normalize: Callable[[str], str]) -> Terms:
        return expand(base.corpus(texts, normalize), after.of)

    return Analyzer(base.name, normalized, split, split_many, corpus if base.corpus else None)


def _bigrams(texts: Sequence[str], normalize: Callable[[str], str], analysis: LanguageAnalysis) -> Terms:
    return bigram_corpus(texts, normalize, analysis.split_words, analysis.split)


class _Terms:
    """Folding and n-grams of an analyzer's terms, each distinct term worked out once per call."""

    def __init__(self, fold_accents: bool, n: int) -> None:
        self.fold, self.n = fold_accents, n

    def of(self, term: str) -> tuple[str, ...]:
        """A term's terms: folding and n = 4 give "prüfung" -> ("prufung", "pruf", "rufu", "ufun", "fung")."""
        term = fold(term) if self.fold else term
        n = self.n
        if n and len(term) > n and term.isalpha():
            return (term, *(term[i : i + n] for i in range(len(term) - n + 1)))
        return (term,)

    def each(self, terms: Sequence[str]) -> list[str]:
        return [t for term in terms for t in self.of(term)]

    def words(self, analyzed: Sequence[Sequence[str]]) -> list[Sequence[str]]:
        memo = {term: self.of(term) for terms in analyzed for term in terms}
        return [[t for term in terms for t in memo[term]] for terms in analyzed]
