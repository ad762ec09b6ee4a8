/*
 * txn.c - recording a transaction: begin/abort, the txn's view of the
 * metadata, raw metadata updates (schema/spec/sort/property changes) and the
 * snapshot-management operations (set current, rollback, refs).
 *
 * Each operation is a txn_op whose build() runs once per commit attempt
 * against the latest metadata (see txn_internal.h), so preconditions such as
 * "the rollback target is an ancestor of the current snapshot" are checked
 * against what is committed, not against what the txn saw when it began.
 * Raw updates carry implicit requirements: if they change the schema (or
 * spec, or sort order), the table's schema (spec, order) must be the one the
 * txn began with, as Java's REST requirements assert-current-schema-id and
 * assert-last-assigned-field-id do; otherwise the commit fails with
 * FL_ECONFLICT instead of silently re-basing an evolution.
 *
 * Memory: the txn arena holds ops and their states; updates passed to
 * fl_ice_txn_add_updates() are deep-copied into it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iceberg/txn_internal.h"

#define OOM_TXN(err) fl_errorf((err), FL_ENOMEM, "transaction: out of memory")

/* ---- small shared helpers ---------------------------------------------------- */

bool txn_paths_push(txn_paths *p, fl_arena *a, const char *path)
{
    if (p->n == p->cap) {
        uint32_t nc = p->cap ? p->cap * 2 : 8;
        const char **v = fl_arena_alloc(a, nc * sizeof *v);
        if (!v)
            return false;
        if (p->n)
            memcpy(v, p->v, p->n * sizeof *v);
        p->v = v;
        p->cap = nc;
    }
    const char *c = fl_arena_strdup(a, path);
    if (!c)
        return false;
    p->v[p->n++] = c;
    return true;
}

void txn_delete_paths(fl_fileio *io, const txn_paths *p)
{
    for (uint32_t i = 0; i < p->n; i++) {
        fl_error e = {0};
        fl_fileio_remove(io, p->v[i], &e);
    }
}

int64_t txn_prop_i64(const fl_ice_metadata *m, const char *key, int64_t dflt)
{
    const char *v = fl_ice_map_get(&m->properties, key);
    if (!v || !*v)
        return dflt;
    char *end;
    long long x = strtoll(v, &end, 10);
    return *end ? dflt : (int64_t)x;
}

bool txn_prop_bool(const fl_ice_metadata *m, const char *key, bool dflt)
{
    const char *v = fl_ice_map_get(&m->properties, key);
    if (!v)
        return dflt;
    if (strcasecmp(v, "true") == 0)
        return true;
    if (strcasecmp(v, "false") == 0)
        return false;
    return dflt;
}

int64_t txn_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *txn_metadata_dir(const fl_ice_metadata *m, fl_arena *a)
{
    const char *p = fl_ice_map_get(&m->properties, "write.metadata.path");
    if (p && *p)
        return fl_arena_strdup(a, p);
    size_t n = strlen(m->location);
    while (n > 1 && m->location[n - 1] == '/')
        n--;
    return fl_arena_sprintf(a, "%.*s/metadata", (int)n, m->location);
}

const fl_ice_snapshot *txn_branch_head(const fl_ice_txn *x, const fl_ice_metadata *m)
{
    const fl_ice_ref *r = fl_ice_metadata_ref(m, x->branch);
    if (!r && strcmp(x->branch, "main") != 0)
        r = fl_ice_metadata_ref(m, "main");
    if (r)
        return fl_ice_metadata_snapshot(m, r->snapshot_id);
    return strcmp(x->branch, "main") == 0 ? fl_ice_metadata_current_snapshot(m) : NULL;
}

fl_status txn_emit(txn_attempt *at, const fl_ice_update *u, uint32_t n, fl_error *err)
{
    if (at->nupdates + n > at->capupdates) {
        uint32_t nc = at->capupdates ? at->capupdates * 2 : 16;
        while (nc < at->nupdates + n)
            nc *= 2;
        fl_ice_update *v = fl_arena_alloc(&at->arena, nc * sizeof *v);
        if (!v)
            return fl_errorf(err, FL_ENOMEM, "commit: out of memory");
        if (at->nupdates)
            memcpy(v, at->updates, at->nupdates * sizeof *v);
        at->updates = v;
        at->capupdates = nc;
    }
    memcpy(at->updates + at->nupdates, u, n * sizeof *u);
    at->nupdates += n;
    fl_ice_metadata next;
    FL_TRY(fl_ice_metadata_apply(&at->cur, NULL, at->updates + at->nupdates - n, n, at->now_ms,
                                 &at->arena, &next, err));
    at->cur = next;
    return FL_OK;
}

fl_status txn_emit_snapshot(fl_ice_txn *x, txn_attempt *at, const fl_ice_snapshot *s, fl_error *err)
{
    fl_ice_snapshot *sc = fl_arena_alloc(&at->arena, sizeof *sc);
    fl_ice_ref *r = fl_arena_calloc(&at->arena, 1, sizeof *r);
    if (!sc || !r)
        return fl_errorf(err, FL_ENOMEM, "commit: out of memory");
    *sc = *s;
    const fl_ice_ref *old = fl_ice_metadata_ref(&at->cur, x->branch);
    if (old)
        *r = *old;
    r->name = x->branch;
    r->is_tag = false;
    r->snapshot_id = s->snapshot_id;
    fl_ice_update u[2] = {{.kind = FL_ICE_UPD_ADD_SNAPSHOT, .snapshot = sc},
                          {.kind = FL_ICE_UPD_SET_SNAPSHOT_REF, .ref = r}};
    FL_TRY(txn_emit(at, u, 2, err));
    at->last_snapshot_id = s->snapshot_id;
    return FL_OK;
}

fl_status txn_add_op(fl_ice_txn *x, const txn_op_vt *vt, void *state, txn_op **out, fl_error *err)
{
    if (x->nops == x->capops) {
        uint32_t nc = x->capops ? x->capops * 2 : 8;
        txn_op *v = fl_arena_alloc(&x->arena, nc * sizeof *v);
        if (!v)
            return fl_errorf(err, FL_ENOMEM, "transaction: out of memory");
        if (x->nops)
            memcpy(v, x->ops, x->nops * sizeof *v);
        x->ops = v;
        x->capops = nc;
    }
    txn_op *op = &x->ops[x->nops++];
    *op = (txn_op){.vt = vt, .state = state};
    x->view_valid = false;
    if (out)
        *out = op;
    return FL_OK;
}

/* ---- begin / view / abort ------------------------------------------------------ */

fl_status fl_ice_txn_begin(fl_ice_table *t, fl_ice_txn **out, fl_error *err)
{
    if (!t)
        return fl_errorf(err, FL_EINVAL, "transaction: no table");
    if (!t->catalog)
        return fl_errorf(err, FL_EINVAL, "transaction: table opened by path is read-only");
    fl_ice_txn *x = calloc(1, sizeof *x);
    if (!x)
        return fl_errorf(err, FL_ENOMEM, "transaction: out of memory");
    x->t = t;
    fl_arena_init(&x->arena, 0);
    fl_arena_init(&x->view_arena, 0);
    x->branch = "main";
    const fl_ice_metadata *m = &t->meta;
    const fl_ice_snapshot *h = fl_ice_metadata_current_snapshot(m);
    x->start_snapshot_id = h ? h->snapshot_id : -1;
    x->start_last_column_id = m->last_column_id;
    x->start_schema_id = m->current_schema_id;
    x->start_last_partition_id = m->last_partition_id;
    x->start_spec_id = m->default_spec_id;
    x->start_order_id = m->default_sort_order_id;
    *out = x;
    return FL_OK;
}

fl_status fl_ice_txn_set_branch(fl_ice_txn *x, const char *branch, fl_error *err)
{
    if (!branch || !*branch)
        return fl_errorf(err, FL_EINVAL, "transaction: empty branch name");
    const fl_ice_ref *r = fl_ice_metadata_ref(&x->t->meta, branch);
    if (r && r->is_tag)
        return fl_errorf(err, FL_EINVAL, "transaction: '%s' is a tag, not a branch", branch);
    const char *b = fl_arena_strdup(&x->arena, branch);
    if (!b)
        return fl_errorf(err, FL_ENOMEM, "transaction: out of memory");
    x->branch = b;
    const fl_ice_snapshot *h = txn_branch_head(x, &x->t->meta);
    x->start_snapshot_id = h ? h->snapshot_id : -1;
    return FL_OK;
}

/* Summary keys the snapshot producer computes itself. */
static bool reserved_summary_key(const char *k)
{
    static const char *const fixed[] = {"operation", "changed-partition-count"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (!strcmp(k, fixed[i]))
            return true;
    return !strncmp(k, "added-", 6) || !strncmp(k, "removed-", 8) || !strncmp(k, "deleted-", 8) ||
           !strncmp(k, "total-", 6);
}

fl_status fl_ice_txn_set_snapshot_summary(fl_ice_txn *x, const fl_ice_map *extra, fl_error *err)
{
    uint32_t n = extra ? extra->n : 0;
    fl_ice_kv *kv = n ? fl_arena_alloc(&x->arena, n * sizeof *kv) : NULL;
    if (n && !kv)
        return fl_errorf(err, FL_ENOMEM, "transaction: out of memory");
    for (uint32_t i = 0; i < n; i++) {
        const fl_ice_kv *e = &extra->items[i];
        if (!e->key || !*e->key || !e->value)
            return fl_errorf(err, FL_EINVAL, "snapshot summary: entry %u lacks key or value", i);
        if (reserved_summary_key(e->key))
            return fl_errorf(err, FL_EINVAL,
                             "snapshot summary: '%s' is computed by the commit itself", e->key);
        kv[i].key = fl_arena_strdup(&x->arena, e->key);
        kv[i].value = fl_arena_strdup(&x->arena, e->value);
        if (!kv[i].key || !kv[i].value)
            return fl_errorf(err, FL_ENOMEM, "transaction: out of memory");
    }
    x->snapshot_summary = (fl_ice_map){.n = n, .items = kv};
    return FL_OK;
}

void fl_ice_txn_set_validator(fl_ice_txn *x, fl_ice_txn_validate_fn fn, void *ctx)
{
    x->validator = fn;
    x->validator_ctx = ctx;
}

fl_arena *fl_ice_txn_arena(fl_ice_txn *x)
{
    return &x->arena;
}

fl_status fl_ice_txn_own_file(fl_ice_txn *x, const char *path, fl_error *err)
{
    if (!txn_paths_push(&x->owned, &x->arena, path))
        return fl_errorf(err, FL_ENOMEM, "transaction: out of memory");
    return FL_OK;
}

/* ---- raw updates ------------------------------------------------------------------ */

typedef struct raw_state {
    fl_ice_update *u;
    uint32_t n;
} raw_state;

static fl_status raw_build(fl_ice_txn *x, txn_op *op, txn_attempt *at, fl_error *err)
{
    raw_state *st = op->state;
    const fl_ice_metadata *b = at->base;
    if (b) {
        for (uint32_t i = 0; i < st->n; i++) {
            fl_ice_update_kind k = st->u[i].kind;
            if ((k == FL_ICE_UPD_ADD_SCHEMA || k == FL_ICE_UPD_SET_CURRENT_SCHEMA) &&
                (b->current_schema_id != x->start_schema_id ||
                 b->last_column_id != x->start_last_column_id))
                return fl_errorf(err, FL_ECONFLICT,
                                 "commit: the table schema changed concurrently (schema %d, "
                                 "last column id %d; this transaction began at %d, %d)",
                                 (int)b->current_schema_id, (int)b->last_column_id,
                                 (int)x->start_schema_id, (int)x->start_last_column_id);
            if ((k == FL_ICE_UPD_ADD_SPEC || k == FL_ICE_UPD_SET_DEFAULT_SPEC) &&
                (b->default_spec_id != x->start_spec_id ||
                 b->last_partition_id != x->start_last_partition_id))
                return fl_errorf(err, FL_ECONFLICT,
                                 "commit: the partition spec changed concurrently (spec %d; "
                                 "this transaction began at %d)",
                                 (int)b->default_spec_id, (int)x->start_spec_id);
            if ((k == FL_ICE_UPD_ADD_SORT_ORDER || k == FL_ICE_UPD_SET_DEFAULT_SORT_ORDER) &&
                b->default_sort_order_id != x->start_order_id)
                return fl_errorf(err, FL_ECONFLICT,
                                 "commit: the sort order changed concurrently (order %d; this "
                                 "transaction began at %d)",
                                 (int)b->default_sort_order_id, (int)x->start_order_id);
        }
    }
    return txn_emit(at, st->u, st->n, err);
}

static const txn_op_vt RAW_VT = {.name = "updates", .build = raw_build};

fl_status fl_ice_txn_add_updates(fl_ice_txn *x, const fl_ice_update *u, uint32_t n, fl_error *err)
{
    if (n == 0)
        return FL_OK;
    if (!u)
        return fl_errorf(err, FL_EINVAL, "transaction: NULL updates");
    /* check now against the txn's view, so errors surface at the call */
    const fl_ice_metadata *v = fl_ice_txn_metadata(x);
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    fl_ice_metadata probe;
    fl_status rc = fl_ice_metadata_apply(v, NULL, u, n, txn_now_ms(), &tmp, &probe, err);
    fl_arena_free(&tmp);
    FL_TRY(rc);
    raw_state *st = fl_arena_alloc(&x->arena, sizeof *st);
    fl_ice_update *copy = fl_arena_alloc(&x->arena, n * sizeof *copy);
    if (!st || !copy)
        return fl_errorf(err, FL_ENOMEM, "transaction: out of memory");
    for (uint32_t i = 0; i < n; i++)
        if (txn_update_copy(&u[i], &x->arena, &copy[i]) != FL_OK)
            return OOM_TXN(err);
    *st = (raw_state){.u = copy, .n = n};
    return txn_add_op(x, &RAW_VT, st, NULL, err);
}

const fl_ice_metadata *fl_ice_txn_metadata(const fl_ice_txn *cx)
{
    fl_ice_txn *x = (fl_ice_txn *)cx;
    if (x->view_valid)
        return &x->view;
    fl_arena_reset(&x->view_arena);
    fl_ice_metadata m = x->t->meta;
    bool ok = true;
    for (uint32_t i = 0; i < x->nops && ok; i++) {
        if (x->ops[i].vt != &RAW_VT)
            continue;
        raw_state *st = x->ops[i].state;
        fl_ice_metadata next;
        fl_error e = {0};
        ok = fl_ice_metadata_apply(&m, NULL, st->u, st->n, txn_now_ms(), &x->view_arena, &next,
                                   &e) == FL_OK;
        if (ok)
            m = next;
    }
    x->view = m;
    x->view_valid = true;
    return &x->view;
}

fl_status fl_ice_txn_set_properties(fl_ice_txn *x, const fl_ice_map *set, const char *const *remove,
                                    uint32_t nremove, fl_error *err)
{
    fl_ice_update u[2];
    uint32_t n = 0;
    if (set && set->n) {
        fl_ice_kv *kv = fl_arena_alloc(&x->arena, set->n * sizeof *kv);
        if (!kv)
            return fl_errorf(err, FL_ENOMEM, "transaction: out of memory");
        for (uint32_t i = 0; i < set->n; i++) {
            if (!set->items[i].key || !set->items[i].value)
                return fl_errorf(err, FL_EINVAL, "set properties: entry %u lacks key or value", i);
            kv[i].key = fl_arena_strdup(&x->arena, set->items[i].key);
            kv[i].value = fl_arena_strdup(&x->arena, set->items[i].value);
            if (!kv[i].key || !kv[i].value)
                return fl_errorf(err, FL_ENOMEM, "transaction: out of memory");
        }
        u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_PROPERTIES,
                                 .properties = {.n = set->n, .items = kv}};
    }
    if (nremove) {
        const char **r = fl_arena_alloc(&x->arena, nremove * sizeof *r);
        if (!r)
            return fl_errorf(err, FL_ENOMEM, "transaction: out of memory");
        for (uint32_t i = 0; i < nremove; i++)
            if (!remove[i] || !(r[i] = fl_arena_strdup(&x->arena, remove[i])))
                return fl_errorf(err, FL_EINVAL, "remove properties: bad entry %u", i);
        u[n++] = (fl_ice_update){
            .kind = FL_ICE_UPD_REMOVE_PROPERTIES, .removals = r, .nremovals = nremove};
    }
    return fl_ice_txn_add_updates(x, u, n, err);
}

/* ---- snapshot management ------------------------------------------------------------ */

typedef enum {
    SM_SET_CURRENT,
    SM_ROLLBACK,
    SM_ROLLBACK_TIME,
    SM_CREATE_REF,
    SM_REMOVE_REF
} sm_kind;

typedef struct sm_state {
    sm_kind kind;
    int64_t id; /* snapshot id or timestamp */
    const char *name;
    bool is_tag;
} sm_state;

static bool is_ancestor(const fl_ice_metadata *m, const fl_ice_snapshot *head, int64_t id)
{
    for (uint32_t guard = 0; head && guard <= m->nsnapshots; guard++) {
        if (head->snapshot_id == id)
            return true;
        if (!head->has_parent)
            return false;
        head = fl_ice_metadata_snapshot(m, head->parent_snapshot_id);
    }
    return false;
}

static fl_status emit_ref(txn_attempt *at, const char *name, int64_t id, bool is_tag, fl_error *err)
{
    fl_ice_ref *r = fl_arena_calloc(&at->arena, 1, sizeof *r);
    if (!r)
        return fl_errorf(err, FL_ENOMEM, "commit: out of memory");
    const fl_ice_ref *old = fl_ice_metadata_ref(&at->cur, name);
    if (old)
        *r = *old;
    r->name = name;
    r->snapshot_id = id;
    r->is_tag = is_tag;
    fl_ice_update u = {.kind = FL_ICE_UPD_SET_SNAPSHOT_REF, .ref = r};
    return txn_emit(at, &u, 1, err);
}

static fl_status sm_resolve(fl_ice_txn *x, const sm_state *st, const fl_ice_metadata *m,
                            int64_t *target, fl_error *err)
{
    const fl_ice_snapshot *head = txn_branch_head(x, m);
    switch (st->kind) {
    case SM_SET_CURRENT:
        if (!fl_ice_metadata_snapshot(m, st->id))
            return fl_errorf(err, FL_ENOTFOUND, "set current snapshot: no snapshot %lld",
                             (long long)st->id);
        *target = st->id;
        return FL_OK;
    case SM_ROLLBACK:
        if (!fl_ice_metadata_snapshot(m, st->id))
            return fl_errorf(err, FL_ENOTFOUND, "rollback: no snapshot %lld", (long long)st->id);
        if (!is_ancestor(m, head, st->id))
            return fl_errorf(err, FL_EINVAL,
                             "rollback: snapshot %lld is not an ancestor of the current "
                             "snapshot of branch %s",
                             (long long)st->id, x->branch);
        *target = st->id;
        return FL_OK;
    case SM_ROLLBACK_TIME: {
        const fl_ice_snapshot *s = head;
        for (uint32_t guard = 0; s && guard <= m->nsnapshots; guard++) {
            if (s->timestamp_ms <= st->id) {
                *target = s->snapshot_id;
                return FL_OK;
            }
            s = s->has_parent ? fl_ice_metadata_snapshot(m, s->parent_snapshot_id) : NULL;
        }
        return fl_errorf(err, FL_ENOTFOUND,
                         "rollback: no ancestor snapshot at or before timestamp %lld",
                         (long long)st->id);
    }
    case SM_CREATE_REF:
        if (fl_ice_metadata_ref(m, st->name))
            return fl_errorf(err, FL_EEXIST, "create ref: '%s' already exists", st->name);
        if (st->id == -1) {
            if (!head)
                return fl_errorf(err, FL_ENOTFOUND, "create ref '%s': the table has no snapshot",
                                 st->name);
            *target = head->snapshot_id;
        } else if (!fl_ice_metadata_snapshot(m, st->id)) {
            return fl_errorf(err, FL_ENOTFOUND, "create ref '%s': no snapshot %lld", st->name,
                             (long long)st->id);
        } else {
            *target = st->id;
        }
        return FL_OK;
    case SM_REMOVE_REF:
        if (strcmp(st->name, "main") == 0)
            return fl_errorf(err, FL_EINVAL, "remove ref: the main branch cannot be removed");
        if (!fl_ice_metadata_ref(m, st->name))
            return fl_errorf(err, FL_ENOTFOUND, "remove ref: no ref '%s'", st->name);
        *target = 0;
        return FL_OK;
    }
    return fl_errorf(err, FL_EINVAL, "snapshot management: bad operation");
}

static fl_status sm_build(fl_ice_txn *x, txn_op *op, txn_attempt *at, fl_error *err)
{
    const sm_state *st = op->state;
    int64_t target = 0;
    FL_TRY(sm_resolve(x, st, &at->cur, &target, err));
    if (st->kind == SM_REMOVE_REF) {
        fl_ice_update u = {.kind = FL_ICE_UPD_REMOVE_SNAPSHOT_REF, .ref_name = st->name};
        return txn_emit(at, &u, 1, err);
    }
    if (st->kind == SM_CREATE_REF)
        return emit_ref(at, st->name, target, st->is_tag, err);
    return emit_ref(at, x->branch, target, false, err);
}

static const txn_op_vt SM_VT = {.name = "manage snapshots", .build = sm_build};

static fl_status sm_add(fl_ice_txn *x, sm_kind kind, int64_t id, const char *name, bool is_tag,
                        fl_error *err)
{
    sm_state *st = fl_arena_calloc(&x->arena, 1, sizeof *st);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "transaction: out of memory");
    *st = (sm_state){.kind = kind, .id = id, .is_tag = is_tag};
    if (name && !(st->name = fl_arena_strdup(&x->arena, name)))
        return fl_errorf(err, FL_ENOMEM, "transaction: out of memory");
    int64_t target;
    FL_TRY(sm_resolve(x, st, fl_ice_txn_metadata(x), &target, err)); /* early error */
    return txn_add_op(x, &SM_VT, st, NULL, err);
}

fl_status fl_ice_txn_set_current_snapshot(fl_ice_txn *x, int64_t snapshot_id, fl_error *err)
{
    return sm_add(x, SM_SET_CURRENT, snapshot_id, NULL, false, err);
}

fl_status fl_ice_txn_rollback_to(fl_ice_txn *x, int64_t snapshot_id, fl_error *err)
{
    return sm_add(x, SM_ROLLBACK, snapshot_id, NULL, false, err);
}

fl_status fl_ice_txn_rollback_to_time(fl_ice_txn *x, int64_t timestamp_ms, fl_error *err)
{
    return sm_add(x, SM_ROLLBACK_TIME, timestamp_ms, NULL, false, err);
}

fl_status fl_ice_txn_create_ref(fl_ice_txn *x, const char *name, bool is_tag, int64_t snapshot_id,
                                fl_error *err)
{
    if (!name || !*name)
        return fl_errorf(err, FL_EINVAL, "create ref: empty name");
    return sm_add(x, SM_CREATE_REF, snapshot_id, name, is_tag, err);
}

fl_status fl_ice_txn_remove_ref(fl_ice_txn *x, const char *name, fl_error *err)
{
    if (!name || !*name)
        return fl_errorf(err, FL_EINVAL, "remove ref: empty name");
    return sm_add(x, SM_REMOVE_REF, 0, name, false, err);
}

/* ---- abort ---------------------------------------------------------------------------- */

void txn_free(fl_ice_txn *x)
{
    for (uint32_t i = 0; i < x->nadopted; i++)
        txn_free(x->adopted[i]);
    free(x->adopted);
    fl_arena_free(&x->view_arena);
    fl_arena_free(&x->arena);
    free(x);
}

void fl_ice_txn_abort(fl_ice_txn *x)
{
    if (!x)
        return;
    fl_fileio *io = x->t->io;
    for (uint32_t i = 0; i < x->nops; i++)
        txn_delete_paths(io, &x->ops[i].owned);
    txn_delete_paths(io, &x->owned);
    txn_free(x);
}
