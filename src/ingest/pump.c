/*
 * pump.c - one pass of a source into the sink (ingest_int.h), shared by the
 * landing-files source and the HTTP endpoint's body parser: text opened so
 * its columns carry the table's types, every batch through the by-name
 * adapter (adapt.c), then into the sink, or nowhere when only checking.
 *
 * Both callers run it twice, a checking pass first: the sink's writer
 * cannot take rows back, so a file or body whose record 10,000 is bad must
 * be refused before any of its rows are written.
 */
#include <string.h>

#include "floe/text.h"
#include "ingest/ingest_int.h"

fl_status ing_open_text(fl_fileio *io, const char *path, bool csv, const fl_schema *table,
                        fl_arena *a, fl_source **out, fl_error *err)
{
    fl_source_options so = {.io = io};
    FL_TRY(csv ? fl_csv_source_open(path, &so, out, err)
               : fl_jsonl_source_open(path, &so, out, err));
    const fl_schema *want = NULL;
    fl_status rc = fl_ingest_text_schema(table, fl_source_schema(*out), csv, path, a, &want, err);
    if (rc != FL_OK || !want)
        return rc;
    fl_source_close(*out);
    *out = NULL;
    so.schema = want;
    return csv ? fl_csv_source_open(path, &so, out, err)
               : fl_jsonl_source_open(path, &so, out, err);
}

fl_status ing_pump(fl_source *src, const fl_schema *table, const fl_ice_schema *ice,
                   const char *name, bool name_records, fl_ingest_sink *s, uint64_t *rows,
                   bool *sink_failed, fl_error *err)
{
    fl_ingest_adapter *ad = NULL;
    fl_batch b;
    bool binit = false;
    *rows = 0;
    fl_status rc = fl_ingest_adapter_open(table, ice, fl_source_schema(src), name, &ad, err);
    if (rc == FL_OK && (rc = fl_batch_init(&b, fl_source_schema(src), err)) == FL_OK)
        binit = true;
    while (rc == FL_OK) {
        bool eof = false;
        rc = fl_source_next(src, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        fl_batch view;
        if ((rc = fl_ingest_adapt(ad, &b, &view, err)) != FL_OK) {
            /* the adapter names the column; the caller's name says where */
            if (name_records)
                fl_error_prefix(err, "%s: records %llu-%llu", name, (unsigned long long)*rows + 1,
                                (unsigned long long)(*rows + b.nrows));
            else
                fl_error_prefix(err, "%s", name);
            break;
        }
        if (s && (rc = fl_ingest_sink_write(s, &view, err)) != FL_OK) {
            *sink_failed = true;
            break;
        }
        *rows += fl_batch_live_rows(&view);
    }
    if (binit)
        fl_batch_destroy(&b);
    fl_ingest_adapter_free(ad);
    return rc;
}
