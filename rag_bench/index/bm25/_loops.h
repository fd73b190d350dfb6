/* _loops.h: what the files of the _loops extension share (see _loops.c for what each function computes).
 *
 * _loops.c         the module: its functions and the buffer helpers below
 * _loops_words.c   number_words: a corpus's words numbered by first appearance
 * _loops_postings.c  postings: (term, document, tf) by a counting sort
 * _loops_search.c  search: every query's best documents
 * _loops_shingles.c  shingle_sets: the word 3-shingle sets of many texts (diversity=collapse)
 * _loops_copies.c  near_copies: each list's near-identical candidates (diversity=collapse)
 * _loops_headings.c  heading_starts: where Markdown headings begin (expand=parent|merge's sections)
 */
#ifndef RAG_BENCH_LOOPS_H
#define RAG_BENCH_LOOPS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The malloc'ed array items of *capacity items of item_size bytes, grown (realloc, at least doubling) to hold
 * needed > *capacity items: the array, maybe moved, with *capacity updated; or NULL with MemoryError set, items
 * still valid and *capacity unchanged. */
static inline void *grow(void *items, int64_t *capacity, int64_t needed, size_t item_size)
{
    int64_t larger = 2 * *capacity > needed ? 2 * *capacity : needed;
    void *moved = realloc(items, (size_t)larger * item_size);
    if (moved == NULL)
        return PyErr_NoMemory();
    *capacity = larger;
    return moved;
}

/* Words: what number_words and shingle_sets both read (_loops_words.c, _loops_shingles.c). */

/* Whether byte b is one that str.split() splits at: 0x09-0x0D, 0x1C-0x1F or 0x20 (below 0x80; the
 * other Unicode spaces are mapped to " " by the caller before encoding). Comparisons rather than a
 * table, so that a compiler can test many bytes at once (count_words). */
static inline int is_space(unsigned char b)
{
    return b == 0x20 || (unsigned char)(b - 0x09) <= 0x0D - 0x09 || (unsigned char)(b - 0x1C) <= 0x1F - 0x1C;
}

/* TRAILING_ZEROS(bits): the number of zero bits below the lowest set bit of a nonzero uint64_t. */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#define TRAILING_ZEROS(bits) __builtin_ctzll(bits)
#else
#define PREFETCH(address) ((void)0)
#define TRAILING_ZEROS(bits) trailing_zeros(bits)
static inline int trailing_zeros(uint64_t bits)
{
    int k = 0;
    for (; (bits & 1) == 0; bits >>= 1)
        k++;
    return k;
}
#endif
#define LOWEST_BYTE(bits) (TRAILING_ZEROS(bits) >> 3) /* the first byte of bits with a bit set */

/* Where the word that goes on at text[i] ends: the first space in text[i : size], or size. */
static inline Py_ssize_t word_end(const unsigned char *text, Py_ssize_t i, Py_ssize_t size)
{
#if PY_LITTLE_ENDIAN
    while (size - i >= 8) { /* 8 bytes at a time: every space is a byte below 0x21 */
        uint64_t w;
        memcpy(&w, text + i, 8);
        /* The high bit of each byte below 0x21 (exact for the first such byte; a borrow may also
         * flag a later byte, never an earlier one). Bytes >= 0x80 are never flagged. */
        uint64_t below = (w - 0x2121212121212121ULL) & ~w & 0x8080808080808080ULL;
        if (below == 0) {
            i += 8;
            continue;
        }
        i += LOWEST_BYTE(below);
        if (is_space(text[i]))
            return i;
        i++; /* a control byte that is no space (NUL, 0x01, ...): part of the word */
    }
#endif
    while (i < size && !is_space(text[i]))
        i++;
    return i;
}

/* Buffer helpers (_loops.c). */
Py_ssize_t loops_count_of(const Py_buffer *view, const char *name, Py_ssize_t size, const char *type);
Py_ssize_t loops_int64_count(const Py_buffer *view, const char *name);
PyObject *loops_int64_bytearray(Py_ssize_t n);

/* The module's functions, one file each. */
PyObject *py_number_words(PyObject *self, PyObject *args);
PyObject *py_postings(PyObject *self, PyObject *args);
PyObject *py_search(PyObject *self, PyObject *args);
PyObject *py_shingle_sets(PyObject *self, PyObject *args);
PyObject *py_near_copies(PyObject *self, PyObject *args);
PyObject *py_heading_starts(PyObject *self, PyObject *args);

#endif
