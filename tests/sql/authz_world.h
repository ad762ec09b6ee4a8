/*
 * authz_world.h - the world of the engine's authorization fuzzers: a
 * warehouse with namespaces a principal may and may not touch, random
 * statements over all of them, and the properties every statement must
 * keep. Shared by the differential test (tests/sql/test_authz_differential.c,
 * seeded) and the libFuzzer target (fuzz/fuzz_authz_sql.c, byte-driven).
 * Header-only test code: no CHECK macros here, violations are reported to
 * the caller (aw_report).
 *
 * THE WORLD (aw_open)
 *   A temporary folder holding the warehouse and, inside it, catalog.db:
 *   the SQLite catalog and the auth store in one file, as `floe serve`
 *   lays them out. Namespaces pub, pub.inner, secret, secret.deep, pubx
 *   (a prefix trap for pub) and sandbox; small Iceberg tables of three
 *   shapes (sqlgen.h's t1, t2, t3 columns), each written twice so time
 *   travel has two snapshots. Text in secret's tables holds the marker
 *   S3CR3T and the tables only secret has are named hush*, so a result
 *   cell or an error message holding either is a leak, whatever the
 *   access record says. Views: pub.v_pub (no definer: invoker rights),
 *   pub.v_def (SQL CREATE VIEW by `author`, over pub.inner), pub.v_mal
 *   (over secret.t3, metadata rewritten to name `author` as definer, as a
 *   REST-created view would; SQL CREATE VIEW of it by author is refused),
 *   pub.v_inv (invoker rights over secret.t3), pub.v_audit and pub.v_cat
 *   (definer `auditor`, who may read secret: counts only), secret.v_sec,
 *   pubx.v_x, sandbox.v_sb.
 *   Principals: reader (READ on namespace pub), author (READ, CREATE on
 *   pub), auditor (READ on pub and secret, CREATE on pub), sandboxer
 *   (CREATE, WRITE, READ, DROP on sandbox). The same grants are entered in
 *   a reference model (tests/auth/authz_model.h).
 *
 * THE STATEMENTS (aw_statement)
 *   sqlgen.h queries whose FROM items are drawn by a table hook from every
 *   namespace (qualified, quoted, three-part and unqualified names, time
 *   travel, metadata tables, views, CTE-shadowed names, read_parquet /
 *   iceberg_scan / read_csv over secret's files, generate_series, unnest,
 *   pg_catalog and information_schema), and templates of every other
 *   statement kind (INSERT, UPDATE, DELETE, MERGE, TRUNCATE, CREATE TABLE
 *   [AS], CREATE [OR REPLACE] VIEW, DROP, ALTER, ALTER TABLE ... EXECUTE,
 *   CREATE SCHEMA, SET search_path, transaction blocks, temporary tables,
 *   EXPLAIN, PREPARE/EXECUTE, catalog functions). The choice source is an
 *   sg_gen: a seed or the fuzzer's bytes.
 *
 * THE PROPERTIES (aw_check_*)
 *   (a) a statement that succeeded has only access records the grants
 *       allow (checked against the reference model for whoever the record
 *       names), the invoker's inside its own namespace (never a prefix
 *       trap) or listings of the catalog, with the pass's privileges only,
 *       a definer's only READ or listings and only for the definers of the
 *       world's views, never FILES; no result cell shows another
 *       namespace: a marker, the data tag of its rows ("pubx-k"), or its
 *       name as a listing shows it ("secret", "secret.t3"), which catches
 *       what records cannot (state built for one principal served to
 *       another);
 *   (b) nothing outside the own namespace changed (for reader: nothing at
 *       all): catalog rows and auth store rows (SQLite) and the warehouse
 *       files (path, size, mtime), compared before and after;
 *   (c) a refusal is 42501: templates that must be refused are refused
 *       with 42501, and no failure says an object outside the own
 *       namespace does or does not exist (42P01, 3F000, 42P06, 42P07
 *       naming one); no error message holds a marker.
 */
#ifndef FLOE_TESTS_AUTHZ_WORLD_H
#define FLOE_TESTS_AUTHZ_WORLD_H

#include <dirent.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../auth/authz_model.h"
#include "floe/auth.h"
#include "floe/catalog.h"
#include "floe/ice_table.h"
#include "floe/ice_view.h"
#include "floe/s3.h"
#include "floe/sql.h"
#include "floe_test.h"
#include "sqlgen.h"

/* ---- objects ---- */

typedef struct aw_obj {
    const char *ns; /* dot-joined levels */
    const char *name;
    int shape; /* 0 = t1(a,b,c,d,e), 1 = t2(x,y,z,w), 2 = t3(k,v) */
    int view;
} aw_obj;

static const aw_obj AW_OBJS[] = {
    {"pub", "t1", 0, 0},
    {"pub", "t2", 1, 0},
    {"pub", "t3", 2, 0},
    {"pub.inner", "t3", 2, 0},
    {"secret", "t1", 0, 0},
    {"secret", "t2", 1, 0},
    {"secret", "t3", 2, 0},
    {"secret", "hush", 2, 0},
    {"secret", "pg_hush", 2, 0},
    {"secret.deep", "t3", 2, 0},
    {"secret.deep", "hush2", 2, 0},
    {"pubx", "t1", 0, 0},
    {"pubx", "t3", 2, 0},
    {"sandbox", "t1", 0, 0},
    {"sandbox", "t3", 2, 0},
    {"pub", "v_pub", 2, 1},
    {"pub", "v_def", 2, 1},
    {"pub", "v_mal", 2, 1},
    {"pub", "v_inv", 2, 1},
    {"pub", "v_audit", 2, 1},
    {"pub", "v_cat", 2, 1},
    {"secret", "v_sec", 2, 1},
    {"pubx", "v_x", 2, 1},
    {"sandbox", "v_sb", 2, 1},
    /* names that do not exist, in each namespace */
    {"pub", "nosuch_p", 2, 0},
    {"secret", "nosuch_s", 2, 0},
    {"pubx", "nosuch_x", 2, 0},
    {"sandbox", "nosuch_b", 2, 0},
    {"nosuchns", "t3", 2, 0},
};
#define AW_NOBJS (sizeof AW_OBJS / sizeof AW_OBJS[0])
#define AW_NTABLES 15 /* the first AW_NTABLES objects are tables */

static const char *const AW_NAMESPACES[] = {"pub",  "pub.inner", "secret",  "secret.deep",
                                            "pubx", "sandbox",   "nosuchns"};
#define AW_NNS (sizeof AW_NAMESPACES / sizeof AW_NAMESPACES[0])

/* Markers: text only the secret namespace holds. */
static const char *const AW_MARKERS[] = {"S3CR3T", "hush"};

#define AW_MAX_SNAPS 64

typedef struct aw_world {
    char dir[256];
    char wh[300];
    char uri[340];
    fl_fileio *io;
    fl_catalog *cat; /* the raw catalog (no guard) */
    fl_auth *auth;
    fl_sql_session *admin; /* no auth: the embedded owner */
    am_model model;
    fl_principal reader, author, auditor, sandboxer;
    int64_t snaps[AW_MAX_SNAPS];
    uint32_t nsnaps;
    sqlite3 *db; /* read-only view of catalog.db for the state digests */
    char err[1024];
} aw_world;

/* One pass: who runs the statements and what they may touch. */
typedef struct aw_pass {
    const char *who;     /* principal name */
    const char *own;     /* own namespace (one level) */
    uint32_t privs;      /* privileges the principal holds on own */
    bool nothing_writes; /* reader: not even own may change */
    /* data of own that the principal's row filters and column masks hide
     * (NULL-terminated; NULL = none) */
    const char *const *hidden;
} aw_pass;

/* What the generator knows about the statement it wrote. */
typedef struct aw_stmt {
    char *sql;
    size_t cap;
    bool must_refuse;      /* must fail with 42501 */
    bool is_block;         /* BEGIN / COMMIT / ROLLBACK */
    const char *kind;      /* template name, for reports */
    const char *search_to; /* SET search_path: the namespace it sets */
    bool prepared;         /* run through fl_sql_prepare + fl_sql_stmt_execute */
} aw_stmt;

typedef struct aw_gen {
    sg_gen g;
    const aw_world *w;
    const aw_pass *pass;
    aw_stmt *st;
    int subq;           /* nesting of generated sources */
    const char *search; /* the session's search_path (one namespace), as last set */
    bool in_block;      /* inside BEGIN ... (the runner tells) */
    bool block_failed;  /* and a statement of the block failed */
} aw_gen;

/* ---- small helpers ---- */

static inline void aw_fail(aw_world *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void aw_fail(aw_world *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, sizeof w->err, fmt, ap);
    va_end(ap);
}

static inline bool aw_obj_in(const aw_obj *o, const char *own)
{
    size_t n = strlen(own);
    return !strncmp(o->ns, own, n) && (o->ns[n] == '\0' || o->ns[n] == '.');
}

/* Runs one statement, rows drained; FL_OK or the failure (msg in w->err). */
static inline fl_status aw_exec(aw_world *w, fl_sql_session *s, const char *sql)
{
    fl_error err;
    fl_error_clear(&err);
    fl_sql_result *r = NULL;
    fl_status rc = fl_sql_execute(s, sql, &r, &err);
    for (bool eof = false; rc == FL_OK && !eof;) {
        const fl_batch *b;
        rc = fl_sql_result_next(r, &b, &eof, &err);
    }
    fl_sql_result_close(r);
    if (rc != FL_OK)
        aw_fail(w, "%s: %s", sql, err.msg);
    return rc;
}

/* The first column of the rows of sql as int64 values. */
static inline fl_status aw_query_ids(aw_world *w, const char *sql, int64_t *ids, uint32_t cap,
                                     uint32_t *n)
{
    fl_error err;
    fl_sql_result *r = NULL;
    fl_status rc = fl_sql_execute(w->admin, sql, &r, &err);
    for (bool eof = false; rc == FL_OK && !eof;) {
        const fl_batch *b;
        rc = fl_sql_result_next(r, &b, &eof, &err);
        for (uint32_t i = 0; rc == FL_OK && !eof && i < fl_batch_live_rows(b); i++) {
            char v[64];
            fl_sql_format_value(&b->cols[0], b->sel ? b->sel->idx[i] : i, "UTC", v, sizeof v);
            if (*n < cap)
                ids[(*n)++] = strtoll(v, NULL, 10);
        }
    }
    fl_sql_result_close(r);
    if (rc != FL_OK)
        aw_fail(w, "%s: %s", sql, err.msg);
    return rc;
}

/* ---- building the world ---- */

static const char *const AW_COLS[3] = {"(a int, b text, c numeric(10,2), d date, e boolean)",
                                       "(x int, y text, z bigint, w double precision)",
                                       "(k int, v text)"};

/* Names of shape s's columns in the SELECT list order k-like, v-like. */
static inline const char *aw_kcol(int shape)
{
    return shape == 0 ? "a" : shape == 1 ? "x" : "k";
}
static inline const char *aw_vcol(int shape)
{
    return shape == 0 ? "b" : shape == 1 ? "y" : "v";
}

/* Rows for a table of shape s; tag is the text written into text columns. */
static inline void aw_rows(int shape, const char *tag, int round, char *out, size_t cap)
{
    int b = round * 10;
    if (shape == 0)
        snprintf(out, cap,
                 "(%d, '%s-a', 1.50, DATE '2024-01-01', true), (%d, '%s-b', -2.25, DATE "
                 "'2024-02-29', false), (NULL, NULL, NULL, NULL, NULL)",
                 b + 1, tag, b + 2, tag);
    else if (shape == 1)
        snprintf(out, cap,
                 "(%d, '%s-x', 10, 1.5), (%d, '%s-y', -5, -0.5), (NULL, NULL, NULL, NULL)", b + 1,
                 tag, b + 2, tag);
    else
        snprintf(out, cap, "(%d, '%s-k'), (%d, '%s-v'), (2, NULL), (NULL, '%s-n')", b + 1, tag,
                 b + 2, tag, tag);
}

/* SQL name of o's namespace: nested ones quoted as one dotted identifier,
 * which the binder and the DML paths split into levels. */
static inline void aw_qual(const aw_obj *o, char *out, size_t cap)
{
    if (strchr(o->ns, '.'))
        snprintf(out, cap, "\"%s\".%s", o->ns, o->name);
    else
        snprintf(out, cap, "%s.%s", o->ns, o->name);
}

/* DDL takes nested namespaces as three-part names (stmt_names.c). */
static inline void aw_qual_ddl(const aw_obj *o, char *out, size_t cap)
{
    snprintf(out, cap, "%s.%s", o->ns, o->name);
}

static inline fl_status aw_make_table(aw_world *w, const aw_obj *o)
{
    char q[256], qd[256], sql[1024], rows[512];
    aw_qual(o, q, sizeof q);
    aw_qual_ddl(o, qd, sizeof qd);
    snprintf(sql, sizeof sql, "CREATE TABLE %s %s", qd, AW_COLS[o->shape]);
    FL_TRY(aw_exec(w, w->admin, sql));
    bool secret = !strncmp(o->ns, "secret", 6);
    for (int round = 0; round < 2; round++) {
        aw_rows(o->shape, secret ? "S3CR3T" : o->ns, round, rows, sizeof rows);
        snprintf(sql, sizeof sql, "INSERT INTO %s VALUES %s", q, rows);
        FL_TRY(aw_exec(w, w->admin, sql));
    }
    snprintf(sql, sizeof sql, "SELECT snapshot_id FROM \"%s\".\"%s$snapshots\"", o->ns, o->name);
    return aw_query_ids(w, sql, w->snaps, AW_MAX_SNAPS, &w->nsnaps);
}

static inline fl_status aw_principal(aw_world *w, const char *name, const char *role,
                                     fl_principal *out)
{
    fl_error err;
    char sec[128];
    fl_status rc = fl_auth_principal_create(w->auth, name, false, sec, sizeof sec, &err);
    if (rc == FL_OK)
        rc = fl_auth_role_create(w->auth, role, &err);
    if (rc == FL_OK)
        rc = fl_auth_role_assign(w->auth, name, role, true, &err);
    if (rc == FL_OK)
        rc = fl_auth_principal_get(w->auth, name, out, &err);
    if (rc != FL_OK)
        aw_fail(w, "principal %s: %s", name, err.msg);
    am_add_principal(&w->model, name);
    am_assign(&w->model, name, role, true);
    return rc;
}

/* Grants privs on namespace ns (one or more dot-joined levels) to role, in
 * the store and in the model. */
static inline fl_status aw_grant(aw_world *w, const char *role, uint32_t privs, const char *ns)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_namespace n;
    fl_error err;
    fl_status rc = fl_namespace_parse(ns, &a, &n, &err);
    am_sec s;
    memset(&s, 0, sizeof s);
    s.nlevels = n.nlevels;
    for (uint32_t i = 0; rc == FL_OK && i < n.nlevels; i++)
        snprintf(s.levels[i], sizeof s.levels[i], "%s", n.levels[i]);
    for (uint32_t p = 1; rc == FL_OK && p <= FL_PRIV_MANAGE_GRANTS; p <<= 1)
        if (privs & p) {
            rc = fl_auth_grant(w->auth, role, (fl_privilege)p, &n, NULL, true, &err);
            am_set_grant(&w->model, role, p, &s, true);
        }
    fl_arena_free(&a);
    if (rc != FL_OK)
        aw_fail(w, "grant %s on %s: %s", role, ns, err.msg);
    return rc;
}

/* An authorized session for p (default namespace secret: unqualified names
 * are secret's unless a statement sets search_path). */
static inline fl_status aw_session(aw_world *w, const fl_principal *p, fl_sql_session **out)
{
    fl_sql_options o;
    memset(&o, 0, sizeof o);
    o.catalog = w->cat;
    o.io = w->io;
    o.threads = 1;
    o.memory_limit = (uint64_t)64 << 20;
    o.default_namespace = "secret";
    o.auth = p ? w->auth : NULL;
    o.principal = p;
    o.user = p ? p->name : NULL;
    fl_error err;
    fl_status rc = fl_sql_session_open(&o, out, &err);
    if (rc != FL_OK) {
        aw_fail(w, "session: %s", err.msg);
        return rc;
    }
    return aw_exec(w, *out, "SET statement_timeout = '20s'");
}

/* Rewrites view id's current version so that it names definer (what the
 * REST server records for a view a client created). */
static inline fl_status aw_set_definer(aw_world *w, const char *ns, const char *name,
                                       const char *definer)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_error_clear(&err);
    fl_table_ident id = {.name = name};
    const char *old = NULL;
    fl_ice_view_metadata m;
    fl_status rc = fl_namespace_parse(ns, &a, &id.ns, &err);
    if (rc == FL_OK)
        rc = w->cat->ops->load_view(w->cat, &id, &a, &old, &err);
    if (rc == FL_OK)
        rc = fl_ice_view_metadata_read(w->io, old, &a, &m, &err);
    static fl_ice_kv kv[2] = {{"engine-name", "floe"}, {FL_ICE_VIEW_DEFINER, NULL}};
    kv[1].value = definer;
    for (uint32_t i = 0; rc == FL_OK && i < m.nversions; i++)
        if (m.versions[i].version_id == m.current_version_id)
            m.versions[i].summary = (fl_ice_map){2, kv};
    char *json = NULL, uuid[37];
    size_t len = 0;
    fl_ice_uuid4(uuid);
    const char *path = fl_arena_sprintf(&a, "%s/metadata/00001-%s.metadata.json",
                                        rc == FL_OK ? m.location : "", uuid);
    if (rc == FL_OK)
        rc = fl_ice_view_metadata_write(&m, &json, &len, &err);
    fl_output *o = NULL;
    if (rc == FL_OK)
        rc = fl_fileio_create(w->io, path, 0, &o, &err);
    if (rc == FL_OK)
        rc = fl_output_write(o, json, len, &err);
    if (rc == FL_OK) {
        rc = fl_output_close(o, &err);
        o = NULL;
    }
    fl_output_abort(o);
    free(json);
    if (rc == FL_OK)
        rc = w->cat->ops->commit_view(w->cat, &id, old, path, &err);
    if (rc != FL_OK)
        aw_fail(w, "definer of %s.%s: %s", ns, name, err.msg);
    fl_arena_free(&a);
    return rc;
}

static inline fl_status aw_make_views(aw_world *w)
{
    static const char *const admin_views[] = {
        "CREATE VIEW pub.v_pub AS SELECT k, v FROM pub.t3",
        "CREATE VIEW pub.v_mal AS SELECT k, v FROM secret.t3",
        "CREATE VIEW pub.v_inv WITH (security_invoker = true) AS SELECT k, v FROM secret.t3",
        "CREATE VIEW secret.v_sec AS SELECT k, v FROM pub.t3",
        "CREATE VIEW pubx.v_x AS SELECT k, v FROM pubx.t3",
        "CREATE VIEW sandbox.v_sb AS SELECT k, v FROM sandbox.t3",
    };
    for (size_t i = 0; i < sizeof admin_views / sizeof *admin_views; i++)
        FL_TRY(aw_exec(w, w->admin, admin_views[i]));
    FL_TRY(aw_set_definer(w, "pub", "v_mal", "author"));
    fl_sql_session *s = NULL;
    FL_TRY(aw_session(w, &w->author, &s));
    fl_status rc = aw_exec(w, s, "CREATE VIEW pub.v_def AS SELECT k, v FROM \"pub.inner\".t3");
    /* the SQL path refuses a definer view over what its definer cannot read */
    if (rc == FL_OK &&
        aw_exec(w, s, "CREATE VIEW pub.v_mal2 AS SELECT k, v FROM secret.t3") != FL_EFORBIDDEN) {
        aw_fail(w, "author's CREATE VIEW over secret.t3 was not refused");
        rc = FL_EINVAL;
    }
    fl_sql_session_close(s);
    FL_TRY(rc);
    FL_TRY(aw_session(w, &w->auditor, &s));
    rc = aw_exec(w, s,
                 "CREATE VIEW pub.v_audit AS SELECT CAST(count(*) AS int) AS k, 'n' AS v FROM "
                 "secret.t2");
    if (rc == FL_OK)
        rc = aw_exec(w, s,
                     "CREATE VIEW pub.v_cat AS SELECT CAST(count(*) AS int) AS k, 'c' AS v FROM "
                     "pg_catalog.pg_class");
    fl_sql_session_close(s);
    return rc;
}

/* reader's row filter and column mask (AW_READER_HIDDEN) */
static inline fl_status aw_make_policies(aw_world *w)
{
    const char *lv[1] = {"pub"};
    fl_namespace ns = {1, lv};
    fl_error err;
    fl_status rc = fl_auth_policy_set(w->auth, "r_reader", FL_POLICY_COLUMN_MASK, &ns, "t1", "b",
                                      "'***'", &err);
    if (rc == FL_OK)
        rc = fl_auth_policy_set(w->auth, "r_reader", FL_POLICY_ROW_FILTER, &ns, "t2", NULL,
                                "x % 10 <> 1", &err);
    if (rc != FL_OK)
        aw_fail(w, "policies: %s", err.msg);
    return rc;
}

static inline fl_status aw_make_principals(aw_world *w)
{
    FL_TRY(aw_principal(w, "reader", "r_reader", &w->reader));
    FL_TRY(aw_principal(w, "author", "r_author", &w->author));
    FL_TRY(aw_principal(w, "auditor", "r_auditor", &w->auditor));
    FL_TRY(aw_principal(w, "sandboxer", "r_sandbox", &w->sandboxer));
    FL_TRY(aw_grant(w, "r_reader", FL_PRIV_READ, "pub"));
    FL_TRY(aw_grant(w, "r_author", FL_PRIV_READ | FL_PRIV_CREATE, "pub"));
    FL_TRY(aw_grant(w, "r_auditor", FL_PRIV_READ | FL_PRIV_CREATE, "pub"));
    FL_TRY(aw_grant(w, "r_auditor", FL_PRIV_READ, "secret"));
    return aw_grant(w, "r_sandbox", FL_PRIV_READ | FL_PRIV_WRITE | FL_PRIV_CREATE | FL_PRIV_DROP,
                    "sandbox");
}

static inline fl_status aw_open_stores(aw_world *w)
{
    snprintf(w->wh, sizeof w->wh, "%s/wh", w->dir);
    snprintf(w->uri, sizeof w->uri, "sqlite:%s/catalog.db", w->wh);
    if (mkdir(w->wh, 0700) != 0) {
        aw_fail(w, "mkdir %s failed", w->wh);
        return FL_EIO;
    }
    fl_error err;
    fl_status rc = fl_fileio_default(NULL, &w->io, &err);
    if (rc == FL_OK)
        rc = fl_catalog_open_uri(w->uri, NULL, w->wh, w->io, &w->cat, &err);
    fl_auth_options ao = {.store_uri = w->uri};
    if (rc == FL_OK)
        rc = fl_auth_open(&ao, &w->auth, &err);
    if (rc != FL_OK)
        aw_fail(w, "opening %s: %s", w->uri, err.msg);
    return rc;
}

static inline fl_status aw_make_tables(aw_world *w)
{
    static const char *const schemas[] = {"pub",         "pub.inner", "secret",
                                          "secret.deep", "pubx",      "sandbox"};
    char sql[256];
    for (size_t i = 0; i < sizeof schemas / sizeof *schemas; i++) {
        snprintf(sql, sizeof sql, "CREATE SCHEMA \"%s\"", schemas[i]);
        FL_TRY(aw_exec(w, w->admin, sql));
    }
    for (uint32_t i = 0; i < AW_NTABLES; i++)
        FL_TRY(aw_make_table(w, &AW_OBJS[i]));
    return FL_OK;
}

static inline bool aw_is_world_obj(const char *ns, const char *name)
{
    for (uint32_t i = 0; i < AW_NOBJS; i++)
        if (!strcmp(AW_OBJS[i].ns, ns) && !strcmp(AW_OBJS[i].name, name))
            return true;
    return false;
}

/* Drops the tables (pass 0) and views (pass 1) of own that aw_open did not
 * make: a renamed table keeps its folder, which a new table of the old name
 * may not overlap. */
static inline void aw_drop_strays(aw_world *w, const char *own)
{
    fl_namespace ns = {1, &own};
    for (int pass = 0; pass < 2; pass++) {
        fl_arena a;
        fl_arena_init(&a, 0);
        fl_error err;
        const char **names = NULL;
        uint32_t n = 0;
        fl_status rc = pass ? w->cat->ops->list_views(w->cat, &ns, &a, &names, &n, &err)
                            : w->cat->ops->list_tables(w->cat, &ns, &a, &names, &n, &err);
        for (uint32_t i = 0; rc == FL_OK && i < n; i++) {
            if (aw_is_world_obj(own, names[i]))
                continue;
            char sql[512];
            snprintf(sql, sizeof sql, "DROP %s %s.\"%s\"", pass ? "VIEW" : "TABLE", own, names[i]);
            aw_exec(w, w->admin, sql);
        }
        fl_arena_free(&a);
    }
}

/* Puts namespace own's tables and views back as aw_open made them, where a
 * pass dropped, renamed or altered them (the sandbox pass may). */
static inline fl_status aw_restore(aw_world *w, const char *own)
{
    char sql[512], q[256];
    snprintf(sql, sizeof sql, "CREATE SCHEMA IF NOT EXISTS \"%s\"", own);
    FL_TRY(aw_exec(w, w->admin, sql));
    aw_drop_strays(w, own);
    for (uint32_t i = 0; i < AW_NOBJS; i++) {
        const aw_obj *o = &AW_OBJS[i];
        if (strcmp(o->ns, own) != 0 || strstr(o->name, "nosuch"))
            continue;
        aw_qual(o, q, sizeof q);
        snprintf(sql, sizeof sql, "SELECT %s, %s FROM %s LIMIT 0", aw_kcol(o->shape),
                 aw_vcol(o->shape), q);
        if (aw_exec(w, w->admin, sql) == FL_OK)
            continue;
        snprintf(sql, sizeof sql, "DROP %s IF EXISTS %s", o->view ? "VIEW" : "TABLE", q);
        aw_exec(w, w->admin, sql);
        if (o->view) {
            snprintf(sql, sizeof sql, "CREATE VIEW %s AS SELECT k, v FROM %s.t3", q, own);
            FL_TRY(aw_exec(w, w->admin, sql));
        } else {
            FL_TRY(aw_make_table(w, o));
        }
    }
    return FL_OK;
}

static inline void aw_close(aw_world *w)
{
    if (w->db)
        sqlite3_close(w->db);
    fl_sql_session_close(w->admin);
    fl_auth_close(w->auth);
    fl_catalog_close(w->cat);
    fl_fileio_destroy(w->io);
    if (w->dir[0]) {
        ft_rmtree(w->dir);
    }
    memset(w, 0, sizeof *w);
}

/* Builds the world in a new temporary folder. On failure w->err says why
 * (and aw_close still has to be called). */
static inline fl_status aw_open(aw_world *w)
{
    memset(w, 0, sizeof *w);
    if (!ft_tmpdir(w->dir, sizeof w->dir, "floe_authz")) {
        w->dir[0] = '\0';
        aw_fail(w, "mkdtemp failed");
        return FL_EIO;
    }
    FL_TRY(aw_open_stores(w));
    FL_TRY(aw_session(w, NULL, &w->admin));
    FL_TRY(aw_make_tables(w));
    FL_TRY(aw_make_principals(w));
    FL_TRY(aw_make_policies(w));
    FL_TRY(aw_make_views(w));
    char db[400];
    snprintf(db, sizeof db, "%s/catalog.db", w->wh);
    if (sqlite3_open_v2(db, &w->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        aw_fail(w, "sqlite3_open_v2 %s failed", db);
        return FL_EIO;
    }
    return FL_OK;
}

/* ---- state digests (property b) ---- */

/* A growable buffer of lines. */
typedef struct aw_buf {
    char *p;
    size_t n, cap;
} aw_buf;

static inline void aw_buf_put(aw_buf *b, const char *s)
{
    size_t l = strlen(s);
    if (b->n + l + 2 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 4096) + l;
        char *p = realloc(b->p, cap);
        if (!p)
            return;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, l);
    b->n += l;
    b->p[b->n++] = '\n';
    b->p[b->n] = '\0';
}

/* The state as text, split into what lies in namespace own (own) and
 * everything else (rest). */
typedef struct aw_state {
    aw_buf own, rest;
} aw_state;

static inline void aw_state_free(aw_state *s)
{
    free(s->own.p);
    free(s->rest.p);
    memset(s, 0, sizeof *s);
}

static inline bool aw_ns_in(const char *ns, const char *own)
{
    size_t n = strlen(own);
    return ns && !strncmp(ns, own, n) && (ns[n] == '\0' || ns[n] == '.');
}

static inline void aw_walk(const char *root, const char *rel, const char *own, aw_state *s)
{
    char path[2048];
    snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            (!*rel && !strncmp(e->d_name, "catalog.db", 10)))
            continue;
        char r2[1024], full[3072], line[3200];
        int w = snprintf(r2, sizeof r2, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        if (w < 0 || (size_t)w >= sizeof r2)
            continue; /* deeper than any warehouse the tests build */
        snprintf(full, sizeof full, "%s/%s", root, r2);
        struct stat st;
        if (lstat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            aw_walk(root, r2, own, s);
            continue;
        }
        snprintf(line, sizeof line, "file %s %lld %lld.%09ld", r2, (long long)st.st_size,
                 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
        size_t n = strlen(own);
        bool mine = !strncmp(r2, own, n) && r2[n] == '/';
        aw_buf_put(mine ? &s->own : &s->rest, line);
    }
    closedir(d);
}

/* Every row of one table of catalog.db; catalog rows (iceberg_*: column 2
 * is the namespace) of own go to s->own. */
static inline void aw_db_rows(aw_world *w, const char *table, const char *own, aw_state *s)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT * FROM \"%.200s\"", table);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK)
        return;
    bool cat = !strncmp(table, "iceberg_", 8);
    while (sqlite3_step(st) == SQLITE_ROW) {
        char line[4096];
        size_t o = (size_t)snprintf(line, sizeof line, "db %s", table);
        for (int c = 0; c < sqlite3_column_count(st) && o < sizeof line; c++) {
            const unsigned char *v = sqlite3_column_text(st, c);
            o += (size_t)snprintf(line + o, sizeof line - o, "|%s", v ? (const char *)v : "NULL");
        }
        const char *ns = cat ? (const char *)sqlite3_column_text(st, 1) : NULL;
        aw_buf_put(aw_ns_in(ns, own) ? &s->own : &s->rest, line);
    }
    sqlite3_finalize(st);
}

static inline int aw_cmp_line(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Sorts the lines of b in place (row order of SQLite and readdir is not
 * stable across changes). */
static inline void aw_buf_sort(aw_buf *b)
{
    if (!b->n)
        return;
    size_t n = 0;
    for (size_t i = 0; i < b->n; i++)
        n += b->p[i] == '\n';
    char **v = malloc(n * sizeof *v);
    char *copy = malloc(b->n + 1);
    if (!v || !copy) {
        free(v);
        free(copy);
        return;
    }
    memcpy(copy, b->p, b->n + 1);
    size_t k = 0;
    for (char *p = copy, *e; k < n && (e = strchr(p, '\n')); p = e + 1) {
        *e = '\0';
        v[k++] = p;
    }
    qsort(v, k, sizeof *v, aw_cmp_line);
    size_t o = 0;
    for (size_t i = 0; i < k; i++) {
        size_t l = strlen(v[i]);
        memcpy(b->p + o, v[i], l);
        o += l;
        b->p[o++] = '\n';
    }
    b->p[o] = '\0';
    free(v);
    free(copy);
}

/* The whole state: catalog.db's rows and the warehouse's files. */
static inline void aw_state_take(aw_world *w, const char *own, aw_state *s)
{
    memset(s, 0, sizeof *s);
    sqlite3_stmt *st = NULL;
    const char *q = "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name";
    if (sqlite3_prepare_v2(w->db, q, -1, &st, NULL) == SQLITE_OK) {
        char names[64][64];
        int n = 0;
        while (n < 64 && sqlite3_step(st) == SQLITE_ROW)
            snprintf(names[n++], sizeof names[0], "%s", (const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        for (int i = 0; i < n; i++)
            aw_db_rows(w, names[i], own, s);
    }
    aw_walk(w->wh, "", own, s);
    aw_buf_sort(&s->own);
    aw_buf_sort(&s->rest);
}

/* Prints the lines of a missing from b (prefix '-') and of b missing from
 * a ('+'), at most max of them. */
static inline void aw_diff(FILE *f, const aw_buf *a, const aw_buf *b, int max)
{
    for (int pass = 0; pass < 2; pass++) {
        const aw_buf *x = pass ? b : a, *y = pass ? a : b;
        for (const char *p = x->p ? x->p : ""; *p && max > 0;) {
            const char *e = strchr(p, '\n');
            size_t l = e ? (size_t)(e - p) : strlen(p);
            bool found = false;
            for (const char *q = y->p ? y->p : ""; *q && !found;) {
                const char *qe = strchr(q, '\n');
                size_t ql = qe ? (size_t)(qe - q) : strlen(q);
                found = ql == l && !memcmp(p, q, l);
                q += ql + (qe ? 1 : 0);
            }
            if (!found) {
                fprintf(f, "      %c %.*s\n", pass ? '+' : '-', (int)l, p);
                max--;
            }
            p += l + (e ? 1 : 0);
        }
    }
}

static inline bool aw_buf_equal(const aw_buf *a, const aw_buf *b)
{
    return a->n == b->n && (!a->n || !memcmp(a->p, b->p, a->n));
}

/* ---- the generator ---- */

#define AW_PUT(ag, ...) sg_put(&(ag)->g, __VA_ARGS__)

static inline uint32_t aw_pick(aw_gen *ag, uint32_t n)
{
    return sg_pick(&ag->g, n);
}

/* A random object (of shape shape, or any when -1; tables only when
 * tables_only; existing ones only when existing). */
static inline const aw_obj *aw_pick_obj(aw_gen *ag, int shape, bool tables_only, bool existing)
{
    const aw_obj *c[AW_NOBJS];
    uint32_t n = 0;
    /* two times in three from the pass's own namespace, so that
     * statements get past their FROM items often enough to run */
    bool own = ag->pass && aw_pick(ag, 3) != 0;
    for (int round = 0; round < 2 && !n; round++, own = false)
        for (uint32_t i = 0; i < AW_NOBJS; i++) {
            const aw_obj *o = &AW_OBJS[i];
            bool missing = strstr(o->name, "nosuch") || strstr(o->ns, "nosuch");
            if ((shape < 0 || o->shape == shape) && (!tables_only || !o->view) &&
                (!existing || !missing) && (!own || aw_obj_in(o, ag->pass->own)))
                c[n++] = o;
        }
    return c[aw_pick(ag, n)];
}

/* Is o, named with a two-part (or quoted) name, out of the pass's reach
 * for reading? (Views in reach whose query the reader cannot run count as
 * out of reach: v_mal's definer and v_inv's invoker lack secret.) */
static inline bool aw_read_refused(const aw_gen *ag, const aw_obj *o)
{
    if (!aw_obj_in(o, ag->pass->own) || !(ag->pass->privs & FL_PRIV_READ))
        return true;
    return !strcmp(o->name, "v_mal") || !strcmp(o->name, "v_inv");
}

/* Writes a reference to o: qualified, quoted, three-part (nested
 * namespaces as a.b.t; others with a catalog-like first part floe.ns.t,
 * which the binder may read either way) or unqualified (resolved by
 * search_path). *qualified: the name is qualified (then o lies outside the
 * pass's reach exactly when its namespace does). */
static inline void aw_ref(aw_gen *ag, const aw_obj *o, const char *suffix, bool *qualified)
{
    uint32_t style = aw_pick(ag, 8);
    bool nested = strchr(o->ns, '.') != NULL;
    *qualified = style < 6;
    if (style < 3)
        AW_PUT(ag, nested ? "\"%s\".%s%s" : "%s.%s%s", o->ns, o->name, suffix);
    else if (style < 5)
        AW_PUT(ag, "\"%s\".\"%s%s\"", o->ns, o->name, suffix);
    else if (style == 5)
        AW_PUT(ag, nested ? "%s.%s%s" : "floe.%s.%s%s", o->ns, o->name, suffix);
    else
        AW_PUT(ag, "%s%s%s%s", *suffix ? "\"" : "", o->name, suffix, *suffix ? "\"" : "");
}

static inline void aw_travel(aw_gen *ag)
{
    const aw_world *w = ag->w;
    switch (aw_pick(ag, 10)) {
    case 1:
        AW_PUT(ag, " FOR VERSION AS OF %lld",
               (long long)(w->nsnaps ? w->snaps[aw_pick(ag, w->nsnaps)] : 1));
        break;
    case 2: AW_PUT(ag, " FOR VERSION AS OF 'main'"); break;
    case 3: AW_PUT(ag, " FOR TIMESTAMP AS OF TIMESTAMP '2999-01-01 00:00:00'"); break;
    case 4: AW_PUT(ag, " FOR SYSTEM_TIME AS OF '2000-01-01 00:00:00'"); break;
    case 5: AW_PUT(ag, " FOR VERSION AS OF 'nosuch_ref'"); break;
    default: break;
    }
}

static inline void aw_kv_source(aw_gen *ag);

/* A table's folder in the warehouse. */
static inline void aw_folder(const aw_gen *ag, const aw_obj *o, char *out, size_t cap)
{
    char ns[128];
    snprintf(ns, sizeof ns, "%s", o->ns);
    for (char *p = ns; *p; p++)
        if (*p == '.')
            *p = '/';
    snprintf(out, cap, "%s/%s/%s", ag->w->wh, ns, o->name);
}

static inline void aw_kv_table(aw_gen *ag)
{
    const aw_obj *o = aw_pick_obj(ag, -1, false, true);
    bool two;
    AW_PUT(ag, "SELECT %s AS k, %s AS v FROM ", aw_kcol(o->shape), aw_vcol(o->shape));
    aw_ref(ag, o, "", &two);
    if (!o->view)
        aw_travel(ag);
}

static inline void aw_kv_meta(aw_gen *ag)
{
    static const char *const metas[][2] = {
        {"snapshots", "CAST(snapshot_id % 1000 AS int) AS k, operation AS v"},
        {"files", "CAST(record_count AS int) AS k, file_path AS v"},
        {"refs", "1 AS k, name AS v"},
        {"manifests", "CAST(length AS int) AS k, path AS v"},
        {"history", "CAST(count(*) AS int) AS k, 'h' AS v"},
        {"entries", "CAST(count(*) AS int) AS k, 'e' AS v"},
        {"partitions", "CAST(record_count AS int) AS k, 'p' AS v"},
        {"all_manifests", "CAST(count(*) AS int) AS k, 'am' AS v"},
        {"data_files", "CAST(count(*) AS int) AS k, 'df' AS v"},
    };
    uint32_t m = aw_pick(ag, sizeof metas / sizeof *metas);
    const aw_obj *o = aw_pick_obj(ag, -1, true, false);
    char suffix[32];
    snprintf(suffix, sizeof suffix, "$%s", metas[m][0]);
    bool two;
    AW_PUT(ag, "SELECT %s FROM ", metas[m][1]);
    aw_ref(ag, o, suffix, &two);
    if (aw_pick(ag, 4) == 0)
        aw_travel(ag);
}

static inline void aw_kv_files(aw_gen *ag)
{
    const aw_obj *o = aw_pick_obj(ag, 2, true, true);
    char dir[512];
    aw_folder(ag, o, dir, sizeof dir);
    switch (aw_pick(ag, 5)) {
    case 0: AW_PUT(ag, "SELECT k, v FROM read_parquet('%s/data/*.parquet')", dir); break;
    case 1: AW_PUT(ag, "SELECT k, v FROM iceberg_scan('%s')", dir); break;
    case 2: AW_PUT(ag, "SELECT 1 AS k, 'c' AS v FROM read_csv('%s/metadata/x.csv')", dir); break;
    case 3: AW_PUT(ag, "SELECT 1 AS k, 'j' AS v FROM read_json('%s/metadata/*.json')", dir); break;
    default: AW_PUT(ag, "SELECT 1 AS k, 'p' AS v FROM read_parquet('/etc/*')"); break;
    }
}

static inline void aw_kv_catalog(aw_gen *ag)
{
    static const char *const q[] = {
        "SELECT 1 AS k, relname::text AS v FROM pg_catalog.pg_class",
        "SELECT 1 AS k, nspname::text AS v FROM pg_namespace",
        "SELECT 1 AS k, table_schema || '.' || table_name AS v FROM information_schema.tables",
        "SELECT 1 AS k, column_name::text AS v FROM information_schema.columns",
        "SELECT 1 AS k, schema_name::text AS v FROM information_schema.schemata",
        "SELECT 1 AS k, view_definition::text AS v FROM information_schema.views",
        "SELECT 1 AS k, schemaname || '.' || tablename AS v FROM pg_tables",
        "SELECT 1 AS k, definition::text AS v FROM pg_views",
        "SELECT attnum::int AS k, attname::text AS v FROM pg_attribute",
        "SELECT 1 AS k, pg_get_viewdef(c.oid)::text AS v FROM pg_class AS c",
        "SELECT CAST(pg_relation_size(c.oid) AS int) AS k, relname::text AS v FROM pg_class AS c",
    };
    AW_PUT(ag, "%s", q[aw_pick(ag, sizeof q / sizeof *q)]);
}

static inline void aw_kv_misc(aw_gen *ag)
{
    switch (aw_pick(ag, 5)) {
    case 0:
        AW_PUT(ag, "SELECT CAST(g AS int) AS k, 'g' AS v FROM generate_series(1, 3) AS s(g)");
        break;
    case 1: AW_PUT(ag, "SELECT u AS k, 'u' AS v FROM unnest(ARRAY[1, 2, NULL]) AS s(u)"); break;
    case 2: /* a CTE shadows the secret-only name (search_path = secret) */
        AW_PUT(ag, "WITH hush AS (SELECT 1 AS k, 'c' AS v) SELECT k, v FROM hush");
        break;
    case 3: AW_PUT(ag, "WITH t3 AS (SELECT k, v FROM pub.t3) SELECT k, v FROM t3"); break;
    default: AW_PUT(ag, "VALUES (1, 'vv'), (2, NULL)"); break;
    }
}

static inline void aw_kv_nested(aw_gen *ag)
{
    ag->subq++;
    if (aw_pick(ag, 2)) {
        AW_PUT(ag, "SELECT z.k, z.v FROM (");
        aw_kv_source(ag);
        AW_PUT(ag, ") AS z(k, v) WHERE z.k IS NOT NULL OR z.v IS NULL");
    } else {
        AW_PUT(ag, "SELECT l.k, r.v FROM (");
        aw_kv_source(ag);
        AW_PUT(ag, ") AS l(k, v) %s JOIN (", aw_pick(ag, 2) ? "LEFT" : "FULL");
        aw_kv_source(ag);
        AW_PUT(ag, ") AS r(k, v) ON l.k = r.k");
    }
    ag->subq--;
}

static inline void aw_kv_lateral(aw_gen *ag)
{
    const aw_obj *o = aw_pick_obj(ag, 2, false, true);
    bool two;
    AW_PUT(ag, "SELECT p.k, x.v FROM pub.t3 AS p, LATERAL (SELECT r.v FROM ");
    aw_ref(ag, o, "", &two);
    AW_PUT(ag, " AS r WHERE r.k = p.k) AS x");
}

/* A query text with exactly the columns (k int, v text). */
static inline void aw_kv_source(aw_gen *ag)
{
    uint32_t c = aw_pick(ag, ag->subq > 1 ? 10 : 12);
    switch (c) {
    case 0:
    case 1:
    case 2:
    case 3: aw_kv_table(ag); break;
    case 4: aw_kv_meta(ag); break;
    case 5: aw_kv_files(ag); break;
    case 6:
    case 7: aw_kv_catalog(ag); break;
    case 8: aw_kv_misc(ag); break;
    case 9: aw_kv_lateral(ag); break;
    default: aw_kv_nested(ag); break;
    }
}

/* The columns of shape s over a (k, v) query. */
static inline void aw_shaped(aw_gen *ag, int shape)
{
    if (shape == 0)
        AW_PUT(ag, "SELECT z.k AS a, z.v AS b, CAST(z.k AS numeric(10,2)) AS c, DATE "
                   "'2024-01-01' AS d, z.k > 0 AS e FROM (");
    else if (shape == 1)
        AW_PUT(ag, "SELECT z.k AS x, z.v AS y, CAST(z.k AS bigint) AS z, CAST(z.k AS double "
                   "precision) AS w FROM (");
    aw_kv_source(ag);
    if (shape != 2)
        AW_PUT(ag, ") AS z(k, v)");
}

/* A FROM item of shape s named alias. */
static inline void aw_item(aw_gen *ag, int shape, const char *alias)
{
    if (aw_pick(ag, 3) == 0) {
        const aw_obj *o = aw_pick_obj(ag, shape, false, aw_pick(ag, 4) != 0);
        bool two;
        aw_ref(ag, o, "", &two);
        if (!o->view)
            aw_travel(ag);
        AW_PUT(ag, " AS %s", alias);
        return;
    }
    AW_PUT(ag, "(");
    aw_shaped(ag, shape);
    AW_PUT(ag, ") AS %s", alias);
}

static inline int aw_hook(sg_gen *g, int shape, int alias)
{
    aw_gen *ag = g->hook_ctx;
    if (ag->subq > 2 || aw_pick(ag, g->no_tables ? 6 : 3) == 0)
        return 0; /* sqlgen's own t1/t2/t3: the CTEs, or the catalog's under search_path */
    char name[16];
    snprintf(name, sizeof name, "q%d", alias);
    ag->subq++;
    aw_item(ag, shape, name);
    ag->subq--;
    return 1;
}

/* ---- templates ---- */

/* Must a read of o (named qualified or not) be refused? */
static inline bool aw_read_must_refuse(const aw_gen *ag, const aw_obj *o, bool qualified)
{
    const char *ns = qualified ? o->ns : ag->search;
    if (!ns)
        return false;
    if (!aw_ns_in(ns, ag->pass->own) || !(ag->pass->privs & FL_PRIV_READ))
        return true;
    return !strcmp(ns, "pub") && (!strcmp(o->name, "v_mal") || !strcmp(o->name, "v_inv"));
}

/* Must a change needing priv of an object in ns (NULL = unknown) be refused? */
static inline bool aw_write_must_refuse(const aw_gen *ag, const char *ns, uint32_t priv)
{
    if (!(ag->pass->privs & priv))
        return true;
    return ns && !aw_ns_in(ns, ag->pass->own);
}

/* A target object reference; returns the namespace it resolves to (NULL
 * when the generator cannot tell). */
static inline const char *aw_target(aw_gen *ag, const aw_obj *o)
{
    bool q;
    aw_ref(ag, o, "", &q);
    return q ? o->ns : ag->search;
}

static inline void aw_values(aw_gen *ag, int shape)
{
    static const char *const v[3] = {"(7, 'i', 1.00, DATE '2024-03-01', true)", "(7, 'i', 7, 0.5)",
                                     "(7, 'i'), (8, NULL)"};
    AW_PUT(ag, "VALUES %s", v[shape]);
}

/* INSERT INTO o ...: returns the namespace the target resolves to. */
static inline const char *aw_dml_insert(aw_gen *ag, const aw_obj *o, uint32_t t)
{
    AW_PUT(ag, "INSERT INTO ");
    const char *ns = aw_target(ag, o);
    if (t == 0) {
        AW_PUT(ag, " ");
        aw_values(ag, o->shape);
        return ns;
    }
    AW_PUT(ag, " SELECT * FROM (");
    aw_shaped(ag, o->shape);
    AW_PUT(ag, ") AS s%s", t == 2 ? " RETURNING *" : "");
    return ns;
}

/* UPDATE, DELETE, MERGE, TRUNCATE of o, most with a source. */
static inline const char *aw_dml_change(aw_gen *ag, const aw_obj *o, uint32_t t)
{
    static const char *const verbs[] = {"UPDATE ",     "UPDATE ",   "DELETE FROM ", "DELETE FROM ",
                                        "MERGE INTO ", "TRUNCATE ", "UPDATE "};
    const char *k = aw_kcol(o->shape), *v = aw_vcol(o->shape);
    AW_PUT(ag, "%s", verbs[t]);
    const char *ns = aw_target(ag, o);
    if (t == 0) {
        AW_PUT(ag, " SET %s = 'u' WHERE %s = 1", v, k);
        return ns;
    }
    if (t == 3 || t == 5)
        return ns;
    if (t == 1)
        AW_PUT(ag, " AS t SET %s = s.v FROM (", v);
    else if (t == 2)
        AW_PUT(ag, " WHERE %s IN (SELECT k FROM (", k);
    else if (t == 4)
        AW_PUT(ag, " AS t USING (");
    else
        AW_PUT(ag, " SET %s = (SELECT max(v) FROM (", v);
    aw_kv_source(ag);
    if (t == 1)
        AW_PUT(ag, ") AS s(k, v) WHERE t.%s = s.k", k);
    else if (t == 4)
        AW_PUT(ag,
               ") AS s(k, v) ON t.%s = s.k WHEN MATCHED THEN UPDATE SET %s = s.v WHEN NOT "
               "MATCHED THEN INSERT (%s, %s) VALUES (s.k, s.v)",
               k, v, k, v);
    else
        AW_PUT(ag, ") AS s(k, v))");
    return ns;
}

static inline void aw_tpl_dml(aw_gen *ag)
{
    const aw_obj *o = aw_pick_obj(ag, -1, false, false);
    uint32_t t = aw_pick(ag, 10);
    ag->st->kind = "dml";
    ag->subq++;
    const char *ns = t < 3 ? aw_dml_insert(ag, o, t) : aw_dml_change(ag, o, t - 3);
    ag->subq--;
    /* a source the pass may not read fails first, with 42501 too */
    ag->st->must_refuse = aw_write_must_refuse(ag, ns, FL_PRIV_WRITE);
}

static inline void aw_tpl_alter(aw_gen *ag)
{
    static const char *const procs[] = {
        "optimize",
        "optimize WHERE k > 0",
        "expire_snapshots(retention_threshold => '0s')",
        "remove_orphan_files(retention_threshold => '0s')",
        "rewrite_manifests",
        "rollback_to_timestamp(TIMESTAMP '2999-01-01 00:00:00')",
    };
    const aw_obj *o = aw_pick_obj(ag, -1, false, false);
    uint32_t t = aw_pick(ag, 9), need = FL_PRIV_WRITE;
    ag->st->kind = "alter";
    AW_PUT(ag, "ALTER TABLE ");
    const char *ns = aw_target(ag, o);
    switch (t) {
    case 0: AW_PUT(ag, " ADD COLUMN extra int"); break;
    case 1: AW_PUT(ag, " RENAME COLUMN %s TO %s2", aw_vcol(o->shape), aw_vcol(o->shape)); break;
    case 2:
        AW_PUT(ag, " RENAME TO %s_r", o->name);
        need = FL_PRIV_DROP;
        break;
    case 3: AW_PUT(ag, " ALTER COLUMN %s TYPE bigint", aw_kcol(o->shape)); break;
    case 4: AW_PUT(ag, " DROP COLUMN %s", aw_vcol(o->shape)); break;
    case 5:
        AW_PUT(ag, " EXECUTE rollback_to_snapshot(%lld)",
               (long long)(ag->w->nsnaps ? ag->w->snaps[aw_pick(ag, ag->w->nsnaps)] : 1));
        break;
    case 6:
        AW_PUT(ag, " EXECUTE set_current_snapshot(%lld)",
               (long long)(ag->w->nsnaps ? ag->w->snaps[aw_pick(ag, ag->w->nsnaps)] : 1));
        break;
    default: AW_PUT(ag, " EXECUTE %s", procs[aw_pick(ag, sizeof procs / sizeof *procs)]); break;
    }
    ag->st->must_refuse = aw_write_must_refuse(ag, ns, need);
}

/* A namespace name as DDL takes it (nested ones three-part). */
static inline const char *aw_pick_ns(aw_gen *ag)
{
    return AW_NAMESPACES[aw_pick(ag, AW_NNS)];
}

static inline void aw_tpl_create(aw_gen *ag)
{
    static const char *const names[] = {"new_t", "t3", "hush", "v_pub", "new_v"};
    const char *ns = aw_pick_ns(ag), *name = names[aw_pick(ag, 5)];
    bool unqualified = aw_pick(ag, 6) == 0;
    if (aw_ns_in(unqualified ? ag->search : ns, ag->pass->own) && !strcmp(name, "hush"))
        name = "new_h"; /* the marker stays secret's */
    char tn[256];
    snprintf(tn, sizeof tn, "%s%s%s", unqualified ? "" : ns, unqualified ? "" : ".", name);
    if (unqualified)
        ns = ag->search;
    uint32_t t = aw_pick(ag, 7);
    ag->st->kind = "create";
    ag->subq++;
    switch (t) {
    case 0: AW_PUT(ag, "CREATE TABLE %s (k int, v text)", tn); break;
    case 1: AW_PUT(ag, "CREATE TABLE IF NOT EXISTS %s (k int, v text)", tn); break;
    case 2:
        AW_PUT(ag, "CREATE TABLE %s AS ", tn);
        aw_kv_source(ag);
        break;
    case 3:
        AW_PUT(ag, "CREATE TABLE %s WITH (partitioning = ARRAY['k']) AS SELECT k, v FROM (", tn);
        aw_kv_source(ag);
        AW_PUT(ag, ") AS s(k, v)");
        break;
    case 4:
        AW_PUT(ag, "CREATE %sVIEW %s AS ", aw_pick(ag, 2) ? "OR REPLACE " : "", tn);
        aw_kv_source(ag);
        break;
    case 5:
        AW_PUT(ag, "CREATE VIEW %s WITH (security_invoker = %s) AS ", tn,
               aw_pick(ag, 2) ? "true" : "false");
        aw_kv_source(ag);
        break;
    default: AW_PUT(ag, "CREATE TABLE %s (k int, v text) WITH (format_version = 2)", tn); break;
    }
    ag->subq--;
    ag->st->must_refuse = aw_write_must_refuse(ag, ns, FL_PRIV_CREATE);
}

static inline void aw_tpl_drop(aw_gen *ag)
{
    ag->st->kind = "drop";
    uint32_t t = aw_pick(ag, 5);
    if (t >= 3) {
        static const char *const kids[] = {"kid", "inner", "deep"};
        const char *ns = aw_pick_ns(ag);
        bool top = aw_pick(ag, 3) == 0;
        if (top && aw_ns_in(ns, ag->pass->own) && (ag->pass->privs & FL_PRIV_DROP)) {
            /* not the pass's own namespace with everything in it */
            AW_PUT(ag, "DROP SCHEMA \"%s\"", ns);
            return;
        }
        if (top)
            AW_PUT(ag, "DROP SCHEMA %s\"%s\"%s", t == 4 ? "IF EXISTS " : "", ns,
                   aw_pick(ag, 2) ? " CASCADE" : "");
        else
            AW_PUT(ag, "DROP SCHEMA %s\"%s.%s\"%s", t == 4 ? "IF EXISTS " : "", ns,
                   kids[aw_pick(ag, 3)], aw_pick(ag, 2) ? " CASCADE" : "");
        ag->st->must_refuse = aw_write_must_refuse(ag, ns, FL_PRIV_DROP);
        return;
    }
    const aw_obj *o = aw_pick_obj(ag, -1, false, false);
    AW_PUT(ag, "DROP %s %s", o->view ? "VIEW" : "TABLE", t == 1 ? "IF EXISTS " : "");
    const char *ns = aw_target(ag, o);
    ag->st->must_refuse = aw_write_must_refuse(ag, ns, FL_PRIV_DROP);
}

static inline void aw_tpl_schema(aw_gen *ag)
{
    const char *ns = aw_pick_ns(ag);
    ag->st->kind = "schema";
    switch (aw_pick(ag, 3)) {
    case 0:
        AW_PUT(ag, "CREATE SCHEMA \"%s.kid\"", ns);
        ag->st->must_refuse = aw_write_must_refuse(ag, ns, FL_PRIV_CREATE);
        break;
    case 1:
        AW_PUT(ag, "CREATE SCHEMA IF NOT EXISTS \"%s\"", ns);
        ag->st->must_refuse = !(ag->pass->privs & FL_PRIV_CREATE) || !strchr(ns, '.');
        break;
    default:
        AW_PUT(ag, "CREATE SCHEMA newtop");
        ag->st->must_refuse = true; /* CREATE on the catalog: nobody here */
        break;
    }
}

static inline void aw_tpl_read(aw_gen *ag)
{
    static const char *const forms[] = {
        "SELECT * FROM ",
        "SELECT count(*) FROM ",
        "TABLE ",
        "EXPLAIN SELECT * FROM ",
        "EXPLAIN ANALYZE SELECT * FROM ",
        "SELECT (SELECT count(*) FROM ",
        "SELECT 1 WHERE EXISTS (SELECT 1 FROM ",
        "WITH x AS (SELECT * FROM ",
    };
    static const char *const ends[] = {"", "", "", "", "", ")", ")", ") SELECT * FROM x"};
    uint32_t f = aw_pick(ag, sizeof forms / sizeof *forms);
    const aw_obj *o = aw_pick_obj(ag, -1, false, false);
    bool q;
    ag->st->kind = "read";
    AW_PUT(ag, "%s", forms[f]);
    aw_ref(ag, o, "", &q);
    if (!o->view && f != 2)
        aw_travel(ag);
    AW_PUT(ag, "%s", ends[f]);
    ag->st->must_refuse = aw_read_must_refuse(ag, o, q);
}

/* Two sources side by side: what one binds (a definer view's rights, a
 * catalog listing) must not carry over to the other. */
static inline void aw_tpl_mix(aw_gen *ag)
{
    ag->st->kind = "mix";
    ag->subq++;
    AW_PUT(ag, "SELECT a.k, b.v FROM (");
    if (aw_pick(ag, 2) == 0) { /* a view (whose rights it runs with varies) */
        const aw_obj *o;
        do
            o = aw_pick_obj(ag, 2, false, true);
        while (!o->view && aw_pick(ag, 8));
        bool q;
        AW_PUT(ag, "SELECT k, v FROM ");
        aw_ref(ag, o, "", &q);
    } else {
        aw_kv_source(ag);
    }
    AW_PUT(ag, ") AS a(k, v) %s (", aw_pick(ag, 2) ? "CROSS JOIN" : ",");
    if (aw_pick(ag, 3) == 0)
        aw_kv_catalog(ag);
    else
        aw_kv_source(ag);
    AW_PUT(ag, ") AS b(k, v)");
    ag->subq--;
}

static inline void aw_tpl_meta(aw_gen *ag)
{
    static const char *const metas[] = {"snapshots", "files",      "history", "refs",
                                        "manifests", "partitions", "entries"};
    const aw_obj *o = aw_pick_obj(ag, -1, true, false);
    char suffix[32];
    bool q;
    snprintf(suffix, sizeof suffix, "$%s", metas[aw_pick(ag, 7)]);
    ag->st->kind = "metatable";
    AW_PUT(ag, "SELECT * FROM ");
    aw_ref(ag, o, suffix, &q);
    ag->st->must_refuse = aw_read_must_refuse(ag, o, q);
    /* policies apply to the table: its metadata tables would show what they hide */
    if (ag->pass->hidden && (q || (ag->search && !strcmp(ag->search, "pub"))) &&
        !strcmp(o->ns, "pub") && (!strcmp(o->name, "t1") || !strcmp(o->name, "t2")))
        ag->st->must_refuse = true;
}

static inline void aw_tpl_files(aw_gen *ag)
{
    ag->st->kind = "files";
    AW_PUT(ag, "SELECT * FROM (");
    aw_kv_files(ag);
    AW_PUT(ag, ") AS f");
    ag->st->must_refuse = true; /* files need the admin role */
}

static inline void aw_tpl_catalog(aw_gen *ag)
{
    static const char *const fns[] = {
        "SELECT pg_relation_size('%s')",
        "SELECT pg_get_viewdef('%s')",
        "SELECT has_table_privilege('%s', 'select')",
        "SELECT pg_table_is_visible('%s'::regclass)",
        "SELECT obj_description('%s'::regclass)",
        "SELECT '%s'::regclass",
        "SELECT * FROM information_schema.columns WHERE table_name = '%s'",
    };
    const aw_obj *o = aw_pick_obj(ag, -1, false, false);
    char name[128];
    snprintf(name, sizeof name, "%s.%s", o->ns, o->name);
    ag->st->kind = "catalog";
    AW_PUT(ag, fns[aw_pick(ag, sizeof fns / sizeof *fns)], name);
}

static inline void aw_tpl_session(aw_gen *ag)
{
    static const char *const paths[] = {"secret", "pub", "pubx", "sandbox", "\"secret.deep\""};
    static const char *const nss[] = {"secret", "pub", "pubx", "sandbox", "secret.deep"};
    uint32_t t = aw_pick(ag, 12);
    ag->st->kind = "session";
    if (t < 5) {
        AW_PUT(ag, "SET search_path %s %s", aw_pick(ag, 2) ? "=" : "TO", paths[t]);
        ag->st->search_to = nss[t];
    } else if (t == 5) {
        AW_PUT(ag, "RESET search_path");
        ag->st->search_to = "default"; /* the built-in default, not the session's option */
    } else if (t == 6) {
        AW_PUT(ag, "BEGIN");
        ag->st->is_block = true;
    } else if (t == 7) {
        AW_PUT(ag, "%s", aw_pick(ag, 2) ? "COMMIT" : "ROLLBACK");
        ag->st->is_block = true;
    } else if (t == 8) {
        static const char *const who[] = {"SHOW search_path", "SET ROLE admin",
                                          "SET SESSION AUTHORIZATION 'auditor'",
                                          "SET floe.principal = 'admin'"};
        AW_PUT(ag, "%s", who[aw_pick(ag, 4)]);
    } else if (t == 9) {
        AW_PUT(ag, "SELECT current_schemas(true), current_user, current_setting('search_path')");
    } else if (t == 10) {
        const aw_obj *o = aw_pick_obj(ag, -1, false, false);
        bool q;
        AW_PUT(ag, "PREPARE p%u AS SELECT * FROM ", aw_pick(ag, 3));
        aw_ref(ag, o, "", &q);
    } else {
        AW_PUT(ag, "EXECUTE p%u", aw_pick(ag, 3));
    }
}

static inline void aw_tpl_temp(aw_gen *ag)
{
    ag->st->kind = "temp";
    ag->subq++;
    switch (aw_pick(ag, 5)) {
    case 0:
        AW_PUT(ag, "CREATE TEMP TABLE tmp_%u AS ", aw_pick(ag, 2));
        aw_kv_source(ag);
        break;
    case 1: AW_PUT(ag, "CREATE TEMP TABLE tmp_%u (k int, v text)", aw_pick(ag, 2)); break;
    case 2:
        AW_PUT(ag, "INSERT INTO tmp_%u SELECT * FROM (", aw_pick(ag, 2));
        aw_kv_source(ag);
        AW_PUT(ag, ") AS s");
        break;
    case 3: AW_PUT(ag, "SELECT * FROM tmp_%u", aw_pick(ag, 2)); break;
    default: AW_PUT(ag, "DROP TABLE tmp_%u", aw_pick(ag, 2)); break;
    }
    ag->subq--;
}

static inline void aw_tpl_query(aw_gen *ag)
{
    /* sqlgen's query, FROM items from the hook; without its CTEs a third
     * of the time so that t1, t2, t3 resolve in the catalog */
    ag->g.table_hook = aw_hook;
    ag->g.hook_ctx = ag;
    ag->g.no_tables = aw_pick(ag, 3) == 0;
    ag->st->kind = "query";
    char *saved = ag->g.out;
    size_t cap = ag->g.cap;
    sqlgen_statement(&ag->g, saved, cap);
}

/* Writes one statement into st (cap bytes at st->sql). */
static inline void aw_statement(aw_gen *ag, aw_stmt *st)
{
    st->must_refuse = false;
    st->is_block = false;
    st->search_to = NULL;
    st->kind = "?";
    st->sql[0] = '\0';
    st->prepared = aw_pick(ag, 6) == 0;
    ag->st = st;
    ag->subq = 0;
    ag->g.out = st->sql;
    ag->g.cap = st->cap;
    ag->g.n = 0;
    ag->g.depth = 0;
    if (ag->in_block && (ag->block_failed || aw_pick(ag, 6) == 0)) {
        AW_PUT(ag, "%s", aw_pick(ag, 2) ? "ROLLBACK" : "COMMIT");
        st->is_block = true;
        st->kind = "session";
        return;
    }
    switch (aw_pick(ag, 20)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 7: aw_tpl_query(ag); break;
    case 8: aw_pick(ag, 2) ? aw_tpl_read(ag) : aw_tpl_mix(ag); break;
    case 9: aw_tpl_mix(ag); break;
    case 10: aw_tpl_meta(ag); break;
    case 11:
    case 12: aw_tpl_dml(ag); break;
    case 13: aw_tpl_create(ag); break;
    case 14: aw_tpl_drop(ag); break;
    case 15: aw_tpl_alter(ag); break;
    case 16: aw_tpl_schema(ag); break;
    case 17: aw_tpl_files(ag); break;
    case 18: aw_pick(ag, 2) ? aw_tpl_catalog(ag) : aw_tpl_temp(ag); break;
    default: aw_tpl_session(ag); break;
    }
}

/* ---- the properties ---- */

/* A pass's run: session, generator state, counters and the last state. */
typedef struct aw_run {
    aw_world *w;
    const aw_pass *pass;
    fl_sql_session *s;
    aw_gen ag;
    bool in_block, block_failed;
    bool check_state;
    aw_state base;
    uint64_t statements, ok, failed, refused, violations;
    int max_reports;
    const char *label;  /* printed with every report, e.g. "seed 42" */
    char last_state[6]; /* the last statement's SQLSTATE ("00000": success) */
    char last_msg[256]; /* and its error message */
} aw_run;

static inline void aw_report(aw_run *r, const char *sql, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void aw_report(aw_run *r, const char *sql, const char *fmt, ...)
{
    r->violations++;
    if (r->max_reports-- <= 0)
        return;
    char why[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    fprintf(stderr, "AUTHZ VIOLATION (%s, principal %s, %s statement):\n  %s\n  %s\n",
            r->label ? r->label : "?", r->pass->who, r->ag.st ? r->ag.st->kind : "?", sql, why);
}

/* Is the namespace key (levels) of sec inside the pass's own namespace? */
static inline bool aw_sec_in_own(const aw_run *r, const am_sec *sec)
{
    return sec->nlevels >= 1 && !strcmp(sec->levels[0], r->pass->own);
}

static inline bool aw_parse_record(const fl_sql_access *a, am_sec *sec)
{
    memset(sec, 0, sizeof *sec);
    if (a->kind == FL_SQL_OBJ_CATALOG)
        return !a->object[0];
    fl_arena ar;
    fl_arena_init(&ar, 0);
    fl_error e;
    fl_table_ident id;
    fl_namespace ns;
    fl_status rc = a->kind == FL_SQL_OBJ_TABLE ? fl_table_ident_parse(a->object, &ar, &id, &e)
                                               : fl_namespace_parse(a->object, &ar, &ns, &e);
    if (rc == FL_OK && a->kind == FL_SQL_OBJ_TABLE) {
        ns = id.ns;
        sec->has_object = true;
        snprintf(sec->object, sizeof sec->object, "%s", id.name);
    }
    if (rc == FL_OK && ns.nlevels <= AM_MAX_LEVELS) {
        sec->nlevels = ns.nlevels;
        for (uint32_t i = 0; i < ns.nlevels; i++)
            snprintf(sec->levels[i], sizeof sec->levels[i], "%s", ns.levels[i]);
    }
    fl_arena_free(&ar);
    return rc == FL_OK && ns.nlevels <= AM_MAX_LEVELS;
}

static inline const char *aw_priv_name(uint32_t p)
{
    return p ? fl_privilege_name((fl_privilege)p) : "listed";
}

/* Property (a) for one record; NULL when it is fine, else why not. */
static inline const char *aw_record_bad(aw_run *r, const fl_sql_access *a)
{
    am_sec sec;
    if (a->kind == FL_SQL_OBJ_FILES)
        return "a FILES record (only admins may name files)";
    if (!a->as_principal)
        return "a record without a principal (auth is on)";
    if ((a->kind == FL_SQL_OBJ_TABLE || a->kind == FL_SQL_OBJ_NAMESPACE) &&
        !strncmp(a->object, "pg_temp", 7))
        return NULL; /* the session's private temporary namespace (state checks cover it) */
    if (!aw_parse_record(a, &sec))
        return "a record whose object does not parse";
    bool invoker = !strcmp(a->as_principal, r->pass->who);
    if (!invoker && strcmp(a->as_principal, "author") && strcmp(a->as_principal, "auditor"))
        return "a record as a principal that defines no view here";
    if (a->privilege ? !am_allows(&r->w->model, a->as_principal, a->privilege, &sec)
                     : !am_visible(&r->w->model, a->as_principal, &sec))
        return "a record the grants do not allow (reference model)";
    if (!invoker)
        return a->privilege == 0 || a->privilege == FL_PRIV_READ ? NULL
                                                                 : "a definer record changing";
    if (a->privilege && !(r->pass->privs & a->privilege))
        return "a privilege the pass does not hold";
    if (a->privilege != FL_PRIV_READ && a->privilege != 0 &&
        !(r->pass->privs & ~(uint32_t)FL_PRIV_READ))
        return "a change by a read-only principal";
    if (aw_sec_in_own(r, &sec) || (a->privilege == 0 && a->kind == FL_SQL_OBJ_CATALOG))
        return NULL;
    return "an object outside the pass's own namespace";
}

static inline void aw_check_records(aw_run *r, const char *sql, const fl_sql_result *res)
{
    for (uint32_t i = 0; i < fl_sql_result_naccess(res); i++) {
        const fl_sql_access *a = fl_sql_result_access(res, i);
        const char *why = aw_record_bad(r, a);
        if (why)
            aw_report(r, sql, "record %u: kind %d, %s on \"%s\" as %s: %s", i, (int)a->kind,
                      aw_priv_name(a->privilege), a->object,
                      a->as_principal ? a->as_principal : "(none)", why);
    }
}

/* A marker in text: S3CR3T anywhere, hush as (the start of) a name - at
 * the start or after '.', '/', '_' or '"' ("secret.hush", ".../hush/...",
 * "pg_hush"), not a CTE of that name in a view's text. */
static inline const char *aw_marker_in(const char *text)
{
    if (strstr(text, AW_MARKERS[0]))
        return AW_MARKERS[0];
    for (const char *p = text; (p = strstr(p, AW_MARKERS[1])); p++)
        if (p == text || strchr("./_\"", p[-1]))
            return AW_MARKERS[1];
    return NULL;
}

/* A result cell that shows something of a namespace outside the pass's:
 * a marker, the data tag of its rows ("pub-k"), or its name as a whole
 * cell or as the qualifier of one ("secret", "secret.t3": listings). NULL
 * when none. Statements echoing the session's own settings (SHOW
 * search_path) are not checked for names. */
static inline const char *aw_hidden_in(const aw_run *r, const char *text)
{
    for (const char *const *h = r->pass->hidden; h && *h; h++)
        if (strstr(text, *h))
            return *h;
    return NULL;
}

static inline const char *aw_leak_in(const aw_run *r, const char *cell, bool names)
{
    const char *m = aw_marker_in(cell);
    if (m || (m = aw_hidden_in(r, cell)))
        return m;
    for (size_t i = 0; i < AW_NNS; i++) {
        const char *ns = AW_NAMESPACES[i];
        if (aw_ns_in(ns, r->pass->own))
            continue;
        char tag[64];
        snprintf(tag, sizeof tag, "%s-", ns);
        size_t l = strlen(ns);
        if (strstr(cell, tag))
            return ns;
        if (names && !strncmp(cell, ns, l) && (cell[l] == '\0' || cell[l] == '.'))
            return ns;
    }
    return NULL;
}

/* Runs the statement's rows to the end; reports a cell holding a marker.
 * Returns the status of the fetch. */
static inline fl_status aw_drain(aw_run *r, const char *sql, fl_sql_result *res, fl_error *err)
{
    bool reported = false;
    for (;;) {
        const fl_batch *b;
        bool eof;
        fl_status rc = fl_sql_result_next(res, &b, &eof, err);
        if (rc != FL_OK || eof)
            return rc;
        for (uint32_t i = 0; i < fl_batch_live_rows(b) && !reported; i++)
            for (uint32_t c = 0; c < b->ncols && !reported; c++) {
                char v[1024];
                uint32_t row = b->sel ? b->sel->idx[i] : i;
                fl_sql_format_value(&b->cols[c], row, "UTC", v, sizeof v);
                const char *m = aw_leak_in(r, v, strcmp(r->ag.st->kind, "session") != 0);
                if (m) {
                    aw_report(r, sql, "result cell shows \"%s\" of another namespace: %s", m, v);
                    reported = true;
                }
            }
    }
}

/* Does an error message name something outside the pass's namespace? */
static inline bool aw_names_outside(const aw_run *r, const char *msg)
{
    for (size_t i = 0; i < AW_NNS; i++) {
        const char *ns = AW_NAMESPACES[i];
        if (aw_ns_in(ns, r->pass->own) || strchr(ns, '.'))
            continue;
        char a[80], b[80];
        snprintf(a, sizeof a, "\"%s.", ns);
        snprintf(b, sizeof b, "\"%s\"", ns);
        if (strstr(msg, a) || strstr(msg, b))
            return true;
    }
    return false;
}

/* Property (c) for a failure. */
static inline void aw_check_failure(aw_run *r, const char *sql, const aw_stmt *st,
                                    const fl_sql_error_info *info, const char *msg)
{
    static const char *const existence[] = {"42P01", "3F000", "42P06", "42P07"};
    const char *m = aw_marker_in(msg);
    if (m && (strcmp(m, "hush") || !strstr(sql, "hush")))
        aw_report(r, sql, "error message holds the marker \"%s\": %s", m, msg);
    if ((m = aw_hidden_in(r, msg)))
        aw_report(r, sql, "error message shows \"%s\", which a policy hides: %s", m, msg);
    bool aborted = !strcmp(info->sqlstate, "25P02");
    if (st->must_refuse && strcmp(info->sqlstate, "42501") && !(aborted && r->block_failed))
        aw_report(r, sql, "must be refused with 42501, failed with %s: %s", info->sqlstate, msg);
    for (size_t i = 0; i < sizeof existence / sizeof *existence; i++)
        if (!strcmp(info->sqlstate, existence[i]) && aw_names_outside(r, msg))
            aw_report(r, sql, "says whether an object outside %s exists (%s): %s", r->pass->own,
                      info->sqlstate, msg);
}

/* Property (b): compares the state with the one before the statement. */
static inline void aw_check_state(aw_run *r, const char *sql)
{
    aw_state now;
    aw_state_take(r->w, r->pass->own, &now);
    bool rest = !aw_buf_equal(&r->base.rest, &now.rest);
    bool own = r->pass->nothing_writes && !aw_buf_equal(&r->base.own, &now.own);
    if (rest || own) {
        aw_report(r, sql, "the statement changed %s (state diff below)",
                  rest ? "objects outside its namespace" : "its namespace, holding only READ");
        if (r->max_reports >= 0) {
            aw_diff(stderr, &r->base.rest, &now.rest, 12);
            if (own)
                aw_diff(stderr, &r->base.own, &now.own, 12);
        }
    }
    aw_state_free(&r->base);
    r->base = now;
}

static inline void aw_track_block(aw_run *r, const char *sql, bool ok)
{
    bool begin = !strncmp(sql, "BEGIN", 5);
    bool end = !strncmp(sql, "COMMIT", 6) || !strncmp(sql, "ROLLBACK", 8);
    if (ok && begin)
        r->in_block = true, r->block_failed = false;
    else if (end && r->in_block)
        r->in_block = false, r->block_failed = false;
    else if (!ok && r->in_block)
        r->block_failed = true;
    r->ag.in_block = r->in_block;
    r->ag.block_failed = r->block_failed;
}

/* Runs one generated statement and checks every property. */
static inline void aw_run_stmt(aw_run *r, const aw_stmt *st)
{
    const char *sql = st->sql;
    fl_error err;
    fl_error_clear(&err);
    fl_sql_result *res = NULL;
    fl_sql_stmt *ps = NULL;
    fl_status rc;
    if (st->prepared) { /* the extended protocol's path: prepare, then execute */
        rc = fl_sql_prepare(r->s, sql, &ps, &err);
        if (rc == FL_OK && fl_sql_stmt_nparams(ps) == 0)
            rc = fl_sql_stmt_execute(ps, NULL, 0, &res, &err);
        else if (rc == FL_OK)
            rc = fl_sql_execute(r->s, sql, &res, &err);
    } else {
        rc = fl_sql_execute(r->s, sql, &res, &err);
    }
    if (rc == FL_OK) {
        aw_check_records(r, sql, res);
        rc = aw_drain(r, sql, res, &err);
    }
    fl_sql_result_close(res);
    fl_sql_stmt_close(ps);
    r->statements++;
    snprintf(r->last_state, sizeof r->last_state, "00000");
    snprintf(r->last_msg, sizeof r->last_msg, "%.200s", rc == FL_OK ? "" : err.msg);
    if (rc == FL_OK) {
        r->ok++;
        if (st->must_refuse)
            aw_report(r, sql, "succeeded, but must be refused (42501)");
        if (st->search_to)
            r->ag.search = st->search_to;
    } else {
        fl_sql_error_info info;
        fl_sql_last_error(r->s, &info);
        snprintf(r->last_state, sizeof r->last_state, "%s", info.sqlstate);
        r->failed++;
        r->refused += !strcmp(info.sqlstate, "42501");
        aw_check_failure(r, sql, st, &info, err.msg);
    }
    aw_track_block(r, sql, rc == FL_OK);
    if (r->check_state)
        aw_check_state(r, sql);
}

/* Starts a pass: a session for its principal and the state to compare with. */
static inline fl_status aw_run_open(aw_run *r, aw_world *w, const aw_pass *pass,
                                    const fl_principal *p, bool check_state)
{
    memset(r, 0, sizeof *r);
    r->w = w;
    r->pass = pass;
    r->check_state = check_state;
    r->max_reports = 20;
    r->ag.w = w;
    r->ag.pass = pass;
    r->ag.search = "secret";
    FL_TRY(aw_session(w, p, &r->s));
    if (check_state)
        aw_state_take(w, pass->own, &r->base);
    return FL_OK;
}

static inline void aw_run_close(aw_run *r)
{
    if (r->in_block && r->s)
        aw_exec(r->w, r->s, "ROLLBACK");
    fl_sql_session_close(r->s);
    aw_state_free(&r->base);
    r->s = NULL;
}

/* reader's policies (aw_make_policies) mask pub.t1.b ("pub-a", "pub-b")
 * and filter out pub.t2's rows x = 1 and 11 ("pub-x") */
static const char *const AW_READER_HIDDEN[] = {"pub-a", "pub-b", "pub-x", NULL};
static const aw_pass AW_READER = {"reader", "pub", FL_PRIV_READ, true, AW_READER_HIDDEN};
static const aw_pass AW_SANDBOXER = {"sandboxer", "sandbox",
                                     FL_PRIV_READ | FL_PRIV_WRITE | FL_PRIV_CREATE | FL_PRIV_DROP,
                                     false, NULL};

#endif
