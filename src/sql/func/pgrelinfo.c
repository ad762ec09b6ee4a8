/*
 * pgrelinfo.c - PostgreSQL object-size and definition functions that need
 * the catalog: pg_get_viewdef, pg_relation_size, pg_table_size,
 * pg_total_relation_size, pg_indexes_size, pg_database_size (DBeaver's
 * navigator, psql's \dt+ / \l+, pgAdmin-style statistics panels).
 *
 * WHY A BIND STEP
 *   The functions take an OID (or a name) that is usually a column of a
 *   catalog relation (pg_class.oid), so they are evaluated per row; what
 *   they return comes from floe's catalog, which kernels cannot reach. The
 *   binder hook (fl_pgfunc_bind_relinfo, called from pgcat_expr.c) builds
 *   an fl_pg_oid_map from the statement's catalog snapshot (pgcat_snap.c)
 *   and binds the call as __pg_oid_text(arg) or __pg_oid_int(arg) with the
 *   map as bind_data; the kernels below look each row's key up in it.
 *
 * SEMANTICS (PostgreSQL 15, as far as floe has the information)
 *   - pg_get_viewdef(view [, pretty]): the view's SQL text as stored in its
 *     Iceberg view version (PostgreSQL deparses and reformats it; floe gives
 *     the text the view was created with). NULL for a relation that is not
 *     a view or an unknown OID; a name that does not exist is 42P01.
 *   - pg_relation_size(rel [, fork]), pg_table_size, pg_total_relation_size:
 *     a table's size is its current snapshot's "total-files-size" summary
 *     (bytes of data and delete files; Iceberg spec, snapshot summary), 0 for
 *     a table without snapshot, views and the in-memory catalog relations;
 *     the "fsm", "vm" and "init" forks are 0, another fork name is 22023.
 *     floe has no indexes: pg_indexes_size is 0. Unknown OIDs give NULL.
 *     A table whose metadata cannot be read gives NULL.
 *   - pg_database_size(name | oid): the sum over every table of the catalog;
 *     another database name is 3D000, another OID NULL.
 * Names are matched as regclass does: "schema.name", or "name" for the
 * session's schema and pg_catalog (no quoting/case folding of the text).
 *
 * Memory: the maps live in the plan arena (freed with the statement).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/func/func_internal.h"
#include "sql/func/pgfunc.h"
#include "sql/pgcat/pgcat.h"

/* ---- kernels ---- */

static int64_t find_name(const fl_pg_oid_map *m, const uint8_t *p, size_t l)
{
    for (uint32_t k = 0; k < m->n; k++)
        for (uint32_t j = 0; j < 2; j++) {
            const char *nm = m->names[2 * k + j];
            if (nm && strlen(nm) == l && memcmp(nm, p, l) == 0)
                return k;
        }
    return -1;
}

/* A name as regclass reads it: "a"."b" or a.b, quotes removed (doubled ones
 * kept once), unquoted parts lower-cased; 0 when it does not read. */
static size_t identifier_text(const uint8_t *p, size_t l, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < l;) {
        if (p[i] == '"') {
            for (i++; i < l; i++) {
                if (p[i] == '"' && i + 1 < l && p[i + 1] == '"')
                    i++;
                else if (p[i] == '"')
                    break;
                if (o + 1 >= cap)
                    return 0;
                out[o++] = (char)p[i];
            }
            if (i >= l)
                return 0; /* an unterminated quote */
            i++;
        } else {
            for (; i < l && p[i] != '.'; i++) {
                if (o + 1 >= cap)
                    return 0;
                out[o++] = (char)tolower(p[i]);
            }
        }
        if (i < l && p[i] == '.') {
            if (o + 1 >= cap)
                return 0;
            out[o++] = '.';
            i++;
        } else if (i < l) {
            return 0;
        }
    }
    out[o] = '\0';
    return o;
}

/* Index of the map entry for row i of u (an INT64 OID or a STRING name); -1 when absent. */
static int64_t find(const fl_pg_oid_map *m, const fl_unified *u, bool text, uint32_t i)
{
    if (text) {
        size_t l;
        const uint8_t *p = ubytes(u, i, &l);
        int64_t k = find_name(m, p, l);
        char id[512];
        size_t n = k < 0 ? identifier_text(p, l, id, sizeof id) : 0;
        return n ? find_name(m, (const uint8_t *)id, n) : k;
    }
    int64_t oid = UV(*u, int64_t, i);
    uint32_t lo = 0, hi = m->n; /* keys are sorted */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->keys[mid] < oid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->n && m->keys[lo] == oid ? (int64_t)lo : -1;
}

static fl_status not_found(fl_fn_call *c, const fl_pg_oid_map *m, const fl_unified *u, uint32_t i,
                           fl_error *err)
{
    size_t l;
    const uint8_t *p = ubytes(u, i, &l);
    return fl_fn_error(c, err, FL_ENOTFOUND, "%s \"%.*s\" does not exist", m->what,
                       (int)(l > 128 ? 128 : l), (const char *)p);
}

static bool r_oid_or_name(const fl_type *a, uint32_t n, fl_type *at)
{
    if (n != 1)
        return false;
    if (fl_is_string(&a[0]) || fl_is_unknown(&a[0]))
        at[0] = fl_mk(FL_TYPE_STRING);
    else if (fl_is_integer(&a[0]))
        at[0] = fl_mk(FL_TYPE_INT64);
    else
        return false;
    return true;
}

bool fl_pg_r_oid_text(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    *r = fl_mk(FL_TYPE_STRING);
    return r_oid_or_name(a, n, at);
}

bool fl_pg_r_oid_int(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    *r = fl_mk(FL_TYPE_INT64);
    return r_oid_or_name(a, n, at);
}

fl_status fl_pg_k_oid_text(fl_fn_call *c, fl_error *err)
{
    const fl_pg_oid_map *m = c->expr->bind_data;
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    bool text = c->args[0]->type->id == FL_TYPE_STRING;
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        int64_t k = m ? find(m, &u, text, i) : -1;
        if (k < 0 && text)
            return not_found(c, m, &u, i, err);
        if (k < 0 || !m->text[k]) {
            FL_TRY(fl_out_null(c->out, i, err));
            continue;
        }
        FL_TRY(strout_put(&so, i, m->text[k], strlen(m->text[k]), err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

fl_status fl_pg_k_oid_int(fl_fn_call *c, fl_error *err)
{
    const fl_pg_oid_map *m = c->expr->bind_data;
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    bool text = c->args[0]->type->id == FL_TYPE_STRING;
    FOR_ROWS(c->sel, c->nrows, i, {
        int64_t k = m ? find(m, &u, text, i) : -1;
        if (k < 0 && text)
            return not_found(c, m, &u, i, err);
        if (k < 0 || !m->has_num[k]) {
            FL_TRY(fl_out_null(c->out, i, err));
            continue;
        }
        OUTV(c->out, int64_t)[i] = m->num[k];
    });
    return FL_OK;
}

/* ---- bind step ---- */

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "out of memory");
}

fl_pg_oid_map *fl_pg_oid_map_new(fl_arena *a, uint32_t cap, const char *what)
{
    fl_pg_oid_map *m = fl_arena_calloc(a, 1, sizeof *m);
    if (!m)
        return NULL;
    m->what = what;
    m->keys = fl_arena_calloc(a, cap + 1, sizeof *m->keys);
    m->names = fl_arena_calloc(a, 2 * (size_t)cap + 2, sizeof *m->names);
    m->text = fl_arena_calloc(a, cap + 1, sizeof *m->text);
    m->num = fl_arena_calloc(a, cap + 1, sizeof *m->num);
    m->has_num = fl_arena_calloc(a, cap + 1, sizeof *m->has_num);
    return m->keys && m->names && m->text && m->num && m->has_num ? m : NULL;
}

/* Sorts the entries by key (insertion sort: catalogs are small, entries arrive nearly sorted). */
void fl_pg_oid_map_sort(fl_pg_oid_map *m)
{
    for (uint32_t i = 1; i < m->n; i++)
        for (uint32_t j = i; j > 0 && m->keys[j - 1] > m->keys[j]; j--) {
            int64_t k = m->keys[j];
            m->keys[j] = m->keys[j - 1];
            m->keys[j - 1] = k;
            const char *t = m->text[j];
            m->text[j] = m->text[j - 1];
            m->text[j - 1] = t;
            int64_t v = m->num[j];
            m->num[j] = m->num[j - 1];
            m->num[j - 1] = v;
            bool h = m->has_num[j];
            m->has_num[j] = m->has_num[j - 1];
            m->has_num[j - 1] = h;
            for (uint32_t x = 0; x < 2; x++) {
                const char *nm = m->names[2 * j + x];
                m->names[2 * j + x] = m->names[2 * (j - 1) + x];
                m->names[2 * (j - 1) + x] = nm;
            }
        }
}

/* The current snapshot's total-files-size of table r; *ok false when unreadable. */
static int64_t table_bytes(fl_planner_ctx *pc, const fl_pgcat_rel *r, bool *ok)
{
    fl_error e;
    fl_table_ident id;
    fl_ice_table *t = NULL;
    *ok = false;
    if (fl_namespace_parse(r->nsp, pc->arena, &id.ns, &e) != FL_OK)
        return 0;
    id.name = r->name;
    if (fl_front_load_table(pc, &id, &t, &e) != FL_OK)
        return 0;
    *ok = true;
    for (uint32_t i = 0; i < t->meta.nsnapshots; i++)
        if (t->meta.snapshots[i].snapshot_id == t->meta.current_snapshot_id) {
            const char *v = fl_ice_map_get(&t->meta.snapshots[i].summary, "total-files-size");
            return v ? strtoll(v, NULL, 10) : 0;
        }
    return 0;
}

typedef enum { RI_VIEWDEF, RI_RELSIZE, RI_INDEXES, RI_DBSIZE } ri_kind;

/* The relation map for kind (sizes loaded only for size functions). */
static fl_status rel_map(fl_bctx *b, ri_kind kind, fl_pg_oid_map **out, int64_t *total,
                         fl_error *err)
{
    fl_pgcat_snap *s;
    FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
    if (kind == RI_VIEWDEF)
        FL_TRY(fl_pgcat_snap_columns(b->pc, s, err)); /* loads the views' SQL */
    fl_pg_oid_map *m = fl_pg_oid_map_new(b->a, s->nrels, "relation");
    if (!m)
        return oom(err);
    *total = 0;
    for (uint32_t i = 0; i < s->nrels; i++) {
        const fl_pgcat_rel *r = &s->rels[i];
        uint32_t k = m->n++;
        m->keys[k] = r->oid;
        m->names[2 * k] = fl_arena_sprintf(b->a, "%s.%s", r->nsp, r->name);
        if (!m->names[2 * k])
            return oom(err);
        if (strcmp(r->nsp, s->schema) == 0 || strcmp(r->nsp, "pg_catalog") == 0)
            m->names[2 * k + 1] = r->name;
        if (kind == RI_VIEWDEF) {
            m->text[k] = r->kind == 'v' ? r->view_sql : NULL;
            continue;
        }
        bool ok = true;
        int64_t bytes = 0;
        if (kind != RI_INDEXES && r->kind == 'r' && !r->builtin)
            bytes = table_bytes(b->pc, r, &ok);
        m->num[k] = bytes;
        m->has_num[k] = ok;
        *total += bytes;
    }
    fl_pg_oid_map_sort(m);
    *out = m;
    return FL_OK;
}

static fl_status db_map(fl_bctx *b, fl_pg_oid_map **out, fl_error *err)
{
    fl_pgcat_snap *s;
    fl_pg_oid_map *rels;
    int64_t total;
    FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
    FL_TRY(rel_map(b, RI_DBSIZE, &rels, &total, err));
    fl_pg_oid_map *m = fl_pg_oid_map_new(b->a, 1, "database");
    if (!m)
        return oom(err);
    m->n = 1;
    m->keys[0] = fl_pgcat_hash_oid("d:", s->database, NULL);
    m->names[0] = s->database;
    m->num[0] = total;
    m->has_num[0] = true;
    *out = m;
    return FL_OK;
}

/* The fork argument of pg_relation_size: a constant "main" keeps the size,
 * "fsm"/"vm"/"init" make it 0. */
static fl_status fork_arg(fl_bctx *b, const PgQuery__Node *n, int32_t loc, bool *zero,
                          fl_error *err)
{
    fl_expr *e;
    FL_TRY(fl_bind_expr(b, n, &e, err));
    e = fl_front_fold(b->a, e);
    if (e->kind != FL_EXPR_CONST || e->value.is_null ||
        !(e->type.id == FL_TYPE_STRING || fl_is_unknown(&e->type)))
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, loc, "0A000",
                            "pg_relation_size() needs a constant fork name");
    size_t l = e->value.v.bytes.len;
    const char *p = (const char *)e->value.v.bytes.ptr;
    if (l == 4 && memcmp(p, "main", 4) == 0) {
        *zero = false;
        return FL_OK;
    }
    if ((l == 3 && (memcmp(p, "fsm", 3) == 0)) || (l == 2 && memcmp(p, "vm", 2) == 0) ||
        (l == 4 && memcmp(p, "init", 4) == 0)) {
        *zero = true;
        return FL_OK;
    }
    return fl_front_err(b->pc, err, FL_EINVAL, loc, "22023",
                        "invalid fork name (valid fork names are \"main\", \"fsm\", \"vm\", "
                        "and \"init\")");
}

/* A constant name argument is looked up now, as PostgreSQL resolves a regclass
 * literal while parsing: an unknown name is an error at its position, a known one
 * becomes its OID. */
fl_status fl_pg_oid_map_const_name(fl_bctx *b, const fl_pg_oid_map *m, const char *sqlstate,
                            fl_expr **arg, fl_error *err)
{
    fl_expr *a = fl_front_fold(b->a, *arg);
    if (a->kind != FL_EXPR_CONST || a->value.is_null ||
        !(a->type.id == FL_TYPE_STRING || fl_is_unknown(&a->type)))
        return FL_OK;
    size_t l = a->value.v.bytes.len;
    const char *p = (const char *)a->value.v.bytes.ptr;
    for (uint32_t k = 0; k < m->n; k++)
        for (uint32_t j = 0; j < 2; j++) {
            const char *nm = m->names[2 * k + j];
            if (nm && strlen(nm) == l && memcmp(nm, p, l) == 0) {
                fl_value v;
                memset(&v, 0, sizeof v);
                v.type.id = FL_TYPE_INT64;
                v.v.i64 = m->keys[k];
                fl_expr *c = fl_expr_const(b->a, &v);
                if (!c)
                    return oom(err);
                c->location = a->location;
                *arg = c;
                return FL_OK;
            }
        }
    if (!strcmp(sqlstate, "42P01")) { /* 42501 where the principal may not look */
        fl_pgcat_snap *s = NULL;
        const char *text = fl_arena_strndup(b->a, p, l > 128 ? 128 : l);
        if (!text)
            return oom(err);
        FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
        return fl_pgcat_no_relation(b->pc, s, text, a->location, err);
    }
    return fl_front_err(b->pc, err, FL_ENOTFOUND, a->location, sqlstate,
                        "%s \"%.*s\" does not exist", m->what, (int)(l > 128 ? 128 : l), p);
}

fl_status fl_pgfunc_bind_relinfo(fl_bctx *b, const PgQuery__FuncCall *f, const char *name,
                                 fl_expr **out, bool *handled, fl_error *err)
{
    *handled = false;
    size_t na = f->n_args;
    ri_kind kind;
    if (strcmp(name, "pg_get_viewdef") == 0 && (na == 1 || na == 2))
        kind = RI_VIEWDEF;
    else if ((strcmp(name, "pg_relation_size") == 0 && (na == 1 || na == 2)) ||
             ((strcmp(name, "pg_table_size") == 0 || strcmp(name, "pg_total_relation_size") == 0) &&
              na == 1))
        kind = RI_RELSIZE;
    else if (strcmp(name, "pg_indexes_size") == 0 && na == 1)
        kind = RI_INDEXES;
    else if (strcmp(name, "pg_database_size") == 0 && na == 1)
        kind = RI_DBSIZE;
    else
        return FL_OK;
    *handled = true;
    int32_t loc = f->location;
    fl_expr *arg;
    FL_TRY(fl_bind_expr(b, f->args[0], &arg, err));
    bool zero = false;
    char tn[64];
    if (na == 2 && kind == RI_VIEWDEF) {
        fl_expr *pretty; /* bound for its errors; floe keeps the view's text either way */
        FL_TRY(fl_bind_expr(b, f->args[1], &pretty, err));
        if (pretty->type.id != FL_TYPE_BOOLEAN && !fl_is_integer(&pretty->type) &&
            !fl_is_unknown(&pretty->type))
            return fl_front_err(b->pc, err, FL_ETYPE, loc, "42883",
                                "function pg_get_viewdef(oid, %s) does not exist",
                                (fl_type_format(&pretty->type, tn, sizeof tn), tn));
    } else if (na == 2) {
        FL_TRY(fork_arg(b, f->args[1], loc, &zero, err));
    }
    fl_pg_oid_map *m = NULL;
    int64_t total;
    if (kind == RI_DBSIZE)
        FL_TRY(db_map(b, &m, err));
    else
        FL_TRY(rel_map(b, kind, &m, &total, err));
    if (zero)
        for (uint32_t k = 0; k < m->n; k++)
            m->num[k] = 0;
    FL_TRY(fl_pg_oid_map_const_name(b, m, kind == RI_DBSIZE ? "3D000" : "42P01", &arg, err));
    const char *fn = kind == RI_VIEWDEF ? "__pg_oid_text" : "__pg_oid_int";
    if (fl_expr_call(b->a, fn, &arg, 1, loc, out, err) != FL_OK)
        return fl_front_err(b->pc, err, FL_ETYPE, loc, "42883",
                            "function %s(%s) does not exist", name,
                            (fl_type_format(&arg->type, tn, sizeof tn), tn));
    (*out)->bind_data = m;
    return FL_OK;
}
