/* _loops_copies.c: near_copies, each list's candidates near-identical to an earlier one (see _loops.c and
 * rag_bench/retrieve/diversity/near.py's copied(), its numpy twin). */

#include "_loops.h"

/* An entry of a list's prefixes: a shingle and the candidate (its position in the list) holding it. */
typedef struct {
    uint64_t value;
    int64_t at;
} PrefixEntry;

/* |a & b| of two sorted, distinct sets. */
static int64_t shared_count(const uint64_t *a, int64_t na, const uint64_t *b, int64_t nb)
{
    int64_t i = 0, j = 0, shared = 0;
    while (i < na && j < nb) {
        if (a[i] < b[j])
            i++;
        else if (a[i] > b[j])
            j++;
        else {
            shared++;
            i++;
            j++;
        }
    }
    return shared;
}

/* The sets candidates name: set s is values[offsets[s] : offsets[s + 1]]. */
typedef struct {
    const uint64_t *values;
    const int64_t *offsets;
} Sets;

/* A growing list of prefix entries. */
typedef struct {
    PrefixEntry *items;
    int64_t size, capacity;
} Entries;

/* The prefix entries of one row's candidates (slot[0 : width], -1: padding) in e: the |A| - ceil(t |A|) + 1
 * smallest shingles of each (at most all of them). A candidate without a shingle is flagged where an
 * earlier one of the row has none either. 0, or -1 with an exception set. */
static int row_prefixes(Sets sets, const int64_t *slot, Py_ssize_t width, double threshold, unsigned char *flag, Entries *e)
{
    int seen_empty = 0;
    e->size = 0;
    for (Py_ssize_t j = 0; j < width; j++) {
        if (slot[j] < 0)
            continue;
        int64_t first = sets.offsets[slot[j]], size = sets.offsets[slot[j] + 1] - first;
        if (size == 0) { /* texts without a word are near-identical to each other */
            flag[j] = seen_empty;
            seen_empty = 1;
            continue;
        }
        int64_t prefix = size - (int64_t)ceil(threshold * (double)size - 1e-9) + 1;
        prefix = prefix < size ? prefix : size;
        if (e->size + prefix > e->capacity) {
            PrefixEntry *moved = grow(e->items, &e->capacity, e->size + prefix, sizeof(PrefixEntry));
            if (moved == NULL)
                return -1;
            e->items = moved;
        }
        for (int64_t k = 0; k < prefix; k++)
            e->items[e->size++] = (PrefixEntry){sets.values[first + k], j};
    }
    return 0;
}

/* A row's prefix entries by shingle: an open-addressing table (2^bits slots, at least twice the entries;
 * linear probing from the shingle's top bits times an odd number). A slot holds a shingle and the last
 * entry holding it; each entry points to the entry before it with the same shingle (chain). A slot belongs
 * to the row whose stamp it carries, so the table is never cleared between rows. */
typedef struct {
    uint64_t value;
    int64_t stamp, last;
} ShingleSlot;

typedef struct {
    ShingleSlot *slots;
    int64_t *before; /* before[e]: the earlier entry of e's shingle, or -1 */
    int bits;
    int64_t capacity; /* entries before can hold */
} ShingleTable;

/* The table made ready for a row of n entries (grown, and cleared, when they would fill over half of it).
 * 0, or -1 with an exception set. */
static int ready_table(ShingleTable *t, int64_t n)
{
    if (n > t->capacity) {
        int64_t *before = realloc(t->before, (size_t)n * sizeof(int64_t));
        if (before == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        t->before = before;
        t->capacity = n;
    }
    if (t->slots != NULL && 2 * n <= (INT64_C(1) << t->bits))
        return 0;
    int bits = 6;
    while ((INT64_C(1) << bits) < 2 * n)
        bits++;
    free(t->slots);
    t->slots = calloc((size_t)1 << bits, sizeof(ShingleSlot)); /* stamp 0: no row's */
    if (t->slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    t->bits = bits;
    return 0;
}

/* pair[a * width + b] = 1 for every two candidates a < b whose prefixes share a shingle, found by looking each
 * entry's shingle up in the table (row stamp: a number no earlier row used, from 1): the entries come
 * candidate by candidate in list order, so every earlier holder of a shingle is an earlier candidate. Whether
 * there is any pair. */
static int row_pairs(const Entries *e, ShingleTable *t, int64_t stamp, unsigned char *pair, Py_ssize_t width)
{
    int any = 0;
    uint64_t mask = (UINT64_C(1) << t->bits) - 1;
    for (int64_t k = 0; k < e->size; k++) {
        uint64_t value = e->items[k].value, i = (value * 0x9E3779B97F4A7C15ULL) >> (64 - t->bits);
        while (t->slots[i].stamp == stamp && t->slots[i].value != value)
            i = (i + 1) & mask;
        ShingleSlot *slot = &t->slots[i];
        if (slot->stamp != stamp) { /* the shingle's first entry in the row */
            *slot = (ShingleSlot){value, stamp, k};
            t->before[k] = -1;
            continue;
        }
        for (int64_t x = slot->last; x >= 0; x = t->before[x]) /* (a set's prefix holds a shingle once) */
            pair[e->items[x].at * width + e->items[k].at] = 1;
        any = 1;
        t->before[k] = slot->last;
        slot->last = k;
    }
    return any;
}

/* flag[b] = 1 where a pair (a, b) of the row is near-identical: one set, or Jaccard >= threshold; pair is
 * cleared again. */
static void row_copies(Sets sets, const int64_t *slot, Py_ssize_t width, double threshold, unsigned char *pair,
                       unsigned char *flag)
{
    for (Py_ssize_t b = 0; b < width; b++)
        for (Py_ssize_t a = 0; a < b; a++) {
            if (!pair[a * width + b])
                continue;
            pair[a * width + b] = 0;
            if (flag[b])
                continue;
            int64_t sa = slot[a], sb = slot[b];
            if (sa == sb) { /* one text: J = 1 */
                flag[b] = 1;
                continue;
            }
            int64_t na = sets.offsets[sa + 1] - sets.offsets[sa], nb = sets.offsets[sb + 1] - sets.offsets[sb];
            int64_t shared = shared_count(sets.values + sets.offsets[sa], na, sets.values + sets.offsets[sb], nb);
            flag[b] = (double)shared / (double)(na + nb - shared) >= threshold;
        }
}

/* Whether every slot names a set (or is -1) and every set lies inside values; else a ValueError. */
static int slots_valid(const int64_t *slots, Py_ssize_t n_slots, const int64_t *offsets, int64_t n_sets, int64_t n_values)
{
    for (Py_ssize_t i = 0; i < n_slots; i++) {
        int64_t s = slots[i];
        if (s >= n_sets || (s >= 0 && (offsets[s] < 0 || offsets[s] > offsets[s + 1] || offsets[s + 1] > n_values))) {
            PyErr_SetString(PyExc_ValueError, "near_copies: a slot names no set of values");
            return 0;
        }
    }
    return 1;
}

PyObject *py_near_copies(PyObject *self, PyObject *args)
{
    Py_buffer slots_view, values_view, offsets_view;
    Py_ssize_t width;
    double threshold;
    if (!PyArg_ParseTuple(args, "y*y*y*nd:near_copies", &slots_view, &values_view, &offsets_view, &width, &threshold))
        return NULL;
    PyObject *out = NULL;
    Py_ssize_t n_slots = loops_int64_count(&slots_view, "slots");
    Py_ssize_t n_values = loops_count_of(&values_view, "values", (Py_ssize_t)sizeof(uint64_t), "uint64");
    Py_ssize_t n_offsets = loops_int64_count(&offsets_view, "offsets");
    int ok = n_slots >= 0 && n_values >= 0 && n_offsets >= 0;
    if (ok && (width <= 0 || n_slots % width != 0 || n_offsets < 1)) {
        PyErr_SetString(PyExc_ValueError, "near_copies: slots must hold rows of width candidates, offsets n_sets + 1");
        ok = 0;
    }
    const int64_t *slots = slots_view.buf;
    Sets sets = {values_view.buf, offsets_view.buf};
    ok = ok && slots_valid(slots, n_slots, sets.offsets, n_offsets - 1, n_values);
    unsigned char *pair = ok ? calloc((size_t)width * (size_t)width, 1) : NULL; /* (a, b): prefixes meet */
    out = pair != NULL ? PyByteArray_FromStringAndSize(NULL, n_slots) : NULL;
    if (ok && out == NULL && !PyErr_Occurred())
        PyErr_NoMemory();
    Entries entries = {NULL, 0, 0};
    ShingleTable table = {NULL, NULL, 0, 0};
    if (out != NULL) {
        unsigned char *flags = (unsigned char *)PyByteArray_AS_STRING(out);
        memset(flags, 0, (size_t)n_slots);
        Py_ssize_t n_rows = n_slots / width;
        for (Py_ssize_t j = 0; j < width && n_rows > 1; j++) /* row 1's offsets (see below) */
            PREFETCH(&sets.offsets[slots[width + j] < 0 ? 0 : slots[width + j]]);
        for (Py_ssize_t row = 0; row < n_rows; row++) {
            const int64_t *slot = slots + row * width;
            /* the memory two rows on reads, fetched while this row is paired: the next row's sets (its
             * offsets fetched a row ago) and the offsets of the row after it */
            for (Py_ssize_t j = 0; row + 1 < n_rows && j < width; j++) {
                int64_t next = slot[width + j];
                if (next >= 0)
                    PREFETCH(&sets.values[sets.offsets[next]]);
                if (row + 2 < n_rows)
                    PREFETCH(&sets.offsets[slot[2 * width + j] < 0 ? 0 : slot[2 * width + j]]);
            }
            if (row_prefixes(sets, slot, width, threshold, flags + row * width, &entries) < 0 ||
                ready_table(&table, entries.size) < 0) {
                Py_CLEAR(out);
                break;
            }
            if (row_pairs(&entries, &table, row + 1, pair, width))
                row_copies(sets, slot, width, threshold, pair, flags + row * width);
        }
    }
    free(entries.items);
    free(table.slots);
    free(table.before);
    free(pair);
    PyBuffer_Release(&slots_view);
    PyBuffer_Release(&values_view);
    PyBuffer_Release(&offsets_view);
    return out;
}
