/*
 * pgcat_snap.c - the per-statement snapshot of floe's catalog that the
 * pg_catalog relations are built from: namespaces (nested ones walked to a
 * depth of 8, named "a.b" as floe's SQL spells them), their tables and views
 * with stable OIDs (pgcat.h, OIDS), plus the built-in pg_catalog and
 * information_schema relations themselves. Columns are loaded only when a
 * relation that shows them (pg_attribute, information_schema.columns...) is
 * used. Everything is in the planner arena; the snapshot hangs off the
 * front end's per-statement state, so a query joining pg_class three times
 * lists the catalog once. It lists only what the effective principal may
 * see, so it is kept for that principal only: a definer view reading
 * pg_catalog gets its definer's snapshot, which the invoker's own
 * references in the statement must not reuse (nor the reverse).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ice_view.h"
#include "floe/sql.h"
#include "sql/authz/authz.h"
#include "sql/pgcat/pgcat.h"

#define OID_FIRST 16384u
#define OID_SPAN (0x7fffffffu - OID_FIRST)
#define MAX_NS_DEPTH 8
#define MAX_RELS 200000

uint32_t fl_pgcat_hash_oid(const char *kind, const char *a, const char *b)
{
    uint32_t h = 2166136261u;
    const char *parts[3] = {kind, a, b};
    for (int p = 0; p < 3; p++) {
        if (!parts[p])
            continue;
        if (p == 2) {
            h ^= '.';
            h *= 16777619u;
        }
        for (const unsigned char *s = (const unsigned char *)parts[p]; *s; s++) {
            h ^= *s;
            h *= 16777619u;
        }
    }
    return OID_FIRST + h % OID_SPAN;
}

static const fl_pgcat_rel *find_rel(const fl_pgcat_snap *s, const char *nsp, const char *name);

typedef struct builder {
    fl_arena *a;
    fl_pgcat_snap *s;
    fl_planner_ctx *pc; /* whose listing: only what the principal may see (authz.h) */
} builder;

static bool oid_used(const fl_pgcat_snap *s, uint32_t oid)
{
    for (uint32_t i = 0; i < s->nnsps; i++)
        if (s->nsps[i].oid == oid)
            return true;
    for (uint32_t i = 0; i < s->nrels; i++)
        if (s->rels[i].oid == oid || s->rels[i].type_oid == oid ||
            s->rels[i].array_type_oid == oid ||
            (s->rels[i].pk && s->rels[i].pk->con_oid == oid))
            return true;
    return false;
}

static uint32_t unique_oid(const fl_pgcat_snap *s, uint32_t oid)
{
    while (oid_used(s, oid))
        oid = oid + 1 >= OID_FIRST + OID_SPAN ? OID_FIRST : oid + 1;
    return oid;
}

static fl_status add_nsp(builder *bd, const char *name, uint32_t oid, fl_error *err)
{
    fl_pgcat_snap *s = bd->s;
    s->nsps = fl_front_grow(bd->a, s->nsps, &s->capn, s->nnsps, sizeof(fl_pgcat_nsp));
    if (!s->nsps)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (!oid)
        oid = unique_oid(s, fl_pgcat_hash_oid("n:", name, NULL));
    s->nsps[s->nnsps].oid = oid;
    s->nsps[s->nnsps].name = name;
    s->nnsps++;
    return FL_OK;
}

static fl_status add_rel(builder *bd, const fl_pgcat_nsp *ns, const char *name, char kind,
                         uint32_t oid, bool builtin, fl_error *err)
{
    fl_pgcat_snap *s = bd->s;
    if (s->nrels >= MAX_RELS)
        return fl_errorf(err, FL_ELIMIT, "pg_catalog: more than %d relations", MAX_RELS);
    s->rels = fl_front_grow(bd->a, s->rels, &s->capr, s->nrels, sizeof(fl_pgcat_rel));
    if (!s->rels)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_pgcat_rel *r = &s->rels[s->nrels];
    memset(r, 0, sizeof *r);
    r->oid = oid ? oid : unique_oid(s, fl_pgcat_hash_oid(builtin ? "s:" : "r:", ns->name, name));
    if (builtin && !oid && r->oid >= OID_FIRST) /* system relations stay below 16384 */
        r->oid = unique_oid(s, 12000 + r->oid % 4000);
    r->nsp_oid = ns->oid;
    r->nsp = ns->name;
    r->name = name;
    r->kind = kind;
    r->builtin = builtin;
    r->rows = -1;
    s->nrels++;
    if (!builtin && (kind == 'r' || kind == 'v')) {
        r->type_oid = unique_oid(s, fl_pgcat_hash_oid("c:", ns->name, name));
        r->array_type_oid = unique_oid(s, fl_pgcat_hash_oid("a:", ns->name, name));
    }
    return FL_OK;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Tables and views of one namespace, sorted by name. */
static fl_status add_rels_of(builder *bd, fl_catalog *c, uint32_t nsi, const fl_namespace *ns,
                             fl_error *err)
{
    for (int pass = 0; pass < 2; pass++) {
        const char **names = NULL;
        uint32_t n = 0;
        fl_status rc;
        if (pass == 0)
            rc = c->ops->list_tables(c, ns, bd->a, &names, &n, err);
        else if (c->ops->list_views)
            rc = c->ops->list_views(c, ns, bd->a, &names, &n, err);
        else
            continue;
        if (rc != FL_OK)
            return rc;
        if (n > 1)
            qsort(names, n, sizeof *names, cmp_str);
        for (uint32_t i = 0; i < n; i++) {
            if (!fl_sql_authz_visible(bd->pc, ns, names[i]))
                continue;
            fl_pgcat_nsp nsp = bd->s->nsps[nsi];
            FL_TRY(add_rel(bd, &nsp, names[i], pass == 0 ? 'r' : 'v', 0, false, err));
        }
    }
    return FL_OK;
}

typedef struct named_ns {
    const char *name; /* first: sorted with cmp_str */
    const fl_namespace *ns;
} named_ns;

static fl_status walk(builder *bd, fl_catalog *c, const fl_namespace *parent, int depth,
                      fl_error *err)
{
    fl_namespace *kids = NULL;
    uint32_t n = 0;
    if (!fl_sql_authz_visible(bd->pc, parent, NULL))
        return FL_OK;
    FL_TRY(c->ops->list_namespaces(c, parent, bd->a, &kids, &n, err));
    named_ns *sorted = fl_arena_calloc(bd->a, n + 1, sizeof *sorted);
    if (!sorted)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        sorted[i].name = fl_namespace_str(&kids[i], bd->a);
        sorted[i].ns = &kids[i];
        if (!sorted[i].name)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    if (n > 1)
        qsort(sorted, n, sizeof *sorted, cmp_str); /* name is the first member */
    for (uint32_t i = 0; i < n; i++) {
        if (!fl_sql_authz_visible(bd->pc, sorted[i].ns, NULL))
            continue; /* nothing in or above it is granted: not shown, not walked */
        uint32_t nsi = bd->s->nnsps;
        FL_TRY(add_nsp(bd, sorted[i].name, 0, err));
        FL_TRY(add_rels_of(bd, c, nsi, sorted[i].ns, err));
        if (depth + 1 < MAX_NS_DEPTH)
            FL_TRY(walk(bd, c, sorted[i].ns, depth + 1, err));
    }
    return FL_OK;
}

/* The extension's relations (the semantic layer's semantic.metrics), as
 * views whose columns come with them; a catalog relation of the same name
 * wins (it is what a query would read). */
static fl_status add_virtual(builder *bd, const fl_sql_extension *ext, fl_error *err)
{
    for (uint32_t i = 0; i < ext->nrels; i++) {
        const fl_sql_virtual_rel *v = &ext->rels[i];
        if (find_rel(bd->s, v->nsp, v->name))
            continue;
        uint32_t nsi = 0;
        while (nsi < bd->s->nnsps && strcmp(bd->s->nsps[nsi].name, v->nsp))
            nsi++;
        if (nsi == bd->s->nnsps)
            FL_TRY(add_nsp(bd, v->nsp, 0, err));
        fl_pgcat_nsp nsp = bd->s->nsps[nsi];
        FL_TRY(add_rel(bd, &nsp, v->name, 'v', 0, false, err));
        fl_pgcat_rel *r = &bd->s->rels[bd->s->nrels - 1];
        r->virt = true;
        r->cols = v->cols;
        r->view_sql = v->definition;
    }
    return FL_OK;
}

static fl_status build(fl_planner_ctx *pc, fl_pgcat_snap *s, fl_error *err)
{
    builder bd = {.a = pc->arena, .s = s, .pc = pc};
    FL_TRY(add_nsp(&bd, "pg_catalog", 11, err));
    FL_TRY(add_nsp(&bd, "information_schema", 13000, err));
    uint32_t nd = 0;
    const fl_pgcat_def *defs = fl_pgcat_defs(&nd);
    for (uint32_t i = 0; i < nd; i++) {
        const fl_pgcat_nsp ns = strcmp(defs[i].schema, "pg_catalog") == 0 ? s->nsps[0] : s->nsps[1];
        FL_TRY(add_rel(&bd, &ns, defs[i].name, defs[i].kind, defs[i].oid, true, err));
    }
    if (pc->catalog) {
        /* namespaces in name order, so collision probing is deterministic */
        fl_status rc = walk(&bd, pc->catalog, NULL, 0, err);
        if (rc != FL_OK)
            return fl_error_prefix(err, "pg_catalog: listing the catalog");
    }
    if (pc->ext)
        FL_TRY(add_virtual(&bd, pc->ext, err));
    return FL_OK;
}

fl_status fl_pgcat_snap_get(fl_planner_ctx *pc, fl_pgcat_snap **out, fl_error *err)
{
    fl_front_state *st = fl_front_state_of(pc);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    const fl_principal *as = fl_sql_authz_effective(pc->authz);
    fl_pgcat_snap *c = st->pgcat;
    if (c && (as ? c->as && !strcmp(c->as, as->name) : !c->as)) {
        *out = c;
        return FL_OK;
    }
    fl_pgcat_snap *s = fl_arena_calloc(pc->arena, 1, sizeof *s);
    if (!s || (as && !(s->as = fl_arena_strdup(pc->arena, as->name))))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    s->pc = pc;
    s->user = pc->user && pc->user[0] ? pc->user : "floe";
    s->database = pc->catalog && pc->catalog->name ? pc->catalog->name : "floe";
    s->schema = pc->default_namespace ? pc->default_namespace : "default";
    FL_TRY(build(pc, s, err));
    st->pgcat = s; /* replaces another principal's: theirs stays valid in the arena */
    *out = s;
    return FL_OK;
}

fl_status fl_pgcat_no_relation(fl_planner_ctx *pc, const fl_pgcat_snap *s, const char *text,
                               int32_t loc, fl_error *err)
{
    fl_table_ident id;
    fl_error e;
    bool parsed = fl_table_ident_parse(text, pc->arena, &id, &e) == FL_OK;
    if (parsed && !id.ns.nlevels)
        parsed = fl_namespace_parse(s->schema, pc->arena, &id.ns, &e) == FL_OK;
    if (parsed && fl_sql_authz_enabled(pc->authz) && !fl_sql_authz_visible(pc, &id.ns, NULL))
        return fl_front_err(pc, err, FL_EFORBIDDEN, loc, "42501", "permission denied for schema %s",
                            fl_namespace_str(&id.ns, pc->arena));
    return fl_front_err(pc, err, FL_ENOTFOUND, loc, "42P01", "relation \"%s\" does not exist",
                        text);
}

/* r->pk from the schema's identifier fields (attnums in their order); none
 * when one of them is not a top-level column. */
static fl_status key_of(fl_arena *a, fl_pgcat_rel *r, const fl_ice_schema *sch, fl_error *err)
{
    uint32_t n = sch->nidentifier;
    if (n > 32) /* PostgreSQL's INDEX_MAX_KEYS */
        return FL_OK;
    fl_pgcat_key *k = fl_arena_calloc(a, 1, sizeof *k);
    int16_t *nums = fl_arena_calloc(a, n + 1, sizeof *nums);
    if (!k || !nums)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t c = 0; c < sch->schema.nfields && !nums[i]; c++)
            if (sch->schema.fields[c].field_id == sch->identifier_field_ids[i])
                nums[i] = (int16_t)(c + 1);
        if (!nums[i])
            return FL_OK; /* a nested identifier field: PostgreSQL has no such key */
    }
    k->ncols = n;
    k->attnums = nums;
    r->pk = k;
    return FL_OK;
}

static fl_status load_cols(fl_planner_ctx *pc, fl_pgcat_rel *r, fl_error *err)
{
    fl_table_ident id;
    FL_TRY(fl_namespace_parse(r->nsp, pc->arena, &id.ns, err));
    id.name = r->name;
    if (r->kind == 'r') {
        fl_ice_table *t = NULL;
        FL_TRY(fl_front_load_table(pc, &id, &t, err));
        const fl_ice_schema *sch = fl_ice_metadata_schema(&t->meta, t->meta.current_schema_id);
        r->cols = sch ? &sch->schema : NULL;
        if (sch && sch->nidentifier)
            FL_TRY(key_of(pc->arena, r, sch, err));
        for (uint32_t i = 0; i < t->meta.nsnapshots; i++)
            if (t->meta.snapshots[i].snapshot_id == t->meta.current_snapshot_id) {
                const char *tr = fl_ice_map_get(&t->meta.snapshots[i].summary, "total-records");
                r->rows = tr ? strtod(tr, NULL) : -1;
            }
        if (t->meta.current_snapshot_id == FL_ICE_NO_SNAPSHOT)
            r->rows = 0;
        return FL_OK;
    }
    const char *loc = NULL;
    FL_TRY(pc->catalog->ops->load_view(pc->catalog, &id, pc->arena, &loc, err));
    fl_ice_view_metadata *vm = fl_arena_calloc(pc->arena, 1, sizeof *vm);
    if (!vm)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    FL_TRY(fl_ice_view_metadata_read(pc->io, loc, pc->arena, vm, err));
    const fl_ice_view_version *v = fl_ice_view_current_version(vm);
    if (!v)
        return FL_OK;
    for (uint32_t i = 0; i < vm->nschemas; i++)
        if (vm->schemas[i].schema_id == v->schema_id)
            r->cols = &vm->schemas[i].schema;
    for (uint32_t i = 0; i < v->nrepresentations; i++)
        if (v->representations[i].sql)
            r->view_sql = v->representations[i].sql;
    return FL_OK;
}

/* "<table>_pkey", as PostgreSQL's ChooseRelationName: truncated to 63
 * bytes (whole UTF-8 characters), and a digit appended while a relation of
 * that name exists in the schema. */
static const char *key_name(fl_arena *a, const fl_pgcat_snap *s, const fl_pgcat_rel *r)
{
    for (int pass = 0; pass < 100; pass++) {
        char suffix[16];
        snprintf(suffix, sizeof suffix, pass ? "_pkey%d" : "_pkey", pass);
        size_t sl = strlen(suffix), nl = strlen(r->name);
        if (nl + sl > 63) {
            nl = 63 - sl;
            while (nl && ((unsigned char)r->name[nl] & 0xc0) == 0x80)
                nl--;
        }
        const char *nm = fl_arena_sprintf(a, "%.*s%s", (int)nl, r->name, suffix);
        if (!nm || !find_rel(s, r->nsp, nm))
            return nm;
    }
    return NULL;
}

/* The index relation of every loaded primary key (after all tables, in
 * relation order, so OIDs are the same in every statement), and the
 * constraint OIDs. */
static fl_status add_keys(fl_arena *a, fl_pgcat_snap *s, fl_error *err)
{
    builder bd = {.a = a, .s = s};
    uint32_t n = s->nrels;
    for (uint32_t i = 0; i < n; i++) {
        fl_pgcat_key *k = s->rels[i].pk;
        if (!k)
            continue;
        const fl_pgcat_rel *t = &s->rels[i];
        k->name = key_name(a, s, t);
        fl_schema *cols = fl_arena_calloc(a, 1, sizeof *cols);
        fl_field *fs = fl_arena_calloc(a, k->ncols + 1, sizeof *fs);
        if (!k->name || !cols || !fs)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t c = 0; c < k->ncols; c++) {
            fs[c] = t->cols->fields[k->attnums[c] - 1];
            fs[c].nullable = true; /* index attributes are never attnotnull */
        }
        cols->fields = fs;
        cols->nfields = k->ncols;
        fl_pgcat_nsp ns = {.oid = t->nsp_oid, .name = t->nsp};
        FL_TRY(add_rel(&bd, &ns, k->name, 'i', unique_oid(s, fl_pgcat_hash_oid("i:", ns.name, k->name)),
                       false, err));
        fl_pgcat_rel *ix = &s->rels[s->nrels - 1];
        ix->cols = cols;
        ix->rows = 0;
        ix->table_rel = i;
        k->index_rel = s->nrels - 1;
        k->con_oid = unique_oid(s, fl_pgcat_hash_oid("c:", ns.name, k->name));
    }
    return FL_OK;
}

fl_status fl_pgcat_snap_columns(fl_planner_ctx *pc, fl_pgcat_snap *s, fl_error *err)
{
    if (s->cols_loaded)
        return FL_OK;
    for (uint32_t i = 0; i < s->nrels; i++) {
        fl_pgcat_rel *r = &s->rels[i];
        if (r->builtin) {
            const fl_pgcat_def *d = fl_pgcat_def_find(r->nsp, r->name);
            fl_schema *sc = fl_arena_calloc(pc->arena, 1, sizeof *sc);
            uint32_t *oids = NULL;
            if (!sc)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            if (d && fl_pgcat_def_schema(pc->arena, d, sc, &oids, err) == FL_OK)
                r->cols = sc;
            continue;
        }
        if (r->virt || !pc->catalog)
            continue;
        fl_error e2;
        memset(&e2, 0, sizeof e2);
        /* a table whose metadata cannot be read shows no columns rather than
         * failing every introspection query */
        if (load_cols(pc, r, &e2) != FL_OK)
            r->pk = NULL;
    }
    s->cols_loaded = true;
    return add_keys(pc->arena, s, err);
}

static const fl_pgcat_rel *find_rel(const fl_pgcat_snap *s, const char *nsp, const char *name)
{
    for (uint32_t i = 0; i < s->nrels; i++)
        if (strcmp(s->rels[i].name, name) == 0 && (!nsp || strcmp(s->rels[i].nsp, nsp) == 0))
            return &s->rels[i];
    return NULL;
}

const fl_pgcat_rel *fl_pgcat_snap_find(const fl_pgcat_snap *s, const char *nsp, const char *name)
{
    const fl_pgcat_rel *r = find_rel(s, nsp, name);
    if (r || s->cols_loaded || !s->pc || !strstr(name, "_pkey"))
        return r;
    /* a primary key's index: the snapshot is the statement's own mutable
     * state (the const is the callers' read-only view of it) */
    fl_pgcat_snap *m = (fl_pgcat_snap *)s;
    fl_error e2;
    memset(&e2, 0, sizeof e2);
    if (fl_pgcat_snap_columns(s->pc, m, &e2) != FL_OK)
        return NULL;
    return find_rel(s, nsp, name);
}

const fl_pgcat_rel *fl_pgcat_snap_rel_by_oid(const fl_pgcat_snap *s, uint32_t oid)
{
    for (uint32_t i = 0; i < s->nrels; i++)
        if (s->rels[i].oid == oid)
            return &s->rels[i];
    return NULL;
}

const fl_pgcat_rel *fl_pgcat_snap_rel_by_con(const fl_pgcat_snap *s, uint32_t con_oid)
{
    for (uint32_t i = 0; i < s->nrels; i++)
        if (s->rels[i].pk && s->rels[i].pk->con_oid == con_oid)
            return &s->rels[i];
    return NULL;
}

const fl_pgcat_nsp *fl_pgcat_snap_nsp_by_oid(const fl_pgcat_snap *s, uint32_t oid)
{
    for (uint32_t i = 0; i < s->nnsps; i++)
        if (s->nsps[i].oid == oid)
            return &s->nsps[i];
    return NULL;
}
