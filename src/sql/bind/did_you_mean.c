/*
 * did_you_mean.c - the nearest name to one that does not exist (planner.h):
 * "column "nmae" does not exist (did you mean "name"?)", as PostgreSQL's
 * HINT "Perhaps you meant to reference the column ...". Used for columns
 * here and for tables by session/suggest.c.
 *
 * Distance is Levenshtein over bytes with adjacent swaps as one edit
 * (optimal string alignment), case-folded for ASCII so that an unquoted
 * Name against a quoted "Name" is distance 0. A candidate counts
 * when it is within a third of the written name's length (at least 1):
 * further than that, a suggestion is more noise than help. Names longer
 * than 63 bytes are never close (bounded work on a failed statement).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "sql/bind/bind.h"

static bool same_char(char x, char y)
{
    return tolower((unsigned char)x) == tolower((unsigned char)y);
}

uint32_t fl_front_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 63 || m > 63)
        return UINT32_MAX;
    uint32_t d[64][64];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (uint32_t)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (uint32_t)j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            uint32_t v = d[i - 1][j - 1] + (same_char(a[i - 1], b[j - 1]) ? 0 : 1);
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            /* two neighbours swapped ("nmae") is one edit */
            if (i > 1 && j > 1 && same_char(a[i - 1], b[j - 2]) && same_char(a[i - 2], b[j - 1]) &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[n][m];
}

uint32_t fl_front_close_enough(const char *written)
{
    uint32_t n = (uint32_t)strlen(written) / 3;
    return n ? n : 1;
}

/* The closest visible column of s (qualified by qual when given). */
static const fl_scope_col *closest(const fl_scope *s, const char *qual, const char *name,
                                   uint32_t *best)
{
    const fl_scope_col *pick = NULL;
    for (uint32_t i = 0; s && i < s->ncols; i++) {
        const fl_scope_col *c = &s->cols[i];
        if (!c->name || c->using_hidden || (qual && (!c->qual || strcmp(c->qual, qual))))
            continue;
        uint32_t d = fl_front_edit_distance(name, c->name);
        if (d < *best) {
            *best = d;
            pick = c;
        }
    }
    return pick;
}

void fl_front_column_hint(const fl_bctx *b, const char *qual, const char *name, char *out,
                          size_t cap)
{
    out[0] = '\0';
    uint32_t best = fl_front_close_enough(name) + 1;
    const fl_scope_col *c = closest(&b->scope, qual, name, &best);
    if (b->parent) {
        const fl_scope_col *o = closest(&b->parent->scope, qual, name, &best);
        c = o ? o : c;
    }
    if (!c || !strcmp(c->name, name))
        return;
    if (c->qual && *c->qual)
        snprintf(out, cap, " (did you mean \"%s.%s\"?)", c->qual, c->name);
    else
        snprintf(out, cap, " (did you mean \"%s\"?)", c->name);
}
