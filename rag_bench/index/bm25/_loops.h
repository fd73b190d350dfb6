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
