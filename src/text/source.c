/*
 * source.c - the format-independent calls of a row source (include/floe/
 * text.h): each source is a vtable (fl_source_ops) plus its schema, so
 * callers read CSV, JSON lines (and the CLI's Parquet source) alike.
 */
#include <stddef.h>

#include "floe/text.h"

const fl_schema *fl_source_schema(const fl_source *s)
{
    return s->schema;
}

fl_status fl_source_next(fl_source *s, fl_batch *b, bool *eof, fl_error *err)
{
    return s->ops->next(s, b, eof, err);
}

void fl_source_progress(const fl_source *s, uint64_t *done, uint64_t *total)
{
    *done = s ? s->done : 0;
    *total = s ? s->total : 0;
}

void fl_source_close(fl_source *s)
{
    if (s)
        s->ops->close(s);
}
