/*
 * arena.h - region allocator for per-query and per-file memory.
 *
 * An arena hands out memory from large blocks and frees it all at once with
 * fl_arena_free() (or recycles it with fl_arena_reset()). Use it for things
 * whose lifetime is a query, a parsed footer or a parsed schema: many small
 * objects that die together. Column data lives in fl_vector buffers instead,
 * which are reused batch after batch.
 *
 * Ownership: everything returned by fl_arena_* belongs to the arena. Never
 * free() it. An arena is not thread-safe; use one per thread or per query.
 */
#ifndef FLOE_ARENA_H
#define FLOE_ARENA_H

#include "floe/export.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_arena_block fl_arena_block;

typedef struct fl_arena {
    fl_arena_block *head; /* current block; older blocks chain behind it */
    size_t block_size;    /* default size of new blocks */
    size_t total;         /* bytes obtained from malloc, for accounting */
    size_t limit;         /* 0 = unlimited; otherwise allocations beyond it fail */
} fl_arena;

/* Initializes an empty arena. block_size 0 picks a default (64 KiB). */
FL_API void fl_arena_init(fl_arena *a, size_t block_size);

/* Returns size bytes aligned to 16, or NULL when out of memory or over limit. */
FL_API void *fl_arena_alloc(fl_arena *a, size_t size);

/* Like fl_arena_alloc but zero-filled. */
FL_API void *fl_arena_calloc(fl_arena *a, size_t n, size_t size);

/* Copies len bytes of s into the arena and NUL-terminates the copy. */
FL_API char *fl_arena_strndup(fl_arena *a, const char *s, size_t len);
FL_API char *fl_arena_strdup(fl_arena *a, const char *s);

/* printf into the arena. */
FL_API char *fl_arena_sprintf(fl_arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Frees everything but the first block, which is kept for reuse. */
FL_API void fl_arena_reset(fl_arena *a);

/* Frees every block. The arena may be reused after fl_arena_init(). */
FL_API void fl_arena_free(fl_arena *a);

#ifdef __cplusplus
}
#endif
#endif
