/* _loops_postings.c: postings, a counting sort of the tokens by term (see _loops.c). */

#include "_loops.h"

/* ------------------------------------------------------------------------------------------------
 * postings: a counting sort of the tokens by term, in two rounds. The tokens come document by
 * document and every placement keeps their order, so each term's documents come out ascending
 * without a comparison sort. Round 1 appends each posting to the range of its term's group
 * (2**shift consecutive term ids; about sqrt(n_terms) groups of sqrt(n_terms) terms); round 2
 * places one group's postings at a time by term. Writing straight to every term's place would
 * keep n_terms places open at once (64,000 on 50,000 documents), most of them out of the cache;
 * each round keeps about sqrt(n_terms) open.
 * Worked example: term_of [1, 0, 1, 1], doc_len [2, 2]: postings per term (df) [1, 2], so term 0's
 * go to [0, 1) and term 1's to [1, 3). Round 1 (one group): (1, doc 0, tf 1), (0, 0, 1),
 * (1, 1, 2). Round 2: (0, 0, 1), (1, 0, 1), (1, 1, 2).
 * --------------------------------------------------------------------------------------------- */

typedef struct {
    const int64_t *term_of, *doc_len; /* the input: (n_tokens,) and (n_docs,) */
    int64_t n_docs, n_terms, shift;   /* term t is in group t >> shift */
    int64_t *begin;                   /* (n_terms + 1,) where each term's postings begin; begin[n_terms] = n_postings */
    int64_t *last;                    /* (n_terms,) the last document that held each term, -1 before any */
    int64_t *at;                      /* (n_terms,) each term's current posting (round 1), next free place (round 2) */
    int64_t *term, *doc, *tf;         /* (n_postings,) each: the result */
} Postings;

/* begin[t + 1] = the documents holding term t (its postings; begin is zeroed), then begin made
 * cumulative. Returns the number of postings, or -1 if a term id is outside [0, n_terms). */
static int64_t count_postings(Postings *w)
{
    int64_t token = 0;
    for (int64_t t = 0; t < w->n_terms; t++)
        w->last[t] = -1;
    for (int64_t d = 0; d < w->n_docs; d++) {
        for (int64_t stop = token + w->doc_len[d]; token < stop; token++) {
            int64_t t = w->term_of[token];
            if (t < 0 || t >= w->n_terms)
                return -1;
            if (w->last[t] != d) { /* the first token of t in document d */
                w->last[t] = d;
                w->begin[t + 1]++;
            }
        }
    }
    for (int64_t t = 0; t < w->n_terms; t++)
        w->begin[t + 1] += w->begin[t];
    return w->begin[w->n_terms];
}

/* Round 1: each (term, document) pair appended to its group's range, and its tf counted.
 * next: (n_groups,) scratch. */
static void by_group(Postings *w, int64_t *next)
{
    int64_t token = 0, n_groups = w->n_terms ? ((w->n_terms - 1) >> w->shift) + 1 : 0;
    for (int64_t g = 0; g < n_groups; g++)
        next[g] = w->begin[g << w->shift];
    for (int64_t t = 0; t < w->n_terms; t++)
        w->last[t] = -1;
    for (int64_t d = 0; d < w->n_docs; d++) {
        for (int64_t stop = token + w->doc_len[d]; token < stop; token++) {
            int64_t t = w->term_of[token];
            if (w->last[t] == d) { /* t seen before in d: one more occurrence */
                w->tf[w->at[t]]++;
                continue;
            }
            int64_t p = w->at[t] = next[t >> w->shift]++;
            w->last[t] = d;
            w->term[p] = t;
            w->doc[p] = d;
            w->tf[p] = 1;
        }
    }
}

/* Round 2: within each group's range, the postings placed by term (keeping their order).
 * spare_doc, spare_tf: scratch for the largest group's postings. */
static void by_term(Postings *w, int64_t *spare_doc, int64_t *spare_tf)
{
    for (int64_t t = 0; t < w->n_terms; t++)
        w->at[t] = w->begin[t];
    for (int64_t first = 0; first < w->n_terms; first += (int64_t)1 << w->shift) {
        int64_t stop = first + ((int64_t)1 << w->shift) < w->n_terms ? first + ((int64_t)1 << w->shift) : w->n_terms;
        int64_t lo = w->begin[first], n = w->begin[stop] - lo;
        memcpy(spare_doc, w->doc + lo, (size_t)n * sizeof(int64_t));
        memcpy(spare_tf, w->tf + lo, (size_t)n * sizeof(int64_t));
        for (int64_t k = 0; k < n; k++) {
            int64_t p = w->at[w->term[lo + k]]++;
            w->doc[p] = spare_doc[k];
            w->tf[p] = spare_tf[k];
        }
        for (int64_t t = first; t < stop; t++) /* the term column: runs of each term */
            for (int64_t p = w->begin[t]; p < w->begin[t + 1]; p++)
                w->term[p] = t;
    }
}

PyObject *py_postings(PyObject *self, PyObject *args)
{
    Py_buffer in[2]; /* term_of, doc_len */
    Py_ssize_t n_terms, n_tokens, n_docs, total = 0;
    if (!PyArg_ParseTuple(args, "y*y*n:postings", &in[0], &in[1], &n_terms))
        return NULL;
    PyObject *result = NULL, *out[3] = {NULL, NULL, NULL}; /* term, doc, tf */
    int64_t *next = NULL, *spare_doc = NULL, *spare_tf = NULL, n_postings, largest = 0;
    Postings w = {in[0].buf, in[1].buf, 0, n_terms, 0, NULL, NULL, NULL, NULL, NULL, NULL};
    n_tokens = loops_int64_count(&in[0], "term_of");
    n_docs = w.n_docs = n_tokens < 0 ? -1 : loops_int64_count(&in[1], "doc_len");
    if (n_docs < 0)
        goto done;
    if (n_terms < 0) {
        PyErr_Format(PyExc_ValueError, "n_terms (%zd) must be >= 0", n_terms);
        goto done;
    }
    for (int64_t d = 0; d < n_docs; d++) { /* the document lengths must cover the tokens exactly */
        if (w.doc_len[d] < 0 || w.doc_len[d] > n_tokens - total) {
            PyErr_Format(PyExc_ValueError, "doc_len must be >= 0 and sum to len(term_of) (%zd)", n_tokens);
            goto done;
        }
        total += (Py_ssize_t)w.doc_len[d];
    }
    if (total != n_tokens) {
        PyErr_Format(PyExc_ValueError, "doc_len sums to %zd, not len(term_of) (%zd)", total, n_tokens);
        goto done;
    }
    while (((int64_t)1 << (2 * w.shift)) < n_terms) /* groups of 2**shift terms, 2**shift >= sqrt(n_terms) */
        w.shift++;
    w.begin = calloc((size_t)n_terms + 1, sizeof(int64_t));
    w.last = malloc(((size_t)n_terms + 1) * sizeof(int64_t));
    w.at = malloc(((size_t)n_terms + 1) * sizeof(int64_t));
    next = malloc((((size_t)n_terms >> w.shift) + 1) * sizeof(int64_t));
    if (w.begin == NULL || w.last == NULL || w.at == NULL || next == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    n_postings = count_postings(&w);
    Py_END_ALLOW_THREADS
    if (n_postings < 0) {
        PyErr_Format(PyExc_ValueError, "term_of holds a term id outside [0, n_terms) (n_terms = %zd)", n_terms);
        goto done;
    }
    for (int64_t first = 0; first < n_terms; first += (int64_t)1 << w.shift) { /* the largest group */
        int64_t stop = first + ((int64_t)1 << w.shift) < n_terms ? first + ((int64_t)1 << w.shift) : n_terms;
        largest = w.begin[stop] - w.begin[first] > largest ? w.begin[stop] - w.begin[first] : largest;
    }
    spare_doc = malloc(((size_t)largest + 1) * sizeof(int64_t));
    spare_tf = malloc(((size_t)largest + 1) * sizeof(int64_t));
    if (spare_doc == NULL || spare_tf == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (int k = 0; k < 3; k++)
        if ((out[k] = loops_int64_bytearray(n_postings)) == NULL)
            goto done;
    w.term = (int64_t *)PyByteArray_AS_STRING(out[0]);
    w.doc = (int64_t *)PyByteArray_AS_STRING(out[1]);
    w.tf = (int64_t *)PyByteArray_AS_STRING(out[2]);
    Py_BEGIN_ALLOW_THREADS
    by_group(&w, next);
    by_term(&w, spare_doc, spare_tf);
    Py_END_ALLOW_THREADS
    result = Py_BuildValue("(OOO)", out[0], out[1], out[2]);
done:
    for (int k = 0; k < 3; k++)
        Py_XDECREF(out[k]);
    free(w.begin);
    free(w.last);
    free(w.at);
    free(next);
    free(spare_doc);
    free(spare_tf);
    PyBuffer_Release(&in[0]);
    PyBuffer_Release(&in[1]);
    return result;
}

