/* _loops_headings.c: heading_starts, where a text's Markdown headings begin (see _loops.c and
 * rag_bench/retrieve/expand/sections.py, whose numpy scan finds the same). */

#include "_loops.h"

PyObject *py_heading_starts(PyObject *self, PyObject *args)
{
    Py_buffer view;
    int depth;
    if (!PyArg_ParseTuple(args, "y*i:heading_starts", &view, &depth))
        return NULL;
    const unsigned char *text = view.buf, *end = text + view.len, *p = text;
    int64_t *found = NULL, count = 0, capacity = 0;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) { /* a line break, then 1..depth "#", a space or tab */
        const unsigned char *q = ++p;
        while (q < end && *q == '#' && q - p <= depth)
            q++;
        if (q > p && q - p <= depth && q < end && (*q == ' ' || *q == '\t')) {
            if (count == capacity) {
                int64_t larger = capacity ? 2 * capacity : 1024;
                int64_t *moved = realloc(found, (size_t)larger * sizeof(int64_t));
                if (moved == NULL) {
                    failed = 1;
                    break;
                }
                found = moved;
                capacity = larger;
            }
            found[count++] = p - text;
        }
    }
    Py_END_ALLOW_THREADS
    PyObject *out = failed ? PyErr_NoMemory() : PyByteArray_FromStringAndSize((const char *)found, count * (Py_ssize_t)sizeof(int64_t));
    free(found);
    PyBuffer_Release(&view);
    return out;
}
