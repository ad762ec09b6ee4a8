/*
 * resolve.c - Avro schema resolution: read data written with one schema
 * (the writer's) as another (the reader's).
 *
 * Spec: Avro 1.11 "Schema Resolution", with Iceberg's rule for records
 * (Iceberg spec, "Avro"): when reader and writer fields both carry
 * "field-id", fields match by id only, so renamed fields (old Spark
 * manifests) resolve; otherwise by name, then by the reader field's aliases.
 * Record names are not compared (Iceberg writers name records freely, e.g.
 * "r102").
 *
 * fl_avro_resolver_new() compiles a plan tree once (memoized per
 * writer/reader node pair, so recursive schemas terminate); fl_avro_resolve()
 * walks a writer value and the plan, building the reader value. Missing
 * reader fields get their default (parsed once at plan time) or null when
 * the reader field is a union with a null branch.
 */
#include <string.h>

#include "avro/avro_internal.h"

typedef enum rkind {
    R_SAME,
    R_PROMOTE,
    R_RECORD,
    R_ARRAY,
    R_MAP,
    R_ENUM,
    R_WUNION,
    R_RUNION
} rkind;

typedef struct rfield {
    int32_t widx;       /* writer field index, -1 = use dflt */
    fl_avro_value dflt; /* when widx < 0 */
    const fl_avro_resolver *sub;
} rfield;

struct fl_avro_resolver {
    rkind kind;
    const fl_avro_schema *w, *r;        /* r: the reader node (a union for R_RUNION) */
    const fl_avro_resolver *sub;        /* ARRAY/MAP items, RUNION the chosen branch */
    int32_t branch;                     /* RUNION */
    rfield *fields;                     /* RECORD: one per reader field */
    int32_t *symmap;                    /* ENUM: writer symbol -> reader symbol or -1 */
    const fl_avro_resolver **wbranches; /* WUNION: per writer branch, NULL = unreadable */
};

typedef struct memo {
    const fl_avro_schema *w, *r;
    fl_avro_resolver *plan;
    struct memo *next;
} memo;

typedef struct rctx {
    fl_arena *a;
    fl_error *err;
    memo *memos;
    int depth;
} rctx;

static fl_status plan(rctx *c, const fl_avro_schema *w, const fl_avro_schema *r,
                      fl_avro_resolver **out);

static bool promotable(fl_avro_type w, fl_avro_type r)
{
    switch (w) {
    case FL_AVRO_INT: return r == FL_AVRO_LONG || r == FL_AVRO_FLOAT || r == FL_AVRO_DOUBLE;
    case FL_AVRO_LONG: return r == FL_AVRO_FLOAT || r == FL_AVRO_DOUBLE;
    case FL_AVRO_FLOAT: return r == FL_AVRO_DOUBLE;
    case FL_AVRO_STRING: return r == FL_AVRO_BYTES;
    case FL_AVRO_BYTES: return r == FL_AVRO_STRING;
    default: return false;
    }
}

static const char *tname(const fl_avro_schema *s)
{
    return fl_avro_schema_is_named(s) ? s->fullname : fl_avro_type_name(s->type);
}

static fl_avro_resolver *new_plan(rctx *c, rkind k, const fl_avro_schema *w,
                                  const fl_avro_schema *r)
{
    fl_avro_resolver *p = fl_arena_calloc(c->a, 1, sizeof *p);
    if (!p)
        return NULL;
    p->kind = k;
    p->w = w;
    p->r = r;
    memo *m = fl_arena_alloc(c->a, sizeof *m);
    if (!m)
        return NULL;
    m->w = w;
    m->r = r;
    m->plan = p;
    m->next = c->memos;
    c->memos = m;
    return p;
}

static int find_writer_field(const fl_avro_schema *w, const fl_avro_field *rf)
{
    bool writer_has_ids = false;
    for (uint32_t i = 0; i < w->nfields; i++) {
        if (w->fields[i].has_field_id) {
            writer_has_ids = true;
            if (rf->has_field_id && w->fields[i].field_id == rf->field_id)
                return (int)i;
        }
    }
    if (rf->has_field_id && writer_has_ids)
        return -1; /* Iceberg: ids decide */
    for (uint32_t i = 0; i < w->nfields; i++)
        if (!strcmp(w->fields[i].name, rf->name))
            return (int)i;
    for (uint32_t k = 0; k < rf->naliases; k++)
        for (uint32_t i = 0; i < w->nfields; i++)
            if (!strcmp(w->fields[i].name, rf->aliases[k]))
                return (int)i;
    return -1;
}

static fl_status plan_record(rctx *c, fl_avro_resolver *p)
{
    const fl_avro_schema *w = p->w, *r = p->r;
    p->fields = fl_arena_calloc(c->a, r->nfields ? r->nfields : 1, sizeof *p->fields);
    if (!p->fields)
        return fl_errorf(c->err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < r->nfields; i++) {
        const fl_avro_field *rf = &r->fields[i];
        rfield *f = &p->fields[i];
        f->widx = find_writer_field(w, rf);
        if (f->widx >= 0) {
            fl_avro_resolver *sub;
            if (plan(c, w->fields[f->widx].type, rf->type, &sub))
                return fl_error_prefix(c->err, "field '%s'", rf->name);
            f->sub = sub;
        } else if (rf->default_json) {
            if (avro_value_from_default(c->a, rf->type, rf->default_json, &f->dflt, c->err))
                return fl_error_prefix(c->err, "field '%s'", rf->name);
        } else if (fl_avro_union_null_branch(rf->type) >= 0) {
            fl_avro_value_null(&f->dflt);
            f->dflt.branch = fl_avro_union_null_branch(rf->type);
            f->dflt.schema = rf->type->branches[f->dflt.branch];
        } else {
            return fl_errorf(c->err, FL_ETYPE,
                             "reader field '%s' is not in the writer schema and has no default",
                             rf->name);
        }
    }
    return FL_OK;
}

static fl_status plan_enum(rctx *c, fl_avro_resolver *p)
{
    const fl_avro_schema *w = p->w, *r = p->r;
    p->symmap = fl_arena_alloc(c->a, (w->nsymbols ? w->nsymbols : 1) * sizeof *p->symmap);
    if (!p->symmap)
        return fl_errorf(c->err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < w->nsymbols; i++) {
        p->symmap[i] = r->enum_default;
        for (uint32_t k = 0; k < r->nsymbols; k++)
            if (!strcmp(w->symbols[i], r->symbols[k]))
                p->symmap[i] = (int32_t)k;
    }
    return FL_OK;
}

/* Reader branch for a non-union writer: exact match first, then promotion. */
static int pick_branch(const fl_avro_schema *w, const fl_avro_schema *r)
{
    for (uint32_t i = 0; i < r->nbranches; i++) {
        const fl_avro_schema *b = r->branches[i];
        if (b->type == w->type && (!fl_avro_schema_is_named(b) || !strcmp(b->name, w->name)))
            return (int)i;
    }
    for (uint32_t i = 0; i < r->nbranches; i++) {
        const fl_avro_schema *b = r->branches[i];
        if (b->type == w->type && w->type == FL_AVRO_RECORD)
            return (int)i; /* records: names are not compared (Iceberg) */
    }
    for (uint32_t i = 0; i < r->nbranches; i++)
        if (promotable(w->type, r->branches[i]->type))
            return (int)i;
    return -1;
}

static fl_status plan(rctx *c, const fl_avro_schema *w, const fl_avro_schema *r,
                      fl_avro_resolver **out)
{
    for (memo *m = c->memos; m; m = m->next)
        if (m->w == w && m->r == r) {
            *out = m->plan;
            return FL_OK;
        }
    if (c->depth > 200)
        return fl_errorf(c->err, FL_ELIMIT, "schemas nested too deeply to resolve");
    fl_avro_resolver *p = NULL;
    fl_status rc = FL_OK;
    c->depth++;
    if (w->type == FL_AVRO_UNION) {
        if (!(p = new_plan(c, R_WUNION, w, r)) ||
            !(p->wbranches =
                  fl_arena_calloc(c->a, w->nbranches ? w->nbranches : 1, sizeof *p->wbranches)))
            rc = fl_errorf(c->err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; !rc && i < w->nbranches; i++) {
            fl_error tmp;
            fl_avro_resolver *sub;
            fl_error *outer = c->err;
            c->err = &tmp;
            fl_status brc = plan(c, w->branches[i], r, &sub);
            c->err = outer;
            if (brc == FL_ENOMEM)
                rc = fl_errorf(c->err, FL_ENOMEM, "out of memory");
            else if (brc == FL_OK)
                p->wbranches[i] = sub;
        }
    } else if (r->type == FL_AVRO_UNION) {
        int b = pick_branch(w, r);
        if (b < 0)
            rc = fl_errorf(c->err, FL_ETYPE, "writer type %s matches no branch of the reader union",
                           tname(w));
        else if (!(p = new_plan(c, R_RUNION, w, r)))
            rc = fl_errorf(c->err, FL_ENOMEM, "out of memory");
        else {
            fl_avro_resolver *sub;
            p->branch = b;
            rc = plan(c, w, r->branches[b], &sub);
            p->sub = sub;
        }
    } else if (w->type != r->type) {
        if (!promotable(w->type, r->type))
            rc = fl_errorf(c->err, FL_ETYPE, "writer type %s cannot be read as %s", tname(w),
                           tname(r));
        else if (!(p = new_plan(c, R_PROMOTE, w, r)))
            rc = fl_errorf(c->err, FL_ENOMEM, "out of memory");
    } else {
        rkind k = w->type == FL_AVRO_RECORD  ? R_RECORD
                  : w->type == FL_AVRO_ARRAY ? R_ARRAY
                  : w->type == FL_AVRO_MAP   ? R_MAP
                  : w->type == FL_AVRO_ENUM  ? R_ENUM
                                             : R_SAME;
        if (w->type == FL_AVRO_FIXED && w->size != r->size)
            rc = fl_errorf(c->err, FL_ETYPE, "fixed sizes differ: writer %d, reader %d", w->size,
                           r->size);
        else if (!(p = new_plan(c, k, w, r)))
            rc = fl_errorf(c->err, FL_ENOMEM, "out of memory");
        else if (k == R_RECORD)
            rc = plan_record(c, p);
        else if (k == R_ENUM)
            rc = plan_enum(c, p);
        else if (k == R_ARRAY || k == R_MAP) {
            fl_avro_resolver *sub;
            rc = k == R_ARRAY ? plan(c, w->items, r->items, &sub)
                              : plan(c, w->values, r->values, &sub);
            if (rc)
                fl_error_prefix(c->err, k == R_ARRAY ? "array items" : "map values");
            p->sub = sub;
        }
    }
    c->depth--;
    if (rc == FL_OK)
        *out = p;
    return rc;
}

fl_status fl_avro_resolver_new(fl_arena *a, const fl_avro_schema *w, const fl_avro_schema *r,
                               fl_avro_resolver **out, fl_error *err)
{
    rctx c = {.a = a, .err = err};
    return plan(&c, w, r, out);
}

static fl_status conv(fl_arena *a, const fl_avro_resolver *p, const fl_avro_value *in,
                      fl_avro_value *out, int depth, fl_error *err)
{
    if (depth > 1000)
        return fl_errorf(err, FL_ELIMIT, "value nested too deeply");
    switch (p->kind) {
    case R_WUNION: {
        if (in->branch < 0 || (uint32_t)in->branch >= p->w->nbranches || !p->wbranches[in->branch])
            return fl_errorf(err, FL_ETYPE, "writer union branch %d (%s) cannot be read as %s",
                             in->branch,
                             in->branch >= 0 && (uint32_t)in->branch < p->w->nbranches
                                 ? tname(p->w->branches[in->branch])
                                 : "?",
                             tname(p->r));
        fl_avro_value tmp = *in;
        tmp.branch = -1;
        return conv(a, p->wbranches[in->branch], &tmp, out, depth + 1, err);
    }
    case R_RUNION:
        FL_TRY(conv(a, p->sub, in, out, depth + 1, err));
        out->branch = p->branch;
        return FL_OK;
    case R_SAME:
        *out = *in;
        out->schema = p->r;
        out->branch = -1;
        return FL_OK;
    case R_PROMOTE: {
        fl_avro_value v = *in;
        v.schema = p->r;
        v.type = p->r->type;
        v.branch = -1;
        double d = in->type == FL_AVRO_INT    ? (double)in->u.i
                   : in->type == FL_AVRO_LONG ? (double)in->u.l
                                              : (double)in->u.f;
        if (p->r->type == FL_AVRO_LONG)
            v.u.l = in->u.i;
        else if (p->r->type == FL_AVRO_FLOAT)
            v.u.f = (float)d;
        else if (p->r->type == FL_AVRO_DOUBLE)
            v.u.d = d;
        *out = v; /* string <-> bytes keep u.bytes */
        return FL_OK;
    }
    case R_ENUM: {
        int32_t k = in->u.i >= 0 && (uint32_t)in->u.i < p->w->nsymbols ? p->symmap[in->u.i] : -1;
        if (k < 0)
            return fl_errorf(
                err, FL_ETYPE, "enum symbol '%s' is not in the reader enum '%s'",
                in->u.i >= 0 && (uint32_t)in->u.i < p->w->nsymbols ? p->w->symbols[in->u.i] : "?",
                p->r->fullname);
        *out = *in;
        out->schema = p->r;
        out->branch = -1;
        out->u.i = k;
        return FL_OK;
    }
    case R_ARRAY:
    case R_MAP: {
        size_t n = p->kind == R_ARRAY ? in->u.list.n : in->u.map.n;
        const fl_avro_value *src = p->kind == R_ARRAY ? in->u.list.items : in->u.map.values;
        fl_avro_value *dst = fl_arena_alloc(a, (n ? n : 1) * sizeof *dst);
        if (!dst)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (size_t i = 0; i < n; i++)
            FL_TRY(conv(a, p->sub, &src[i], &dst[i], depth + 1, err));
        *out = *in;
        out->schema = p->r;
        out->branch = -1;
        if (p->kind == R_ARRAY)
            out->u.list.items = dst;
        else
            out->u.map.values = dst;
        return FL_OK;
    }
    case R_RECORD: {
        const fl_avro_schema *r = p->r;
        fl_avro_value *dst = fl_arena_alloc(a, (r->nfields ? r->nfields : 1) * sizeof *dst);
        if (!dst)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < r->nfields; i++) {
            const rfield *f = &p->fields[i];
            if (f->widx < 0) {
                dst[i] = f->dflt;
                continue;
            }
            if ((size_t)f->widx >= in->u.list.n)
                return fl_errorf(err, FL_EINVAL, "record value has too few fields");
            if (conv(a, f->sub, &in->u.list.items[f->widx], &dst[i], depth + 1, err))
                return fl_error_prefix(err, "field '%s'", r->fields[i].name);
        }
        out->schema = r;
        out->type = FL_AVRO_RECORD;
        out->branch = -1;
        out->u.list.items = dst;
        out->u.list.n = r->nfields;
        return FL_OK;
    }
    }
    return fl_errorf(err, FL_EINVAL, "bad resolver");
}

fl_status fl_avro_resolve(fl_arena *a, const fl_avro_resolver *rs, const fl_avro_value *in,
                          fl_avro_value *out, fl_error *err)
{
    return conv(a, rs, in, out, 0, err);
}
