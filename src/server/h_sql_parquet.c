/*
 * h_sql_parquet.c - result rows as a Parquet file for the HTTP SQL endpoint
 * (Accept: application/vnd.apache.parquet or ?format=parquet), written
 * straight into the chunked response: the Parquet writer only appends (row
 * groups, then the footer), so an fl_output over the response stream is all
 * it needs and nothing but the current row group is held in memory.
 *
 * A failure after the first bytes cuts the body short (no terminating
 * chunk, as for Arrow), so a reader sees a file without its footer, never a
 * valid but partial one. A client that went away fails the next write with
 * FL_ECANCELED.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/parquet.h"
#include "server/h_sql.h"

typedef struct stream_output {
    fl_output base;
    fl_server_stream *stream;
    char name[16]; /* base.path: what the writer's messages call it */
} stream_output;

struct srv_sql_parquet {
    stream_output *out; /* owned until the writer's close */
    fl_parquet_writer *w;
};

static fl_status so_write(fl_output *o, const void *buf, size_t len, fl_error *err)
{
    stream_output *so = (stream_output *)o;
    if (!fl_server_stream_write(so->stream, buf, len))
        return fl_errorf(err, FL_ECANCELED, "client disconnected");
    o->written += len;
    return FL_OK;
}

static fl_status so_close(fl_output *o, fl_error *err)
{
    (void)err;
    free(o);
    return FL_OK;
}

static void so_abort(fl_output *o)
{
    free(o);
}

static const fl_output_ops stream_output_ops = {so_write, so_close, so_abort};

fl_status srv_sql_parquet_open(fl_server_stream *stream, const fl_schema *schema,
                               srv_sql_parquet **out, fl_error *err)
{
    srv_sql_parquet *p = calloc(1, sizeof *p);
    stream_output *so = calloc(1, sizeof *so);
    if (!p || !so) {
        free(p);
        free(so);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    so->base.ops = &stream_output_ops;
    snprintf(so->name, sizeof so->name, "response");
    so->base.path = so->name;
    so->stream = stream;
    p->out = so;
    fl_parquet_write_options opt = {0};
    fl_status rc = fl_parquet_writer_open(&so->base, schema, &opt, &p->w, err);
    if (rc != FL_OK) {
        srv_sql_parquet_abort(p);
        return rc;
    }
    *out = p;
    return FL_OK;
}

fl_status srv_sql_parquet_batch(srv_sql_parquet *p, const fl_batch *b, fl_error *err)
{
    return fl_parquet_writer_write(p->w, b, err);
}

fl_status srv_sql_parquet_finish(srv_sql_parquet *p, fl_error *err)
{
    fl_parquet_writer *w = p->w;
    p->w = NULL;
    fl_status rc = fl_parquet_writer_close(w, NULL, err);
    if (rc == FL_OK) {
        fl_output *o = &p->out->base;
        p->out = NULL;
        rc = fl_output_close(o, err);
    }
    srv_sql_parquet_abort(p);
    return rc;
}

void srv_sql_parquet_abort(srv_sql_parquet *p)
{
    if (!p)
        return;
    fl_parquet_writer_abort(p->w);
    if (p->out)
        so_abort(&p->out->base);
    free(p);
}
