"""The analyzer of one language (``retrieval.analyzer=german``, ``japanese``, ...): words, stop words, stems.

A word (text between whitespace) is cut as the identifier analyzer cuts it, so INC-2023-Q4-011,
ERR_4021 and v1.2.3 stay whole, except that its CJK runs are cut by the segmenter (``cjk.py``).
Then each token: an elided article is dropped in French, Italian, Catalan and Irish
("l'entreprise" -> "entreprise"), a stop word (``stopwords.py``) gives no term, and a token of
letters only is stemmed by the language's Snowball stemmer (PyStemmer); a token holding a digit
or a joiner is an identifier and stays as it is. Lucene's language analyzers run the same steps
(StandardTokenizer, ElisionFilter, LowerCaseFilter, StopFilter, SnowballFilter).
Worked example (german): "Die Rechnungsprüfung für ERR_4021" -> ["rechnungspruf", "err_4021"].
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence

import Stemmer

from rag_bench.index.bm25.analyzers import identifier_split, identifier_split_words
from rag_bench.index.bm25.cjk import RUN, Mecab, bigrams
from rag_bench.index.bm25.fold import fold
from rag_bench.index.bm25.stopwords import STOPWORDS

CJK_LANGUAGES = ("chinese", "japanese", "korean")
_ELIDED = {  # articles, pronouns and prepositions written before an apostrophe: "l'", "dell'", "qu'"
    "french": "l m t qu n s j d c jusqu quoiqu lorsqu puisqu",
    "italian": "c l all dall dell nell sull coll pell gl agl dagl degl negl sugl un m t s v d",
    "catalan": "d l m n s t",
    "irish": "d m b",
}
ELISIONS: dict[str, frozenset[str]] = {language: frozenset(words.split()) for language, words in _ELIDED.items()}


def snowball_languages() -> list[str]:
    """The languages the installed PyStemmer stems (its two alternative algorithms left out)."""
    return sorted(set(Stemmer.algorithms()) - {"porter", "dutch_porter"})


class LanguageAnalysis:
    """``split_words`` of one language: each distinct token's terms worked out once per call."""

    def __init__(self, language: str, segmenter: str = "bigram", fold_stopwords: bool = False) -> None:
        self.language = language
        stop = STOPWORDS.get(language, frozenset())
        self.stop = stop | {fold(w) for w in stop} if fold_stopwords else stop
        self.elisions = ELISIONS.get(language, frozenset())
        self.algorithm = language if language in Stemmer.algorithms() and language not in CJK_LANGUAGES else None
        mecab = (language, segmenter) == ("japanese", "mecab")
        self.segment: Callable[[str], list[str]] = Mecab() if mecab else bigrams
        self._local = threading.local()  # a Stemmer keeps state: one per thread

    def split(self, text: str) -> list[str]:
        """The terms of an already normalized text: those of its words, in order."""
        return [term for terms in self.split_words(text.split()) for term in terms]

    def split_words(self, words: Sequence[str]) -> list[list[str]]:
        """The terms of each of ``words`` (normalized, no whitespace inside), in order."""
        plain = identifier_split_words([w if w.isascii() or not RUN.search(w) else "" for w in words])
        pieces = [(tokens, ()) if tokens or not w else self._pieces(w) for w, tokens in zip(words, plain, strict=True)]
        terms = self._terms({token for tokens, _ in pieces for token in tokens})
        return [[t for token in tokens for t in terms[token]] + list(cjk) for tokens, cjk in pieces]

    def _pieces(self, word: str) -> tuple[list[str], list[str]]:
        """A word holding CJK: the tokens of its other text, and the segmenter's terms of its CJK runs."""
        parts = RUN.split(word)  # other, run, other, run, ..., other
        tokens = [token for other in parts[0::2] if other for token in identifier_split(other)]
        return tokens, [term for run in parts[1::2] for term in self.segment(run)]

    def _terms(self, tokens: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """token -> its terms: () for a stop word, its stem for letters, itself for an identifier."""
        found: dict[str, tuple[str, ...]] = {}
        letters: list[tuple[str, str]] = []  # (token, the word to stem)
        for token in tokens:
            base = token
            if self.elisions and "'" in token:
                head, _, rest = token.partition("'")
                base = rest if head in self.elisions and rest else token
            if base in self.stop:
                found[token] = ()
            elif self.algorithm and base.isalpha():
                letters.append((token, base))
            else:
                found[token] = (base,)
        if letters:
            stems = self._stemmer().stemWords([base for _, base in letters])
            found.update((token, (stem,)) for (token, _), stem in zip(letters, stems, strict=True))
        return found

    def _stemmer(self) -> Stemmer.Stemmer:
        stemmer = getattr(self._local, "stemmer", None)
        if stemmer is None:
            stemmer = self._local.stemmer = Stemmer.Stemmer(self.algorithm)
        return stemmer
