/*
 * pg_snapshot.c - the initial snapshot of a CDC source (pg_cdc.h, "the
 * initial snapshot"): a normal connection whose REPEATABLE READ transaction
 * imports the snapshot the slot exported, so it sees every table exactly as
 * of the slot's consistent point - changes committed before it are in the
 * snapshot, changes after it come through the stream, none in both.
 *
 * A table is read through a cursor (FETCH 10000 at a time, so memory holds
 * one batch) selecting the columns pgoutput would send, in the same order:
 * live, non-generated attributes by attnum. FROM ONLY, so an inheritance
 * parent does not repeat its children's rows, except for a partitioned table
 * (published with publish_via_partition_root), whose rows are all in its
 * partitions. The relation description is
 * built from pg_class / pg_attribute / pg_index the way pgoutput builds its
 * Relation message: the key flag is on the replica identity columns (the
 * primary key for identity 'd', the chosen index for 'i', every column for
 * 'f', none for 'n').
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/pg_cdc.h"
#include "ingest/pg_conn.h"

#define FETCH_ROWS 10000

struct pgcdc_snapshot {
    PGconn *conn;
    fl_arena tables; /* the table list */
    fl_arena rel;    /* the relation of the last read */
};

fl_status pgcdc_snapshot_open(const char *conninfo, const char *snapshot, pgcdc_snapshot **out,
                              fl_error *err)
{
    *out = NULL;
    pgcdc_snapshot *s = calloc(1, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_arena_init(&s->tables, 0);
    fl_arena_init(&s->rel, 0);
    fl_status rc = pgcdc_pq_connect(conninfo, false, &s->conn, err);
    if (rc == FL_OK)
        rc = pgcdc_pq_exec(s->conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
                           PGRES_COMMAND_OK, NULL, err);
    if (rc == FL_OK && snapshot) { /* NULL: the current state (listing tables) */
        char *lit = PQescapeLiteral(s->conn, snapshot, strlen(snapshot));
        char sql[160];
        if (!lit)
            rc = pgcdc_pq_error(s->conn, NULL, "snapshot name", err);
        else
            snprintf(sql, sizeof sql, "SET TRANSACTION SNAPSHOT %.100s", lit);
        PQfreemem(lit);
        if (rc == FL_OK)
            rc = pgcdc_pq_exec(s->conn, sql, PGRES_COMMAND_OK, NULL, err);
    }
    if (rc != FL_OK) {
        pgcdc_snapshot_close(s);
        return rc;
    }
    *out = s;
    return FL_OK;
}

fl_status pgcdc_snapshot_tables(pgcdc_snapshot *s, const char *publications,
                                const pgcdc_table **tables, size_t *n, fl_error *err)
{
    fl_buf list, sql;
    fl_buf_init(&list, 0);
    fl_buf_init(&sql, 0);
    PGresult *res = NULL;
    fl_status rc = pgcdc_pq_publications(publications, &list, err);
    /* the quoted names become one text[] literal: '{"a","b"}' */
    char *lit = NULL;
    if (rc == FL_OK) {
        rc = fl_buf_appendf(&sql, err, "{%s}", list.data);
        lit = rc == FL_OK ? PQescapeLiteral(s->conn, sql.data, sql.len) : NULL;
        if (rc == FL_OK && !lit)
            rc = pgcdc_pq_error(s->conn, NULL, "publication names", err);
    }
    if (rc == FL_OK) {
        fl_buf_reset(&sql);
        rc = fl_buf_appendf(&sql, err,
                            "SELECT DISTINCT schemaname, tablename FROM pg_publication_tables "
                            "WHERE pubname = ANY(%s::text[]) ORDER BY 1, 2",
                            lit);
    }
    if (rc == FL_OK)
        rc = pgcdc_pq_exec(s->conn, sql.data, PGRES_TUPLES_OK, &res, err);
    PQfreemem(lit);
    fl_buf_free(&list);
    fl_buf_free(&sql);
    if (rc != FL_OK)
        return rc;
    int nr = PQntuples(res);
    pgcdc_table *t = fl_arena_calloc(&s->tables, nr ? (size_t)nr : 1, sizeof *t);
    for (int i = 0; t && i < nr; i++) {
        t[i].nspname = fl_arena_strdup(&s->tables, PQgetvalue(res, i, 0));
        t[i].relname = fl_arena_strdup(&s->tables, PQgetvalue(res, i, 1));
        if (!t[i].nspname || !t[i].relname)
            t = NULL;
    }
    PQclear(res);
    if (!t)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *tables = t;
    *n = (size_t)nr;
    return FL_OK;
}

/* The relation as pgoutput would describe it; quals is "nsp.rel" quoted. */
static fl_status describe(pgcdc_snapshot *s, const char *quals, pgcdc_rel *rel, bool *partitioned,
                          fl_error *err)
{
    char *lit = PQescapeLiteral(s->conn, quals, strlen(quals));
    if (!lit)
        return pgcdc_pq_error(s->conn, NULL, "table name", err);
    fl_buf sql;
    fl_buf_init(&sql, 0);
    fl_status rc = fl_buf_appendf(
        &sql, err,
        "SELECT c.oid, n.nspname, c.relname, c.relreplident, a.attname, a.atttypid, "
        "a.atttypmod, (c.relreplident = 'f' OR coalesce(a.attnum = ANY(i.indkey), false)), "
        "c.relkind = 'p' "
        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
        "AND a.attgenerated = '' "
        "LEFT JOIN pg_index i ON i.indrelid = c.oid AND ((c.relreplident = 'd' AND "
        "i.indisprimary) OR (c.relreplident = 'i' AND i.indisreplident)) "
        "WHERE c.oid = %s::regclass ORDER BY a.attnum",
        lit);
    PQfreemem(lit);
    PGresult *res = NULL;
    if (rc == FL_OK)
        rc = pgcdc_pq_exec(s->conn, sql.data, PGRES_TUPLES_OK, &res, err);
    fl_buf_free(&sql);
    if (rc != FL_OK)
        return rc;
    int nr = PQntuples(res);
    if (nr == 0 || nr > PGCDC_MAX_COLUMNS) {
        PQclear(res);
        return fl_errorf(err, FL_EUNSUPPORTED, "table %s: %d columns", quals, nr);
    }
    fl_arena *a = &s->rel;
    memset(rel, 0, sizeof *rel);
    rel->oid = (uint32_t)strtoul(PQgetvalue(res, 0, 0), NULL, 10);
    rel->nspname = fl_arena_strdup(a, PQgetvalue(res, 0, 1));
    rel->relname = fl_arena_strdup(a, PQgetvalue(res, 0, 2));
    rel->replident = PQgetvalue(res, 0, 3)[0];
    *partitioned = PQgetvalue(res, 0, 8)[0] == 't';
    rel->ncols = (uint16_t)nr;
    rel->version = 1;
    rel->cols = fl_arena_calloc(a, (size_t)nr, sizeof *rel->cols);
    for (int i = 0; rel->cols && i < nr; i++) {
        pgcdc_column *c = &rel->cols[i];
        c->name = fl_arena_strdup(a, PQgetvalue(res, i, 4));
        c->type_oid = (uint32_t)strtoul(PQgetvalue(res, i, 5), NULL, 10);
        c->typmod = (int32_t)strtol(PQgetvalue(res, i, 6), NULL, 10);
        c->key = PQgetvalue(res, i, 7)[0] == 't';
        pgcdc_type_for(c->type_oid, c->typmod, &c->type, &c->exact);
        if (!c->name)
            rel->cols = NULL;
    }
    PQclear(res);
    if (!rel->cols || !rel->nspname || !rel->relname)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return FL_OK;
}

static fl_status append_ident(PGconn *c, fl_buf *b, const char *sep, const char *name,
                              fl_error *err)
{
    char *q = PQescapeIdentifier(c, name, strlen(name));
    if (!q)
        return pgcdc_pq_error(c, NULL, "identifier", err);
    fl_status rc = fl_buf_appendf(b, err, "%s%s", sep, q);
    PQfreemem(q);
    return rc;
}

/* The select list of rel's columns, quoted. */
static fl_status quote_cols(PGconn *c, const pgcdc_rel *rel, fl_buf *cols, fl_error *err)
{
    for (uint16_t i = 0; i < rel->ncols; i++)
        FL_TRY(append_ident(c, cols, i ? ", " : "", rel->cols[i].name, err));
    return FL_OK;
}

/* One FETCH batch: one on_change per row. *done when the cursor is empty. */
static fl_status fetch_batch(pgcdc_snapshot *s, const pgcdc_rel *rel, const pgcdc_callbacks *cb,
                             pgcdc_datum *cols, bool *done, fl_error *err)
{
    PGresult *res;
    char sql[64];
    snprintf(sql, sizeof sql, "FETCH %d FROM floe_cdc_snapshot", FETCH_ROWS);
    FL_TRY(pgcdc_pq_exec(s->conn, sql, PGRES_TUPLES_OK, &res, err));
    int nr = PQntuples(res);
    fl_status rc = FL_OK;
    if (PQnfields(res) != rel->ncols)
        rc = fl_errorf(err, FL_ECORRUPT, "snapshot of %s.%s: %d columns, expected %u", rel->nspname,
                       rel->relname, PQnfields(res), rel->ncols);
    pgcdc_tuple t = {rel->ncols, cols};
    pgcdc_change c = {PGCDC_INSERT, 0, rel, 0, NULL, &t, 0};
    for (int i = 0; rc == FL_OK && i < nr; i++) {
        for (uint16_t j = 0; j < rel->ncols; j++) {
            bool null = PQgetisnull(res, i, j);
            cols[j].kind = null ? PGCDC_NULL : PGCDC_TEXT;
            cols[j].data = null ? NULL : (const uint8_t *)PQgetvalue(res, i, j);
            cols[j].len = null ? 0 : (uint32_t)PQgetlength(res, i, j);
        }
        if (cb->on_change)
            rc = cb->on_change(cb->ctx, &c, err);
    }
    PQclear(res);
    *done = nr < FETCH_ROWS;
    return rc;
}

fl_status pgcdc_snapshot_read(pgcdc_snapshot *s, const char *nspname, const char *relname,
                              const pgcdc_callbacks *cb, fl_error *err)
{
    fl_buf quals, cols, sql;
    fl_buf_init(&quals, 0);
    fl_buf_init(&cols, 0);
    fl_buf_init(&sql, 0);
    pgcdc_rel rel;
    bool partitioned = false;
    pgcdc_datum *datums = NULL;
    fl_arena_reset(&s->rel);
    fl_status rc = append_ident(s->conn, &quals, "", nspname, err);
    if (rc == FL_OK)
        rc = append_ident(s->conn, &quals, ".", relname, err);
    if (rc == FL_OK)
        rc = describe(s, quals.data, &rel, &partitioned, err);
    if (rc == FL_OK)
        rc = quote_cols(s->conn, &rel, &cols, err);
    if (rc == FL_OK)
        rc = fl_buf_appendf(&sql, err,
                            "DECLARE floe_cdc_snapshot NO SCROLL CURSOR FOR SELECT %s "
                            "FROM %s%s",
                            cols.data, partitioned ? "" : "ONLY ", quals.data);
    if (rc == FL_OK)
        rc = pgcdc_pq_exec(s->conn, sql.data, PGRES_COMMAND_OK, NULL, err);
    if (rc == FL_OK && cb->on_relation)
        rc = cb->on_relation(cb->ctx, &rel, NULL, err);
    if (rc == FL_OK && !(datums = calloc(rel.ncols, sizeof *datums)))
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    for (bool done = false; rc == FL_OK && !done;)
        rc = fetch_batch(s, &rel, cb, datums, &done, err);
    free(datums);
    fl_buf_free(&quals);
    fl_buf_free(&cols);
    fl_buf_free(&sql);
    if (rc != FL_OK)
        return fl_error_prefix(err, "snapshot of %s.%s", nspname, relname);
    return pgcdc_pq_exec(s->conn, "CLOSE floe_cdc_snapshot", PGRES_COMMAND_OK, NULL, err);
}

void pgcdc_snapshot_close(pgcdc_snapshot *s)
{
    if (!s)
        return;
    if (s->conn) {
        PGresult *r = PQexec(s->conn, "COMMIT");
        PQclear(r);
        PQfinish(s->conn);
    }
    fl_arena_free(&s->tables);
    fl_arena_free(&s->rel);
    free(s);
}
