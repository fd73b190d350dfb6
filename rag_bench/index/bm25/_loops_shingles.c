/* _loops_shingles.c: shingle_sets, the word 3-shingle sets of many texts (see _loops.c and
 * rag_bench/core/shingles.py for the definition, rag_bench/retrieve/diversity/near.py for its caller). */

#include "_loops.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The distinct words seen so far: their lower-cased bytes (in one arena) and Python's hash of each as a
 * str. An open-addressing table (a power of two slots, at most half full, linear probing) finds a word. */
typedef struct {
    uint64_t key;  /* the word's bytes hashed (below), 0 marks an empty slot (a word's key is never 0) */
    uint64_t head; /* its first 8 bytes (zero past its end): a word of up to 8 bytes is compared here */
    uint64_t hash; /* hash(word) in Python, as uint64 */
    int32_t offset, length; /* where its bytes are in the arena, and how many */
} WordSlot;

typedef struct {
    WordSlot *slots;
    uint64_t n_slots, count;
    unsigned char *arena;
    int64_t arena_size, arena_capacity;
    int direct; /* whether an ASCII word is hashed from its bytes (str_hash) */
} Vocabulary;

/* The first min(n, 8) bytes at p as a little-endian number, zero above them (0 if n <= 0). p must have 8
 * readable bytes (the lower-cased text is followed by 8 zero bytes). */
static uint64_t head_of(const unsigned char *p, int64_t n)
{
    uint64_t w = 0;
    if (n <= 0)
        return 0;
#if PY_LITTLE_ENDIAN
    memcpy(&w, p, 8);
    return n >= 8 ? w : w & ((1ULL << (8 * n)) - 1);
#else
    for (int64_t k = 0; k < n && k < 8; k++)
        w |= (uint64_t)p[k] << (8 * k);
    return w;
#endif
}

/* A 64-bit hash of the n bytes at p, 8 at a time (multiplying by an odd number spreads bits up; the
 * splitmix64 finalizer then spreads them down, as the table uses the low bits); never 0. */
static uint64_t bytes_key(const unsigned char *p, int64_t n)
{
    const uint64_t odd = 0x9E3779B97F4A7C15ULL;
    uint64_t h = (head_of(p, n) ^ (uint64_t)n) * odd;
    for (int64_t k = 8; k < n; k += 8)
        h = (h ^ (h >> 32) ^ head_of(p + k, n - k)) * odd;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    return h ? h : 1;
}

/* The vocabulary with twice the slots. 0, or -1 if out of memory. */
static int grow_vocabulary(Vocabulary *v)
{
    uint64_t n_slots = v->n_slots * 2, mask = n_slots - 1;
    WordSlot *slots = calloc(n_slots, sizeof(WordSlot));
    if (slots == NULL)
        return -1;
    for (uint64_t i = 0; i < v->n_slots; i++) {
        if (v->slots[i].key == 0)
            continue;
        uint64_t j = v->slots[i].key & mask;
        while (slots[j].key != 0)
            j = (j + 1) & mask;
        slots[j] = v->slots[i];
    }
    free(v->slots);
    v->slots = slots;
    v->n_slots = n_slots;
    return 0;
}

#if PY_VERSION_HEX >= 0x030E0000
#define HASH_BYTES(p, n) Py_HashBuffer((p), (n))
#elif !defined(PYPY_VERSION)
PyAPI_FUNC(Py_hash_t) _Py_HashBytes(const void *, Py_ssize_t); /* exported, if no longer declared (3.13) */
#define HASH_BYTES(p, n) _Py_HashBytes((p), (n))
#endif

/* Python's hash of the str whose UTF-8 bytes are p[0 : n] (n >= 1), made as hash(str) makes it: a str of ASCII
 * characters is hashed over its bytes (unicode_hash: _Py_HashBytes of its one-byte characters; Py_HashBuffer
 * from Python 3.14), so an ASCII word is hashed from its bytes, no str made (*direct: -1 until the first
 * such word was checked against hash(str), then 1 if they agree, else 0 and a str is made for every word).
 * -1 with an exception set if the bytes cannot be decoded. */
static Py_hash_t str_hash(const unsigned char *p, int64_t n, int ascii, int *direct)
{
#ifdef HASH_BYTES
    if (ascii && *direct == 1)
        return HASH_BYTES(p, (Py_ssize_t)n);
#endif
    PyObject *word = PyUnicode_DecodeUTF8((const char *)p, n, "strict");
    Py_hash_t hash = word == NULL ? -1 : PyObject_Hash(word);
    Py_XDECREF(word);
#ifdef HASH_BYTES
    if (ascii && *direct == -1 && hash != -1)
        *direct = HASH_BYTES(p, (Py_ssize_t)n) == hash;
#endif
    return hash;
}

/* Python's hash of the lower-cased word at p (n UTF-8 bytes, key = bytes_key(p, n)) as uint64, computed
 * once per distinct word. 0 with *failed set and an exception raised if it cannot be decoded or hashed,
 * or memory runs out. */
static uint64_t word_hash(Vocabulary *v, const unsigned char *p, int64_t n, uint64_t key, int *failed)
{
    uint64_t head = head_of(p, n), mask = v->n_slots - 1;
    for (uint64_t i = key & mask;; i = (i + 1) & mask) {
        WordSlot *slot = &v->slots[i];
        if (slot->key == key && slot->head == head && slot->length == n &&
            (n <= 8 || memcmp(v->arena + slot->offset + 8, p + 8, (size_t)(n - 8)) == 0))
            return slot->hash;
        if (slot->key != 0)
            continue;
        if (n > INT32_MAX || v->arena_size + n > INT32_MAX) {
            PyErr_SetString(PyExc_OverflowError, "shingle_sets: more than 2 GiB of distinct words");
            *failed = 1;
            return 0;
        }
        int ascii = 1;
        for (int64_t k = 0; k < n; k++)
            ascii &= p[k] < 0x80;
        Py_hash_t hash = str_hash(p, n, ascii, &v->direct);
        if (hash == -1 && PyErr_Occurred()) {
            *failed = 1;
            return 0;
        }
        if (v->arena_size + n > v->arena_capacity) {
            unsigned char *arena = grow(v->arena, &v->arena_capacity, v->arena_size + n, 1);
            if (arena == NULL) {
                *failed = 1;
                return 0;
            }
            v->arena = arena;
        }
        memcpy(v->arena + v->arena_size, p, (size_t)n);
        *slot = (WordSlot){key, head, (uint64_t)hash, (int32_t)v->arena_size, (int32_t)n};
        v->arena_size += n;
        v->count++;
        if (2 * v->count > v->n_slots && grow_vocabulary(v) < 0) { /* at most half full */
            PyErr_NoMemory();
            *failed = 1;
            return 0;
        }
        return (uint64_t)hash;
    }
}

/* The short words seen so far (1 to 8 bytes, the last of them not NUL) and Python's hash of each. Such a
 * word's bytes as a little-endian number (its head, zero above its bytes) name it alone, so a 16-byte slot
 * holds the word and its hash: 60,000 distinct words take 2 MB, which stays in a core's cache where the
 * Vocabulary's 40-byte slots (and arena) would not. An open-addressing table, at most half full, linear
 * probing from the head's multiplicative hash (its top bits). */
typedef struct {
    uint64_t head; /* 0 marks an empty slot (a short word's head is never 0: its last byte is not) */
    uint64_t hash;
} ShortSlot;

typedef struct {
    ShortSlot *slots;
    uint64_t count;
    int bits; /* 2^bits slots */
} ShortWords;

static inline uint64_t short_slot(uint64_t head, int bits)
{
    return (head * 0x9E3779B97F4A7C15ULL) >> (64 - bits);
}

/* The table with twice the slots. 0, or -1 if out of memory. */
static int grow_short_words(ShortWords *t)
{
    uint64_t old = UINT64_C(1) << t->bits, mask = 2 * old - 1;
    ShortSlot *slots = calloc(2 * old, sizeof(ShortSlot));
    if (slots == NULL)
        return -1;
    for (uint64_t i = 0; i < old; i++) {
        if (t->slots[i].head == 0)
            continue;
        uint64_t j = short_slot(t->slots[i].head, t->bits + 1);
        while (slots[j].head != 0)
            j = (j + 1) & mask;
        slots[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->bits++;
    return 0;
}

/* Python's hash of the short word at p (n bytes, lower-cased; head = head_of(p, n)) as uint64, computed once
 * per distinct word. 0 with *failed set and an exception raised as word_hash does. */
static uint64_t short_hash(ShortWords *t, const unsigned char *p, int64_t n, uint64_t head, int *direct, int *failed)
{
    uint64_t mask = (UINT64_C(1) << t->bits) - 1;
    for (uint64_t i = short_slot(head, t->bits);; i = (i + 1) & mask) {
        ShortSlot *slot = &t->slots[i];
        if (slot->head == head)
            return slot->hash;
        if (slot->head != 0)
            continue;
        Py_hash_t hash = str_hash(p, n, (head & 0x8080808080808080ULL) == 0, direct);
        if (hash == -1 && PyErr_Occurred()) {
            *failed = 1;
            return 0;
        }
        *slot = (ShortSlot){head, (uint64_t)hash};
        if (2 * ++t->count > mask + 1 && grow_short_words(t) < 0) { /* at most half full */
            PyErr_NoMemory();
            *failed = 1;
            return 0;
        }
        return (uint64_t)hash;
    }
}

/* a[0 : n] sorted ascending: insertion sort below 16 items, else quicksort (median of three). */
static void quicksort_u64(uint64_t *a, int64_t n)
{
    while (n > 16) {
        uint64_t x = a[0], y = a[n / 2], z = a[n - 1];
        uint64_t pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        int64_t i = 0, j = n - 1;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                uint64_t t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (j + 1 < n - i) { /* recurse into the smaller part, loop on the larger */
            quicksort_u64(a, j + 1);
            a += i;
            n -= i;
        } else {
            quicksort_u64(a + i, n - i);
            n = j + 1;
        }
    }
    for (int64_t i = 1; i < n; i++) {
        uint64_t x = a[i];
        int64_t j = i;
        for (; j > 0 && a[j - 1] > x; j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH_SLOT(address) __builtin_prefetch(address)
#else
#define PREFETCH_SLOT(address) ((void)0)
#endif

/* A growing buffer of uint64 values. */
typedef struct {
    uint64_t *items;
    int64_t size, capacity;
} Values;

/* Room for needed values in v: 0, or -1 with MemoryError set. */
static int reserve_values(Values *v, int64_t needed)
{
    if (needed <= v->capacity)
        return 0;
    uint64_t *items = grow(v->items, &v->capacity, needed, sizeof(uint64_t));
    if (items == NULL)
        return -1;
    v->items = items;
    return 0;
}

/* The values bytearray sets made to hold at least needed uint64 (doubling; a large bytearray grows by
 * realloc, its pages moved, not copied); v->items is then its buffer. 0, or -1 with an exception set. */
static int reserve_sets(PyObject *sets, Values *v, int64_t needed)
{
    if (needed > v->capacity) {
        int64_t capacity = 2 * v->capacity > needed ? 2 * v->capacity : needed;
        if (capacity > PY_SSIZE_T_MAX / (int64_t)sizeof(uint64_t)) {
            PyErr_NoMemory();
            return -1;
        }
        if (PyByteArray_Resize(sets, (Py_ssize_t)capacity * (Py_ssize_t)sizeof(uint64_t)) < 0)
            return -1;
        v->capacity = capacity;
    }
    v->items = (uint64_t *)PyByteArray_AS_STRING(sets);
    return 0;
}

/* What shingle_sets keeps from text to text: the vocabulary, the text lower-cased and where its spaces are,
 * its words, sort room. */
typedef struct {
    Vocabulary vocabulary;
    ShortWords short_words;
    unsigned char *lower;
    uint64_t *spaces; /* bit k of spaces[b]: whether lower[64 b + k] is a space (is_space) */
    int64_t lower_capacity;
    Values words, scratch;
} Shingler;

/* in[0 : 64] lower-cased into out (ASCII letters: what str.lower does below 0x80), and which of them are
 * spaces (bit k: in[k]; is_space), 16 bytes at a time where SSE2 is there (every x86-64). */
static uint64_t lower_block(const unsigned char *restrict in, unsigned char *restrict out)
{
    uint64_t spaces = 0;
#if defined(__SSE2__)
    for (int q = 0; q < 4; q++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(in + 16 * q));
        __m128i letter = _mm_sub_epi8(v, _mm_set1_epi8('A')), tab = _mm_sub_epi8(v, _mm_set1_epi8(0x09));
        __m128i separator = _mm_sub_epi8(v, _mm_set1_epi8(0x1C));
        __m128i upper = _mm_cmpeq_epi8(_mm_min_epu8(letter, _mm_set1_epi8(25)), letter); /* b - 'A' <= 25 */
        _mm_storeu_si128((__m128i *)(out + 16 * q), _mm_add_epi8(v, _mm_and_si128(upper, _mm_set1_epi8(32))));
        __m128i space = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(0x20)),
                                     _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(tab, _mm_set1_epi8(4)), tab),
                                                  _mm_cmpeq_epi8(_mm_min_epu8(separator, _mm_set1_epi8(3)), separator)));
        spaces |= (uint64_t)(uint16_t)_mm_movemask_epi8(space) << (16 * q);
    }
#else
    for (int k = 0; k < 64; k++) {
        out[k] = (unsigned char)(in[k] - 'A') < 26 ? (unsigned char)(in[k] + 32) : in[k];
        spaces |= (uint64_t)is_space(in[k]) << k;
    }
#endif
    return spaces;
}

/* text[0 : size] lower-cased into s->lower, then spaces up to a multiple of 64 bytes past size (at least
 * one) and 8 more (head_of reads 8 bytes at a time), with s->spaces marking its spaces. 0, or -1 with an
 * exception set. */
static int lower_text(Shingler *s, const char *text, Py_ssize_t size)
{
    int64_t blocks = size / 64 + 1;
    if (64 * blocks + 8 > s->lower_capacity) {
        unsigned char *larger = realloc(s->lower, (size_t)(64 * blocks + 8));
        uint64_t *spaces = larger == NULL ? NULL : realloc(s->spaces, (size_t)blocks * sizeof(uint64_t));
        s->lower = larger != NULL ? larger : s->lower;
        s->spaces = spaces != NULL ? spaces : s->spaces;
        if (spaces == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->lower_capacity = 64 * blocks + 8;
    }
    const unsigned char *in = (const unsigned char *)text;
    for (int64_t b = 0; b + 1 < blocks; b++)
        s->spaces[b] = lower_block(in + 64 * b, s->lower + 64 * b);
    unsigned char last[64]; /* the last part block, padded with spaces */
    memset(last, ' ', sizeof last);
    memcpy(last, in + 64 * (blocks - 1), (size_t)(size - 64 * (blocks - 1)));
    s->spaces[blocks - 1] = lower_block(last, s->lower + 64 * (blocks - 1));
    memset(s->lower + 64 * blocks, ' ', 8);
    return 0;
}

/* Whether the word of n bytes at p is a short one (ShortWords): 1 to 8 bytes, the last not NUL. */
static inline int is_short(const unsigned char *p, int64_t n)
{
    return n <= 8 && p[n - 1] != 0;
}

/* The Python hash of each word of the text lower_text left (size bytes), in s->words.items[0 : s->words.size].
 * Where words start and end is read from the space bits (a start: a byte no space after a space or the
 * text's start; an end: a space after a byte no space), then each word's key (a short word's: its head)
 * found with its slot prefetched, so the slot reads of a text overlap, then each looked up in order. 0, or
 * -1 with an exception set. */
static int hash_words(Shingler *s, Py_ssize_t size)
{
    int64_t most = size / 2 + 1; /* a text of size bytes has at most (size + 1) / 2 words */
    if (reserve_values(&s->words, 3 * most) < 0)
        return -1;
    uint64_t *start = s->words.items, *end = start + most, *key = end + most, after_space = 1;
    int64_t n_words = 0, n_ends = 0;
    for (int64_t b = 0; b <= size / 64; b++) {
        uint64_t spaces = s->spaces[b], before = (spaces << 1) | after_space; /* bit k: byte k - 1 is a space */
        uint64_t starts = ~spaces & before, ends = spaces & ~before;
        after_space = spaces >> 63;
        for (; starts; starts &= starts - 1)
            start[n_words++] = (uint64_t)(64 * b + TRAILING_ZEROS(starts));
        for (; ends; ends &= ends - 1)
            end[n_ends++] = (uint64_t)(64 * b + TRAILING_ZEROS(ends));
    }
    for (int64_t k = 0; k < n_words; k++) {
        const unsigned char *p = s->lower + start[k];
        int64_t n = (int64_t)(end[k] - start[k]);
        if (is_short(p, n)) {
            key[k] = head_of(p, n);
            PREFETCH_SLOT(&s->short_words.slots[short_slot(key[k], s->short_words.bits)]);
        } else {
            key[k] = bytes_key(p, n);
            PREFETCH_SLOT(&s->vocabulary.slots[key[k] & (s->vocabulary.n_slots - 1)]);
        }
    }
    int failed = 0;
    for (int64_t k = 0; k < n_words && !failed; k++) { /* word k's hash in start[k] (start[k] already read) */
        const unsigned char *p = s->lower + start[k];
        int64_t n = (int64_t)(end[k] - start[k]);
        start[k] = is_short(p, n) ? short_hash(&s->short_words, p, n, key[k], &s->vocabulary.direct, &failed)
                                  : word_hash(&s->vocabulary, p, n, key[k], &failed);
    }
    s->words.size = n_words;
    return failed ? -1 : 0;
}

/* The distinct values of a[0 : n] sorted (ascending, in place): their count. */
static int64_t sort_distinct(uint64_t *a, int64_t n)
{
    int64_t kept = 0;
    quicksort_u64(a, n);
    for (int64_t i = 0; i < n; i++)
        if (kept == 0 || a[i] != a[kept - 1])
            a[kept++] = a[i];
    return kept;
}

/* The distinct shingles of the n word hashes w (core/shingles.py), sorted, written at out (room for
 * max(n - 2, 1)): their count, or -1 with an exception set. Shingle hashes spread evenly over 64 bits, so
 * past 32 of them they are placed in buckets by their top bits (about two buckets a shingle: one pass
 * computes them and counts each bucket's, one places them in bucket order), and an insertion sort into out
 * then only moves a shingle within its bucket, and skips a repeat. Where a bucket holds over 32 (values
 * that do not spread), a quicksort instead. */
static int64_t shingle_words(Shingler *s, const uint64_t *w, int64_t n, uint64_t *out)
{
    const uint64_t mix0 = 0x9E3779B97F4A7C15ULL, mix1 = 0xC2B2AE3D27D4EB4FULL; /* core/shingles.py's _MIX */
    int64_t count = n == 0 ? 0 : (n < 3 ? 1 : n - 2), kept = 0;
    if (count <= 32) {
        if (n == 1 || n == 2) /* one shingle of the words padded with 0 */
            out[0] = w[0] * mix0 + (n == 2 ? w[1] * mix1 : 0);
        for (int64_t i = 0; i + 2 < n; i++)
            out[i] = w[i] * mix0 + w[i + 1] * mix1 + w[i + 2];
        return sort_distinct(out, count);
    }
    int bits = 1;
    while ((INT64_C(1) << bits) < 2 * count)
        bits++;
    int64_t buckets = INT64_C(1) << bits, most = 0;
    if (reserve_values(&s->scratch, buckets + 1 + 2 * count) < 0)
        return -1;
    int64_t *start = (int64_t *)s->scratch.items; /* start[b + 1]: bucket b's count, then where b starts */
    uint64_t *computed = s->scratch.items + buckets + 1, *placed = computed + count;
    memset(start, 0, (size_t)(buckets + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < count; i++) {
        uint64_t v = w[i] * mix0 + w[i + 1] * mix1 + w[i + 2];
        computed[i] = v;
        start[(v >> (64 - bits)) + 1]++;
    }
    for (int64_t b = 1; b <= buckets; b++) {
        most = start[b] > most ? start[b] : most;
        start[b] += start[b - 1];
    }
    if (most > 32) {
        memcpy(out, computed, (size_t)count * sizeof(uint64_t));
        return sort_distinct(out, count);
    }
    for (int64_t i = 0; i < count; i++)
        placed[start[computed[i] >> (64 - bits)]++] = computed[i];
    for (int64_t i = 0; i < count; i++) {
        uint64_t x = placed[i];
        int64_t j = kept;
        for (; j > 0 && out[j - 1] > x; j--)
            out[j] = out[j - 1];
        if (j > 0 && out[j - 1] == x) { /* a repeat: the moves undone */
            for (; j < kept; j++)
                out[j] = out[j + 1];
            continue;
        }
        out[j] = x;
        kept++;
    }
    return kept;
}

PyObject *py_shingle_sets(PyObject *self, PyObject *args)
{
    PyObject *texts, *offsets = NULL, *sets = NULL, *result = NULL;
    if (!PyArg_ParseTuple(args, "O!:shingle_sets", &PyList_Type, &texts))
        return NULL;
    Py_INCREF(texts); /* the list stays alive (and its texts) while their bytes are read */
    Py_ssize_t n_texts = PyList_GET_SIZE(texts);
    Shingler s = {{calloc(1024, sizeof(WordSlot)), 1024, 0, NULL, 0, 0, -1}, {calloc(1024, sizeof(ShortSlot)), 0, 10},
                  NULL, NULL, 0, {NULL, 0, 0}, {NULL, 0, 0}};
    Values values = {NULL, 0, 0}; /* the sets, in the bytearray sets (grown by doubling: a large bytearray
                                   * grows by realloc, which reuses memory the process freed before) */
    if (s.vocabulary.slots == NULL || s.short_words.slots == NULL)
        PyErr_NoMemory();
    else {
        offsets = loops_int64_bytearray(n_texts + 1);
        sets = PyByteArray_FromStringAndSize(NULL, 0);
    }
    int failed = offsets == NULL || sets == NULL;
    if (!failed)
        ((int64_t *)PyByteArray_AS_STRING(offsets))[0] = 0;
    const char *next = NULL;
    Py_ssize_t length, next_length = 0;
    for (Py_ssize_t t = 0; t <= n_texts && !failed; t++) {
        const char *utf8 = next; /* text t - 1, read while text t - 1 was shingled */
        length = next_length;
        if (t < n_texts) { /* the next text read from memory while this one is split and hashed */
            PyObject *item = PyList_GET_ITEM(texts, t);
            if (t + 1 < n_texts)
                PREFETCH_SLOT(PyList_GET_ITEM(texts, t + 1)); /* its object, read at the next step */
            next = PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, &next_length) : NULL;
            if (next == NULL && !PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "shingle_sets takes a list of str");
            if (next == NULL) {
                failed = 1;
                break;
            }
            for (Py_ssize_t k = 0; k < next_length; k += 64)
                PREFETCH_SLOT(next + k);
        }
        if (t == 0)
            continue;
        int64_t kept = -1;
        if (lower_text(&s, utf8, length) == 0 && hash_words(&s, length) == 0) {
            int64_t n = s.words.size;
            if (reserve_sets(sets, &values, values.size + (n < 3 ? 1 : n - 2)) == 0)
                kept = shingle_words(&s, s.words.items, n, values.items + values.size);
        }
        failed = kept < 0;
        values.size += failed ? 0 : kept;
        ((int64_t *)PyByteArray_AS_STRING(offsets))[t] = values.size;
    }
    Py_DECREF(texts);
    if (!failed && PyByteArray_Resize(sets, (Py_ssize_t)values.size * (Py_ssize_t)sizeof(uint64_t)) == 0)
        result = Py_BuildValue("(OO)", sets, offsets);
    Py_XDECREF(sets);
    Py_XDECREF(offsets);
    free(s.vocabulary.slots);
    free(s.vocabulary.arena);
    free(s.short_words.slots);
    free(s.words.items);
    free(s.scratch.items);
    free(s.lower);
    free(s.spaces);
    return result;
}
