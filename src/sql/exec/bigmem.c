/*
 * bigmem.c - zeroed allocations for the executor's large random-access
 * arrays (hash-table slots, join bucket heads and chains).
 *
 * Why: a hash table of millions of entries is touched at random, so with
 * 4 KiB pages every first touch is a page fault and most probes miss the
 * TLB; perf on TPC-H Q18 (1.5M groups) showed the faults and the rehash's
 * stalls as a quarter of the query. Arrays of at least 4 MiB are aligned to
 * 2 MiB and advised MADV_HUGEPAGE (transparent huge pages in "madvise" mode,
 * Debian's default), then zeroed: one fault per 2 MiB and far fewer TLB
 * misses. Where huge pages are unavailable madvise fails and this is a
 * plain aligned calloc. Smaller arrays use calloc.
 *
 * Ownership: the caller frees the result with free().
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sql/exec/exec_internal.h"

#define HUGE_PAGE ((size_t)2 << 20)
#define BIG_ENOUGH ((size_t)4 << 20)

void *ex_calloc_big(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    size_t bytes = n * size;
    if (bytes < BIG_ENOUGH)
        return calloc(n ? n : 1, size ? size : 1);
    size_t rounded = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, rounded) != 0)
        return NULL;
    (void)madvise(p, rounded, MADV_HUGEPAGE);
    memset(p, 0, bytes);
    return p;
}
