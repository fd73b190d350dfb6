/* _loops: the hot loops of BM25 in C: two of building an index over a corpus, and its search.
 *
 * setup.py compiles this file when rag-bench is installed on a machine with a C compiler;
 * rag_bench/index/compiled.py imports it when it was built, and terms.py and bm25.py run their
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
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ------------------------------------------------------------------------------------------------
 * number_words
 * --------------------------------------------------------------------------------------------- */

/* Whether byte b is one that str.split() splits at: 0x09-0x0D, 0x1C-0x1F or 0x20 (below 0x80; the
 * other Unicode spaces are mapped to " " by the caller before encoding). Comparisons rather than a
 * table, so that a compiler can test many bytes at once (count_words). */
static int is_space(unsigned char b)
{
    return b == 0x20 || (unsigned char)(b - 0x09) <= 0x0D - 0x09 || (unsigned char)(b - 0x1C) <= 0x1F - 0x1C;
}

/* The distinct words found so far, by number. Their bytes are copied to one compact buffer, which
 * is the "words" result: word k begins at bytes[offset[k]], and each word is followed by one space. */
typedef struct {
    unsigned char *bytes;
    int64_t size, bytes_capacity;
    int64_t *offset;
    int64_t count, capacity;
} Words;

/* One slot of the open-addressing hash table: a word's first 16 bytes (as two little-endian
 * numbers, zero past the word's end), its length and number. A word of up to 16 bytes is compared
 * within its slot: one memory access per word of the text. Length 0: an empty slot. */
typedef struct {
    uint64_t head[2];
    int64_t length, number;
} Slot;

/* The hash table: n_slots (a power of two) slots, kept at most half full, linear probing. */
typedef struct {
    Slot *slots;
    uint64_t n_slots;
} Table;

/* A word: its bytes, length, first 16 bytes as in a Slot, and hash. */
typedef struct {
    const unsigned char *bytes;
    int64_t length;
    uint64_t head[2], hash;
} Word;

/* The first min(n, 8) bytes at p as a little-endian number (zero above them, and 0 if n <= 0); end is
 * the end of the buffer, the one limit on reads. Example: b"ab" -> 0x6261. */
static uint64_t eight_bytes(const unsigned char *p, int64_t n, const unsigned char *end)
{
    uint64_t w = 0;
    if (n <= 0)
        return 0;
#if PY_LITTLE_ENDIAN
    if (end - p >= 8) { /* one 8-byte read, the bytes past n masked off */
        memcpy(&w, p, 8);
        return n >= 8 ? w : w & ((1ULL << (8 * n)) - 1);
    }
#endif
    for (int64_t k = 0; k < n && k < 8; k++)
        w |= (uint64_t)p[k] << (8 * k);
    return w;
}

/* The word of length bytes at p (in a buffer that ends at end) with its head and hash filled in. */
static Word word_at(const unsigned char *p, int64_t length, const unsigned char *end)
{
    const uint64_t odd = 0x9E3779B97F4A7C15ULL; /* 2**64 / golden ratio: multiplying spreads bits up */
    Word word = {p, length, {eight_bytes(p, length, end), length > 8 ? eight_bytes(p + 8, length - 8, end) : 0}, 0};
    uint64_t h = (word.head[0] ^ (uint64_t)length) * odd;
    h = (h ^ (h >> 32) ^ word.head[1]) * odd;
    for (int64_t k = 16; k < length; k += 8) /* then 8 bytes at a time */
        h = (h ^ (h >> 32) ^ eight_bytes(p + k, length - k, end)) * odd;
    h ^= h >> 33; /* final avalanche (the splitmix64 finalizer): the table uses the low bits */
    h *= 0xFF51AFD7ED558CCDULL;
    word.hash = h ^ (h >> 33);
    return word;
}

/* The table with twice the slots, every word moved to its slot there. 0, or -1 if out of memory. */
static int grow_table(Table *table, const Words *words)
{
    uint64_t n_slots = table->n_slots * 2, mask = n_slots - 1;
    Slot *slots = calloc(n_slots, sizeof(Slot));
    if (slots == NULL)
        return -1;
    for (uint64_t i = 0; i < table->n_slots; i++) {
        Slot old = table->slots[i];
        if (old.length == 0)
            continue;
        const unsigned char *bytes = words->bytes + words->offset[old.number];
        uint64_t j = word_at(bytes, old.length, words->bytes + words->size).hash & mask;
        while (slots[j].length != 0)
            j = (j + 1) & mask;
        slots[j] = old;
    }
    free(table->slots);
    table->slots = slots;
    table->n_slots = n_slots;
    return 0;
}

/* *buffer (room for *capacity items of item_size bytes) made to hold at least needed items, by doubling.
 * 0, or -1 if out of memory (*buffer is then unchanged). */
static int reserve(void *buffer, int64_t *capacity, int64_t needed, size_t item_size)
{
    if (needed <= *capacity)
        return 0;
    int64_t larger = 2 * *capacity > needed ? 2 * *capacity : needed;
    void *moved = realloc(*(void **)buffer, (size_t)larger * item_size);
    if (moved == NULL)
        return -1;
    *(void **)buffer = moved;
    *capacity = larger;
    return 0;
}

/* word appended to words (and a space), as word number words->count. 0, or -1 if out of memory. */
static int add_word(Words *words, const Word *word)
{
    if (reserve(&words->offset, &words->capacity, words->count + 1, sizeof(int64_t)) < 0 ||
        reserve(&words->bytes, &words->bytes_capacity, words->size + word->length + 1, 1) < 0)
        return -1;
    memcpy(words->bytes + words->size, word->bytes, (size_t)word->length);
    words->offset[words->count++] = words->size;
    words->size += word->length;
    words->bytes[words->size++] = ' ';
    return 0;
}

/* The number of word; a new word gets the next number. -1 if out of memory. */
static int64_t number_of(Table *table, Words *words, const Word *word)
{
    if (2 * (words->count + 1) > (int64_t)table->n_slots && grow_table(table, words) < 0)
        return -1;
    uint64_t mask = table->n_slots - 1;
    for (uint64_t i = word->hash & mask;; i = (i + 1) & mask) {
        Slot *slot = &table->slots[i];
        if (slot->length == 0) { /* an empty slot: the word is new */
            if (add_word(words, word) < 0)
                return -1;
            *slot = (Slot){{word->head[0], word->head[1]}, word->length, words->count - 1};
            return slot->number;
        }
        if (slot->length == word->length && slot->head[0] == word->head[0] && slot->head[1] == word->head[1] &&
            (word->length <= 16 || /* same first 16 bytes: a longer word's other bytes are compared */
             memcmp(words->bytes + words->offset[slot->number] + 16, word->bytes + 16, word->length - 16) == 0))
            return slot->number;
    }
}

/* How many words text[0 : size] holds: the word bytes that follow a space or begin the text. */
static Py_ssize_t count_words(const unsigned char *text, Py_ssize_t size)
{
    Py_ssize_t n = size > 0 && !is_space(text[0]);
    for (Py_ssize_t i = 1; i < size; i++)
        n += (!is_space(text[i])) & is_space(text[i - 1]);
    return n;
}

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#define LOWEST_BYTE(bits) (__builtin_ctzll(bits) >> 3) /* the first byte of bits with a bit set */
#else
#define PREFETCH(address) ((void)0)
#define LOWEST_BYTE(bits) lowest_byte(bits)
static int lowest_byte(uint64_t bits)
{
    int k = 0;
    for (; (bits & 0xFF) == 0; bits >>= 8)
        k++;
    return k;
}
#endif

/* Where the word that goes on at text[i] ends: the first space in text[i : size], or size. */
static Py_ssize_t word_end(const unsigned char *text, Py_ssize_t i, Py_ssize_t size)
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

/* Words hashed ahead of the one being numbered. The table is larger than the processor's nearer
 * caches, so a word's slot is usually a slow read: asking for the slots of the next AHEAD words
 * while numbering this one lets the reads overlap (0.25 s -> 0.14 s for the 6 M words of 50,000
 * documents, 166,000 distinct). Words are still numbered strictly in text order. */
#define AHEAD 32

/* codes[n] = the number of the n-th word of text[0 : size]; words receives the distinct words.
 * 0, -1 if out of memory, -2 if codes (n_codes items) is too short. Runs without the GIL (plain malloc). */
static int number_all(const unsigned char *text, Py_ssize_t size, int64_t *codes, Py_ssize_t n_codes, Words *words)
{
    const unsigned char *end = text + size;
    Table table = {calloc(1024, sizeof(Slot)), 1024};
    if (table.slots == NULL)
        return -1;
    Word ahead[AHEAD]; /* a ring: the words queued (hashed) but not yet numbered are ahead[done..queued) */
    int64_t queued = 0, done = 0, code = 0;
    Py_ssize_t i = 0;
    while (code >= 0) {
        while (i < size && is_space(text[i]))
            i++;
        if (i < size) { /* one more word: text[start : i] */
            Py_ssize_t start = i;
            i = word_end(text, i, size);
            Word *word = &ahead[queued++ % AHEAD];
            *word = word_at(text + start, i - start, end);
            PREFETCH(&table.slots[word->hash & (table.n_slots - 1)]);
            if (queued - done < AHEAD)
                continue;
        }
        if (done == queued) /* the text's end, every word numbered */
            break;
        if (done == n_codes) {
            code = -2;
            break;
        }
        code = codes[done] = number_of(&table, words, &ahead[done % AHEAD]);
        done++;
    }
    free(table.slots);
    return code < 0 ? (int)code : 0;
}

/* An array of size-byte items (type, in messages) from a bytes-like argument: its item count, or -1
 * with an exception set. */
static Py_ssize_t count_of(const Py_buffer *view, const char *name, Py_ssize_t size, const char *type)
{
    if (view->len % size != 0 || (uintptr_t)view->buf % (uintptr_t)size != 0) {
        PyErr_Format(PyExc_ValueError, "%s must be an aligned %s buffer (%zd bytes)", name, type, view->len);
        return -1;
    }
    return view->len / size;
}

/* An int64 array from a bytes-like argument: its element count, or -1 with an exception set. */
static Py_ssize_t int64_count(const Py_buffer *view, const char *name)
{
    return count_of(view, name, (Py_ssize_t)sizeof(int64_t), "int64");
}

/* A new bytearray for n int64 values, uninitialized; NULL with an exception set when out of memory. */
static PyObject *int64_bytearray(Py_ssize_t n)
{
    if (n > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(int64_t))
        return PyErr_NoMemory();
    return PyByteArray_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
}

static PyObject *py_number_words(PyObject *self, PyObject *args)
{
    Py_buffer view;
    Py_ssize_t n_words;
    if (!PyArg_ParseTuple(args, "y*:number_words", &view))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    n_words = count_words(view.buf, view.len);
    Py_END_ALLOW_THREADS
    PyObject *codes = int64_bytearray(n_words), *joined = NULL;
    Words words = {NULL, 0, 0, NULL, 0, 0};
    int status = -3; /* -3: no codes (int64_bytearray set the exception) */
    if (codes != NULL) {
        Py_BEGIN_ALLOW_THREADS
        status = number_all(view.buf, view.len, (int64_t *)PyByteArray_AS_STRING(codes), n_words, &words);
        Py_END_ALLOW_THREADS
    }
    if (status == 0) /* the distinct words, one space between two: the buffer less its last space */
        joined = PyBytes_FromStringAndSize((const char *)words.bytes, words.size > 0 ? words.size - 1 : 0);
    else if (status != -3)
        PyErr_NoMemory(); /* (-2, codes too short, cannot happen: count_words sized them) */
    free(words.bytes);
    free(words.offset);
    PyBuffer_Release(&view);
    if (joined == NULL) {
        Py_XDECREF(codes);
        return NULL;
    }
    return Py_BuildValue("(NN)", codes, joined);
}

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

static PyObject *py_postings(PyObject *self, PyObject *args)
{
    Py_buffer in[2]; /* term_of, doc_len */
    Py_ssize_t n_terms, n_tokens, n_docs, total = 0;
    if (!PyArg_ParseTuple(args, "y*y*n:postings", &in[0], &in[1], &n_terms))
        return NULL;
    PyObject *result = NULL, *out[3] = {NULL, NULL, NULL}; /* term, doc, tf */
    int64_t *next = NULL, *spare_doc = NULL, *spare_tf = NULL, n_postings, largest = 0;
    Postings w = {in[0].buf, in[1].buf, 0, n_terms, 0, NULL, NULL, NULL, NULL, NULL, NULL};
    n_tokens = int64_count(&in[0], "term_of");
    n_docs = w.n_docs = n_tokens < 0 ? -1 : int64_count(&in[1], "doc_len");
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
        if ((out[k] = int64_bytearray(n_postings)) == NULL)
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

/* Whether (score_a, doc_a) ranks below (score_b, doc_b): a lower score, or the same and a higher index. */
static inline int worse(double score_a, int64_t doc_a, double score_b, int64_t doc_b)
{
    return score_a < score_b || (score_a == score_b && doc_a > doc_b);
}

/* The heap of size entries restored below pos, after the entry at pos was replaced. */
static void sift_down(double *scores, int64_t *docs, int64_t size, int64_t pos)
{
    double score = scores[pos];
    int64_t doc = docs[pos];
    for (int64_t child = 2 * pos + 1; child < size; child = 2 * pos + 1) {
        if (child + 1 < size && worse(scores[child + 1], docs[child + 1], scores[child], docs[child]))
            child++; /* the worse child */
        if (!worse(scores[child], docs[child], score, doc))
            break;
        scores[pos] = scores[child];
        docs[pos] = docs[child];
        pos = child;
    }
    scores[pos] = score;
    docs[pos] = doc;
}

/* (score, doc) offered to a heap of size entries that keeps at most depth (>= 1); the new size. */
static int64_t offer(double *scores, int64_t *docs, int64_t size, int64_t depth, double score, int64_t doc)
{
    if (size < depth) { /* room: the entry rises while it is worse than its parent */
        int64_t pos = size;
        while (pos > 0 && worse(score, doc, scores[(pos - 1) / 2], docs[(pos - 1) / 2])) {
            scores[pos] = scores[(pos - 1) / 2];
            docs[pos] = docs[(pos - 1) / 2];
            pos = (pos - 1) / 2;
        }
        scores[pos] = score;
        docs[pos] = doc;
        return size + 1;
    }
    if (worse(scores[0], docs[0], score, doc)) { /* better than the worst kept: it takes the root's place */
        scores[0] = score;
        docs[0] = doc;
        sift_down(scores, docs, size, 0);
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
        sift_down(scores, docs, size, 0);
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

static PyObject *py_search(PyObject *self, PyObject *args)
{
    Py_buffer in[5]; /* indptr, doc_ids, weights, term_ptr, terms */
    Py_ssize_t n_docs, depth, n_postings, n_indptr, n_term_ptr = 0, n_query_terms = 0;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*nn:search", &in[0], &in[1], &in[2], &in[3], &in[4], &n_docs, &depth))
        return NULL;
    PyObject *result = NULL, *docs = NULL, *scores = NULL;
    Search s = {.indptr = in[0].buf, .doc_ids = in[1].buf, .weights = in[2].buf};
    int status = 0;
    n_postings = count_of(&in[2], "weights", sizeof(double), "float64");
    s.wide = n_postings > 0 && in[1].len == n_postings * (Py_ssize_t)sizeof(int64_t);
    if (n_postings < 0 || (n_indptr = int64_count(&in[0], "indptr")) < 0 ||
        (n_term_ptr = int64_count(&in[3], "term_ptr")) < 0 || (n_query_terms = int64_count(&in[4], "terms")) < 0)
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
    if ((docs = int64_bytearray(n_queries * depth)) == NULL || (scores = int64_bytearray(n_queries * depth)) == NULL)
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
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_loops", "The hot loops of BM25: indexing and search (see rag_bench/index/compiled.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__loops(void)
{
    return PyModule_Create(&module);
}
