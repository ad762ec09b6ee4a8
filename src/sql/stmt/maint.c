/*
 * maint.c - table maintenance in Trino's form (stmt.h):
 *
 *   ALTER TABLE t EXECUTE optimize [(file_size_threshold => '128MB')]
 *       rewrites data files smaller than the threshold (default: the
 *       table's min-file-size-bytes, 3/4 of write.target-file-size-bytes)
 *       and files with deletes into files of the target size ("replace").
 *       Report: rewritten_data_files_count, added_data_files_count.
 *   ALTER TABLE t EXECUTE expire_snapshots(retention_threshold => '7d')
 *       | expire_snapshots(older_than => '2024-01-31 00:00:00', retain_last => 3)
 *       expires snapshots older than now - threshold (or the timestamp),
 *       keeping retain_last (default: history.expire.min-snapshots-to-keep)
 *       and every ref's head; deletes the files only they reached. Without
 *       arguments the table's history.expire.max-snapshot-age-ms applies.
 *       Report: expired_snapshots_count, deleted_manifest_lists_count,
 *       deleted_manifests_count, deleted_data_files_count,
 *       deleted_delete_files_count.
 *   ALTER TABLE t EXECUTE remove_orphan_files(retention_threshold => '7d'
 *       [, dry_run => true])
 *       deletes files under the table location that no metadata reaches
 *       and that are older than the threshold (default 7d, as Trino).
 *       Report: orphan_files_count.
 *   ALTER TABLE t EXECUTE rollback_to_snapshot(snapshot_id)
 *   ALTER TABLE t EXECUTE rollback_to_timestamp('2024-01-31 00:00:00')
 *   ALTER TABLE t EXECUTE set_current_snapshot(snapshot_id)
 *   ALTER TABLE t EXECUTE rewrite_manifests
 *
 * Arguments are named (name => value) or positional in the order above.
 * Durations: a number with a unit ns, us, ms, s, m, h, d ('7d', '36h',
 * '1.5d'). Sizes: a number with B, kB, MB, GB, TB (binary multiples, as
 * Trino's DataSize). Timestamps: 'YYYY-MM-DD[ HH:MM:SS[.fff]][Z|+hh:mm]'
 * (UTC unless an offset is given) or epoch milliseconds. Tag "ALTER TABLE
 * EXECUTE".
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "sql/planner.h"
#include "sql/stmt/stmt_int.h"

/* ---- argument values ---- */

static bool parse_number_unit(const char *s, double *num, const char **unit)
{
    char *end;
    while (isspace((unsigned char)*s))
        s++;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v < 0)
        return false;
    while (isspace((unsigned char)*end))
        end++;
    *num = v;
    *unit = end;
    return true;
}

static fl_status parse_duration_ms(const char *s, int64_t *ms, fl_error *err)
{
    static const struct {
        const char *u;
        double ms;
    } units[] = {{"ns", 1e-6}, {"us", 1e-3}, {"ms", 1}, {"s", 1e3},
                 {"m", 60e3},  {"h", 3600e3}, {"d", 86400e3}};
    double v;
    const char *u;
    if (parse_number_unit(s, &v, &u))
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (!strcmp(u, units[i].u) && v * units[i].ms < 9e15) {
                *ms = (int64_t)(v * units[i].ms);
                return FL_OK;
            }
    return fl_errorf(err, FL_EINVAL,
                     "invalid duration '%s' (a number with a unit: ns, us, ms, s, m, h, d)", s);
}

static fl_status parse_size(const char *s, int64_t *bytes, fl_error *err)
{
    static const struct {
        const char *u;
        double m;
    } units[] = {{"B", 1}, {"kB", 1024.0}, {"KB", 1024.0}, {"MB", 1048576.0},
                 {"GB", 1073741824.0}, {"TB", 1099511627776.0}};
    double v;
    const char *u;
    if (parse_number_unit(s, &v, &u))
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (!strcmp(u, units[i].u) && v * units[i].m < 9e18) {
                *bytes = (int64_t)(v * units[i].m);
                return FL_OK;
            }
    return fl_errorf(err, FL_EINVAL, "invalid data size '%s' (a number with B, kB, MB, GB, TB)",
                     s);
}

static fl_status parse_ts_ms(const char *s, int64_t *ms, fl_error *err)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end != s && !*end) {
        *ms = v;
        return FL_OK;
    }
    int Y, M, D, h = 0, mi = 0, n = 0;
    double sec = 0;
    if (sscanf(s, "%d-%d-%d%n", &Y, &M, &D, &n) < 3)
        goto bad;
    const char *p = s + n;
    if (*p == ' ' || *p == 'T') {
        int k = 0;
        if (sscanf(p + 1, "%d:%d:%lf%n", &h, &mi, &sec, &k) < 3)
            goto bad;
        p += 1 + k;
    }
    int off = 0;
    if (*p == 'Z' || *p == 'z')
        p++;
    else if (*p == '+' || *p == '-') {
        int oh = 0, om = 0, k = 0;
        if (sscanf(p + 1, "%d:%d%n", &oh, &om, &k) < 2)
            goto bad;
        off = (oh * 60 + om) * (*p == '-' ? -1 : 1);
        p += 1 + k;
    }
    while (isspace((unsigned char)*p))
        p++;
    if (*p || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || mi > 59 || sec >= 61)
        goto bad;
    struct tm tm = {0};
    tm.tm_year = Y - 1900;
    tm.tm_mon = M - 1;
    tm.tm_mday = D;
    tm.tm_hour = h;
    tm.tm_min = mi;
    time_t t = timegm(&tm);
    *ms = (int64_t)t * 1000 + (int64_t)(sec * 1000) - (int64_t)off * 60000;
    return FL_OK;
bad:
    return fl_errorf(err, FL_EINVAL,
                     "invalid timestamp '%s' (YYYY-MM-DD HH:MM:SS[+hh:mm] or epoch ms)", s);
}

static fl_status parse_bool(const char *s, bool *b, fl_error *err)
{
    if (!strcasecmp(s, "true") || !strcmp(s, "1")) {
        *b = true;
        return FL_OK;
    }
    if (!strcasecmp(s, "false") || !strcmp(s, "0")) {
        *b = false;
        return FL_OK;
    }
    return fl_errorf(err, FL_EINVAL, "invalid boolean '%s'", s);
}

/* The value of argument `name` (or positional argument pos); NULL if absent. */
static const char *arg(const fl_execute_stmt *s, const char *name, int pos)
{
    for (uint32_t i = 0; i < s->nargs; i++)
        if (s->arg_names[i] && !strcasecmp(s->arg_names[i], name))
            return s->arg_values[i];
    if (pos >= 0 && (uint32_t)pos < s->nargs && !s->arg_names[pos])
        return s->arg_values[pos];
    return NULL;
}

static fl_status check_args(const fl_execute_stmt *s, const char *const *known, fl_error *err)
{
    uint32_t nknown = 0;
    while (known[nknown])
        nknown++;
    for (uint32_t i = 0; i < s->nargs; i++) {
        if (!s->arg_names[i]) {
            if (i >= nknown)
                return fl_errorf(err, FL_EINVAL, "%s: too many arguments", s->procedure);
            continue;
        }
        bool ok = false;
        for (uint32_t k = 0; k < nknown && !ok; k++)
            ok = !strcasecmp(s->arg_names[i], known[k]);
        if (!ok)
            return fl_errorf(err, FL_EINVAL, "%s: unknown argument '%s'", s->procedure,
                             s->arg_names[i]);
    }
    return FL_OK;
}

static fl_status snapshot_arg(const fl_execute_stmt *s, int64_t *id, fl_error *err)
{
    const char *v = arg(s, "snapshot_id", 0);
    char *end;
    if (!v)
        return fl_errorf(err, FL_EINVAL, "%s: snapshot_id is required", s->procedure);
    long long x = strtoll(v, &end, 10);
    if (end == v || *end)
        return fl_errorf(err, FL_EINVAL, "%s: invalid snapshot id '%s'", s->procedure, v);
    *id = x;
    return FL_OK;
}

/* ---- procedures ---- */

typedef struct mctx {
    fl_stmt_ctx *c;
    const fl_execute_stmt *s;
    fl_ice_table *t;
    fl_ice_txn *x; /* NULL for remove_orphan_files */
    fl_stmt_result *out;
    const char *name;
} mctx;

/* optimize's rewrite, reported into the statement's progress (sql.h
 * fl_sql_progress: files to rewrite, rewritten, rows read and written
 * again) as deltas, so a scan of the same statement would add up too. */
typedef struct optimize_progress {
    fl_exec_progress *to;
    fl_ice_rewrite_progress last;
} optimize_progress;

static void on_file_rewritten(void *ctx, const fl_ice_rewrite_progress *p)
{
    optimize_progress *o = ctx;
    atomic_fetch_add(&o->to->files_total, p->files_total - o->last.files_total);
    atomic_fetch_add(&o->to->files_done, p->files_done - o->last.files_done);
    atomic_fetch_add(&o->to->rows_scanned, p->rows_written - o->last.rows_written);
    o->last = *p;
}

static fl_status optimize(mctx *m, fl_error *err)
{
    static const char *const known[] = {"file_size_threshold", NULL};
    FL_TRY(check_args(m->s, known, err));
    if (m->s->where_text)
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "optimize ... WHERE is not supported (the whole table is compacted)");
    const char *th = arg(m->s, "file_size_threshold", 0);
    const char *key = "min-file-size-bytes";
    const fl_ice_metadata *meta = fl_ice_txn_metadata(m->x);
    const char *old = fl_ice_map_get(&meta->properties, key);
    fl_arena *a = m->c->planner->arena;
    if (old)
        old = fl_arena_strdup(a, old);
    if (th) {
        /* the threshold applies to this rewrite only: set, rewrite, restore
         * (the net property change of the commit is none) */
        int64_t bytes = 0;
        FL_TRY(parse_size(th, &bytes, err));
        fl_ice_kv kv = {key, fl_arena_sprintf(a, "%lld", (long long)bytes)};
        fl_ice_map set = {1, &kv};
        FL_TRY(fl_ice_txn_set_properties(m->x, &set, NULL, 0, err));
    }
    uint64_t rewritten = 0, added = 0;
    optimize_progress op = {.to = m->c->exec ? m->c->exec->progress : NULL};
    fl_ice_rewrite_options ro = {.progress = op.to ? on_file_rewritten : NULL, .progress_ctx = &op};
    FL_TRY(fl_ice_rewrite_data_files_ex(m->x, &ro, &rewritten, &added, err));
    if (th) {
        fl_ice_kv kv = {key, old};
        fl_ice_map set = {old ? 1u : 0u, &kv};
        const char *rm[1] = {key};
        FL_TRY(fl_ice_txn_set_properties(m->x, &set, old ? NULL : rm, old ? 0 : 1, err));
    }
    fl_ice_txn *x = m->x;
    m->x = NULL;
    FL_TRY(stmt_commit(m->c, x, m->name, m->out, err));
    static const char *const names[] = {"rewritten_data_files_count", "added_data_files_count"};
    int64_t v[2] = {(int64_t)rewritten, (int64_t)added};
    return stmt_result_counts(m->c, m->out, names, v, 2, err);
}

static fl_status expire(mctx *m, fl_error *err)
{
    static const char *const known[] = {"retention_threshold", "older_than", "retain_last", NULL};
    FL_TRY(check_args(m->s, known, err));
    const char *rt = arg(m->s, "retention_threshold", 0);
    const char *ot = arg(m->s, "older_than", -1);
    const char *rl = arg(m->s, "retain_last", -1);
    if (rt && ot)
        return fl_errorf(err, FL_EINVAL,
                         "expire_snapshots: give retention_threshold or older_than, not both");
    int64_t older = -1;
    if (rt) {
        int64_t d = 0;
        FL_TRY(parse_duration_ms(rt, &d, err));
        older = stmt_now_ms() - d;
    } else if (ot)
        FL_TRY(parse_ts_ms(ot, &older, err));
    uint32_t keep = 0;
    if (rl) {
        char *end;
        long long k = strtoll(rl, &end, 10);
        if (end == rl || *end || k < 1 || k > 1000000000)
            return fl_errorf(err, FL_EINVAL, "expire_snapshots: retain_last must be >= 1");
        keep = (uint32_t)k;
    }
    fl_ice_expire_result r = {0};
    FL_TRY(fl_ice_txn_expire_snapshots(m->x, older, keep, &r, err));
    fl_ice_txn *x = m->x;
    m->x = NULL;
    FL_TRY(stmt_commit(m->c, x, m->name, m->out, err));
    static const char *const names[] = {"expired_snapshots_count", "deleted_manifest_lists_count",
                                        "deleted_manifests_count", "deleted_data_files_count",
                                        "deleted_delete_files_count"};
    int64_t v[5] = {(int64_t)r.snapshots_expired, (int64_t)r.manifest_lists_deleted,
                    (int64_t)r.manifests_deleted, (int64_t)r.data_files_deleted,
                    (int64_t)r.delete_files_deleted};
    return stmt_result_counts(m->c, m->out, names, v, 5, err);
}

static fl_status orphans(mctx *m, fl_error *err)
{
    static const char *const known[] = {"retention_threshold", "dry_run", NULL};
    FL_TRY(check_args(m->s, known, err));
    const char *rt = arg(m->s, "retention_threshold", 0);
    const char *dr = arg(m->s, "dry_run", 1);
    int64_t d = 7 * 86400000LL;
    if (rt)
        FL_TRY(parse_duration_ms(rt, &d, err));
    bool dry = false;
    if (dr)
        FL_TRY(parse_bool(dr, &dry, err));
    uint64_t n = 0;
    FL_TRY(fl_ice_remove_orphan_files(m->t, stmt_now_ms() - d, dry, NULL, NULL, &n, err));
    static const char *const names[] = {"orphan_files_count"};
    int64_t v = (int64_t)n;
    return stmt_result_counts(m->c, m->out, names, &v, 1, err);
}

static fl_status snapshots(mctx *m, const char *proc, fl_error *err)
{
    fl_status rc;
    if (!strcmp(proc, "rollback_to_timestamp")) {
        static const char *const known[] = {"timestamp", NULL};
        FL_TRY(check_args(m->s, known, err));
        const char *ts = arg(m->s, "timestamp", 0);
        if (!ts)
            return fl_errorf(err, FL_EINVAL, "rollback_to_timestamp: timestamp is required");
        int64_t ms;
        FL_TRY(parse_ts_ms(ts, &ms, err));
        rc = fl_ice_txn_rollback_to_time(m->x, ms, err);
    } else if (!strcmp(proc, "rewrite_manifests")) {
        static const char *const known[] = {NULL};
        FL_TRY(check_args(m->s, known, err));
        rc = fl_ice_txn_rewrite_manifests(m->x, err);
    } else {
        static const char *const known[] = {"snapshot_id", NULL};
        FL_TRY(check_args(m->s, known, err));
        int64_t id = 0;
        FL_TRY(snapshot_arg(m->s, &id, err));
        rc = !strcmp(proc, "set_current_snapshot") ? fl_ice_txn_set_current_snapshot(m->x, id, err)
                                                   : fl_ice_txn_rollback_to(m->x, id, err);
    }
    FL_TRY(rc);
    fl_ice_txn *x = m->x;
    m->x = NULL;
    return stmt_commit(m->c, x, m->name, m->out, err);
}

fl_status stmt_execute(fl_stmt_ctx *c, const fl_execute_stmt *s, fl_stmt_result *out,
                       fl_error *err)
{
    FL_TRY(stmt_need_catalog(c, "ALTER TABLE EXECUTE", err));
    const char *proc = s->procedure ? s->procedure : "";
    static const char *const procs[] = {"optimize",
                                        "expire_snapshots",
                                        "remove_orphan_files",
                                        "rollback_to_snapshot",
                                        "rollback_to_timestamp",
                                        "set_current_snapshot",
                                        "rewrite_manifests",
                                        NULL};
    bool known = false;
    for (const char *const *p = procs; *p && !known; p++)
        known = !strcmp(*p, proc);
    if (!known) {
        stmt_set_position(c, s->location);
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "unknown table procedure '%s' (known: optimize, expire_snapshots, "
                         "remove_orphan_files, rollback_to_snapshot, rollback_to_timestamp, "
                         "set_current_snapshot, rewrite_manifests)",
                         proc);
    }
    if (s->where_text && strcmp(proc, "optimize") != 0)
        return fl_errorf(err, FL_EINVAL, "%s does not take a WHERE clause", proc);
    fl_table_ident id;
    FL_TRY(stmt_ident_text(c, s->table, &id, err));
    /* every procedure changes the table (its snapshots, files or layout) */
    FL_TRY(fl_sql_authz_table(c->planner, FL_PRIV_WRITE, &id, s->location, err));
    mctx m = {c, s, NULL, NULL, out, fl_table_ident_str(&id, c->planner->arena)};
    fl_status rc = fl_ice_table_load(c->planner->catalog, &id, &m.t, err);
    if (rc == FL_ENOTFOUND)
        rc = fl_front_missing_metadata(c->planner, &id, err); /* FL_EIO: the file is gone */
    if (rc == FL_ENOTFOUND) {
        return fl_error_state(err, FL_ENOTFOUND, "42P01", "relation \"%s\" does not exist", m.name);
    }
    FL_TRY(rc);
    if (strcmp(proc, "remove_orphan_files") != 0)
        rc = fl_ice_txn_begin(m.t, &m.x, err);
    if (rc == FL_OK) {
        if (!strcmp(proc, "optimize"))
            rc = optimize(&m, err);
        else if (!strcmp(proc, "expire_snapshots"))
            rc = expire(&m, err);
        else if (!strcmp(proc, "remove_orphan_files"))
            rc = orphans(&m, err);
        else
            rc = snapshots(&m, proc, err);
    }
    fl_ice_txn_abort(m.x);
    fl_ice_table_free(m.t);
    FL_TRY(rc);
    stmt_tag(out, "ALTER TABLE EXECUTE");
    return FL_OK;
}
