/*
 * tablefunc.c - table functions in FROM: read_parquet(path or glob),
 * read_orc(path or glob; every file must have the first one's columns),
 * iceberg_scan(path: a metadata file or a table folder, where
 * metadata/version-hint.text or else the newest metadata file is used; see
 * fl_ice_table_open_path). They become relations of the block like tables,
 * so their scans get the same projection and filter pushdown.
 *
 * Globs (*, ?, [..]) are expanded through the session FileIO's list() from
 * the longest wildcard-free directory prefix, matched with fnmatch(3), and
 * sorted. read_csv(path, delim => '|', header => false, columns =>
 * 'a:int,b:string') and read_json(path, columns => ...) infer their schema
 * from the first file with the text readers (floe/text.h, src/text); while
 * a build lacks src/text they report FL_EUNSUPPORTED.
 *
 * generate_series(start, stop [, step]) over integer constants is a SCAN of
 * kind SERIES (one BIGINT column named generate_series, like PostgreSQL's
 * set-returning function; the executor generates it in morsels, so a
 * 50-million-row series costs no memory).
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/orc.h"
#include "floe/parquet.h"
#include "sql/authz/authz.h"
#include "sql/bind/bind.h"
#include "sql/func/pgfunc.h"
#include "sql/parse/parse_tree.h"
#if defined(__has_include)
#if __has_include("floe/text.h")
#include "floe/text.h"
#define FL_FRONT_HAVE_TEXT 1
#endif
#endif

#define MAX_GLOB_FILES 100000

typedef struct glob_ctx {
    fl_arena *a;
    const char *pattern;
    const char **files;
    uint32_t n, cap;
    bool overflow;
} glob_ctx;

static fl_status on_file(void *ud, const char *path, uint64_t size)
{
    (void)size;
    glob_ctx *g = ud;
    if (fnmatch(g->pattern, path, FNM_PATHNAME) != 0)
        return FL_OK;
    if (g->n >= MAX_GLOB_FILES) {
        g->overflow = true;
        return FL_OK;
    }
    g->files = fl_front_grow(g->a, g->files, &g->cap, g->n, sizeof(char *));
    if (!g->files)
        return FL_ENOMEM;
    g->files[g->n++] = fl_arena_strdup(g->a, path);
    return FL_OK;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static fl_status expand(fl_planner_ctx *pc, const char *pattern, int32_t loc, const char ***files,
                        uint32_t *n, fl_error *err)
{
    const char *wild = strpbrk(pattern, "*?[");
    if (!wild) {
        *files = fl_arena_alloc(pc->arena, sizeof(char *));
        if (!*files)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        (*files)[0] = pattern;
        *n = 1;
        return FL_OK;
    }
    size_t pre = (size_t)(wild - pattern);
    while (pre > 0 && pattern[pre - 1] != '/')
        pre--;
    glob_ctx g = {.a = pc->arena, .pattern = pattern};
    char *prefix = fl_arena_strndup(pc->arena, pattern, pre);
    if (!prefix)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = pc->io->ops->list(pc->io, prefix, on_file, &g, err);
    if (rc != FL_OK)
        return fl_front_err_at(pc, err, loc);
    if (g.overflow)
        return fl_front_err(pc, err, FL_ELIMIT, loc, "54000", "glob %s matches more than %d files",
                            pattern, MAX_GLOB_FILES);
    if (g.n == 0)
        return fl_front_err(pc, err, FL_ENOTFOUND, loc, "58P01", "no files match \"%s\"",
                            pattern);
    qsort(g.files, g.n, sizeof(char *), cmp_str);
    *files = g.files;
    *n = g.n;
    return FL_OK;
}

static fl_status parquet_schema(fl_planner_ctx *pc, const char *path, int32_t loc,
                                fl_schema *out, double *rows, fl_error *err)
{
    fl_file *f = NULL;
    fl_parquet_reader *r = NULL;
    fl_status rc = fl_fileio_open(pc->io, path, &f, err);
    if (rc == FL_OK)
        rc = fl_parquet_open(f, NULL, &r, err);
    if (rc == FL_OK) {
        rc = fl_schema_copy(pc->arena, fl_parquet_schema(r), out);
        *rows = (double)fl_parquet_num_rows(r);
        if (rc != FL_OK)
            fl_errorf(err, rc, "out of memory");
    }
    fl_parquet_close(r);
    fl_file_close(f);
    if (rc != FL_OK) {
        fl_error_prefix(err, "%s", path);
        return fl_front_err_at(pc, err, loc);
    }
    return FL_OK;
}

static fl_status orc_schema(fl_planner_ctx *pc, const char *path, int32_t loc, fl_schema *out,
                             double *rows, fl_error *err)
{
    fl_file *f = NULL;
    fl_orc_reader *r = NULL;
    fl_status rc = fl_fileio_open(pc->io, path, &f, err);
    if (rc != FL_OK)
        fl_error_prefix(err, "%s", path);
    if (rc == FL_OK)
        rc = fl_orc_open(f, &r, err); /* its messages start with the path */
    if (rc == FL_OK) {
        rc = fl_schema_copy(pc->arena, fl_orc_schema(r), out);
        *rows = (double)fl_orc_num_rows(r);
        if (rc != FL_OK)
            fl_errorf(err, rc, "out of memory");
    }
    fl_orc_close(r);
    fl_file_close(f);
    return rc != FL_OK ? fl_front_err_at(pc, err, loc) : FL_OK;
}

static fl_status string_arg(fl_bctx *b, const PgQuery__FuncCall *fc, const char *fname,
                            const char **out, fl_error *err)
{
    if (fc->n_args < 1)
        return fl_front_err(b->pc, err, FL_EINVAL, fc->location, "42883",
                            "%s() needs a path argument", fname);
    fl_bctx c;
    fl_bctx_init(&c, b->pc, NULL);
    fl_expr *e;
    FL_TRY(fl_bind_expr(&c, fc->args[0], &e, err));
    if (e->kind != FL_EXPR_CONST || e->value.is_null || e->type.id != FL_TYPE_STRING)
        return fl_front_err(b->pc, err, FL_EINVAL, fc->location, "22023",
                            "%s() path must be a string literal", fname);
    *out = fl_arena_strndup(b->a, (const char *)e->value.v.bytes.ptr, e->value.v.bytes.len);
    if (!*out)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    /* paths are outside the grant model (authz.h): before anything is listed or opened */
    return fl_sql_authz_files(b->pc, *out, fc->location, err);
}

static fl_status iceberg_scan(fl_bctx *b, const PgQuery__FuncCall *fc, const char *alias,
                              uint32_t *ri, fl_error *err)
{
    fl_planner_ctx *pc = b->pc;
    const char *path;
    FL_TRY(string_arg(b, fc, "iceberg_scan", &path, err));
    fl_front_state *st = fl_front_state_of(pc);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    const char *key = fl_arena_sprintf(b->a, "path:%s", path);
    fl_ice_table *t = NULL;
    for (fl_loaded_table *l = st->tables; l; l = l->next)
        if (strcmp(l->key, key) == 0)
            t = l->table;
    if (!t) {
        fl_loaded_table *l = fl_arena_calloc(pc->arena, 1, sizeof *l);
        if (!l)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (fl_ice_table_open_path(pc->io, path, &l->table, err) != FL_OK)
            return fl_front_err_at(pc, err, fc->location);
        l->key = key;
        l->next = st->tables;
        st->tables = l;
        t = l->table;
    }
    int64_t sid;
    const fl_ice_schema *sch;
    FL_TRY(fl_front_snapshot(pc, &t->meta, fc->location, &sid, &sch, err));
    fl_rel r;
    memset(&r, 0, sizeof r);
    r.kind = FL_REL_TABLE;
    r.alias = alias;
    r.name = path;
    r.meta = &t->meta;
    r.snapshot_id = sid;
    r.schema = &sch->schema;
    r.base_rows = 1000;
    for (uint32_t i = 0; i < t->meta.nsnapshots; i++)
        if (t->meta.snapshots[i].snapshot_id == sid) {
            const char *tr = fl_ice_map_get(&t->meta.snapshots[i].summary, "total-records");
            if (tr)
                r.base_rows = strtod(tr, NULL);
        }
    return fl_scope_add_rel(b->a, &b->scope, &r, r.schema, ri, err);
}

#ifdef FL_FRONT_HAVE_TEXT
/* named options: delim/delimiter/sep, header, columns */
static fl_status text_options(fl_bctx *b, const PgQuery__FuncCall *fc, const char *fname,
                              fl_source_options *so, bool *header, fl_error *err)
{
    fl_planner_ctx *pc = b->pc;
    for (size_t i = 1; i < fc->n_args; i++) {
        const PgQuery__Node *n = fc->args[i];
        if (n->node_case != PG_QUERY__NODE__NODE_NAMED_ARG_EXPR)
            return fl_front_err(pc, err, FL_EINVAL, fc->location, "42883",
                                "%s() options are named: %s(path, delim => ',', header => true)",
                                fname, fname);
        const PgQuery__NamedArgExpr *na = n->named_arg_expr;
        fl_bctx c;
        fl_bctx_init(&c, pc, NULL);
        fl_expr *e;
        FL_TRY(fl_bind_expr(&c, na->arg, &e, err));
        if (e->kind != FL_EXPR_CONST || e->value.is_null)
            return fl_front_err(pc, err, FL_EINVAL, na->location, "22023",
                                "%s() option %s must be a constant", fname, na->name);
        const char *sv = e->type.id == FL_TYPE_STRING
                             ? fl_arena_strndup(b->a, (const char *)e->value.v.bytes.ptr,
                                                e->value.v.bytes.len)
                             : NULL;
        if (!strcmp(na->name, "delim") || !strcmp(na->name, "delimiter") ||
            !strcmp(na->name, "sep")) {
            if (!sv || strlen(sv) != 1)
                return fl_front_err(pc, err, FL_EINVAL, na->location, "22023",
                                    "%s: delim must be one character", fname);
            so->delimiter = sv[0];
        } else if (!strcmp(na->name, "header")) {
            if (e->type.id != FL_TYPE_BOOLEAN)
                return fl_front_err(pc, err, FL_EINVAL, na->location, "22023",
                                    "%s: header must be true or false", fname);
            *header = e->value.v.b;
        } else if (!strcmp(na->name, "columns")) {
            fl_schema *sch = fl_arena_calloc(b->a, 1, sizeof *sch);
            if (!sv || !sch)
                return fl_front_err(pc, err, FL_EINVAL, na->location, "22023",
                                    "%s: columns must be a string like 'a:int,b:string'",
                                    fname);
            if (fl_parse_schema_spec(sv, b->a, sch, err) != FL_OK)
                return fl_front_err_at(pc, err, na->location);
            so->schema = sch;
        } else {
            return fl_front_err(pc, err, FL_EINVAL, na->location, "42883",
                                "%s() has no option \"%s\"", fname, na->name);
        }
    }
    return FL_OK;
}

static fl_status text_function(fl_bctx *b, const PgQuery__FuncCall *fc, const char *name,
                               const char *alias, uint32_t *ri, fl_error *err)
{
    fl_planner_ctx *pc = b->pc;
    bool csv = strcmp(name, "read_csv") == 0;
    const char *path;
    FL_TRY(string_arg(b, fc, name, &path, err));
    fl_source_options so;
    memset(&so, 0, sizeof so);
    bool header = true;
    FL_TRY(text_options(b, fc, name, &so, &header, err));
    so.no_header = csv && !header;
    so.io = pc->io;
    const char **files = NULL;
    uint32_t n = 0;
    FL_TRY(expand(pc, path, fc->location, &files, &n, err));
    fl_source *src = NULL;
    fl_status rc = csv ? fl_csv_source_open(files[0], &so, &src, err)
                       : fl_jsonl_source_open(files[0], &so, &src, err);
    fl_schema *sch = fl_arena_calloc(b->a, 1, sizeof *sch);
    if (rc == FL_OK)
        rc = sch ? fl_schema_copy(b->a, fl_source_schema(src), sch) : FL_ENOMEM;
    fl_source_close(src);
    if (rc == FL_ENOMEM)
        return fl_errorf(err, rc, "out of memory");
    if (rc != FL_OK)
        return fl_front_err_at(pc, err, fc->location);
    fl_rel r;
    memset(&r, 0, sizeof r);
    r.kind = FL_REL_TABLE;
    r.alias = alias;
    r.name = path;
    r.schema = sch;
    r.scan_kind = csv ? FL_SCAN_CSV : FL_SCAN_JSON;
    r.files = files;
    r.nfiles = n;
    r.csv_delim = so.delimiter;
    r.csv_header = header;
    r.base_rows = 10000.0 * n;
    r.snapshot_id = -1;
    return fl_scope_add_rel(b->a, &b->scope, &r, sch, ri, err);
}
#else
static fl_status text_function(fl_bctx *b, const PgQuery__FuncCall *fc, const char *name,
                               const char *alias, uint32_t *ri, fl_error *err)
{
    (void)alias;
    (void)ri;
    return fl_front_err(b->pc, err, FL_EUNSUPPORTED, fc->location, "0A000",
                        "%s() is not available in this build (needs src/text)", name);
}
#endif

static fl_status series_arg(fl_bctx *b, const PgQuery__FuncCall *fc, size_t i, int64_t *out,
                             bool *is_null, bool *is64, fl_error *err)
{
    fl_bctx c;
    fl_bctx_init(&c, b->pc, NULL);
    fl_expr *e;
    FL_TRY(fl_bind_expr(&c, fc->args[i], &e, err));
    /* constant after folding: pgJDBC sends
     * generate_series(1, array_upper(current_schemas(false), 1)) */
    e = fl_front_fold(b->a, e);
    if (e->kind == FL_EXPR_CONST && e->value.is_null) {
        *is_null = true;
        return FL_OK;
    }
    if (e->kind == FL_EXPR_CONST && e->type.id == FL_TYPE_INT32) {
        *out = e->value.v.i32;
        return FL_OK;
    }
    if (e->kind == FL_EXPR_CONST && e->type.id == FL_TYPE_INT64) {
        *out = e->value.v.i64;
        *is64 = true;
        return FL_OK;
    }
    return fl_front_err(b->pc, err, FL_EUNSUPPORTED, fc->location, "0A000",
                        "generate_series() argument %zu must be an integer constant",
                        i + 1);
}

static fl_status generate_series(fl_bctx *b, const PgQuery__FuncCall *fc, const char *alias,
                                 const PgQuery__Alias *al, uint32_t *ri, fl_error *err)
{
    fl_planner_ctx *pc = b->pc;
    if (fc->n_args < 2 || fc->n_args > 3)
        return fl_front_err(pc, err, FL_ENOTFOUND, fc->location, "42883",
                            "generate_series() takes (start, stop [, step])");
    int64_t v[3] = {0, 0, 1};
    bool any_null = false, is64 = false; /* integer arguments give an integer column */
    for (size_t i = 0; i < fc->n_args; i++)
        FL_TRY(series_arg(b, fc, i, &v[i], &any_null, &is64, err));
    if (any_null) { /* PostgreSQL: a NULL argument gives no rows */
        v[0] = 1;
        v[1] = 0;
        v[2] = 1;
    }
    if (v[2] == 0)
        return fl_front_err(pc, err, FL_EINVAL, fc->location, "22023",
                            "step size cannot equal zero");
    fl_plan *p = fl_plan_new(b->a, FL_PLAN_SCAN, 0, 1);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    /* PostgreSQL: a scalar function's column takes the alias when no column
     * list is given (FROM generate_series(1, 3) g -> column g) */
    const char *col = al && al->n_colnames ? fl_front_str(al->colnames[0])
                      : al && al->aliasname && al->aliasname[0] ? al->aliasname
                                                                : "generate_series";
    p->schema.fields[0].name = fl_arena_strdup(b->a, col);
    p->schema.fields[0].type.id = is64 ? FL_TYPE_INT64 : FL_TYPE_INT32;
    p->schema.fields[0].nullable = false;
    p->schema.fields[0].field_id = 1;
    p->u.scan.kind = FL_SCAN_SERIES;
    p->u.scan.name = fl_arena_sprintf(b->a, "generate_series(%lld, %lld, %lld)", (long long)v[0],
                                      (long long)v[1], (long long)v[2]);
    p->u.scan.series_start = v[0];
    p->u.scan.series_stop = v[1];
    p->u.scan.series_step = v[2];
    __int128 span = (__int128)v[1] - v[0];
    __int128 cnt = (span >= 0) == (v[2] > 0) ? span / v[2] + 1 : 0;
    p->est_rows = (double)cnt;
    if (!p->schema.fields[0].name || !p->u.scan.name)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_rel r;
    memset(&r, 0, sizeof r);
    r.kind = FL_REL_PLAN;
    r.alias = alias;
    r.plan = p;
    return fl_scope_add_rel(b->a, &b->scope, &r, &p->schema, ri, err);
}

fl_status fl_bind_table_function(fl_bctx *b, const PgQuery__RangeFunction *rf, uint32_t *ri,
                                 fl_error *err)
{
    fl_planner_ctx *pc = b->pc;
    if (rf->lateral || rf->ordinality || rf->is_rowsfrom || rf->n_functions != 1)
        return fl_front_err(pc, err, FL_EUNSUPPORTED, -1, "0A000",
                            "LATERAL, WITH ORDINALITY and ROWS FROM are not supported");
    const PgQuery__Node *item = rf->functions[0];
    if (item->node_case == PG_QUERY__NODE__NODE_LIST && item->list->n_items > 0)
        item = item->list->items[0];
    if (item->node_case != PG_QUERY__NODE__NODE_FUNC_CALL)
        return fl_front_err(pc, err, FL_EUNSUPPORTED, -1, "0A000", "unsupported FROM function");
    const PgQuery__FuncCall *fc = item->func_call;
    const char *name = fl_front_str(fc->funcname[fc->n_funcname - 1]);
    const char *alias = rf->alias && rf->alias->aliasname[0] ? rf->alias->aliasname : name;
    if (strcmp(name, "generate_series") == 0)
        return generate_series(b, fc, alias, rf->alias, ri, err);
    if (strcmp(name, "pg_get_keywords") == 0) /* hook: src/sql/func/pgkeywords.c (pgreplay) */
        return fl_pgfunc_bind_keywords(b, fc, alias, ri, err);
    if (!pc->io)
        return fl_front_err(pc, err, FL_EINVAL, fc->location, "58000", "no FileIO configured");
    if (strcmp(name, "iceberg_scan") == 0)
        return iceberg_scan(b, fc, alias, ri, err);
    bool is_orc = strcmp(name, "read_orc") == 0;
    if (strcmp(name, "read_parquet") == 0 || is_orc) {
        const char *path;
        FL_TRY(string_arg(b, fc, name, &path, err));
        const char **files = NULL;
        uint32_t n = 0;
        FL_TRY(expand(pc, path, fc->location, &files, &n, err));
        fl_schema *sch = fl_arena_calloc(b->a, 1, sizeof *sch);
        double rows = 0;
        if (!sch)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(is_orc ? orc_schema(pc, files[0], fc->location, sch, &rows, err)
                      : parquet_schema(pc, files[0], fc->location, sch, &rows, err));
        fl_rel r;
        memset(&r, 0, sizeof r);
        r.kind = FL_REL_TABLE;
        r.alias = alias;
        r.name = path;
        r.schema = sch;
        r.scan_kind = is_orc ? FL_SCAN_ORC : FL_SCAN_PARQUET;
        r.files = files;
        r.nfiles = n;
        r.base_rows = rows * n;
        r.snapshot_id = -1;
        return fl_scope_add_rel(b->a, &b->scope, &r, sch, ri, err);
    }
    if (strcmp(name, "read_csv") == 0 || strcmp(name, "read_json") == 0)
        return text_function(b, fc, name, alias, ri, err);
    return fl_front_err(pc, err, FL_ENOTFOUND, fc->location, "42883",
                        "table function %s() does not exist", name);
}
