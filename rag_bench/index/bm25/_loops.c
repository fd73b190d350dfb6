/* _loops: the hot loops of BM25 in C: two of building an index over a corpus, and its search.
 *
 * setup.py compiles this file when rag-bench is installed on a machine with a C compiler;
 * rag_bench/index/bm25/compiled.py imports it when it was built, and terms.py and bm25.py run their
 * numpy code otherwise. Both paths return the same arrays. Only the CPython C API and the buffer
 * protocol are used (no numpy headers): inputs are bytes-like objects (bytes, numpy arrays), and
 * the int64 and float64 outputs are new bytearrays that the caller views with np.frombuffer. (Plain
 * malloc'd memory rather than numpy arrays: numpy asks Linux for transparent huge pages for its large
 * arrays, and where the kernel must first compact memory to find them, faulting them in costs more
 * than these loops.) The loops run without the GIL. Being compiled by the install, they cost a first
 * run nothing (a JIT compiler such as numba would spend seconds there).
 *
 * number_words(text) -> (codes, words)
 *     text:  UTF-8 bytes. A word is a maximal run of bytes that are not ASCII whitespace (0x09-0x0D,
 *            0x1C-0x1F, 0x20: what str.split() splits at below 0x80). Every other byte is a word
 *            byte: NUL (rag-bench's marker word), the other control bytes, and every byte >= 0x80
 *            (so a multi-byte UTF-8 character is never cut).
 *     codes: bytearray, (n_words,) int64: each word's number, words numbered by first appearance.
 *     words: bytes, the distinct words in number order joined by one space (b"" when none).
 *     Example: b" ab cd\tab" -> codes [0, 1, 0], words b"ab cd".
 *
 * postings(term_of, doc_len, n_terms) -> (term, doc, tf)
 *     term_of: (n_tokens,) int64, the term id (0 <= id < n_terms) of every token, document after
 *              document; doc_len: (n_docs,) int64 tokens per document (they sum to n_tokens).
 *     term, doc, tf: bytearrays, (n_postings,) int64 each: every distinct (term, document) pair
 *              once, sorted by term then document, and how many times the term occurs there.
 *     Example: term_of [1, 0, 1, 1], doc_len [2, 2] (doc 0 holds terms 1 0, doc 1 holds 1 1)
 *              -> term [0, 1, 1], doc [0, 0, 1], tf [1, 1, 2].
 *
 * search(indptr, doc_ids, weights, term_ptr, terms, n_docs, depth) -> (indices, scores)
 *     indptr:  (n_terms + 1,) int64, term t's postings are [indptr[t], indptr[t + 1]);
 *     doc_ids: (n_postings,) int32 or int64, each posting's document (0 <= id < n_docs);
 *     weights: (n_postings,) float64, each posting's BM25 term weight;
 *     term_ptr, terms: int64, query q's term ids in query order are terms[term_ptr[q] : term_ptr[q + 1]].
 *     indices, scores: bytearrays, (n_queries, depth) int64 and float64: each query's best depth
 *              documents among those holding a query term, by score (the float64 sum of the
 *              weights, added in query order) descending, then index ascending; -1 / -inf after them.
 *     Example: indptr [0, 2, 3], doc_ids [0, 2, 2], weights [1.0, 2.0, 0.5] (4 documents), the
 *              query [1, 0], depth 3 -> indices [2, 0, -1], scores [2.5, 1.0, -inf].
 *
 * shingle_sets(texts) -> (values, offsets)
 *     texts:  a list of str, each lower-cased and split at ASCII whitespace (a text with other characters
 *             must come lower-cased, its words joined by single spaces: " ".join(t.lower().split())).
 *     values: bytearray of uint64, text after text its distinct word 3-shingles sorted ascending, each
 *             w0 * 0x9E3779B97F4A7C15 + w1 * 0xC2B2AE3D27D4EB4F + w2 modulo 2**64 with w the words' Python
 *             hashes (a text of 1 or 2 words: one shingle, padded with 0), as core/shingles.py's shingles().
 *     offsets: bytearray, (n_texts + 1,) int64: text i's set is values[offsets[i] : offsets[i + 1]].
 *     Each distinct word is hashed once, as a str (so the hashes are this process's).
 *
 * near_copies(slots, values, offsets, width, threshold) -> copies
 *     slots:  (n, width) int64 (rows of candidate lists), each candidate's set (-1: padding); a set s is
 *             values[offsets[s] : offsets[s + 1]] (values: uint64, offsets: int64, as shingle_sets makes).
 *     copies: bytearray, (n, width) 0/1: 1 where a candidate is near-identical (Jaccard >= threshold) to an
 *             earlier one of its row (two sets without a shingle are; one set is to itself), as
 *             rag_bench/retrieve/diversity/near.py's copied(): pairs found by the prefix filter (the
 *             |A| - ceil(t |A| - 1e-9) + 1 smallest shingles of each), then their exact Jaccard.
 *
 * heading_starts(text, depth) -> starts
 *     text:   bytes; starts: bytearray, int64: where each Markdown heading of at most depth #s that follows a
 *             line break begins (its first "#"): the matches of \n#{1,depth}[ \t], as
 *             rag_bench/retrieve/expand/sections.py finds them.
 *
 * One file per function (_loops_words.c, _loops_postings.c, _loops_search.c); this one holds the
 * module and the buffer helpers they share (declared in _loops.h).
 */

#include "_loops.h"

/* An array of size-byte items (type, in messages) from a bytes-like argument: its item count, or -1
 * with an exception set. */
Py_ssize_t loops_count_of(const Py_buffer *view, const char *name, Py_ssize_t size, const char *type)
{
    if (view->len % size != 0 || (uintptr_t)view->buf % (uintptr_t)size != 0) {
        PyErr_Format(PyExc_ValueError, "%s must be an aligned %s buffer (%zd bytes)", name, type, view->len);
        return -1;
    }
    return view->len / size;
}

/* An int64 array from a bytes-like argument: its element count, or -1 with an exception set. */
Py_ssize_t loops_int64_count(const Py_buffer *view, const char *name)
{
    return loops_count_of(view, name, (Py_ssize_t)sizeof(int64_t), "int64");
}

/* A new bytearray for n int64 values, uninitialized; NULL with an exception set when out of memory. */
PyObject *loops_int64_bytearray(Py_ssize_t n)
{
    if (n > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(int64_t))
        return PyErr_NoMemory();
    return PyByteArray_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
}

/* ------------------------------------------------------------------------------------------------
 * The module
 * --------------------------------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"number_words", py_number_words, METH_VARARGS,
     "number_words(text) -> (codes, words): the whitespace-separated words of the UTF-8 bytes text numbered\n"
     "by first appearance ((n_words,) int64 in a bytearray), and the distinct words joined by single spaces."},
    {"postings", py_postings, METH_VARARGS,
     "postings(term_of, doc_len, n_terms) -> (term, doc, tf): (n_postings,) int64 each in bytearrays, every\n"
     "distinct (term, document) pair of the tokens sorted by term then document, with its count."},
    {"search", py_search, METH_VARARGS,
     "search(indptr, doc_ids, weights, term_ptr, terms, n_docs, depth) -> (indices, scores): each query's best\n"
     "depth documents (score descending, then index), (n_queries, depth) int64 and float64 in bytearrays, rows\n"
     "padded with -1 / -inf; query q's term ids are terms[term_ptr[q] : term_ptr[q + 1]]."},
    {"shingle_sets", py_shingle_sets, METH_VARARGS,
     "shingle_sets(texts) -> (values, offsets): every text's distinct word 3-shingle hashes sorted, uint64 in a\n"
     "bytearray, text i's being values[offsets[i] : offsets[i + 1]] ((n_texts + 1,) int64 in a bytearray)."},
    {"near_copies", py_near_copies, METH_VARARGS,
     "near_copies(slots, values, offsets, width, threshold) -> copies: (n, width) 0/1 bytes in a bytearray, 1\n"
     "where a candidate's set is near-identical (Jaccard >= threshold) to an earlier candidate's of its row."},
    {"heading_starts", py_heading_starts, METH_VARARGS,
     "heading_starts(text, depth) -> starts: int64 in a bytearray, where each heading of at most depth #s that\n"
     "follows a line break in the bytes text begins (its first #)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_loops", "The hot loops of BM25: indexing and search (see rag_bench/index/bm25/compiled.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__loops(void)
{
    return PyModule_Create(&module);
}
