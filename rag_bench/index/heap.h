/* heap.h: the bounded min-heap both compiled top-k scans keep their best entries in.
 *
 * Dense search (rag_bench/index/_topk.c, float scores) and BM25 search
 * (rag_bench/index/bm25/_loops_search.c, double scores) keep each row's best `depth` entries in a
 * binary heap whose root is the WORST of them under one order: higher score first, then lower
 * index. TOPK_HEAP(NAME, SCORE) defines, for one score type:
 *
 *   NAME##_worse(s1, i1, s2, i2)  whether (s1, i1) ranks below (s2, i2): a lower score, or an
 *                                 equal score and a higher index;
 *   NAME##_sift_down(s, i, n, at) the heap of n entries restored below `at` after that entry
 *                                 was replaced (it moves down while a child is worse);
 *   NAME##_add(s, i, n, score, index)
 *                                 (score, index) added to a heap of n entries with room for one
 *                                 more (it rises while it is worse than its parent); returns n + 1.
 *
 * Comparisons are C's (-0.0 equals 0.0); scores must not be NaN.
 * Example: depth 2, add (0.5, 0), add (0.75, 1): root (0.5, 0); replacing the root by (0.75, 2)
 * and sifting leaves root (0.75, 2), the worse of the two 0.75s.
 */

#ifndef RAG_BENCH_HEAP_H
#define RAG_BENCH_HEAP_H

#include <stdint.h>

#define TOPK_HEAP(NAME, SCORE)                                                                      \
    static inline int NAME##_worse(SCORE s1, int64_t i1, SCORE s2, int64_t i2)                      \
    {                                                                                               \
        return s1 < s2 || (s1 == s2 && i1 > i2);                                                    \
    }                                                                                               \
                                                                                                    \
    static void NAME##_sift_down(SCORE *s, int64_t *i, int64_t n, int64_t at)                       \
    {                                                                                               \
        SCORE score = s[at];                                                                        \
        int64_t index = i[at];                                                                      \
        for (int64_t child = 2 * at + 1; child < n; child = 2 * at + 1) {                           \
            if (child + 1 < n && NAME##_worse(s[child + 1], i[child + 1], s[child], i[child]))      \
                child++; /* the worse child */                                                      \
            if (!NAME##_worse(s[child], i[child], score, index))                                    \
                break;                                                                              \
            s[at] = s[child];                                                                       \
            i[at] = i[child];                                                                       \
            at = child;                                                                             \
        }                                                                                           \
        s[at] = score;                                                                              \
        i[at] = index;                                                                              \
    }                                                                                               \
                                                                                                    \
    static int64_t NAME##_add(SCORE *s, int64_t *i, int64_t n, SCORE score, int64_t index)          \
    {                                                                                               \
        int64_t at = n;                                                                             \
        while (at > 0 && NAME##_worse(score, index, s[(at - 1) / 2], i[(at - 1) / 2])) {            \
            s[at] = s[(at - 1) / 2];                                                                \
            i[at] = i[(at - 1) / 2];                                                                \
            at = (at - 1) / 2;                                                                      \
        }                                                                                           \
        s[at] = score;                                                                              \
        i[at] = index;                                                                              \
        return n + 1;                                                                               \
    }

#endif
