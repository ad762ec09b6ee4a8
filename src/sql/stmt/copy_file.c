/*
 * copy_file.c - COPY with a server-side file (PostgreSQL's syntax, DuckDB's
 * formats):
 *
 *   COPY (query) TO 'file' [WITH] (FORMAT csv|json|parquet, HEADER [bool], DELIMITER 'c')
 *   COPY t [(cols)] TO 'file' [...]
 *   COPY t [(cols)] FROM 'file' [WITH] (FORMAT csv|json|parquet, HEADER [bool], DELIMITER 'c')
 *
 * FORMAT defaults from the extension (.parquet, .json/.jsonl/.ndjson, else
 * csv); HEADER defaults to false for csv as in PostgreSQL. CSV is RFC 4180:
 * NULL is an empty unquoted field, values that need it are quoted with ".
 * JSON is one object per line (numbers and booleans bare, the rest strings).
 *
 * Files are outside the grant model, exactly like read_parquet/read_csv
 * (authz.h: the admin role, fail closed): TO asks fl_sql_authz_files for
 * the path before anything is planned or written, and a file is never
 * written into the warehouse, an allowed table root, over the catalog's
 * database or a protected file, or through ".." (42501); FROM is
 * INSERT INTO t [(cols)] SELECT * | cols FROM read_csv/read_json/read_parquet(path, ...)
 * (csv columns are positional as in PostgreSQL; parquet/json ones by name),
 * so the table function's own check and INSERT's WRITE check apply, and
 * the rows land in one commit like any INSERT. Values are converted by
 * INSERT's assignment casts from the reader's types.
 *
 * COPY ... TO STDOUT / FROM STDIN is the client protocol's (pgwire,
 * src/pgwire/copy_*.c); here it is 0A000 saying so. PROGRAM is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "floe/parquet.h"
#include "floe/sql.h"
#include "sql/parse/parse_tree.h"
#include "sql/stmt/stmt_int.h"

typedef enum { CF_CSV, CF_JSON, CF_PARQUET } copy_format;

typedef struct copy_opts {
    copy_format format;
    bool header;
    char delim;
} copy_opts;

/* q-quoted s, q doubled inside (identifiers '"', literals '\'') */
static const char *quoted(fl_arena *a, const char *s, char q)
{
    if (!s)
        return NULL;
    size_t n = strlen(s), o = 0;
    char *out = fl_arena_alloc(a, 2 * n + 3);
    if (!out)
        return NULL;
    out[o++] = q;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == q)
            out[o++] = q;
        out[o++] = s[i];
    }
    out[o++] = q;
    out[o] = '\0';
    return out;
}

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && !strcasecmp(s + n - k, suf);
}

static fl_status parse_opts(fl_stmt_ctx *c, const PgQuery__CopyStmt *s, copy_opts *o, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    const char *f = s->filename;
    o->format = ends_with(f, ".parquet") ? CF_PARQUET
                : ends_with(f, ".json") || ends_with(f, ".jsonl") || ends_with(f, ".ndjson")
                    ? CF_JSON
                    : CF_CSV;
    o->header = false;
    o->delim = ',';
    for (size_t i = 0; i < s->n_options; i++) {
        if (s->options[i]->node_case != PG_QUERY__NODE__NODE_DEF_ELEM)
            continue;
        const PgQuery__DefElem *d = s->options[i]->def_elem;
        const char *v = d->arg ? stmt_node_text(a, d->arg) : NULL;
        if (!strcasecmp(d->defname, "format")) {
            if (v && !strcasecmp(v, "csv"))
                o->format = CF_CSV;
            else if (v && (!strcasecmp(v, "json") || !strcasecmp(v, "jsonl") ||
                           !strcasecmp(v, "ndjson")))
                o->format = CF_JSON;
            else if (v && !strcasecmp(v, "parquet"))
                o->format = CF_PARQUET;
            else {
                stmt_set_position(c, d->location);
                return fl_error_state(err, FL_EUNSUPPORTED, "0A000",
                                      "COPY to or from a file: FORMAT %s is not supported (csv, "
                                      "json or parquet)",
                                      v ? v : "?");
            }
        } else if (!strcasecmp(d->defname, "header")) {
            o->header = !v || !strcasecmp(v, "true") || !strcasecmp(v, "on") || !strcmp(v, "1");
        } else if (!strcasecmp(d->defname, "delimiter")) {
            if (!v || strlen(v) != 1) {
                stmt_set_position(c, d->location);
                return fl_error_state(err, FL_EINVAL, "22023",
                                      "COPY delimiter must be a single one-byte character");
            }
            o->delim = v[0];
        } else {
            stmt_set_position(c, d->location);
            return fl_error_state(err, FL_EUNSUPPORTED, "0A000",
                                  "COPY to or from a file: option \"%s\" is not supported "
                                  "(FORMAT, HEADER, DELIMITER)",
                                  d->defname);
        }
    }
    return FL_OK;
}

/* "cat"."schema"."rel" of a RangeVar, quoted */
static const char *rel_text(fl_arena *a, const PgQuery__RangeVar *rv)
{
    const char *parts[3] = {rv->catalogname, rv->schemaname, rv->relname};
    const char *out = "";
    for (int i = 0; i < 3 && out; i++) {
        if (!parts[i] || !*parts[i])
            continue;
        const char *q = quoted(a, parts[i], '"');
        out = q ? fl_arena_sprintf(a, "%s%s%s", out, *out ? "." : "", q) : NULL;
    }
    return out;
}

/* ---- COPY t FROM 'file' ---- */

static fl_status copy_from(fl_stmt_ctx *c, const PgQuery__CopyStmt *s, const copy_opts *o,
                           fl_stmt_result *out, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    if (!s->relation)
        return fl_errorf(err, FL_EINVAL, "COPY FROM needs a table");
    const char *cols = "";
    for (size_t i = 0; i < s->n_attlist && cols; i++) {
        const char *q = quoted(a, fl_front_str(s->attlist[i]), '"');
        cols = q ? fl_arena_sprintf(a, "%s%s%s", cols, i ? ", " : "(", q) : NULL;
    }
    const char *lit = quoted(a, s->filename, '\'');
    const char *rel = rel_text(a, s->relation);
    if (!cols || !lit || !rel)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    const char *src = o->format == CF_PARQUET ? fl_arena_sprintf(a, "read_parquet(%s)", lit)
                      : o->format == CF_JSON
                          ? fl_arena_sprintf(a, "read_json(%s)", lit)
                          : fl_arena_sprintf(a, "read_csv(%s, header => %s, delim => '%s')", lit,
                                             o->header ? "true" : "false",
                                             o->delim == '\'' ? "''" : (char[]){o->delim, 0});
    /* csv columns are positional (PostgreSQL's COPY); parquet and json
     * columns are read by name, so a file may hold more than the list */
    const char *pick = *cols && o->format != CF_CSV ? cols + 1 : "*";
    const char *sql = src ? fl_arena_sprintf(a, "INSERT INTO %s %s%s SELECT %s FROM %s", rel, cols,
                                             *cols ? ")" : "", pick, src)
                          : NULL;
    if (!sql)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_sql_parsed *ins = NULL;
    FL_TRY(fl_sql_parse(sql, a, &ins, NULL, err));
    fl_status rc = FL_EINVAL;
    if (ins->stmt && ins->stmt->node_case == PG_QUERY__NODE__NODE_INSERT_STMT) {
        rc = stmt_check_read_only(c, ins->stmt, err); /* an INSERT: 25006 in READ ONLY */
        if (rc == FL_OK)
            rc = stmt_insert(c, ins->stmt->insert_stmt, out, err);
    } else
        fl_errorf(err, FL_EINVAL, "COPY FROM: cannot build the INSERT");
    fl_sql_parsed_free(ins);
    if (rc != FL_OK) {
        /* positions index the INSERT built here, not the user's COPY */
        c->planner->error_position = 0;
        const char *m = err ? err->msg : "";
        if (!strncmp(m, "line ", 5) && strstr(m, ": "))
            memmove(err->msg, strstr(m, ": ") + 2, strlen(strstr(m, ": ") + 2) + 1);
        if (err && !strstr(err->msg, s->filename))
            fl_error_prefix(err, "COPY FROM '%s'", s->filename);
        return rc;
    }
    stmt_tag(out, "COPY %lld", (long long)out->rows_affected);
    return FL_OK;
}

/* ---- COPY ... TO 'file' ---- */

typedef struct copy_sink {
    fl_output *o;
    const copy_opts *opt;
    fl_sql_formatter *fmt;
    fl_parquet_writer *pw;
    const fl_schema *schema;
    char *val;
    size_t vcap;
    char *line;
    size_t len, cap;
    int64_t rows;
} copy_sink;

static fl_status put(copy_sink *k, const char *s, size_t n, fl_error *err)
{
    if (k->len + n > k->cap) {
        size_t nc = k->cap ? k->cap * 2 : 4096;
        while (nc < k->len + n)
            nc *= 2;
        char *nl = realloc(k->line, nc);
        if (!nl)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        k->line = nl;
        k->cap = nc;
    }
    memcpy(k->line + k->len, s, n);
    k->len += n;
    return FL_OK;
}

static fl_status csv_value(copy_sink *k, const char *s, size_t n, fl_error *err)
{
    bool q = n == 0; /* an empty string is "", NULL is nothing */
    for (size_t i = 0; i < n && !q; i++)
        q = s[i] == k->opt->delim || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (!q)
        return put(k, s, n, err);
    FL_TRY(put(k, "\"", 1, err));
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            FL_TRY(put(k, "\"", 1, err));
        FL_TRY(put(k, s + i, 1, err));
    }
    return put(k, "\"", 1, err);
}

static fl_status json_string(copy_sink *k, const char *s, size_t n, fl_error *err)
{
    FL_TRY(put(k, "\"", 1, err));
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        char esc[8];
        if (ch == '"' || ch == '\\') {
            esc[0] = '\\';
            esc[1] = (char)ch;
            FL_TRY(put(k, esc, 2, err));
        } else if (ch < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", ch);
            FL_TRY(put(k, esc, 6, err));
        } else {
            FL_TRY(put(k, s + i, 1, err));
        }
    }
    return put(k, "\"", 1, err);
}

static bool json_bare(fl_type_id t)
{
    return t == FL_TYPE_INT32 || t == FL_TYPE_INT64 || t == FL_TYPE_FLOAT32 ||
           t == FL_TYPE_FLOAT64 || t == FL_TYPE_DECIMAL;
}

static fl_status flush_line(copy_sink *k, fl_error *err)
{
    fl_status rc = k->o->ops->write(k->o, k->line, k->len, err);
    k->len = 0;
    return rc;
}

static fl_status header(copy_sink *k, fl_error *err)
{
    for (uint32_t i = 0; i < k->schema->nfields; i++) {
        const char *nm = k->schema->fields[i].name ? k->schema->fields[i].name : "?column?";
        if (i)
            FL_TRY(put(k, &k->opt->delim, 1, err));
        FL_TRY(csv_value(k, nm, strlen(nm), err));
    }
    FL_TRY(put(k, "\n", 1, err));
    return flush_line(k, err);
}

/* The text of column i at row r into k->val (its length), as pgwire prints it. */
static size_t text_of(copy_sink *k, const fl_vector *v, uint32_t r, fl_error *err, bool *oom)
{
    size_t need = fl_sql_formatter_value(k->fmt, v, r, k->val, k->vcap);
    if (need >= k->vcap) {
        char *nv = realloc(k->val, need + 1);
        if (!nv) {
            *oom = true;
            fl_errorf(err, FL_ENOMEM, "out of memory");
            return 0;
        }
        k->val = nv;
        k->vcap = need + 1;
        fl_sql_formatter_value(k->fmt, v, r, k->val, k->vcap);
    }
    return need;
}

static fl_status text_row(copy_sink *k, const fl_batch *b, uint32_t r, fl_error *err)
{
    bool json = k->opt->format == CF_JSON;
    if (json)
        FL_TRY(put(k, "{", 1, err));
    for (uint32_t i = 0; i < b->ncols && i < k->schema->nfields; i++) {
        const fl_field *f = &k->schema->fields[i];
        if (json) {
            const char *nm = f->name ? f->name : "?column?";
            if (i)
                FL_TRY(put(k, ",", 1, err));
            FL_TRY(json_string(k, nm, strlen(nm), err));
            FL_TRY(put(k, ":", 1, err));
        } else if (i) {
            FL_TRY(put(k, &k->opt->delim, 1, err));
        }
        fl_unified u;
        fl_vector_unify(&b->cols[i], &u);
        if (!fl_unified_is_valid(&u, r)) {
            if (json)
                FL_TRY(put(k, "null", 4, err));
            continue;
        }
        bool oom = false;
        size_t n = text_of(k, &b->cols[i], r, err, &oom);
        if (oom)
            return FL_ENOMEM;
        if (!json)
            FL_TRY(csv_value(k, k->val, n, err));
        else if (f->type.id == FL_TYPE_BOOLEAN)
            FL_TRY(put(k, k->val[0] == 't' ? "true" : "false", k->val[0] == 't' ? 4 : 5, err));
        else if (json_bare(f->type.id) && strcmp(k->val, "NaN") && strcmp(k->val, "Infinity") &&
                 strcmp(k->val, "-Infinity"))
            FL_TRY(put(k, k->val, n, err));
        else
            FL_TRY(json_string(k, k->val, n, err));
    }
    FL_TRY(put(k, json ? "}\n" : "\n", json ? 2 : 1, err));
    return flush_line(k, err);
}

static fl_status on_batch(void *ud, const fl_batch *b, fl_error *err)
{
    copy_sink *k = ud;
    if (k->pw) {
        FL_TRY(fl_parquet_writer_write(k->pw, b, err));
        k->rows += b->sel ? b->sel->count : b->nrows;
        return FL_OK;
    }
    uint32_t n = b->sel ? b->sel->count : b->nrows;
    for (uint32_t i = 0; i < n; i++) {
        FL_TRY(text_row(k, b, b->sel ? b->sel->idx[i] : i, err));
        k->rows++;
    }
    return FL_OK;
}

static fl_status copy_query(fl_stmt_ctx *c, const PgQuery__CopyStmt *s, PgQuery__Node **q,
                            fl_error *err)
{
    fl_arena *a = c->planner->arena;
    if (s->query) {
        *q = s->query;
        return FL_OK;
    }
    uint32_t nt = s->n_attlist ? (uint32_t)s->n_attlist : 1;
    PgQuery__Node **t = fl_arena_calloc(a, nt, sizeof *t);
    PgQuery__Node **from = fl_arena_calloc(a, 1, sizeof *from);
    if (!t || !from)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < nt; i++) {
        PgQuery__Node *v =
            s->n_attlist ? stmt_mk_colref(a, NULL, fl_front_str(s->attlist[i])) : stmt_mk_star(a);
        if (!v || !(t[i] = stmt_mk_restarget(a, v, NULL)))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    if (!(from[0] = stmt_mk_rangevar_node(a, s->relation)) ||
        !(*q = stmt_mk_select(a, t, nt, from, 1, NULL)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return FL_OK;
}

/* An absolute form of a local relative path (arena), else p itself. */
static const char *absolute(fl_arena *a, const char *p)
{
    char cwd[4096];
    if (!p || p[0] == '/' || strstr(p, "://") || !strncmp(p, "file:", 5) ||
        !getcwd(cwd, sizeof cwd))
        return p;
    return fl_arena_sprintf(a, "%s/%s", cwd, p);
}

/* Writing is where a file path can do harm: never into the warehouse or
 * an allowed table root (table files live there), never over the
 * catalog's database or a protected file, never through "..". Checked
 * after fl_sql_authz_files and before anything is planned. */
static fl_status write_target_check(fl_stmt_ctx *c, const char *path, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    const fl_catalog *cat = c->planner->catalog;
    const char *p = absolute(a, path);
    bool bad = !p || !*path || strstr(path, "/../") || !strncmp(path, "../", 3) ||
               (strlen(path) >= 3 && !strcmp(path + strlen(path) - 3, "/..")) ||
               !strcmp(path, "..");
    const char *wh = cat ? absolute(a, cat->warehouse) : NULL;
    bad = bad || (wh && *wh && fl_location_within(p, wh)) ||
          (cat && (fl_catalog_path_protected(cat, p) || fl_catalog_path_protected(cat, path)));
    for (uint32_t i = 0; !bad && cat && cat->confine && i < cat->confine->nallowed; i++)
        bad = fl_location_within(p, absolute(a, cat->confine->allowed[i]));
    if (!bad)
        return FL_OK;
    return fl_error_state(err, FL_EFORBIDDEN, "42501",
                          "COPY TO '%s': files are not written into the warehouse, a table "
                          "location root or the catalog's files (or through \"..\")",
                          path);
}

static fl_status copy_to(fl_stmt_ctx *c, const PgQuery__CopyStmt *s, const copy_opts *o,
                         fl_stmt_result *out, fl_error *err)
{
    fl_planner_ctx *pc = c->planner;
    if (!pc->io)
        return fl_errorf(err, FL_EINVAL, "COPY TO a file needs a FileIO");
    /* files are outside the grant model (authz.h): before anything is planned or written */
    FL_TRY(fl_sql_authz_files(pc, s->filename, -1, err));
    FL_TRY(write_target_check(c, s->filename, err));
    PgQuery__Node *q = NULL;
    FL_TRY(copy_query(c, s, &q, err));
    fl_plan *plan = NULL;
    FL_TRY(fl_planner_plan_query(pc, q, &plan, err));
    copy_sink k = {.opt = o, .schema = &plan->schema};
    fl_status rc = fl_sql_formatter_new(pc->time_zone, &k.fmt, err);
    if (rc == FL_OK)
        rc = fl_fileio_create(pc->io, s->filename, FL_CREATE_OVERWRITE, &k.o, err);
    if (rc == FL_OK && o->format == CF_PARQUET)
        rc = fl_parquet_writer_open(k.o, &plan->schema, NULL, &k.pw, err);
    if (rc == FL_OK && o->format == CF_CSV && o->header)
        rc = header(&k, err);
    if (rc == FL_OK)
        rc = stmt_run_plan(c, plan, on_batch, &k, err);
    if (k.pw) {
        fl_parquet_writer *w = k.pw;
        k.pw = NULL;
        if (rc == FL_OK)
            rc = fl_parquet_writer_close(w, NULL, err);
        else
            fl_parquet_writer_abort(w);
    }
    if (k.o) {
        if (rc == FL_OK)
            rc = k.o->ops->close(k.o, err);
        else
            k.o->ops->abort(k.o);
    }
    fl_sql_formatter_free(k.fmt);
    free(k.val);
    free(k.line);
    if (rc != FL_OK)
        return fl_error_prefix(err, "COPY TO '%s'", s->filename);
    out->rows_affected = k.rows;
    stmt_tag(out, "COPY %lld", (long long)k.rows);
    return FL_OK;
}

fl_status stmt_copy(fl_stmt_ctx *c, const PgQuery__CopyStmt *s, fl_stmt_result *out, fl_error *err)
{
    if (s->is_program)
        return fl_error_state(err, FL_EUNSUPPORTED, "0A000", "COPY ... PROGRAM is not supported");
    if (!s->filename || !*s->filename)
        return fl_error_state(err, FL_EUNSUPPORTED, "0A000",
                              "COPY ... %s is the client protocol's: run it through a "
                              "PostgreSQL client connected to floe serve (psql's \\copy)",
                              s->is_from ? "FROM STDIN" : "TO STDOUT");
    copy_opts o;
    FL_TRY(parse_opts(c, s, &o, err));
    return s->is_from ? copy_from(c, s, &o, out, err) : copy_to(c, s, &o, out, err);
}
