/*
 * arena.c - region allocator (see floe/arena.h).
 *
 * Blocks form a singly linked list, newest first. Allocation bumps a cursor in
 * the newest block; a request larger than a quarter of the block size gets a
 * block of its own so big objects do not waste the tail of a shared block.
 */
#include "floe/arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fl_arena_block {
    fl_arena_block *next;
    size_t size; /* usable bytes in data */
    size_t used;
    _Alignas(16) unsigned char data[];
};

#define ARENA_DEFAULT_BLOCK (64 * 1024)
#define ARENA_ALIGN 16

void fl_arena_init(fl_arena *a, size_t block_size)
{
    a->head = NULL;
    a->block_size = block_size ? block_size : ARENA_DEFAULT_BLOCK;
    a->total = 0;
    a->limit = 0;
}

static fl_arena_block *arena_new_block(fl_arena *a, size_t min_size)
{
    size_t size = min_size > a->block_size ? min_size : a->block_size;
    if (size > SIZE_MAX - sizeof(fl_arena_block))
        return NULL;
    if (a->limit && (size > a->limit || a->total > a->limit - size))
        return NULL;
    fl_arena_block *b = malloc(sizeof *b + size);
    if (!b)
        return NULL;
    b->size = size;
    b->used = 0;
    a->total += size;
    return b;
}

void *fl_arena_alloc(fl_arena *a, size_t size)
{
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX - ARENA_ALIGN)
        return NULL;
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    fl_arena_block *b = a->head;
    if (b && b->size - b->used >= size) {
        void *p = b->data + b->used;
        b->used += size;
        return p;
    }
    fl_arena_block *nb = arena_new_block(a, size);
    if (!nb)
        return NULL;
    if (b && size > a->block_size / 4 && b->size - b->used > size / 2) {
        /* keep filling the current block; chain the big one behind it */
        nb->next = b->next;
        b->next = nb;
    } else {
        nb->next = b;
        a->head = nb;
    }
    nb->used = size;
    return nb->data;
}

void *fl_arena_calloc(fl_arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *p = fl_arena_alloc(a, n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

char *fl_arena_strndup(fl_arena *a, const char *s, size_t len)
{
    if (len == SIZE_MAX)
        return NULL;
    char *p = fl_arena_alloc(a, len + 1);
    if (!p)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *fl_arena_strdup(fl_arena *a, const char *s)
{
    return fl_arena_strndup(a, s, strlen(s));
}

char *fl_arena_sprintf(fl_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = fl_arena_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void fl_arena_reset(fl_arena *a)
{
    fl_arena_block *keep = NULL;
    for (fl_arena_block *b = a->head; b;) {
        fl_arena_block *next = b->next;
        if (!next) { /* the oldest block is kept */
            keep = b;
            break;
        }
        a->total -= b->size;
        free(b);
        b = next;
    }
    a->head = keep;
    if (keep)
        keep->used = 0;
}

void fl_arena_free(fl_arena *a)
{
    for (fl_arena_block *b = a->head; b;) {
        fl_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->total = 0;
}
