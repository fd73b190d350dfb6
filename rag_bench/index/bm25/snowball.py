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
from itertools import filterfalse

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
        """The terms of an already normalized text: those of its words, in order.

        With bigrams, the terms of the text outside CJK runs come first and the bigrams after them,
        each in text order: the order in which ``bigram_corpus.py`` numbers a whole corpus's terms.
        """
        if self.segment is bigrams and not text.isascii() and RUN.search(text):
            words = [t for terms in self.split_words(RUN.sub(" ", text).split()) for t in terms]
            return words + [gram for run in RUN.findall(text) for gram in bigrams(run)]
        return [term for terms in self.split_words(text.split()) for term in terms]

    def split_words(self, words: Sequence[str]) -> list[Sequence[str]]:
        """The terms of each of ``words`` (normalized, no whitespace inside), in order.

        Most words are letters only, one token that is the word itself: those are stemmed in one C
        call and looked up with no Python code run per word (``filter``, ``zip``, ``map``); only
        the other words (digits, joiners, edge punctuation) are cut as the identifier analyzer cuts
        them. Words holding CJK go the general way (``_split_cjk``; the corpus path removes CJK runs first).
        """
        words = words if isinstance(words, list) else list(words)
        joined = "".join(words)
        if not joined.isascii() and RUN.search(joined):
            return self._split_cjk(words)
        letters = list(filter(str.isalpha, words))
        terms = self._letters(letters)  # token -> its terms (a word of letters is its own only token)
        if len(letters) < len(words):
            others = list(filterfalse(str.isalpha, words))
            tokens = identifier_split_words(others)
            terms.update(self._terms(set().union(*tokens).difference(terms)))
            # a word that is also a token cuts to that token alone (an identifier is one match): same terms
            found = [terms[p[0]] if len(p) == 1 else [t for token in p for t in terms[token]] for p in tokens]
            terms.update(zip(others, found, strict=True))
        return list(map(terms.__getitem__, words))

    def _letters(self, tokens: list[str]) -> dict[str, tuple[str, ...]]:
        """``_terms`` of tokens of letters only (nothing to elide): () for a stop word, else the stem."""
        stems = self._stemmer().stemWords(tokens) if self.algorithm else tokens
        found = dict(zip(tokens, zip(stems), strict=True))  # 1-tuples, made in C
        found.update(dict.fromkeys(self.stop.intersection(tokens), ()))
        return found

    def _split_cjk(self, words: list[str]) -> list[Sequence[str]]:
        """``split_words`` of words some of which hold CJK runs, cut by the segmenter; the rest as the identifier
        analyzer cuts them, and each distinct token's terms worked out once."""
        cjk = [i for i, w in enumerate(words) if not w.isascii() and RUN.search(w)]
        pieces = {i: self._pieces(words[i]) for i in cjk}
        plain = identifier_split_words(["" if i in pieces else w for i, w in enumerate(words)])
        terms = self._terms(set().union(*plain, *(tokens for tokens, _ in pieces.values())))
        found: list[Sequence[str]] = [
            terms[p[0]] if len(p) == 1 else [t for token in p for t in terms[token]] for p in plain
        ]
        for i in cjk:
            tokens, segments = pieces[i]
            found[i] = [t for token in tokens for t in terms[token]] + segments
        return found

    def _pieces(self, word: str) -> tuple[list[str], list[str]]:
        """A word holding CJK: the tokens of its other text, and the segmenter's terms of its CJK runs."""
        parts = RUN.split(word)  # other, run, other, run, ..., other
        tokens = [token for other in parts[0::2] if other for token in identifier_split(other)]
        return tokens, [term for run in parts[1::2] for term in self.segment(run)]

    def _terms(self, tokens: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """token -> its terms: () for a stop word, its stem for letters, itself for an identifier."""
        tokens = list(tokens)
        stop = self.stop
        if self.elisions:  # an elided token stands for what follows its apostrophe
            elided = {t: self._elide(t) for t in tokens if "'" in t}
            found = {t: () if (b := elided.get(t, t)) in stop else (b,) for t in tokens}
        else:
            found = dict(zip(tokens, zip(tokens), strict=True))  # each token itself (1-tuples, made in C)
            found.update(dict.fromkeys(stop.intersection(tokens), ()))
        if self.algorithm:  # a token of letters: its stem
            letters = [(t, kept[0]) for t, kept in found.items() if kept and kept[0].isalpha()]
            stems = self._stemmer().stemWords([base for _, base in letters])
            found.update(zip([t for t, _ in letters], zip(stems), strict=True))
        return found

    def _elide(self, token: str) -> str:
        """``token`` without an elided article: "l'entreprise" -> "entreprise" (French and its like)."""
        head, _, rest = token.partition("'")
        return rest if head in self.elisions and rest else token

    def _stemmer(self) -> Stemmer.Stemmer:
        stemmer = getattr(self._local, "stemmer", None)
        if stemmer is None:
            # no cache: each call stems distinct words, and PyStemmer's cache (10,000 by default) made it 4x slower
            stemmer = self._local.stemmer = Stemmer.Stemmer(self.algorithm, 0)
        return stemmer
