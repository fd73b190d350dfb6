"""BM25 over a CSR inverted index: rank-bm25's BM25Okapi exactly, or Lucene's variant (Anserini)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from numbers import Real

import numpy as np

from rag_bench.core.errors import ConfigError
from rag_bench.index.bm25 import compiled
from rag_bench.index.bm25 import numpy_search as bm25_numpy
from rag_bench.index.bm25.pages import small_pages
from rag_bench.index.bm25.terms import Terms, corpus_terms, terms_of_tokens


class BM25Index:
    """BM25: sum_t idf(t) * tf*(k1+1) / (tf + k1*(1 - b + b*dl/avgdl)) (Robertson & Zaragoza 2009).

    idf(t) = ln(N - df + 0.5) - ln(df + 0.5), and a negative idf is replaced by
    epsilon * mean(idf) -- the ATIRE variant with rank-bm25's floor (Trotman et al. 2014).
    Every posting's term weight is precomputed with rank-bm25's float64 expression, so
    per-document sums in query order reproduce ``BM25Okapi.get_scores`` bit for bit.
    One divergence: where rank-bm25 divides 0/0 for a document *without* the term
    (k1 = 0, or b = 1 and an empty document) it returns NaN; here that term adds 0.

    ``search`` runs the C kernel of the extension ``_loops`` (``compiled.search``) where the install
    built it, and the numpy loop (``bm25_numpy``) otherwise; both add the same weights in the same
    order and return the same arrays bit for bit.

    ``variant="lucene"`` scores as Lucene's BM25Similarity (Lucene 8+, used by Anserini):
    idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)), term weight idf * tf / (tf + k1*(1 - b +
    b*dl/avgdl)) with no (k1 + 1) factor, and dl decoded from Lucene's one-byte length norm
    (``lucene_length``), so long documents' lengths are rounded as Lucene rounds them.
    """

    def __init__(
        self,
        *,
        vocab: dict[str, int],
        indptr: np.ndarray,
        doc_ids: np.ndarray,
        weights: np.ndarray,
        idf: np.ndarray,
        doc_len: np.ndarray,
        k1: float,
        b: float,
        epsilon: float,
        avgdl: float,
        average_idf: float,
    ) -> None:
        self.vocab = vocab  # term -> term id, ids in order of first appearance in the corpus
        self.indptr = indptr  # (n_terms + 1,) int64: postings of term t are [indptr[t], indptr[t+1])
        self.doc_ids = doc_ids  # (n_postings,) int32, ascending within each term
        self.weights = weights  # (n_postings,) float64: idf * tf*(k1+1) / (tf + k1*norm)
        self.idf = idf  # (n_terms,) float64, after the epsilon floor
        self.doc_len = doc_len  # (n_docs,) int64
        self.k1, self.b, self.epsilon = k1, b, epsilon
        self.avgdl = avgdl
        self.average_idf = average_idf
        self._positive: np.ndarray | None = None  # _positive_terms, once searched

    @classmethod
    def build(
        cls,
        docs: Sequence[Sequence[str]],
        k1: float = 1.5,
        b: float = 0.75,
        epsilon: float = 0.25,
        variant: str = "okapi",
    ) -> BM25Index:
        """Index already-tokenized ``docs`` (each a sequence of terms)."""
        if isinstance(docs, str) or any(isinstance(doc, str) for doc in docs):
            raise TypeError("BM25Index.build needs tokenized docs (sequences of terms), not strings")
        return cls.from_terms(terms_of_tokens(docs), k1, b, epsilon, variant)

    @classmethod
    def from_texts(
        cls,
        texts: Sequence[str],
        analyze: Callable[[str], list[str]],
        k1: float = 1.5,
        b: float = 0.75,
        epsilon: float = 0.25,
        variant: str = "okapi",
    ) -> BM25Index:
        """Index raw ``texts`` with ``analyze``: the same index as ``build([analyze(t) for t in texts])``.

        Each distinct whitespace-separated word is analyzed once (``terms.py``), which is what
        makes analysis + build of a large corpus cheaper than rank-bm25's build alone.
        """
        if isinstance(texts, str):
            raise TypeError("BM25Index.from_texts needs a sequence of texts, not one string")
        with small_pages():  # fresh arrays touched once: no huge-page stalls (pages.py)
            return cls.from_terms(corpus_terms(texts, analyze), k1, b, epsilon, variant)

    @classmethod
    def from_terms(
        cls, terms: Terms, k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25, variant: str = "okapi"
    ) -> BM25Index:
        """Index a corpus given as a term stream (``terms.Terms``)."""
        k1, b, epsilon = _check_params(k1, b, epsilon)
        if variant not in VARIANTS:
            raise ConfigError(f"retrieval.bm25_variant ({variant!r}) must be one of: {', '.join(VARIANTS)}")
        vocab, term_of, doc_len = terms.vocab, terms.term_of, terms.doc_len
        n_docs, n_terms, n_tokens = len(doc_len), len(vocab), len(term_of)
        postings = _postings if compiled.LOOPS is None else compiled.postings  # numpy, or C's counting sort
        post_term, post_doc, tf = postings(term_of, doc_len, n_terms)  # (n_postings,) each
        df = np.bincount(post_term, minlength=n_terms)  # (n_terms,)
        indptr = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(df, out=indptr[1:])

        # math.log (not np.log, whose SIMD loops may differ by an ulp), once per distinct df.
        distinct_df, df_slot = np.unique(df, return_inverse=True)
        if variant == "lucene":
            distinct_idf = [math.log(1 + (n_docs - f + 0.5) / (f + 0.5)) for f in distinct_df.tolist()]
        else:
            distinct_idf = [math.log(n_docs - f + 0.5) - math.log(f + 0.5) for f in distinct_df.tolist()]
        raw_idf = np.array(distinct_idf, dtype=np.float64)[df_slot]  # (n_terms,)
        idf_sum = 0.0
        for value in raw_idf.tolist():  # sequential sum in first-appearance order, as rank-bm25
            idf_sum += value
        average_idf = idf_sum / n_terms if n_terms else 0.0
        idf = np.where(raw_idf < 0, epsilon * average_idf, raw_idf)  # (n_terms,)

        avgdl = n_tokens / n_docs if n_docs else 0.0
        weights = np.empty(0, dtype=np.float64)
        if n_tokens and variant == "lucene":
            norm = k1 * (1 - b + b * lucene_length(doc_len) / avgdl)  # (n_docs,)
            weights = raw_idf[post_term] * (tf / (tf + norm[post_doc]))  # (n_postings,)
        elif n_tokens:
            # Same operations, in the same order, as BM25Okapi.get_scores.
            norm = k1 * (1 - b + b * doc_len / avgdl)  # (n_docs,)
            weights = idf[post_term] * (tf * (k1 + 1) / (tf + norm[post_doc]))  # (n_postings,)
        return cls(
            vocab=vocab,
            indptr=indptr,
            doc_ids=post_doc.astype(np.int32 if n_docs < 2**31 else np.int64),
            weights=weights,
            idf=idf,
            doc_len=doc_len,
            k1=k1,
            b=b,
            epsilon=epsilon,
            avgdl=avgdl,
            average_idf=average_idf,
        )

    @property
    def n_docs(self) -> int:
        """Number of indexed documents."""
        return int(self.doc_len.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes held by the index arrays (the vocabulary dict is not counted)."""
        arrays = (self.indptr, self.doc_ids, self.weights, self.idf, self.doc_len)
        return int(sum(a.nbytes for a in arrays))

    def _term_ids(self, query: Sequence[str]) -> list[int]:
        """Term id of each known query term, in query order (repeats kept)."""
        if isinstance(query, str):
            raise TypeError("a BM25 query must be a sequence of terms, not a string")
        return [tid for tid in map(self.vocab.get, query) if tid is not None]

    def _spans(self, query: Sequence[str]) -> list[tuple[int, int]]:
        """Postings range of each known query term, in query order (repeats kept)."""
        return [(int(self.indptr[tid]), int(self.indptr[tid + 1])) for tid in self._term_ids(query)]

    def scores(self, query: Sequence[str]) -> np.ndarray:
        """BM25 score of every document for ``query``: (n_docs,) float64, unknown terms add 0."""
        acc = np.zeros(self.n_docs, dtype=np.float64)  # (n_docs,)
        for start, stop in self._spans(query):
            acc[self.doc_ids[start:stop]] += self.weights[start:stop]
        return acc

    def search(self, queries: Sequence[Sequence[str]], depth: int) -> tuple[np.ndarray, np.ndarray]:
        """Top ``depth`` documents per query that contain a query term: (indices, scores).

        Both (n_queries, min(depth, n_docs)): no query finds more documents than the index holds, so a
        depth beyond the corpus (``retrieval.depth=2000000000``) sizes no array by it. Score descending,
        then doc index ascending; rows padded with -1 / -inf. Each query touches only its terms' postings.
        """
        if isinstance(depth, bool) or not isinstance(depth, int | np.integer) or depth < 0:
            raise ConfigError(f"retrieval.depth ({depth!r}) must be an integer >= 0")
        if isinstance(queries, str):
            raise TypeError("queries must be a sequence of tokenized queries, not a string")
        width = min(int(depth), self.n_docs)
        per_query = [self._term_ids(query) for query in queries]
        if compiled.LOOPS is not None:  # the C kernel: every query in one call
            return compiled.search(self.indptr, self.doc_ids, self.weights, per_query, self.n_docs, width)
        indices = np.full((len(queries), width), -1, dtype=np.int64)  # (n_queries, width)
        values = np.full((len(queries), width), -np.inf, dtype=np.float64)  # (n_queries, width)
        index = (self.indptr, self.doc_ids, self.weights, self._positive_terms())
        bm25_numpy.search_batch(*index, per_query, self.n_docs, indices, values)
        return indices, values

    def _positive_terms(self) -> np.ndarray:
        """(n_terms,) bool: whether every posting weight of each term is > 0 (computed once)."""
        if self._positive is None:
            self._positive = bm25_numpy.positive_terms(self.indptr, self.weights)
        return self._positive


VARIANTS = ("okapi", "lucene")
KEY32_LIMIT = 2**32  # (term, doc) keys of a block of documents stay below this (uint32)
_FREE = 24  # lengths below this are stored exactly by Lucene's SmallFloat.intToByte4


def lucene_length(length: np.ndarray) -> np.ndarray:
    """Document lengths as Lucene stores them: byte4ToInt(intToByte4(length)).

    intToByte4 keeps lengths below 24 exactly; above, it keeps the top 4 significant bits
    of (length - 24) as a tiny float (3 mantissa bits after the implicit one, and the shift).
    Example: 100 -> 24 + 76 = 24 + 0b1001100 -> top 4 bits 1001, shift 3 -> 24 + 72 = 96.
    """
    length = np.asarray(length, dtype=np.int64)
    rest = np.maximum(length - _FREE, 0)
    bits = np.zeros_like(rest)
    nonzero = rest > 0
    bits[nonzero] = np.floor(np.log2(rest[nonzero])).astype(np.int64) + 1  # bit length
    shift = np.maximum(bits - 4, 0)
    decoded = (rest >> shift) << shift  # drop all but the top 4 significant bits
    return np.where(length < _FREE, length, _FREE + decoded).astype(np.float64)


def _postings(term_of: np.ndarray, doc_len: np.ndarray, n_terms: int) -> tuple[np.ndarray, ...]:
    """(term, doc, tf) of every distinct (term, doc) pair of the tokens, by term, then doc: (n_postings,) int64 each.

    Sorting one uint32 key term * block + doc per token groups the pairs: half the memory of
    64-bit keys and a faster sort. When n_terms * n_docs does not fit, the documents are taken in
    blocks whose keys fit; a term's postings are then its postings in the first block, then the
    next (ascending documents), each placed directly (``_merge``, linear) rather than by a sort.
    The numpy path: ``compiled.postings`` returns the same arrays from C, by a counting sort.
    """
    n_docs = len(doc_len)
    block = max(1, min(KEY32_LIMIT // max(n_terms, 1), n_docs))  # docs per block: term * block + doc < 2**32
    token_end = np.concatenate([[0], np.cumsum(doc_len)])  # (n_docs + 1,)
    parts = []
    for first in range(0, max(n_docs, 1), block):
        last = min(first + block, n_docs)
        doc_of = np.repeat(np.arange(last - first, dtype=np.uint32), doc_len[first:last])  # (block tokens,)
        tokens = term_of[token_end[first] : token_end[last]].astype(np.uint32)
        keys, tf = np.unique(tokens * np.uint32(block) + doc_of, return_counts=True)  # (block pairs,)
        term, doc = np.divmod(keys, np.uint32(block))
        parts.append((term.astype(np.int64), doc.astype(np.int64) + first, tf.astype(np.int64, copy=False)))
    return parts[0] if len(parts) == 1 else _merge(parts, n_terms)


def _merge(parts: list[tuple[np.ndarray, ...]], n_terms: int) -> tuple[np.ndarray, ...]:
    """Blocks' (term, doc, tf) postings, each sorted by term, as one list by term, then block, in linear time.

    A posting of block b lands at (where its term's postings begin) + (that term's postings in
    blocks before b) + (its rank in block b's run of the term): what a stable sort by term of the
    concatenated blocks gives, without the sort.
    """
    total = sum(np.bincount(part[0], minlength=n_terms) for part in parts)  # (n_terms,) postings of each term
    begin = np.cumsum(total) - total  # (n_terms,) where each term's postings begin
    out = tuple(np.empty(int(total.sum()), dtype=np.int64) for _ in range(3))
    for term, doc, tf in parts:
        count = np.bincount(term, minlength=n_terms)  # (n_terms,) this block's postings of each term
        offset = begin - (np.cumsum(count) - count)  # (n_terms,) a run's first posting goes to begin, then on
        at = offset[term] + np.arange(len(term))  # (block postings,) destinations
        for dest, values in zip(out, (term, doc, tf), strict=True):
            dest[at] = values
        begin += count  # the next block's runs follow this one's
    return out


def _check_params(k1: float, b: float, epsilon: float) -> tuple[float, float, float]:
    """(k1, b, epsilon) as floats; ConfigError unless all are finite, k1 >= 0 and 0 <= b <= 1."""
    for name, value in (("k1", k1), ("b", b), ("epsilon", epsilon)):
        if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
            raise ConfigError(f"BM25 {name} ({value!r}) must be a finite number")
    if k1 < 0:
        raise ConfigError(f"BM25 k1 ({k1!r}) must be >= 0")
    if not 0 <= b <= 1:
        raise ConfigError(f"BM25 b ({b!r}) must be in [0, 1]")
    return float(k1), float(b), float(epsilon)
