/*
 * pg_target.c - a source table of the Postgres CDC pipeline and its Iceberg
 * table (pg_target.h): binding relations to the table's columns, folding
 * changes per key, and committing them as equality deletes + final rows.
 *
 * Folding (pgt_change), per key K of the change:
 *   INSERT K       K's row; was_absent when K had no entry yet (a primary
 *                  key insert proves no older row exists: no delete needed)
 *   UPDATE K       K's new row; an unchanged TOASTed column takes the value
 *                  of K's buffered row, else of the old tuple (replica
 *                  identity full), else the change cannot be applied: the
 *                  error says so rather than writing a wrong value
 *   UPDATE K'->K   (key changed) K' deleted, then K's new row
 *   DELETE K       K deleted
 * At the commit every entry that was not was_absent becomes an equality
 * delete of its key, and every live entry one row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ice_scan.h"
#include "floe/ice_table.h"
#include "ingest/ingest_int.h"
#include "ingest/pg_target.h"

#define PGT_BATCH_ROWS 4096

pg_target *pgt_new(const fl_namespace *ns, const char *nsp, const char *rel)
{
    pg_target *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    fl_arena_init(&t->arena, 0);
    fl_arena_init(&t->bind_arena, 0);
    fl_arena_init(&t->scratch, 0);
    fl_arena_init(&t->key_arena, 0);
    fl_buf_init(&t->key, 0);
    pgch_init(&t->changes, 0);
    t->nsp = strdup(nsp);
    t->rel = strdup(rel);
    t->id.ns = *ns;
    t->id.name = strcmp(nsp, "public") ? fl_arena_sprintf(&t->arena, "%s_%s", nsp, rel)
                                       : fl_arena_strdup(&t->arena, rel);
    if (!t->nsp || !t->rel || !t->id.name) {
        pgt_free(t);
        return NULL;
    }
    return t;
}

void pgt_free(pg_target *t)
{
    if (!t)
        return;
    fl_ingest_sink_close(t->sink);
    if (t->rows_schema)
        fl_batch_destroy(&t->rows);
    pgch_free(&t->changes);
    fl_buf_free(&t->key);
    fl_arena_free(&t->bind_arena);
    fl_arena_free(&t->scratch);
    fl_arena_free(&t->key_arena);
    fl_arena_free(&t->arena);
    free(t->nsp);
    free(t->rel);
    free(t);
}

fl_status pgt_open(pg_target *t, const pgt_config *cfg, bool *exists, fl_error *err)
{
    *exists = false;
    fl_error e2 = {0};
    fl_status rc = fl_ingest_sink_open(cfg->cat, &t->id, cfg->pipeline, &cfg->sink, &t->sink, &e2);
    if (rc == FL_ENOTFOUND)
        return FL_OK;
    if (rc != FL_OK) {
        *err = e2;
        return rc;
    }
    *exists = true;
    const char *p = fl_ingest_sink_position(t->sink, cfg->slot_key);
    t->has_pos = p && pgcdc_lsn_parse(p, &t->pos);
    return FL_OK;
}

/* ---- creating the table and binding a relation ---- */

static fl_status create_table(pg_target *t, const pgt_config *cfg, const pgcdc_rel *rel,
                              fl_error *err)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_field *f = fl_arena_calloc(&a, rel->ncols ? rel->ncols : 1, sizeof *f);
    const char **ids = fl_arena_calloc(&a, rel->ncols ? rel->ncols : 1, sizeof *ids);
    fl_status rc = f && ids ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t nids = 0;
    bool keyed = rel->replident == 'd' || rel->replident == 'i';
    for (uint32_t i = 0; rc == FL_OK && i < rel->ncols; i++) {
        const pgcdc_column *c = &rel->cols[i];
        f[i] = (fl_field){.name = c->name, .field_id = (int32_t)i + 1, .type = c->type};
        f[i].nullable = !(keyed && c->key);
        if (keyed && c->key)
            ids[nids++] = c->name;
    }
    fl_schema s = {.nfields = rel->ncols, .fields = f};
    fl_ice_create_options o = {.schema = &s, .identifier_fields = ids, .nidentifier_fields = nids};
    fl_ice_table *tab = NULL;
    if (rc == FL_OK)
        rc = fl_ice_table_create(cfg->cat, &t->id, &o, &tab, err);
    fl_ice_table_free(tab);
    fl_arena_free(&a);
    if (rc == FL_EEXIST)
        rc = FL_OK; /* created concurrently: bind to it */
    if (rc != FL_OK)
        return fl_error_prefix(err, "creating table %s for %s.%s", t->id.name, t->nsp, t->rel);
    bool exists;
    FL_TRY(pgt_open(t, cfg, &exists, err));
    return exists
               ? FL_OK
               : fl_errorf(err, FL_ENOTFOUND, "table %s vanished after its creation", t->id.name);
}

static int src_column(const pgcdc_rel *rel, const char *name)
{
    for (uint32_t i = 0; i < rel->ncols; i++)
        if (!strcmp(rel->cols[i].name, name))
            return (int)i;
    return -1;
}

/* The key: the table's identifier fields, which must be the relation's key columns. */
static fl_status bind_keys(pg_target *t, const pgcdc_rel *rel, const fl_ice_schema *is,
                           fl_error *err)
{
    uint32_t nrelkeys = 0;
    for (uint32_t i = 0; i < rel->ncols; i++)
        nrelkeys += rel->cols[i].key;
    t->keyed = is->nidentifier > 0;
    t->nkeys = 0;
    if (!t->keyed)
        return FL_OK; /* inserts only; an update or delete is refused when it comes */
    if (rel->replident == 'f')
        return fl_errorf(err, FL_EINVAL,
                         "%s.%s: REPLICA IDENTITY FULL is not supported (floe matches rows by the "
                         "primary key: use REPLICA IDENTITY DEFAULT or USING INDEX)",
                         t->nsp, t->rel);
    t->keys = fl_arena_alloc(&t->bind_arena, is->nidentifier * sizeof *t->keys);
    t->key_tcol = fl_arena_alloc(&t->bind_arena, is->nidentifier * sizeof *t->key_tcol);
    if (!t->keys || !t->key_tcol)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t k = 0; k < is->nidentifier; k++) {
        const fl_field *f = NULL;
        for (uint32_t c = 0; c < is->schema.nfields && !f; c++)
            if (is->schema.fields[c].field_id == is->identifier_field_ids[k]) {
                f = &is->schema.fields[c];
                t->key_tcol[k] = c;
            }
        int s = f ? src_column(rel, f->name) : -1;
        if (s < 0 || !rel->cols[s].key)
            return fl_errorf(err, FL_EINVAL,
                             "%s.%s: the table's identifier field '%s' is not part of the "
                             "source's replica identity (its primary key)",
                             t->nsp, t->rel, f ? f->name : "?");
        t->keys[t->nkeys++] = (uint32_t)s;
    }
    if (nrelkeys != t->nkeys)
        return fl_errorf(err, FL_EINVAL,
                         "%s.%s: the source's key has %u columns, the table's identifier fields %u",
                         t->nsp, t->rel, nrelkeys, t->nkeys);
    return FL_OK;
}

/* The source's type is a promotion of the table's (Iceberg's allowed ones). */
static bool promotable(const fl_type *from, const fl_type *to)
{
    if (from->id == FL_TYPE_INT32 && to->id == FL_TYPE_INT64)
        return true;
    if (from->id == FL_TYPE_FLOAT32 && to->id == FL_TYPE_FLOAT64)
        return true;
    return from->id == FL_TYPE_DECIMAL && to->id == FL_TYPE_DECIMAL && from->scale == to->scale &&
           to->precision > from->precision;
}

/* ALTER TABLE in the source: its new columns are added to the table (at the
 * end, optional) and widened types promoted, in one commit of their own. */
static fl_status evolve_for(pg_target *t, const pgcdc_rel *rel, fl_error *err)
{
    const fl_schema *s = fl_ingest_sink_schema(t->sink);
    fl_field *add = fl_arena_calloc(&t->bind_arena, rel->ncols + 1u, sizeof *add);
    fl_field *prom = fl_arena_calloc(&t->bind_arena, rel->ncols + 1u, sizeof *prom);
    if (!add || !prom)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_ingest_evolution ev = {.add = add, .promote = prom};
    for (uint32_t i = 0; i < rel->ncols; i++) {
        const pgcdc_column *c = &rel->cols[i];
        uint32_t k = 0;
        while (k < s->nfields && strcmp(s->fields[k].name, c->name))
            k++;
        if (k == s->nfields)
            add[ev.nadd++] = (fl_field){.name = c->name, .nullable = true, .type = c->type};
        else if (!fl_type_equal(&s->fields[k].type, &c->type) &&
                 promotable(&s->fields[k].type, &c->type))
            prom[ev.npromote++] = (fl_field){.name = c->name, .type = c->type};
    }
    if (!ev.nadd && !ev.npromote)
        return FL_OK;
    fl_status rc = fl_ingest_sink_evolve(t->sink, &ev, err);
    return rc == FL_OK ? FL_OK : fl_error_prefix(err, "%s.%s", t->nsp, t->rel);
}

/* Rows buffered before columns were added get NULL for them. */
static fl_status widen_changes(pg_target *t, fl_error *err)
{
    uint32_t old = t->changes.ncols;
    for (uint32_t i = 0; i < t->changes.n; i++) {
        pgch_entry *e = &t->changes.v[i];
        if (!e->row)
            continue;
        pgcdc_datum *row = fl_arena_alloc(&t->changes.arena, t->ncols * sizeof *row);
        if (!row)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        memcpy(row, e->row, old * sizeof *row);
        for (uint32_t c = old; c < t->ncols; c++)
            row[c] = (pgcdc_datum){.kind = PGCDC_NULL};
        e->row = row;
    }
    t->changes.ncols = t->ncols;
    return FL_OK;
}

fl_status pgt_bind(pg_target *t, const pgt_config *cfg, const pgcdc_rel *rel, fl_error *err)
{
    fl_arena_reset(&t->bind_arena);
    if (!t->sink)
        FL_TRY(create_table(t, cfg, rel, err));
    else
        FL_TRY(evolve_for(t, rel, err));
    const fl_schema *s = fl_ingest_sink_schema(t->sink);
    const fl_ice_schema *is = fl_ingest_sink_ice_schema(t->sink);
    t->oid = rel->oid;
    t->ncols = s->nfields;
    t->tcols = fl_arena_calloc(&t->bind_arena, s->nfields ? s->nfields : 1, sizeof *t->tcols);
    t->src_of = fl_arena_alloc(&t->bind_arena, (s->nfields ? s->nfields : 1) * sizeof *t->src_of);
    if (!t->tcols || !t->src_of)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < rel->ncols; i++) {
        uint32_t c = 0;
        while (c < s->nfields && strcmp(s->fields[c].name, rel->cols[i].name))
            c++;
        if (c == s->nfields)
            return fl_errorf(err, FL_EINVAL,
                             "%s.%s: column '%s' is not in table %s (add it to the table, "
                             "then restart the pipeline)",
                             t->nsp, t->rel, rel->cols[i].name, t->id.name);
    }
    for (uint32_t c = 0; c < s->nfields; c++) {
        const fl_field *f = &s->fields[c];
        int i = src_column(rel, f->name);
        t->src_of[c] = i;
        if (i < 0) {
            if (!f->nullable)
                return fl_errorf(err, FL_EINVAL,
                                 "%s.%s: the table's required column '%s' is not in the source",
                                 t->nsp, t->rel, f->name);
            continue;
        }
        if (!fl_type_equal(&f->type, &rel->cols[i].type)) {
            char want[64], got[64];
            fl_type_format(&f->type, want, sizeof want);
            fl_type_format(&rel->cols[i].type, got, sizeof got);
            return fl_errorf(err, FL_EINVAL,
                             "%s.%s: column '%s' has type %s in table %s but maps to %s from the "
                             "source",
                             t->nsp, t->rel, f->name, want, t->id.name, got);
        }
        t->tcols[c] = rel->cols[i];
        t->tcols[c].name = fl_arena_strdup(&t->bind_arena, rel->cols[i].name);
        if (!t->tcols[c].name)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    FL_TRY(bind_keys(t, rel, is, err));
    if (t->changes.ncols > t->ncols)
        return fl_errorf(err, FL_EINVAL, "%s.%s: table %s lost columns while the pipeline ran",
                         t->nsp, t->rel, t->id.name);
    return t->changes.ncols < t->ncols ? widen_changes(t, err) : FL_OK;
}

/* ---- folding changes ---- */

/* The row of source tuple tup in table order; prev (a row in table order)
 * or old (a source tuple) supply unchanged TOAST values; those neither has
 * stay PGCDC_UNCHANGED (*unresolved) and are fetched from the table at the
 * commit (resolve_unchanged). */
static fl_status take_row_u(pg_target *t, const pgcdc_tuple *tup, const pgcdc_datum *prev,
                            const pgcdc_tuple *old, pgcdc_datum **out, bool *unresolved,
                            fl_error *err)
{
    pgcdc_datum *row = fl_arena_alloc(&t->changes.arena, (t->ncols ? t->ncols : 1) * sizeof *row);
    if (!row)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t c = 0; c < t->ncols; c++) {
        int s = t->src_of[c];
        pgcdc_datum d = {.kind = PGCDC_NULL};
        if (s >= 0)
            d = tup->cols[s];
        if (d.kind == PGCDC_UNCHANGED) {
            if (prev)
                d = prev[c]; /* a value, or still unresolved */
            else if (old && old->cols[s].kind != PGCDC_UNCHANGED)
                d = old->cols[s];
        }
        *unresolved = *unresolved || d.kind == PGCDC_UNCHANGED; /* fetched at the commit */
        FL_TRY(pgch_copy_datum(&t->changes, &d, &row[c], err));
    }
    *out = row;
    return FL_OK;
}

static fl_status take_row(pg_target *t, const pgcdc_tuple *tup, const pgcdc_datum *prev,
                          const pgcdc_tuple *old, pgcdc_datum **out, fl_error *err)
{
    bool dummy = false;
    return take_row_u(t, tup, prev, old, out, &dummy, err);
}

/* Appends value v to a key: a null mark, or the value's bytes (strings
 * with their length), so distinct keys never encode alike. */
static fl_status encode_value(fl_buf *b, const fl_type *type, const fl_value *v, fl_error *err)
{
    FL_TRY(fl_buf_putc(b, v->is_null ? 'n' : 'v', err));
    if (v->is_null)
        return FL_OK;
    switch (type->id) {
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY:
    case FL_TYPE_FIXED:
    case FL_TYPE_UUID: {
        uint32_t n = (uint32_t)v->v.bytes.len;
        FL_TRY(fl_buf_append(b, &n, sizeof n, err));
        return fl_buf_append(b, v->v.bytes.ptr, n, err);
    }
    case FL_TYPE_BOOLEAN: return fl_buf_putc(b, v->v.b ? 1 : 0, err);
    default: return fl_buf_append(b, &v->v, fl_type_width(type), err);
    }
}

/* The key of source tuple tup, typed (the table's rows encode the same way). */
static fl_status tuple_key(pg_target *t, const pgcdc_tuple *tup, fl_error *err)
{
    fl_buf_reset(&t->key);
    fl_arena_reset(&t->key_arena);
    for (uint32_t k = 0; k < t->nkeys; k++) {
        const pgcdc_column *col = &t->tcols[t->key_tcol[k]];
        fl_value v;
        fl_status rc = pgcdc_datum_value(col, &tup->cols[t->keys[k]], &t->key_arena, &v, err);
        if (rc != FL_OK)
            return fl_error_prefix(err, "%s.%s: key", t->nsp, t->rel);
        FL_TRY(encode_value(&t->key, &col->type, &v, err));
    }
    return FL_OK;
}

static fl_status entry_for(pg_target *t, const pgcdc_tuple *tup, pgch_entry **e, bool *created,
                           fl_error *err)
{
    if (t->keyed)
        FL_TRY(tuple_key(t, tup, err));
    else {
        fl_buf_reset(&t->key);
        FL_TRY(fl_buf_append(&t->key, &t->serial, sizeof t->serial, err));
        t->serial++;
    }
    return pgch_get(&t->changes, (const uint8_t *)t->key.data, (uint32_t)t->key.len, e, created,
                    err);
}

fl_status pgt_change(pg_target *t, const pgcdc_change *c, fl_error *err)
{
    pgch_entry *e = NULL;
    bool created = false;
    t->changes.changes++;
    if (c->kind != PGCDC_INSERT && !t->keyed)
        return fl_errorf(err, FL_EINVAL,
                         "%s.%s: an %s, but table %s has no identifier fields to match rows by",
                         t->nsp, t->rel, c->kind == PGCDC_UPDATE ? "UPDATE" : "DELETE", t->id.name);
    if (c->kind == PGCDC_INSERT) {
        FL_TRY(entry_for(t, c->new_tuple, &e, &created, err));
        e->was_absent = created;
        e->live = true;
        e->unresolved = false;
        return take_row(t, c->new_tuple, NULL, NULL, &e->row, err);
    }
    /* DELETE, or an UPDATE that changed the key: the old key goes. Kept as
     * an index: the new key's pgch_get may move the entries. */
    const pgcdc_tuple *old = c->old_tuple;
    uint32_t gone = UINT32_MAX;
    if (old) {
        FL_TRY(entry_for(t, old, &e, &created, err));
        gone = (uint32_t)(e - t->changes.v);
    }
    if (c->kind == PGCDC_DELETE) {
        if (!old)
            return fl_errorf(err, FL_ECORRUPT, "%s.%s: a DELETE without its key", t->nsp, t->rel);
        e->live = false;
        e->unresolved = false;
        return take_row(t, old, NULL, NULL, &e->row, err); /* the key's columns, others NULL */
    }
    FL_TRY(entry_for(t, c->new_tuple, &e, &created, err));
    pgch_entry *g = gone != UINT32_MAX ? &t->changes.v[gone] : NULL;
    const pgcdc_datum *from = e->live ? e->row : g && g->live ? g->row : NULL;
    pgcdc_datum *row = NULL;
    bool unresolved = false;
    FL_TRY(
        take_row_u(t, c->new_tuple, from, c->old_kind == 'O' ? old : NULL, &row, &unresolved, err));
    if (g && g != e) {
        g->live = false;
        g->unresolved = false;
        FL_TRY(take_row(t, old, NULL, NULL, &g->row, err));
    }
    e->live = true;
    e->row = row;
    e->unresolved = unresolved;
    return FL_OK;
}

void pgt_truncate(pg_target *t)
{
    pgch_reset(&t->changes);
    t->truncated = true;
}

/* ---- writing ---- */

static fl_status append_value(fl_vector *v, const fl_value *x, fl_error *err)
{
    if (x->is_null)
        return fl_vector_append_null(v, err);
    switch (v->type->id) {
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: return fl_vector_append_bytes(v, x->v.bytes.ptr, x->v.bytes.len, err);
    case FL_TYPE_FIXED:
    case FL_TYPE_UUID: return fl_vector_append_fixed(v, x->v.bytes.ptr, err);
    case FL_TYPE_BOOLEAN: {
        uint8_t b = x->v.b;
        return fl_vector_append_fixed(v, &b, err);
    }
    default: return fl_vector_append_fixed(v, &x->v, err);
    }
}

static fl_status rows_ready(pg_target *t, fl_error *err)
{
    const fl_schema *s = fl_ingest_sink_schema(t->sink);
    if (t->rows_schema == s)
        return FL_OK;
    if (t->rows_schema)
        fl_batch_destroy(&t->rows);
    t->rows_schema = NULL;
    FL_TRY(fl_batch_init(&t->rows, s, err));
    t->rows_schema = s;
    return FL_OK;
}

/* One row in table order; key_only leaves the other columns NULL. */
static fl_status add_row(pg_target *t, const pgcdc_datum *row, bool key_only, fl_arena *scratch,
                         fl_error *err)
{
    for (uint32_t c = 0; c < t->ncols; c++) {
        fl_value v = {.is_null = true};
        bool want = !key_only;
        for (uint32_t k = 0; key_only && k < t->nkeys; k++)
            want = want || t->src_of[c] == (int32_t)t->keys[k];
        if (want && row[c].kind == PGCH_VALUE) {
            v = *(const fl_value *)row[c].data;
        } else if (want && row[c].kind != PGCDC_NULL) {
            fl_status rc = pgcdc_datum_value(&t->tcols[c], &row[c], scratch, &v, err);
            if (rc != FL_OK)
                return fl_error_prefix(err, "%s.%s", t->nsp, t->rel);
        }
        FL_TRY(append_value(&t->rows.cols[c], &v, err));
    }
    t->rows.nrows++;
    return FL_OK;
}

static fl_status flush_rows(pg_target *t, bool deletes, fl_arena *scratch, fl_error *err)
{
    if (!t->rows.nrows)
        return FL_OK;
    fl_status rc = deletes ? fl_ingest_sink_delete(t->sink, &t->rows, err)
                           : fl_ingest_sink_write(t->sink, &t->rows, err);
    fl_batch_reset(&t->rows);
    fl_arena_reset(scratch);
    return rc;
}

fl_status pgt_snapshot_row(pg_target *t, const pgcdc_tuple *row, fl_error *err)
{
    FL_TRY(rows_ready(t, err));
    /* converted at once: the datums need no copy */
    pgcdc_datum *r = fl_arena_alloc(&t->scratch, (t->ncols ? t->ncols : 1) * sizeof *r);
    if (!r)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t c = 0; c < t->ncols; c++)
        r[c] = t->src_of[c] >= 0 ? row->cols[t->src_of[c]] : (pgcdc_datum){.kind = PGCDC_NULL};
    FL_TRY(add_row(t, r, false, &t->scratch, err));
    if (t->rows.nrows >= PGT_BATCH_ROWS)
        return flush_rows(t, false, &t->scratch, err);
    return FL_OK;
}

bool pgt_pending(const pg_target *t)
{
    return t->changes.n || t->truncated || t->rows.nrows ||
           (t->sink && fl_ingest_sink_pending_rows(t->sink));
}

uint64_t pgt_pending_changes(const pg_target *t)
{
    return t->changes.changes + (t->sink ? fl_ingest_sink_pending_rows(t->sink) : 0);
}

/* ---- unchanged TOAST values: fetched from the table ---- */

/* Row r of v as a value (bytes copied into a). */
static fl_status vector_value(const fl_vector *v, uint32_t r, fl_arena *a, fl_value *out,
                              fl_error *err)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    memset(out, 0, sizeof *out);
    out->type = *v->type;
    if (!fl_unified_is_valid(&u, r)) {
        out->is_null = true;
        return FL_OK;
    }
    uint32_t br = fl_unified_row(&u, r);
    const fl_vector *b = u.base;
    size_t w = fl_type_width(v->type), n = w;
    const uint8_t *p = NULL;
    switch (v->type->id) {
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: p = fl_vector_bytes(b, br, &n); break;
    case FL_TYPE_FIXED:
    case FL_TYPE_UUID: p = b->data + (size_t)br * w; break;
    case FL_TYPE_BOOLEAN: out->v.b = b->data[br] != 0; return FL_OK;
    default: memcpy(&out->v, b->data + (size_t)br * w, w); return FL_OK;
    }
    uint8_t *c = fl_arena_alloc(a, n ? n : 1);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (n)
        memcpy(c, p, n);
    out->v.bytes.ptr = c;
    out->v.bytes.len = n;
    return FL_OK;
}

/* The key of row r of a batch in table order. */
static fl_status batch_key(pg_target *t, const fl_batch *b, uint32_t r, fl_error *err)
{
    fl_buf_reset(&t->key);
    fl_arena_reset(&t->key_arena);
    for (uint32_t k = 0; k < t->nkeys; k++) {
        fl_value v;
        const fl_vector *col = &b->cols[t->key_tcol[k]];
        FL_TRY(vector_value(col, r, &t->key_arena, &v, err));
        FL_TRY(encode_value(&t->key, col->type, &v, err));
    }
    return FL_OK;
}

/* Fills the unchanged columns of entry e from row r of the table's batch b. */
static fl_status fill_unchanged(pg_target *t, pgch_entry *e, const fl_batch *b, uint32_t r,
                                fl_error *err)
{
    for (uint32_t c = 0; c < t->ncols; c++) {
        if (e->row[c].kind != PGCDC_UNCHANGED)
            continue;
        fl_value *v = fl_arena_alloc(&t->changes.arena, sizeof *v);
        if (!v)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(vector_value(&b->cols[c], r, &t->changes.arena, v, err));
        e->row[c] = (pgcdc_datum){.kind = PGCH_VALUE, .data = (const uint8_t *)v};
    }
    e->unresolved = false;
    return FL_OK;
}

/* Updates that left a TOASTed column unchanged (PostgreSQL does not send
 * it) and whose row was not seen earlier in this checkpoint take the value
 * from the row the table holds: one scan of the table, matching keys. */
static fl_status resolve_unchanged(pg_target *t, fl_error *err)
{
    uint32_t left = 0;
    for (uint32_t i = 0; i < t->changes.n; i++)
        left += t->changes.v[i].live && t->changes.v[i].unresolved;
    if (!left)
        return FL_OK;
    const fl_ice_table *tab = fl_ingest_sink_table(t->sink);
    fl_ice_scan_options o = {0};
    fl_ice_scan *sc = NULL;
    FL_TRY(fl_ice_scan_open(tab->io, &tab->meta, &o, &sc, err));
    fl_batch b;
    fl_status rc = fl_batch_init(&b, fl_ice_scan_schema(sc), err);
    bool eof = rc != FL_OK;
    if (rc == FL_OK && b.ncols != t->ncols)
        rc = fl_errorf(err, FL_EINVAL, "table %s changed its columns", t->id.name);
    while (rc == FL_OK && left && !eof) {
        rc = fl_ice_scan_next(sc, &b, &eof, err);
        uint32_t live = rc == FL_OK ? fl_batch_live_rows(&b) : 0;
        for (uint32_t i = 0; rc == FL_OK && i < live && left; i++) {
            uint32_t r = b.sel ? b.sel->idx[i] : i;
            rc = batch_key(t, &b, r, err);
            pgch_entry *e = rc == FL_OK ? pgch_find(&t->changes, (const uint8_t *)t->key.data,
                                                    (uint32_t)t->key.len)
                                        : NULL;
            if (e && e->live && e->unresolved) {
                rc = fill_unchanged(t, e, &b, r, err);
                left--;
            }
        }
    }
    if (rc == FL_OK || b.schema)
        fl_batch_destroy(&b);
    fl_ice_scan_close(sc);
    if (rc == FL_OK && left)
        rc = fl_errorf(err, FL_ECORRUPT,
                       "%s.%s: %u updated row%s left a TOASTed value unchanged, and table %s "
                       "holds no such row to take it from",
                       t->nsp, t->rel, left, left == 1 ? "" : "s", t->id.name);
    return rc;
}

/* The map as equality deletes (pass 0: keys that may have older rows) and
 * rows (pass 1: the live final states). */
static fl_status write_changes(pg_target *t, uint64_t *rows, fl_error *err)
{
    fl_status rc = FL_OK;
    for (int pass = 0; pass < 2 && rc == FL_OK; pass++) {
        for (uint32_t i = 0; i < t->changes.n && rc == FL_OK; i++) {
            const pgch_entry *e = &t->changes.v[i];
            if (pass == 0 ? t->truncated || e->was_absent : !e->live)
                continue;
            rc = add_row(t, e->row, pass == 0, &t->scratch, err);
            if (rc == FL_OK && pass == 1)
                (*rows)++;
            if (rc == FL_OK && t->rows.nrows >= PGT_BATCH_ROWS)
                rc = flush_rows(t, pass == 0, &t->scratch, err);
        }
        if (rc == FL_OK)
            rc = flush_rows(t, pass == 0, &t->scratch, err);
    }
    return rc;
}

fl_status pgt_commit(pg_target *t, const pgt_config *cfg, pgcdc_lsn lsn, uint64_t *rows,
                     fl_error *err)
{
    *rows = 0;
    FL_TRY(rows_ready(t, err));
    if (t->truncated)
        FL_TRY(fl_ingest_sink_truncate(t->sink, err));
    FL_TRY(flush_rows(t, false, &t->scratch, err)); /* snapshot rows left over */
    if (!t->truncated)
        FL_TRY(resolve_unchanged(t, err));
    FL_TRY(write_changes(t, rows, err));
    char pos[24];
    FL_TRY(fl_ingest_sink_set_position(t->sink, cfg->slot_key, pgcdc_lsn_format(lsn, pos), err));
    fl_ingest_commit ci;
    FL_TRY(fl_ingest_sink_checkpoint(t->sink, &ci, err));
    if (ci.committed)
        *rows = ci.rows;
    t->pos = lsn;
    t->has_pos = true;
    t->truncated = false;
    pgch_reset(&t->changes);
    return FL_OK;
}
