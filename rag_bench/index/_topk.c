/* _topk: the streaming top-k of exact dense search in C, fused with the scan of each score tile.
 *
 * setup.py compiles this file when rag-bench is installed on a machine with a C compiler;
 * rag_bench/index/compiled_topk.py imports it when it was built, and dense search runs the numpy
 * StreamingTopK (rag_bench/index/topk.py) otherwise. Both return the same arrays bit for bit. As the
 * BM25 loops (rag_bench/index/bm25/_loops.c), only the CPython C API and the buffer protocol are
 * used (no numpy headers), and the loops run without the GIL.
 *
 * Order: higher score first, then lower item index. Each row keeps its best `depth` items so far in
 * a binary heap whose top is the worst of them (lowest score; among equal scores, highest index).
 * Tiles arrive in column order, so every new item has a higher index than every held one: it enters
 * a full heap only with a score strictly above the top's, and a scan needs one comparison per score
 * (16 at a time: four SSE compares on x86-64) until one passes.
 * Comparisons are C's: -0.0 equals 0.0. Scores must not be NaN.
 *
 * push(tile, width, first, heap_scores, heap_index, fill)
 *     tile:        (n_rows, width) float32 scores, row-major; column j is item first + j.
 *     heap_scores: (n_rows, depth) float32, heap_index: (n_rows, depth) int64, fill: (n_rows,) int64,
 *                  writable: row r's heap is its first fill[r] entries (fill starts at 0).
 *
 * finish(heap_scores, heap_index, fill, indices, scores)
 *     indices: (n_rows, depth) int64, scores: (n_rows, depth) float64, writable: each row's held items
 *              best first (a -0.0 score written as 0.0), then -1 / -inf. The heaps are consumed.
 *     Example: depth 3, one row, push([0.5, 0.75], first 0) then push([0.75, 0.5], first 2)
 *              -> indices [1, 2, 0], scores [0.75, 0.75, 0.5].
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#endif

#include "heap.h"

#define SCAN 16 /* scores compared per step of the scan */

/* Whether any of row[0:SCAN] is above floor (four SSE compares on x86-64; a loop elsewhere). */
static inline int any_above(const float *row, float floor)
{
#if defined(__SSE2__) || defined(_M_X64)
    __m128 f = _mm_set1_ps(floor);
    __m128 hit = _mm_or_ps(_mm_or_ps(_mm_cmpgt_ps(_mm_loadu_ps(row), f), _mm_cmpgt_ps(_mm_loadu_ps(row + 4), f)),
                           _mm_or_ps(_mm_cmpgt_ps(_mm_loadu_ps(row + 8), f), _mm_cmpgt_ps(_mm_loadu_ps(row + 12), f)));
    return _mm_movemask_ps(hit) != 0;
#else
    int hit = 0;
    for (int t = 0; t < SCAN; t++)
        hit |= row[t] > floor;
    return hit;
#endif
}

TOPK_HEAP(heap, float)

/* One row: offer row[0:width] (items first, first + 1, ...) to its heap of *n of depth entries. */
static void scan_row(const float *row, Py_ssize_t width, int64_t first, float *hs, int64_t *hi, int64_t *n, int64_t depth)
{
    Py_ssize_t j = 0;
    for (; *n < depth && j < width; j++)
        *n = heap_add(hs, hi, *n, row[j], first + j);
    if (*n < depth)
        return;
    float floor = hs[0]; /* a new item must score above the worst held one */
    for (; j + SCAN <= width; j += SCAN) {
        if (!any_above(row + j, floor))
            continue;
        for (int t = 0; t < SCAN; t++) {
            if (row[j + t] > floor) {
                hs[0] = row[j + t];
                hi[0] = first + j + t;
                heap_sift_down(hs, hi, depth, 0);
                floor = hs[0];
            }
        }
    }
    for (; j < width; j++) {
        if (row[j] > floor) {
            hs[0] = row[j];
            hi[0] = first + j;
            heap_sift_down(hs, hi, depth, 0);
            floor = hs[0];
        }
    }
}

/* The shared checks: aligned buffers of the sizes the heaps imply. Returns depth, or -1 with an exception set. */
static Py_ssize_t heap_shape(const Py_buffer *hs, const Py_buffer *hi, const Py_buffer *fill, Py_ssize_t *n_rows)
{
    if (fill->len % 8 != 0 || (uintptr_t)fill->buf % 8 != 0 || hs->len % 4 != 0 || (uintptr_t)hs->buf % 4 != 0 ||
        (uintptr_t)hi->buf % 8 != 0) {
        PyErr_SetString(PyExc_ValueError, "heap_scores, heap_index and fill must be aligned float32, int64, int64 buffers");
        return -1;
    }
    *n_rows = fill->len / 8;
    Py_ssize_t depth = *n_rows > 0 ? hs->len / 4 / *n_rows : 0;
    if (depth * *n_rows * 4 != hs->len || hi->len != 2 * hs->len) {
        PyErr_Format(PyExc_ValueError, "heap_scores (%zd bytes) and heap_index (%zd bytes) must hold n_rows (%zd) x depth "
                     "entries each", hs->len, hi->len, *n_rows);
        return -1;
    }
    const int64_t *f = fill->buf;
    for (Py_ssize_t r = 0; r < *n_rows; r++) {
        if (f[r] < 0 || f[r] > depth) {
            PyErr_Format(PyExc_ValueError, "fill must be within [0, depth] (%zd)", depth);
            return -1;
        }
    }
    return depth;
}

static PyObject *py_push(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer tile, hs, hi, fill;
    Py_ssize_t width, first, n_rows, depth;
    if (!PyArg_ParseTuple(args, "y*nnw*w*w*:push", &tile, &width, &first, &hs, &hi, &fill))
        return NULL;
    PyObject *result = NULL;
    if ((depth = heap_shape(&hs, &hi, &fill, &n_rows)) < 0)
        goto done;
    if (width < 0 || first < 0 || (uintptr_t)tile.buf % 4 != 0 || tile.len != (Py_ssize_t)4 * n_rows * width) {
        PyErr_Format(PyExc_ValueError, "tile must be an aligned float32 buffer of n_rows (%zd) x width (%zd), "
                     "first (%zd) >= 0", n_rows, width, first);
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < n_rows && depth > 0; r++)
        scan_row((const float *)tile.buf + r * width, width, first, (float *)hs.buf + r * depth,
                 (int64_t *)hi.buf + r * depth, (int64_t *)fill.buf + r, depth);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&tile);
    PyBuffer_Release(&hs);
    PyBuffer_Release(&hi);
    PyBuffer_Release(&fill);
    return result;
}

static PyObject *py_finish(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer hs, hi, fill, indices, scores;
    Py_ssize_t n_rows, depth;
    if (!PyArg_ParseTuple(args, "w*w*w*w*w*:finish", &hs, &hi, &fill, &indices, &scores))
        return NULL;
    PyObject *result = NULL;
    if ((depth = heap_shape(&hs, &hi, &fill, &n_rows)) < 0)
        goto done;
    if (indices.len != hi.len || scores.len != hi.len || (uintptr_t)indices.buf % 8 != 0 || (uintptr_t)scores.buf % 8 != 0) {
        PyErr_SetString(PyExc_ValueError, "indices and scores must be aligned int64 and float64 buffers of n_rows x depth");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < n_rows; r++) {
        float *s = (float *)hs.buf + r * depth;
        int64_t *i = (int64_t *)hi.buf + r * depth, *out_i = (int64_t *)indices.buf + r * depth;
        double *out_s = (double *)scores.buf + r * depth;
        int64_t n = ((int64_t *)fill.buf)[r];
        for (int64_t k = n; k < depth; k++) {
            out_i[k] = -1;
            out_s[k] = -INFINITY;
        }
        while (n > 0) { /* the worst held item takes the last free rank */
            out_i[n - 1] = i[0];
            out_s[n - 1] = s[0] == 0.0f ? 0.0 : (double)s[0];
            n--;
            s[0] = s[n];
            i[0] = i[n];
            heap_sift_down(s, i, n, 0);
        }
        ((int64_t *)fill.buf)[r] = 0;
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&hs);
    PyBuffer_Release(&hi);
    PyBuffer_Release(&fill);
    PyBuffer_Release(&indices);
    PyBuffer_Release(&scores);
    return result;
}

static PyMethodDef methods[] = {
    {"push", py_push, METH_VARARGS,
     "push(tile, width, first, heap_scores, heap_index, fill): offer a row-major (n_rows, width) float32 score\n"
     "tile, column j being item first + j, to each row's heap of its best depth items (see _topk.c)."},
    {"finish", py_finish, METH_VARARGS,
     "finish(heap_scores, heap_index, fill, indices, scores): each row's held items best first (score\n"
     "descending, then index) into (n_rows, depth) int64 indices and float64 scores, padded with -1 / -inf."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_topk", "The streaming top-k of exact dense search (see rag_bench/index/compiled_topk.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__topk(void)
{
    return PyModule_Create(&module);
}
