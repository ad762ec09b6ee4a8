/*
 * pg_conn.c - libpq connections for the CDC source (pg_conn.h).
 *
 * The session settings go in the startup packet (options=-c ...), so they
 * hold for the walsender that runs pgoutput's output functions: the text of
 * a timestamptz, a date or a bytea then has the one spelling pg_types.c
 * parses, whatever the server's postgresql.conf says.
 */
#include <string.h>

#include "ingest/pg_conn.h"

#define SESSION_OPTIONS                                                                            \
    "-c DateStyle=ISO,MDY -c TimeZone=UTC -c bytea_output=hex -c extra_float_digits=3 "            \
    "-c IntervalStyle=postgres"

static int line_len(const char *m)
{
    size_t n = strcspn(m, "\n");
    return (int)(n > 400 ? 400 : n);
}

fl_status pgcdc_pq_error(PGconn *c, const PGresult *r, const char *what, fl_error *err)
{
    const char *m = r ? PQresultErrorMessage(r) : NULL;
    if (!m || !*m)
        m = c ? PQerrorMessage(c) : "no connection";
    return fl_errorf(err, FL_EIO, "postgres: %s: %.*s", what, line_len(m), m);
}

fl_status pgcdc_pq_connect(const char *conninfo, bool replication, PGconn **out, fl_error *err)
{
    const char *keys[] = {"dbname", "options", "application_name", "replication", NULL};
    const char *vals[] = {conninfo, SESSION_OPTIONS, "floe-cdc", "database", NULL};
    if (!replication)
        keys[3] = vals[3] = NULL;
    *out = NULL;
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "postgres: out of memory");
    if (PQstatus(c) != CONNECTION_OK) {
        fl_status rc = pgcdc_pq_error(c, NULL, "connect", err);
        PQfinish(c);
        return rc;
    }
    *out = c;
    return FL_OK;
}

fl_status pgcdc_pq_exec(PGconn *c, const char *sql, ExecStatusType want, PGresult **out,
                        fl_error *err)
{
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != want) {
        fl_status rc = pgcdc_pq_error(c, r, sql, err);
        PQclear(r);
        return rc;
    }
    if (out)
        *out = r;
    else
        PQclear(r);
    return FL_OK;
}

fl_status pgcdc_pq_publications(const char *pubs, fl_buf *b, fl_error *err)
{
    const char *p = pubs ? pubs : "";
    bool first = true;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        while (n && p[0] == ' ')
            p++, n--;
        while (n && p[n - 1] == ' ')
            n--;
        if (n == 0)
            return fl_errorf(err, FL_EINVAL, "publications '%s': empty publication name",
                             pubs ? pubs : "");
        FL_TRY(fl_buf_puts(b, first ? "\"" : ",\"", err));
        for (size_t i = 0; i < n; i++)
            FL_TRY(p[i] == '"' ? fl_buf_puts(b, "\"\"", err) : fl_buf_putc(b, p[i], err));
        FL_TRY(fl_buf_putc(b, '"', err));
        first = false;
        if (!end)
            return FL_OK;
        p = end + 1;
    }
}
