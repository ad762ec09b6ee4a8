/*
 * stmt_plan.c - what DML does with plans (stmt_int.h): a casting PROJECT
 * that turns a query's columns into the table's column types, running a
 * plan batch by batch, handing batches to the Iceberg data writer,
 * collecting the row ids (_file, _pos) of the rows a DELETE/UPDATE/MERGE
 * touches, and committing.
 *
 * Casts follow PostgreSQL's assignment rule loosely: whatever an explicit
 * CAST allows (fl_cast_allowed(..., implicit=false)) is applied, the rest
 * is an error naming the column and both types (SQLSTATE 42804). Values
 * that do not convert ('abc' into an integer) fail at run time with the
 * cast's own message.
 *
 * Row ids: a hash table (open addressing, xxh3 of the path) maps each data
 * file path to a malloc'd array of positions; finishing sorts each array
 * and drops duplicate positions, reporting whether there were any (UPDATE
 * ... FROM and MERGE refuse to change a row twice).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "sql/func.h"
#include "sql/stmt/stmt_int.h"

/* ---- casting projection ---- */

static fl_status type_mismatch(fl_stmt_ctx *c, const char *name, const fl_type *want,
                               const fl_type *have, fl_error *err)
{
    char w[256], h[256]; /* nested types in full: struct<a integer, ...> */
    stmt_type_text(want, w, sizeof w);
    stmt_type_text(have, h, sizeof h);
    return fl_error_state(err, FL_ETYPE, "42804",
                          "column \"%s\" is of type %s but expression is of type %s", name, w, h);
}

/* Whether column col of a VALUES child is NULL in every row, or a SELECT's
 * is the constant NULL: a bare NULL is typed text there, yet it fits a
 * column of any type (a struct or map column takes INSERT ... VALUES (1,
 * NULL) and INSERT ... SELECT 1, NULL). */
static bool values_column_all_null(const fl_plan *child, uint32_t col)
{
    if (child->kind == FL_PLAN_PROJECT && col < child->schema.nfields) { /* SELECT 1, NULL */
        const fl_expr *e = child->u.project.exprs[col];
        return e && e->kind == FL_EXPR_CONST && e->value.is_null;
    }
    if (child->kind != FL_PLAN_VALUES || child->u.values.nrows == 0)
        return false;
    for (uint32_t r = 0; r < child->u.values.nrows; r++) {
        const fl_expr *e = child->u.values.rows[r][col];
        if (!e || e->kind != FL_EXPR_CONST || !e->value.is_null)
            return false;
    }
    return true;
}

/* A NULL constant of type t (nested types keep their children on the node). */
static fl_status typed_null(fl_arena *a, const fl_type *t, fl_expr **out, fl_error *err)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type = *t;
    v.type.nchildren = 0;
    v.type.children = NULL;
    v.is_null = true;
    fl_expr *e = fl_type_is_nested(t) ? fl_expr_new(a, FL_EXPR_CONST, t, 0) : fl_expr_const(a, &v);
    if (!e)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    e->value = v;
    *out = e;
    return FL_OK;
}

fl_status stmt_project_cast(fl_stmt_ctx *c, fl_plan *child, const int32_t *src,
                            const fl_type *types, const char *const *names, const bool *required,
                            const fl_value *defaults, uint32_t n, fl_plan **out, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    fl_plan *p = fl_plan_new(a, FL_PLAN_PROJECT, 1, n);
    fl_expr **ex = fl_arena_calloc(a, n + 1, sizeof *ex);
    if (!p || !ex)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (!p->schema.fields || p->schema.nfields != n) {
        p->schema.fields = fl_arena_calloc(a, n + 1, sizeof *p->schema.fields);
        if (!p->schema.fields)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        p->schema.nfields = n;
    }
    if (!p->children || p->nchildren != 1) {
        p->children = fl_arena_calloc(a, 1, sizeof *p->children);
        if (!p->children)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        p->nchildren = 1;
    }
    p->children[0] = child;
    p->est_rows = child->est_rows;
    for (uint32_t i = 0; i < n; i++) {
        fl_expr *e;
        if (src[i] < 0 && defaults && !defaults[i].is_null) {
            if (!(e = fl_expr_const(a, &defaults[i])))
                return fl_errorf(err, FL_ENOMEM, "out of memory");
        } else if (src[i] < 0) {
            if (required && required[i]) {
                return fl_error_state(err, FL_EINVAL, "23502",
                                      "null value in column \"%s\" violates not-null constraint "
                                      "(the column is required and has no value)",
                                      names[i]);
            }
            fl_value v;
            memset(&v, 0, sizeof v);
            v.type = types[i];
            v.type.nchildren = 0;
            v.type.children = NULL;
            v.is_null = true;
            if (fl_type_is_nested(&types[i])) {
                /* a NULL constant of a nested type (the value's type holds
                 * no children; the node's type does) */
                e = fl_expr_new(a, FL_EXPR_CONST, &types[i], 0);
                if (!e)
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                e->value = v;
            } else if (!(e = fl_expr_const(a, &v)))
                return fl_errorf(err, FL_ENOMEM, "out of memory");
        } else {
            if ((uint32_t)src[i] >= child->schema.nfields)
                return fl_errorf(err, FL_EINVAL, "internal: column %d of %u", src[i],
                                 child->schema.nfields);
            const fl_type *from = &child->schema.fields[src[i]].type;
            e = fl_expr_column(a, (uint32_t)src[i], from);
            if (!e)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            if (!fl_type_equal(from, &types[i])) {
                if (!fl_cast_allowed(from, &types[i], false) &&
                    values_column_all_null(child, (uint32_t)src[i])) {
                    FL_TRY(typed_null(a, &types[i], &ex[i], err)); /* VALUES (..., NULL) */
                    goto named;
                }
                if (!fl_cast_allowed(from, &types[i], false))
                    return type_mismatch(c, names[i], &types[i], from, err);
                fl_status rc = fl_expr_cast(a, e, &types[i], &e, err);
                if (rc != FL_OK)
                    return fl_error_prefix(err, "column \"%s\"", names[i]);
            }
        }
        ex[i] = e;
    named:;
        fl_field *f = &p->schema.fields[i];
        f->name = fl_arena_strdup(a, names[i]);
        f->type = types[i];
        f->nullable = !(required && required[i]);
        f->field_id = 0;
    }
    p->u.project.exprs = ex;
    *out = p;
    return FL_OK;
}

/* ---- running ---- */

fl_status stmt_run_plan(fl_stmt_ctx *c, fl_plan *plan, stmt_batch_fn fn, void *fctx,
                        fl_error *err)
{
    fl_exec_options dflt;
    memset(&dflt, 0, sizeof dflt);
    const fl_exec_options *o = c->exec ? c->exec : &dflt;
    fl_exec *x = NULL;
    FL_TRY(fl_exec_open(plan, o, &x, err));
    fl_status rc = FL_OK;
    for (;;) {
        const fl_batch *b = NULL;
        bool eof = false;
        rc = fl_exec_next(x, &b, &eof, err);
        if (rc != FL_OK || eof || !b)
            break;
        if (fl_batch_live_rows(b) == 0)
            continue;
        rc = fn(fctx, b, err);
        if (rc != FL_OK)
            break;
    }
    fl_exec_close(x);
    return rc;
}

/* ---- writing a plan's rows on every thread ---- */

typedef struct par_write {
    fl_ice_data_writers *set;
    uint32_t ncols;
    int64_t *rows; /* per thread */
} par_write;

static fl_status par_sink(void *vctx, uint32_t thread, const fl_batch *b, fl_error *err)
{
    par_write *pw = vctx;
    fl_batch view = *b;
    view.ncols = pw->ncols;
    uint32_t live = fl_batch_live_rows(b);
    if (!live)
        return FL_OK;
    FL_TRY(fl_ice_data_writers_write(pw->set, thread, &view, err));
    pw->rows[thread] += live;
    return FL_OK;
}

/* An ORDER BY at the top of the rows (under the casts) is kept in the
 * files: such a plan is written by one thread, in order. */
static bool keeps_order(const fl_plan *p)
{
    while (p && (p->kind == FL_PLAN_PROJECT || p->kind == FL_PLAN_FILTER) && p->nchildren == 1)
        p = p->children[0];
    return p && (p->kind == FL_PLAN_SORT ||
                 (p->kind == FL_PLAN_LIMIT && p->nchildren == 1 &&
                  p->children[0]->kind == FL_PLAN_SORT));
}

static fl_status serial_sink(void *vctx, const fl_batch *b, fl_error *err)
{
    return par_sink(vctx, 0, b, err);
}

fl_status stmt_write_plan(fl_stmt_ctx *c, fl_ice_txn *txn, fl_plan *plan, uint32_t ncols,
                          int64_t *rows, fl_ice_data_writers **set, fl_ice_data_file **files,
                          uint32_t *nfiles, fl_error *err)
{
    *set = NULL;
    *files = NULL;
    *nfiles = 0;
    fl_exec_options dflt;
    memset(&dflt, 0, sizeof dflt);
    const fl_exec_options *o = c->exec ? c->exec : &dflt;
    fl_exec *x = NULL; /* the parallel run's; a serial one goes through stmt_run_plan */
    bool serial = keeps_order(plan);
    if (!serial)
        FL_TRY(fl_exec_open(plan, o, &x, err));
    uint32_t n = serial ? 1 : fl_exec_threads(x);
    par_write pw = {NULL, ncols, calloc(n, sizeof(int64_t))};
    fl_status rc = pw.rows ? fl_ice_data_writers_open(txn, n, &pw.set, err)
                           : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK)
        rc = serial ? stmt_run_plan(c, plan, serial_sink, &pw, err)
                    : fl_exec_run_sink(x, par_sink, &pw, err);
    fl_exec_close(x);
    if (rc == FL_OK)
        rc = fl_ice_data_writers_close(pw.set, files, nfiles, err);
    for (uint32_t i = 0; pw.rows && i < n; i++)
        *rows += pw.rows[i];
    free(pw.rows);
    if (rc != FL_OK) {
        fl_ice_data_writers_free(pw.set);
        return rc;
    }
    *set = pw.set;
    return FL_OK;
}

fl_status stmt_write_batch(fl_ice_data_writer *w, const fl_batch *b, uint32_t ncols,
                           int64_t *rows, fl_error *err)
{
    fl_batch view = *b;
    view.ncols = ncols;
    FL_TRY(fl_ice_data_writer_write(w, &view, err));
    *rows += fl_batch_live_rows(b);
    return FL_OK;
}

fl_status stmt_commit(fl_stmt_ctx *c, fl_ice_txn *x, const char *table, fl_stmt_result *out,
                      fl_error *err)
{
    int64_t snap = -1;
    fl_status rc = fl_ice_txn_commit(x, &snap, err);
    if (rc == FL_ECONFLICT) {
        fl_error_set_state(err, "40001");
        return fl_error_prefix(err,
                               "could not commit to %s: a concurrent change conflicts with this "
                               "statement (retries exhausted; run it again)",
                               table);
    }
    if (rc != FL_OK)
        return fl_error_prefix(err, "commit to %s", table);
    out->committed_snapshot_id = snap;
    out->committed_table = fl_arena_strdup(c->planner->arena, table);
    return FL_OK;
}

/* ---- row ids ---- */

static uint32_t find_slot(const stmt_rowids *r, const uint8_t *path, size_t len, uint64_t h)
{
    uint32_t mask = r->nslots - 1;
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
        uint32_t s = r->slots[i];
        if (s == 0)
            return i;
        const char *fp = r->files[s - 1].file_path;
        if (strlen(fp) == len && !memcmp(fp, path, len))
            return i;
    }
}

static fl_status grow_index(stmt_rowids *r, fl_error *err)
{
    uint32_t ns = r->nslots ? r->nslots * 2 : 64;
    uint32_t *slots = calloc(ns, sizeof *slots);
    if (!slots)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    free(r->slots);
    r->slots = slots;
    r->nslots = ns;
    for (uint32_t i = 0; i < r->nfiles; i++) {
        const char *fp = r->files[i].file_path;
        size_t len = strlen(fp);
        uint32_t s = find_slot(r, (const uint8_t *)fp, len, XXH3_64bits(fp, len));
        r->slots[s] = i + 1;
    }
    return FL_OK;
}

fl_status stmt_rowids_add(stmt_rowids *r, const uint8_t *path, size_t len, int64_t pos,
                          fl_error *err)
{
    if ((r->nfiles + 1) * 2 > r->nslots)
        FL_TRY(grow_index(r, err));
    uint64_t h = XXH3_64bits(path, len);
    uint32_t s = find_slot(r, path, len, h);
    if (!r->slots[s]) {
        if (r->nfiles == r->cap) {
            uint32_t nc = r->cap ? r->cap * 2 : 16;
            fl_ice_file_positions *f = realloc(r->files, nc * sizeof *f);
            if (!f)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            r->files = f;
            uint64_t *caps = realloc(r->caps, nc * sizeof *caps);
            if (!caps)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            r->caps = caps;
            r->cap = nc;
        }
        char *p = malloc(len + 1);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        memcpy(p, path, len);
        p[len] = '\0';
        r->files[r->nfiles] = (fl_ice_file_positions){p, NULL, 0};
        r->caps[r->nfiles] = 0;
        r->slots[s] = ++r->nfiles;
    }
    uint32_t i = r->slots[s] - 1;
    fl_ice_file_positions *f = &r->files[i];
    if (f->npositions == r->caps[i]) {
        uint64_t nc = r->caps[i] ? r->caps[i] * 2 : 64;
        int64_t *v = realloc((void *)f->positions, nc * sizeof *v);
        if (!v)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        f->positions = v;
        r->caps[i] = nc;
    }
    ((int64_t *)f->positions)[f->npositions++] = pos;
    r->nrows++;
    return FL_OK;
}

fl_status stmt_rowids_add_batch(stmt_rowids *r, const fl_batch *b, uint32_t file_col,
                                uint32_t pos_col, fl_error *err)
{
    const fl_vector *fv = &b->cols[file_col], *pv = &b->cols[pos_col];
    if (!fl_type_is_varlen(fv->type) || pv->type->id != FL_TYPE_INT64)
        return fl_errorf(err, FL_EINVAL, "internal: row id columns have the wrong types");
    fl_unified fu, pu;
    fl_vector_unify(fv, &fu);
    fl_vector_unify(pv, &pu);
    uint32_t n = fl_batch_live_rows(b);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t row = b->sel ? b->sel->idx[k] : k;
        if (!fl_unified_is_valid(&fu, row) || !fl_unified_is_valid(&pu, row))
            return fl_errorf(err, FL_EINVAL, "internal: NULL row id");
        size_t len;
        const uint8_t *p = fl_vector_bytes(fu.base, fl_unified_row(&fu, row), &len);
        int64_t pos;
        memcpy(&pos, pu.base->data + (size_t)fl_unified_row(&pu, row) * 8, 8);
        FL_TRY(stmt_rowids_add(r, p, len, pos, err));
    }
    return FL_OK;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

void stmt_rowids_finish(stmt_rowids *r, bool *dups)
{
    bool d = false;
    uint64_t total = 0;
    for (uint32_t i = 0; i < r->nfiles; i++) {
        fl_ice_file_positions *f = &r->files[i];
        int64_t *v = (int64_t *)f->positions;
        if (f->npositions > 1)
            qsort(v, f->npositions, sizeof *v, cmp_i64);
        uint64_t k = 0;
        for (uint64_t j = 0; j < f->npositions; j++) {
            if (k && v[k - 1] == v[j]) {
                d = true;
                continue;
            }
            v[k++] = v[j];
        }
        f->npositions = k;
        total += k;
    }
    r->nrows = total;
    if (dups)
        *dups = d;
}

void stmt_rowids_free(stmt_rowids *r)
{
    for (uint32_t i = 0; i < r->nfiles; i++) {
        free((void *)r->files[i].file_path);
        free((void *)r->files[i].positions);
    }
    free(r->files);
    free(r->slots);
    free(r->caps);
    memset(r, 0, sizeof *r);
}
