/*
 * dead_letter.c - the dead-letter table of a pipeline (include/floe/ingest.h):
 * <table>__dead_letter in the table's namespace, created on first use with
 *
 *   pipeline string, source string, error string, payload binary, failed_at timestamptz
 *
 * and written through an ordinary sink (same pipeline name, its own epoch on
 * the dead-letter table), so dead letters are fenced and exactly-once like
 * rows: the caller records a position per failure (the landing-files source
 * uses its "file:<path>" key) and skips failures whose position is there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floe/text.h"
#include "ingest/ingest_int.h"

static const char *const DLQ_SCHEMA =
    "pipeline:string,source:string,error:string,payload:binary,failed_at:timestamptz";
static const char *const DLQ_COLUMNS[] = {"pipeline", "source", "error", "payload", "failed_at"};

static fl_status create_if_absent(fl_catalog *c, const fl_table_ident *id, fl_error *err)
{
    fl_ice_table *t = NULL;
    fl_error e2 = {0};
    fl_status rc = fl_ice_table_load(c, id, &t, &e2);
    fl_ice_table_free(t);
    if (rc != FL_ENOTFOUND) {
        if (rc != FL_OK)
            *err = e2;
        return rc;
    }
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_schema s;
    rc = fl_parse_schema_spec(DLQ_SCHEMA, &a, &s, err);
    fl_ice_create_options o = {.schema = &s};
    if (rc == FL_OK)
        rc = fl_ice_table_create(c, id, &o, &t, err);
    fl_ice_table_free(t);
    fl_arena_free(&a);
    if (rc == FL_EEXIST) /* another instance made it first */
        rc = FL_OK;
    return rc;
}

fl_status fl_ingest_dead_letter_open(fl_catalog *c, const fl_table_ident *table,
                                     const char *pipeline, const fl_ingest_options *opt,
                                     fl_ingest_sink **out, fl_error *err)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_table_ident id = *table;
    id.name = fl_arena_sprintf(&a, "%s%s", table->name, FL_INGEST_DEAD_LETTER_SUFFIX);
    fl_status rc =
        id.name ? create_if_absent(c, &id, err) : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK)
        rc = fl_ingest_sink_open(c, &id, pipeline, opt, out, err);
    const fl_schema *s = rc == FL_OK ? fl_ingest_sink_schema(*out) : NULL;
    bool shape = s && s->nfields == 5;
    for (uint32_t i = 0; shape && i < 5; i++)
        shape = !strcmp(s->fields[i].name, DLQ_COLUMNS[i]);
    if (rc == FL_OK && !shape) {
        fl_ingest_sink_close(*out);
        *out = NULL;
        rc = fl_errorf(err, FL_EINVAL, "dead-letter table %s: columns are not (%s)", id.name,
                       DLQ_SCHEMA);
    }
    if (rc != FL_OK)
        fl_error_prefix(err, "dead-letter table of %s", table->name);
    fl_arena_free(&a);
    return rc;
}

fl_status fl_ingest_dead_letter_write(fl_ingest_sink *dlq, const char *pipeline, const char *source,
                                      const char *error, const void *payload, size_t len,
                                      const char *key, const char *value, fl_error *err)
{
    if (len > FL_INGEST_DEAD_LETTER_MAX_PAYLOAD)
        len = FL_INGEST_DEAD_LETTER_MAX_PAYLOAD;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t micros = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
    fl_batch b;
    FL_TRY(fl_batch_init(&b, fl_ingest_sink_schema(dlq), err));
    const char *text[3] = {pipeline, source, error};
    fl_status rc = FL_OK;
    for (int i = 0; rc == FL_OK && i < 3; i++)
        rc = fl_vector_append_bytes(&b.cols[i], text[i], strlen(text[i]), err);
    if (rc == FL_OK)
        rc = payload ? fl_vector_append_bytes(&b.cols[3], payload, len, err)
                     : fl_vector_append_null(&b.cols[3], err);
    if (rc == FL_OK)
        rc = fl_vector_append_fixed(&b.cols[4], &micros, err);
    b.nrows = 1;
    if (rc == FL_OK)
        rc = fl_ingest_sink_write(dlq, &b, err);
    fl_batch_destroy(&b);
    if (rc == FL_OK && key)
        rc = fl_ingest_sink_set_position(dlq, key, value, err);
    return rc;
}
