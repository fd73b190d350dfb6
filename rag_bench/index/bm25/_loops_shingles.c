/* _loops_shingles.c: shingle_sets, the word 3-shingle sets of many texts (see _loops.c and
 * rag_bench/core/shingles.py for the definition, rag_bench/retrieve/diversity/near.py for its caller). */

#include "_loops.h"

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
        PyObject *word = PyUnicode_DecodeUTF8((const char *)p, n, "strict");
        Py_hash_t hash = word == NULL ? -1 : PyObject_Hash(word);
        Py_XDECREF(word);
        if (hash == -1 && PyErr_Occurred()) {
            *failed = 1;
            return 0;
        }
        if (v->arena_size + n > v->arena_capacity) {
            int64_t capacity = 2 * v->arena_capacity > v->arena_size + n ? 2 * v->arena_capacity : v->arena_size + n;
            unsigned char *arena = realloc(v->arena, (size_t)capacity);
            if (arena == NULL) {
                PyErr_NoMemory();
                *failed = 1;
                return 0;
            }
            v->arena = arena;
            v->arena_capacity = capacity;
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

/* a[0 : n] sorted ascending. Shingle hashes spread evenly over 64 bits, so they are first placed in
 * buckets by their top bits (a bucket per item, about: one pass to count, one to place, into tmp), and an
 * insertion sort then only moves items within a bucket. Where a bucket holds over 32 items (values that
 * do not spread), quicksort instead. count: room for 2 * n + 1 counts; tmp: for n items. */
static void sort_u64(uint64_t *a, int64_t n, int64_t *count, uint64_t *tmp)
{
    if (n <= 32) {
        quicksort_u64(a, n);
        return;
    }
    int bits = 1;
    while ((INT64_C(1) << bits) < n)
        bits++;
    int64_t buckets = INT64_C(1) << bits, most = 0;
    memset(count, 0, (size_t)(buckets + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++)
        count[(a[i] >> (64 - bits)) + 1]++;
    for (int64_t b = 1; b <= buckets; b++) {
        most = count[b] > most ? count[b] : most;
        count[b] += count[b - 1];
    }
    if (most > 32) {
        quicksort_u64(a, n);
        return;
    }
    for (int64_t i = 0; i < n; i++)
        tmp[count[a[i] >> (64 - bits)]++] = a[i];
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = tmp[i];
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

static int reserve_values(Values *v, int64_t needed)
{
    if (needed <= v->capacity)
        return 0;
    int64_t capacity = 2 * v->capacity > needed ? 2 * v->capacity : needed;
    uint64_t *items = realloc(v->items, (size_t)capacity * sizeof(uint64_t));
    if (items == NULL)
        return -1;
    v->items = items;
    v->capacity = capacity;
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

/* What shingle_sets keeps from text to text: the vocabulary, the text lower-cased, its words, sort room. */
typedef struct {
    Vocabulary vocabulary;
    unsigned char *lower;
    int64_t lower_capacity;
    Values words, scratch;
} Shingler;

/* text[0 : size] lower-cased into s->lower (ASCII letters: what str.lower does below 0x80), followed by
 * 8 zero bytes (head_of reads 8 at a time). 0, or -1 with an exception set. */
static int lower_text(Shingler *s, const char *text, Py_ssize_t size)
{
    if (size + 8 > s->lower_capacity) {
        unsigned char *larger = realloc(s->lower, (size_t)size + 8);
        if (larger == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->lower = larger;
        s->lower_capacity = size + 8;
    }
    for (Py_ssize_t k = 0; k < size; k++) {
        unsigned char b = (unsigned char)text[k];
        s->lower[k] = (unsigned char)(b - 'A') < 26 ? (unsigned char)(b + 32) : b;
    }
    memset(s->lower + size, 0, 8);
    return 0;
}

/* The Python hash of each word of s->lower[0 : size], in s->words.items[0 : s->words.size]. The words are
 * first found (start, length, key: three items each) with their slots prefetched, so the slot reads of a
 * text overlap, then looked up in order. 0, or -1 with an exception set. */
static int hash_words(Shingler *s, Py_ssize_t size)
{
    Values *words = &s->words;
    words->size = 0;
    for (Py_ssize_t i = 0; i < size;) {
        while (i < size && is_space(s->lower[i]))
            i++;
        if (i == size)
            break;
        Py_ssize_t start = i;
        i = word_end(s->lower, i, size);
        if (reserve_values(words, 3 * (words->size + 1)) < 0) {
            PyErr_NoMemory();
            return -1;
        }
        uint64_t key = bytes_key(s->lower + start, i - start);
        PREFETCH_SLOT(&s->vocabulary.slots[key & (s->vocabulary.n_slots - 1)]);
        words->items[3 * words->size] = (uint64_t)start;
        words->items[3 * words->size + 1] = (uint64_t)(i - start);
        words->items[3 * words->size + 2] = key;
        words->size++;
    }
    int failed = 0;
    for (int64_t k = 0; k < words->size && !failed; k++) /* word k's hash in item k (its triple already read) */
        words->items[k] = word_hash(&s->vocabulary, s->lower + words->items[3 * k], (int64_t)words->items[3 * k + 1],
                                    words->items[3 * k + 2], &failed);
    return failed ? -1 : 0;
}

/* The distinct shingles of the n word hashes w (core/shingles.py), sorted, written at out (room for
 * max(n - 2, 1)): their count, or -1 with an exception set. */
static int64_t shingle_words(Shingler *s, const uint64_t *w, int64_t n, uint64_t *out)
{
    const uint64_t mix0 = 0x9E3779B97F4A7C15ULL, mix1 = 0xC2B2AE3D27D4EB4FULL; /* core/shingles.py's _MIX */
    int64_t count = n == 0 ? 0 : (n < 3 ? 1 : n - 2), kept = 0;
    if (n == 1 || n == 2) /* one shingle of the words padded with 0 */
        out[0] = w[0] * mix0 + (n == 2 ? w[1] * mix1 : 0);
    for (int64_t i = 0; i + 2 < n; i++)
        out[i] = w[i] * mix0 + w[i + 1] * mix1 + w[i + 2];
    if (reserve_values(&s->scratch, 3 * count + 1) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    sort_u64(out, count, (int64_t *)s->scratch.items, s->scratch.items + 2 * count + 1);
    for (int64_t i = 0; i < count; i++) /* distinct */
        if (kept == 0 || out[i] != out[kept - 1])
            out[kept++] = out[i];
    return kept;
}

PyObject *py_shingle_sets(PyObject *self, PyObject *args)
{
    PyObject *texts, *offsets = NULL, *sets = NULL, *result = NULL;
    if (!PyArg_ParseTuple(args, "O!:shingle_sets", &PyList_Type, &texts))
        return NULL;
    Py_ssize_t n_texts = PyList_GET_SIZE(texts);
    Shingler s = {{calloc(1024, sizeof(WordSlot)), 1024, 0, NULL, 0, 0}, NULL, 0, {NULL, 0, 0}, {NULL, 0, 0}};
    Values values = {NULL, 0, 0}; /* the sets, in the bytearray sets */
    if (s.vocabulary.slots != NULL) {
        offsets = loops_int64_bytearray(n_texts + 1);
        sets = PyByteArray_FromStringAndSize(NULL, 0);
    } else
        PyErr_NoMemory();
    int failed = offsets == NULL || sets == NULL;
    Py_INCREF(texts); /* the list stays alive (and its texts) while their bytes are read */
    for (Py_ssize_t t = 0; t < n_texts && !failed; t++) {
        PyObject *item = PyList_GET_ITEM(texts, t);
        Py_ssize_t size;
        const char *utf8 = PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, &size) : NULL;
        if (utf8 == NULL && !PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "shingle_sets takes a list of str");
        if (utf8 == NULL || lower_text(&s, utf8, size) < 0 || hash_words(&s, size) < 0) {
            failed = 1;
            break;
        }
        int64_t n = s.words.size, kept = -1;
        if (reserve_sets(sets, &values, values.size + (n < 3 ? 1 : n - 2)) == 0)
            kept = shingle_words(&s, s.words.items, n, values.items + values.size);
        failed = kept < 0;
        values.size += failed ? 0 : kept;
        ((int64_t *)PyByteArray_AS_STRING(offsets))[t + 1] = values.size;
    }
    Py_DECREF(texts);
    if (!failed) {
        ((int64_t *)PyByteArray_AS_STRING(offsets))[0] = 0;
        if (PyByteArray_Resize(sets, values.size * (Py_ssize_t)sizeof(uint64_t)) == 0)
            result = Py_BuildValue("(OO)", sets, offsets);
    }
    Py_XDECREF(sets);
    Py_XDECREF(offsets);
    free(s.vocabulary.slots);
    free(s.vocabulary.arena);
    free(s.words.items);
    free(s.scratch.items);
    free(s.lower);
    return result;
}
