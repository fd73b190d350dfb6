"""Text analyzers for BM25: text -> list of index terms (identifier-preserving or English-stemmed)."""

from __future__ import annotations

import re
import string
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# PyStemmer wraps the Snowball C library (libstemmer): ~10x faster than the pure-Python
# snowballstemmer, and its "porter" algorithm is the original Porter (1980) stemmer that
# Lucene's PorterStemFilter implements.
import Stemmer

from rag_bench.core.errors import ConfigError

# A run of letters/digits, then any number of ("-" | "_" | "." | "/" | "'") + letters/digits:
# a joiner only counts *between* two alphanumerics, so edge punctuation ("bug.", "(kg-450),")
# never enters a token, while "inc-2023-q4-011", "err_4021", "v1.2.3" and "don't" stay whole.
_IDENTIFIER = re.compile(r"[^\W_]+(?:[-_./'][^\W_]+)*")

_EDGE = string.punctuation  # ASCII punctuation, joiners included: at a word's edge it joins nothing

# Approximates Lucene's StandardTokenizer (Unicode UAX #29 word breaks): "_" is part of a word,
# "." and "'" join between word characters ("u.s", "don't", "4.2.1"), "," and ";" join between
# digits ("1,000"); hyphens and "/" split ("e-mail" -> "e", "mail").
_ENGLISH_WORD = re.compile(r"\w+(?:(?:[.']|(?<=\d)[,;](?=\d))\w+)*")

# Curly apostrophes are folded to "'" so "don’t" and "don't" give one term.
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\uff07": "'"})

# Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET (also Anserini's default English stopwords).
# fmt: off
ENGLISH_STOPWORDS: frozenset[str] = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
})
# fmt: on

# A Stemmer instance keeps internal state and must not be shared across threads.
_local = threading.local()


def _stemmer() -> Stemmer.Stemmer:
    """This thread's Porter stemmer (created on first use)."""
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = _local.stemmer = Stemmer.Stemmer("porter")
    return stemmer


def normalize(text: str) -> str:
    """Curly apostrophes folded to "'", then lower case: what both analyzers do before splitting."""
    return (text if text.isascii() else text.translate(_APOSTROPHES)).lower()  # isascii is O(1)


def identifier_split(text: str) -> list[str]:
    """``identifier_tokens`` of an already normalized text."""
    return list(identifier_split_words((text,))[0])


def identifier_split_words(texts: Sequence[str]) -> list[Sequence[str]]:
    """``_IDENTIFIER.findall`` of each text, skipping the regex where it is not needed.

    A run of letters/digits is its own term, and so is one fenced only by punctuation at its
    ends ("bug." -> "bug"), which is never part of a term. One comprehension over all texts:
    on a corpus's distinct words a function call per word costs more than the split.
    """
    return [
        (t,) if t.isalnum() else ((core,) if (core := t.strip(_EDGE)).isalnum() else _IDENTIFIER.findall(t))
        for t in texts
    ]


def english_split(text: str) -> list[str]:
    """``english_tokens`` of an already normalized text."""
    words = _ENGLISH_WORD.findall(text)
    # EnglishPossessiveFilter: strip a trailing "'s" ("protein's" -> "protein").
    kept = [w[:-2] if w.endswith("'s") else w for w in words]
    return _stemmer().stemWords([w for w in kept if w not in ENGLISH_STOPWORDS])


@dataclass(frozen=True)
class Analyzer:
    """text -> index terms: ``normalize`` the text (character by character), then ``split`` it into terms.

    Both steps respect whitespace (no term spans it, and normalizing does not look across it),
    so a corpus can be normalized in one call and split word by word (``terms.py``).
    """

    name: str
    normalize: Callable[[str], str]
    split: Callable[[str], list[str]]
    split_many: Callable[[Sequence[str]], list[Sequence[str]]] | None = None  # ``split`` of each word, faster
    # a whole corpus's terms at once, (texts, normalize) -> terms.Terms, where word by word is slow (CJK bigrams)
    corpus: Callable[[Sequence[str], Callable[[str], str]], object] | None = None

    def __call__(self, text: str) -> list[str]:
        return self.split(self.normalize(text))

    def split_words(self, words: Sequence[str]) -> list[Sequence[str]]:
        """``split`` of each of ``words`` (already normalized), in order."""
        return self.split_many(words) if self.split_many else [self.split(word) for word in words]


def identifier_tokens(text: str) -> list[str]:
    """Lowercased alphanumeric runs joined by inner '-', '_', '.', '/', "'": "ERR_4021." -> ["err_4021"].

    Keeps ticket ids, error codes, versions and paths whole ("INC-2023-Q4-011", "v1.2.3", "a/b");
    contractions stay one token ("don't"); other punctuation, and any joiner not flanked by
    letters/digits on both sides, separates tokens ("C++" -> "c", "a--b" -> "a", "b").
    """
    return identifier_split(normalize(text))


def english_tokens(text: str) -> list[str]:
    """Lucene EnglishAnalyzer, approximately: UAX#29-like words, drop 's, lowercase, stopwords, Porter.

    Reference: Lucene ``EnglishAnalyzer`` (StandardTokenizer, EnglishPossessiveFilter,
    LowerCaseFilter, StopFilter, PorterStemFilter), as used by Anserini's BM25 baselines.
    Known gap: Snowball's "porter" follows the published algorithm, whereas Lucene's port of
    Porter's reference code also maps "-logi" -> "-log" and "-bli" -> "-ble" ("biology" gives
    "biologi" here, "biolog" in Lucene).
    """
    return english_split(normalize(text))


ANALYZERS: dict[str, Analyzer] = {
    "english": Analyzer("english", normalize, english_split),
    "identifier": Analyzer("identifier", normalize, identifier_split, identifier_split_words),
}


def get_analyzer(name: str) -> Analyzer:
    """The analyzer called ``name``; ConfigError naming the allowed ones otherwise."""
    try:
        return ANALYZERS[name]
    except (KeyError, TypeError):
        allowed = ", ".join(sorted(ANALYZERS))
        raise ConfigError(f"retrieval.analyzer ({name!r}) must be one of: {allowed}") from None
