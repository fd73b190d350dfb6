/* _loops_search.c: search, every query's best documents (see _loops.c). */

#include "_loops.h"
#include "../heap.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ------------------------------------------------------------------------------------------------
 * search: every query's best depth documents, over the index's postings (CSR: term t's postings
 * are [indptr[t], indptr[t + 1]), each a document id and a float64 weight).
 *
 * A query's sums are made in a dense (n_docs,) float64 accumulator, zero between queries: the
 * weights of the query's terms added term by term in query order (a repeated term twice), so each
 * document's sum is the same sequence of float64 additions as BM25Index.scores, bm25_numpy's
 * bincount and rank-bm25's get_scores. The best depth documents that hold a query term are kept
 * in a min-heap whose root is the worst kept entry under the order "score descending, then
 * document index ascending"; a document that only ties the root is worse (it has a higher index
 * when documents come in index order). The heap is then drained into the query's row, best first.
 *
 * Three ways through a query, by how many postings it has (n_postings):
 * - few (n_postings <= n_docs / DENSE): each document is listed when a posting first reaches it
 *   (seen[d] marks it), and only the listed documents are offered to the heap and reset;
 * - many, and every weight of the query's terms > 0: a document holds a query term iff its sum is
 *   > 0. The sums are scanned in document order by blocks of BLOCK; the depth-th largest block
 *   maximum is a score that depth distinct documents reach (one per block), so every block whose
 *   maximum is below it is skipped, and so is every document below it or below the full heap's root;
 * - many, some weight <= 0 (a term with a floored negative idf, or idf 0): a sum may be <= 0, so
 *   the postings also mark seen[d], and the scan offers every marked document.
 * Non-negative doubles order like their bit patterns read as int64, which the second scan compares.
 *
 * Worked example: 4 documents, term 0 in documents 0 and 2 (weights 1.0, 2.0), term 1 in document 2
 * (weight 0.5): indptr [0, 2, 3], doc_ids [0, 2, 2], weights [1.0, 2.0, 0.5]. The query [1, 0],
 * depth 3: sums [1.0, 0, 0.5 + 2.0, 0] -> row indices [2, 0, -1], scores [2.5, 1.0, -inf].
 * --------------------------------------------------------------------------------------------- */

#define DENSE 8  /* a query with more than n_docs / DENSE postings scans every document's sum */
#define BLOCK 64 /* documents per block in that scan */

typedef struct {
    const int64_t *indptr;       /* (n_terms + 1,) where each term's postings begin and end */
    const void *doc_ids;         /* (n_postings,) int32, or int64 when wide: each posting's document */
    const double *weights;       /* (n_postings,) each posting's term weight */
    int64_t n_terms, n_docs, depth;
    int wide;
    double *acc;                 /* (n_docs,) the current query's sums, zero between queries */
    unsigned char *seen;         /* (n_docs,) 1 where a query term occurs, zero between queries */
    int64_t *touched;            /* (n_docs / DENSE + 1,) the documents a query with few postings reached */
    int64_t *maxima, *ranked;    /* (n_blocks,) each block's largest sum (as bits); a copy to select in */
    unsigned char *state;        /* (n_terms,) 0: term not met yet; 1: every weight > 0; 2: not */
    double *heap_scores;         /* (depth,) the kept entries: a min-heap, its root the worst */
    int64_t *heap_docs;
} Search;

/* Document id of posting p (wide is the same for every posting: the processor predicts the branch). */
static inline int64_t doc_at(const void *doc_ids, int wide, int64_t p)
{
    return wide ? ((const int64_t *)doc_ids)[p] : ((const int32_t *)doc_ids)[p];
}

/* A non-negative double's bits as an int64 (ordered as the doubles are). */
static inline int64_t bits_of(double x)
{
    int64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

TOPK_HEAP(heap, double)

/* (score, doc) offered to a heap of size entries that keeps at most depth (>= 1); the new size. */
static int64_t offer(double *scores, int64_t *docs, int64_t size, int64_t depth, double score, int64_t doc)
{
    if (size < depth)
        return heap_add(scores, docs, size, score, doc);
    if (heap_worse(scores[0], docs[0], score, doc)) { /* better than the worst kept: it takes the root's place */
        scores[0] = score;
        docs[0] = doc;
        heap_sift_down(scores, docs, size, 0);
    }
    return size;
}

/* The heap popped worst first into out_*[size - 1], ..., out_*[0]: the row best first. */
static void drain(double *scores, int64_t *docs, int64_t size, double *out_scores, int64_t *out_docs)
{
    while (size > 0) {
        size--;
        out_scores[size] = scores[0];
        out_docs[size] = docs[0];
        scores[0] = scores[size];
        docs[0] = docs[size];
        heap_sift_down(scores, docs, size, 0);
    }
}

/* The k-th largest (k from 0) of values[0 : n], which are reordered: Hoare's selection (Find).
 * Example: [5, 1, 9, 5], k 1 -> 5. */
static int64_t kth_largest(int64_t *values, int64_t n, int64_t k)
{
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t pivot = values[lo + (hi - lo) / 2], i = lo, j = hi;
        while (i <= j) { /* values >= pivot to the left, <= pivot to the right */
            while (values[i] > pivot)
                i++;
            while (values[j] < pivot)
                j--;
            if (i <= j) {
                int64_t swap = values[i];
                values[i++] = values[j];
                values[j--] = swap;
            }
        }
        if (k <= j) /* values[lo : j + 1] >= pivot >= values[i : hi + 1], values[j + 1 : i] == pivot */
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return pivot;
    }
    return values[k];
}

/* Whether every weight of term t is > 0, worked out when the term is first met (state), where its
 * document ids are also checked: -1 if one is outside [0, n_docs). */
static int all_positive(Search *s, int64_t t)
{
    if (s->state[t] == 0) {
        int positive = 1;
        for (int64_t p = s->indptr[t]; p < s->indptr[t + 1]; p++) {
            if ((uint64_t)doc_at(s->doc_ids, s->wide, p) >= (uint64_t)s->n_docs)
                return -1;
            positive &= s->weights[p] > 0;
        }
        s->state[t] = positive ? 1 : 2;
    }
    return s->state[t] == 1;
}

/* acc[d] += each posting's weight, term by term in query order; seen[d] = 1 as well when mark. */
static void scatter(Search *s, const int64_t *terms, int64_t n_terms, int mark)
{
    for (int64_t k = 0; k < n_terms; k++) {
        for (int64_t p = s->indptr[terms[k]]; p < s->indptr[terms[k] + 1]; p++) {
            int64_t d = doc_at(s->doc_ids, s->wide, p);
            s->acc[d] += s->weights[p];
            if (mark)
                s->seen[d] = 1;
        }
    }
}

/* A query with few postings: scatter while listing each document when first reached, then offer
 * the listed ones and reset them. Returns the heap's size. */
static int64_t search_few(Search *s, const int64_t *terms, int64_t n_terms)
{
    int64_t n_touched = 0, size = 0;
    for (int64_t k = 0; k < n_terms; k++) {
        for (int64_t p = s->indptr[terms[k]]; p < s->indptr[terms[k] + 1]; p++) {
            int64_t d = doc_at(s->doc_ids, s->wide, p);
            s->touched[n_touched] = d; /* kept (counted) only when d is new */
            n_touched += 1 - s->seen[d];
            s->seen[d] = 1;
            s->acc[d] += s->weights[p];
        }
    }
    for (int64_t i = 0; i < n_touched; i++) {
        int64_t d = s->touched[i];
        size = offer(s->heap_scores, s->heap_docs, size, s->depth, s->acc[d], d);
        s->acc[d] = 0.0;
        s->seen[d] = 0;
    }
    return size;
}

/* The largest of the n sums at acc (all >= 0) as bits, 0 when n is 0. On x86-64, SSE2's maxpd takes
 * two at a time (for doubles >= 0 it is the plain maximum); elsewhere, eight running maxima, so that a
 * comparison need not wait for the one before. */
static int64_t block_max(const double *acc, int64_t n)
{
    int64_t i = 0, best = 0;
#if defined(__SSE2__)
    __m128d top[4] = {_mm_setzero_pd(), _mm_setzero_pd(), _mm_setzero_pd(), _mm_setzero_pd()};
    double lanes[2];
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 4; k++)
            top[k] = _mm_max_pd(top[k], _mm_loadu_pd(acc + i + 2 * k));
    _mm_storeu_pd(lanes, _mm_max_pd(_mm_max_pd(top[0], top[1]), _mm_max_pd(top[2], top[3])));
    best = bits_of(lanes[0] > lanes[1] ? lanes[0] : lanes[1]);
#else
    int64_t top[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (; i + 8 <= n; i += 8) {
        for (int k = 0; k < 8; k++) {
            int64_t bits = bits_of(acc[i + k]);
            top[k] = bits > top[k] ? bits : top[k];
        }
    }
    for (int k = 0; k < 8; k++)
        best = top[k] > best ? top[k] : best;
#endif
    for (; i < n; i++)
        best = bits_of(acc[i]) > best ? bits_of(acc[i]) : best;
    return best;
}

/* The sums of a query whose weights are all > 0 offered in document order, block by block, then
 * zeroed. Returns the heap's size. */
static int64_t scan_positive(Search *s)
{
    int64_t n_docs = s->n_docs, depth = s->depth, n_blocks = (n_docs + BLOCK - 1) / BLOCK, size = 0;
    for (int64_t b = 0; b < n_blocks; b++) {
        int64_t start = b * BLOCK;
        s->maxima[b] = s->ranked[b] = block_max(s->acc + start, n_docs - start < BLOCK ? n_docs - start : BLOCK);
    }
    int64_t lowest = 1; /* the least positive double's bits; then the floor; then the full heap's root */
    if (n_blocks >= depth) {
        int64_t floor = kth_largest(s->ranked, n_blocks, depth - 1);
        lowest = floor > lowest ? floor : lowest;
    }
    for (int64_t b = 0; b < n_blocks; b++) {
        if (s->maxima[b] < lowest)
            continue;
        int64_t stop = (b + 1) * BLOCK < n_docs ? (b + 1) * BLOCK : n_docs;
        for (int64_t d = b * BLOCK; d < stop; d++) {
            int64_t bits = bits_of(s->acc[d]);
            if (bits < lowest || (size == depth && bits == lowest))
                continue; /* below the floor, or it ties the root with a higher index */
            size = offer(s->heap_scores, s->heap_docs, size, depth, s->acc[d], d);
            if (size == depth)
                lowest = bits_of(s->heap_scores[0]);
        }
    }
    memset(s->acc, 0, (size_t)n_docs * sizeof(double));
    return size;
}

/* Every document marked in seen offered in document order, then acc and seen zeroed. Returns the heap's size. */
static int64_t scan_marked(Search *s)
{
    int64_t size = 0;
    for (int64_t d = 0; d < s->n_docs; d++)
        if (s->seen[d] && (size < s->depth || s->acc[d] > s->heap_scores[0])) /* a tie with the root is worse */
            size = offer(s->heap_scores, s->heap_docs, size, s->depth, s->acc[d], d);
    memset(s->acc, 0, (size_t)s->n_docs * sizeof(double));
    memset(s->seen, 0, (size_t)s->n_docs);
    return size;
}

/* Row q of out_docs/out_scores ((n_queries, depth) each) = query q's best documents, padded with
 * -1 / -inf; query q's term ids are terms[term_ptr[q] : term_ptr[q + 1]]. 0, or -1 when a document
 * id is outside [0, n_docs). Runs without the GIL. */
static int search_all(Search *s, const int64_t *term_ptr, const int64_t *terms, int64_t n_queries,
                      int64_t *out_docs, double *out_scores)
{
    for (int64_t q = 0; q < n_queries; q++) {
        const int64_t *query = terms + term_ptr[q];
        int64_t n_terms = term_ptr[q + 1] - term_ptr[q], n_postings = 0, size = 0;
        int positive = 1;
        for (int64_t k = 0; k < n_terms; k++) {
            int ok = all_positive(s, query[k]);
            if (ok < 0)
                return -1;
            positive &= ok;
            n_postings += s->indptr[query[k] + 1] - s->indptr[query[k]];
        }
        int64_t *row_docs = out_docs + q * s->depth;
        double *row_scores = out_scores + q * s->depth;
        if (n_postings > 0 && s->depth > 0) {
            if (n_postings <= s->n_docs / DENSE) {
                size = search_few(s, query, n_terms);
            } else if (positive) {
                scatter(s, query, n_terms, 0);
                size = scan_positive(s);
            } else {
                scatter(s, query, n_terms, 1);
                size = scan_marked(s);
            }
            drain(s->heap_scores, s->heap_docs, size, row_scores, row_docs);
        }
        for (int64_t i = size; i < s->depth; i++) {
            row_docs[i] = -1;
            row_scores[i] = -INFINITY;
        }
    }
    return 0;
}


/* Whether values[0 : n] (n >= 1) are non-decreasing, from at least 0 to at most limit. */
static int ascending_within(const int64_t *values, Py_ssize_t n, int64_t limit)
{
    if (values[0] < 0 || values[n - 1] > limit)
        return 0;
    for (Py_ssize_t i = 1; i < n; i++)
        if (values[i] < values[i - 1])
            return 0;
    return 1;
}

/* The scratch arrays of s, for its n_terms, n_docs and depth. 0, or -1 if out of memory. */
static int allocate(Search *s)
{
    int64_t n_blocks = (s->n_docs + BLOCK - 1) / BLOCK;
    s->acc = calloc((size_t)s->n_docs + 1, sizeof(double));
    s->seen = calloc((size_t)s->n_docs + 1, 1);
    s->touched = malloc(((size_t)s->n_docs / DENSE + 1) * sizeof(int64_t));
    s->maxima = malloc(((size_t)n_blocks + 1) * sizeof(int64_t));
    s->ranked = malloc(((size_t)n_blocks + 1) * sizeof(int64_t));
    s->state = calloc((size_t)s->n_terms + 1, 1);
    s->heap_scores = malloc(((size_t)s->depth + 1) * sizeof(double));
    s->heap_docs = malloc(((size_t)s->depth + 1) * sizeof(int64_t));
    return s->acc && s->seen && s->touched && s->maxima && s->ranked && s->state && s->heap_scores && s->heap_docs
               ? 0
               : -1;
}

static void release(Search *s)
{
    free(s->acc);
    free(s->seen);
    free(s->touched);
    free(s->maxima);
    free(s->ranked);
    free(s->state);
    free(s->heap_scores);
    free(s->heap_docs);
}

PyObject *py_search(PyObject *self, PyObject *args)
{
    Py_buffer in[5]; /* indptr, doc_ids, weights, term_ptr, terms */
    Py_ssize_t n_docs, depth, n_postings, n_indptr, n_term_ptr = 0, n_query_terms = 0;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*nn:search", &in[0], &in[1], &in[2], &in[3], &in[4], &n_docs, &depth))
        return NULL;
    PyObject *result = NULL, *docs = NULL, *scores = NULL;
    Search s = {.indptr = in[0].buf, .doc_ids = in[1].buf, .weights = in[2].buf};
    int status = 0;
    n_postings = loops_count_of(&in[2], "weights", sizeof(double), "float64");
    s.wide = n_postings > 0 && in[1].len == n_postings * (Py_ssize_t)sizeof(int64_t);
    if (n_postings < 0 || (n_indptr = loops_int64_count(&in[0], "indptr")) < 0 ||
        (n_term_ptr = loops_int64_count(&in[3], "term_ptr")) < 0 || (n_query_terms = loops_int64_count(&in[4], "terms")) < 0)
        goto done;
    if (in[1].len != n_postings * (s.wide ? 8 : 4) || (uintptr_t)in[1].buf % (s.wide ? 8 : 4) != 0) {
        PyErr_Format(PyExc_ValueError, "doc_ids must be an aligned buffer of one int32 or int64 per weight "
                     "(%zd weights, %zd bytes)", n_postings, in[1].len);
        goto done;
    }
    if (n_docs < 0 || depth < 0) {
        PyErr_Format(PyExc_ValueError, "n_docs (%zd) and depth (%zd) must be >= 0", n_docs, depth);
        goto done;
    }
    if (n_indptr < 1 || !ascending_within(in[0].buf, n_indptr, n_postings)) {
        PyErr_Format(PyExc_ValueError, "indptr must be non-decreasing, within [0, len(weights)] (%zd)", n_postings);
        goto done;
    }
    if (n_term_ptr < 1 || !ascending_within(in[3].buf, n_term_ptr, n_query_terms)) {
        PyErr_Format(PyExc_ValueError, "term_ptr must be non-decreasing, within [0, len(terms)] (%zd)", n_query_terms);
        goto done;
    }
    s.n_terms = n_indptr - 1;
    s.n_docs = n_docs;
    s.depth = depth;
    for (Py_ssize_t k = 0; k < n_query_terms; k++) {
        if ((uint64_t)((const int64_t *)in[4].buf)[k] >= (uint64_t)s.n_terms) {
            PyErr_Format(PyExc_ValueError, "terms holds a term id outside [0, n_terms) (n_terms = %zd)", s.n_terms);
            goto done;
        }
    }
    Py_ssize_t n_queries = n_term_ptr - 1;
    if (depth > 0 && n_queries > PY_SSIZE_T_MAX / depth) {
        PyErr_NoMemory();
        goto done;
    }
    if ((docs = loops_int64_bytearray(n_queries * depth)) == NULL || (scores = loops_int64_bytearray(n_queries * depth)) == NULL)
        goto done;
    if (allocate(&s) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    status = search_all(&s, in[3].buf, in[4].buf, n_queries, (int64_t *)PyByteArray_AS_STRING(docs),
                        (double *)PyByteArray_AS_STRING(scores));
    Py_END_ALLOW_THREADS
    if (status < 0)
        PyErr_Format(PyExc_ValueError, "doc_ids holds a document outside [0, n_docs) (n_docs = %zd)", n_docs);
    else
        result = Py_BuildValue("(OO)", docs, scores);
done:
    Py_XDECREF(docs);
    Py_XDECREF(scores);
    release(&s);
    for (int k = 0; k < 5; k++)
        PyBuffer_Release(&in[k]);
    return result;
}

