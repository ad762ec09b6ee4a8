/*
 * did_you_mean.c - the nearest name to one that does not exist (planner.h):
 * "column "nmae" does not exist (did you mean "name"?)", as PostgreSQL's
 * HINT "Perhaps you meant to reference the column ...". Used for columns
 * here and for tables by session/suggest.c.
 *
 * Distance and "close enough" are fl_sql_edit_distance / fl_sql_close_enough
 * (func/edit_distance.c), shared with table and function suggestions.
 */
#include <stdio.h>
#include <string.h>

#include "sql/bind/bind.h"
#include "sql/func.h"

/* The closest visible column of s (qualified by qual when given). */
static const fl_scope_col *closest(const fl_scope *s, const char *qual, const char *name,
                                   uint32_t *best)
{
    const fl_scope_col *pick = NULL;
    for (uint32_t i = 0; s && i < s->ncols; i++) {
        const fl_scope_col *c = &s->cols[i];
        if (!c->name || c->using_hidden || (qual && (!c->qual || strcmp(c->qual, qual))))
            continue;
        uint32_t d = fl_sql_edit_distance(name, c->name);
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
    uint32_t best = fl_sql_close_enough(name) + 1;
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
