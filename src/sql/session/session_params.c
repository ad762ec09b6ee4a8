/*
 * session_params.c - unconstrained numeric parameters keep the scale of the
 * value bound to them, as PostgreSQL's numeric keeps its dscale.
 *
 * floe's engine has no unconstrained numeric: "numeric" without a typmod is
 * numeric(38,9), so `SELECT $1::numeric` with -1.12 would answer
 * -1.120000000 where PostgreSQL answers -1.12. A prepared statement is
 * planned again at every execution (session.c), so the scale can follow the
 * bound value:
 *   1. fl_session_param_scale: a parameter whose type is the default
 *      numeric(38,9) and whose value is a decimal (binary numeric carries
 *      its dscale) or text ("1.120" -> 3, "1e-3" -> 3, "15e1" -> 0) gets the
 *      type numeric(38, s) for this execution (s capped so the integer
 *      digits still fit in 38);
 *   2. fl_session_param_casts: each `$n::numeric` / `$n::decimal` without a
 *      typmod in the parse tree gets the typmod (38, s) of its parameter for
 *      the planning, and fl_session_param_casts_undo puts the tree back
 *      (the typmod nodes live in the result's arena, never in the tree when
 *      protobuf-c frees it).
 * Parameters of other types and casts with typmods are left alone.
 */
#include <ctype.h>
#include <string.h>

#include "sql/session/session_internal.h"
#include "sql/stmt/stmt_int.h"

static bool is_default_numeric(const fl_type *t)
{
    return t->id == FL_TYPE_DECIMAL && t->precision == 38 && t->scale == 9;
}

/* PostgreSQL's dscale of a numeric literal; -1 when it is not one. */
static int32_t text_scale(const uint8_t *p, size_t n, int32_t *intdigits)
{
    size_t i = 0;
    while (i < n && isspace(p[i]))
        i++;
    if (i < n && (p[i] == '+' || p[i] == '-'))
        i++;
    int32_t before = 0, after = 0;
    bool lead = true; /* leading zeros do not count as integer digits */
    while (i < n && isdigit(p[i])) {
        if (p[i] != '0' || !lead) {
            before++;
            lead = false;
        }
        i++;
    }
    if (i < n && p[i] == '.') {
        i++;
        while (i < n && isdigit(p[i]))
            i++, after++;
    }
    int64_t exp = 0;
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        bool neg = false;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            neg = p[i++] == '-';
        if (i == n || !isdigit(p[i]))
            return -1;
        while (i < n && isdigit(p[i]) && exp < 1000)
            exp = exp * 10 + (p[i++] - '0');
        if (neg)
            exp = -exp;
    }
    while (i < n && isspace(p[i]))
        i++;
    if (i != n)
        return -1;
    int64_t s = (int64_t)after - exp;
    int64_t id = (int64_t)before + exp;
    *intdigits = id < 0 ? 0 : id > 38 ? 38 : (int32_t)id;
    return s < 0 ? 0 : s > 38 ? 38 : (int32_t)s;
}

static int32_t dec_int_digits(fl_i128 v, int32_t scale)
{
    if (v < 0)
        v = -v;
    for (int32_t i = 0; i < scale && v; i++)
        v /= 10;
    int32_t d = 0;
    while (v) {
        v /= 10;
        d++;
    }
    return d;
}

bool fl_session_param_scale(const fl_type *declared, const fl_value *v, fl_type *out)
{
    if (!is_default_numeric(declared) || v->is_null)
        return false;
    int32_t s, intd;
    if (v->type.id == FL_TYPE_DECIMAL) {
        s = v->type.scale;
        intd = dec_int_digits(v->v.dec, v->type.scale);
    } else if (v->type.id == FL_TYPE_STRING) {
        s = text_scale(v->v.bytes.ptr, v->v.bytes.len, &intd);
        if (s < 0)
            return false;
    } else {
        return false;
    }
    if (s + intd > 38)
        s = 38 - intd;
    if (s < 0 || s == declared->scale)
        return false;
    *out = *declared;
    out->scale = s;
    return true;
}

/* ---- parse-tree casts ---- */

static bool numeric_name(const PgQuery__TypeName *tn)
{
    if (!tn || tn->n_typmods || tn->n_array_bounds || !tn->n_names)
        return false;
    const PgQuery__Node *last = tn->names[tn->n_names - 1];
    if (last->node_case != PG_QUERY__NODE__NODE_STRING)
        return false;
    return !strcmp(last->string->sval, "numeric") || !strcmp(last->string->sval, "decimal");
}

static fl_status visit(const ProtobufCMessage *m, fl_arena *a, const fl_type *types, uint32_t n,
                       fl_session_cast_undo *u, uint32_t depth, fl_error *err);

static fl_status visit_field(const ProtobufCFieldDescriptor *f, const void *base, fl_arena *a,
                             const fl_type *types, uint32_t n, fl_session_cast_undo *u,
                             uint32_t depth, fl_error *err)
{
    if (f->type != PROTOBUF_C_TYPE_MESSAGE)
        return FL_OK;
    /* a oneof member (every Node): only the member its case names is set */
    if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
        *(const uint32_t *)((const char *)base + f->quantifier_offset) != f->id)
        return FL_OK;
    const char *p = (const char *)base + f->offset;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
        size_t cnt = *(const size_t *)((const char *)base + f->quantifier_offset);
        ProtobufCMessage *const *v = *(ProtobufCMessage *const *const *)p;
        for (size_t i = 0; i < cnt; i++)
            if (v[i])
                FL_TRY(visit(v[i], a, types, n, u, depth + 1, err));
        return FL_OK;
    }
    const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)p;
    return sub ? visit(sub, a, types, n, u, depth + 1, err) : FL_OK;
}

static fl_status rewrite_cast(PgQuery__TypeCast *tc, fl_arena *a, const fl_type *types,
                              uint32_t n, fl_session_cast_undo *u, fl_error *err)
{
    const PgQuery__Node *arg = tc->arg;
    if (!arg || arg->node_case != PG_QUERY__NODE__NODE_PARAM_REF || !numeric_name(tc->type_name))
        return FL_OK;
    int32_t k = arg->param_ref->number;
    if (k < 1 || (uint32_t)k > n || types[k - 1].id != FL_TYPE_DECIMAL ||
        is_default_numeric(&types[k - 1]))
        return FL_OK;
    if (u->n == FL_SESSION_MAX_CAST_UNDO)
        return FL_OK; /* the rest keep the default scale */
    PgQuery__Node **mods = fl_arena_alloc(a, 2 * sizeof *mods);
    if (!mods || !(mods[0] = stmt_mk_int(a, types[k - 1].precision)) ||
        !(mods[1] = stmt_mk_int(a, types[k - 1].scale)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    u->tn[u->n++] = tc->type_name;
    tc->type_name->typmods = mods;
    tc->type_name->n_typmods = 2;
    return FL_OK;
}

static fl_status visit(const ProtobufCMessage *m, fl_arena *a, const fl_type *types, uint32_t n,
                       fl_session_cast_undo *u, uint32_t depth, fl_error *err)
{
    if (depth > 10000)
        return FL_OK; /* the parser bounds nesting far below this */
    const ProtobufCMessageDescriptor *d = m->descriptor;
    if (d == &pg_query__type_cast__descriptor)
        FL_TRY(rewrite_cast((PgQuery__TypeCast *)m, a, types, n, u, err));
    for (unsigned i = 0; i < d->n_fields; i++)
        FL_TRY(visit_field(&d->fields[i], m, a, types, n, u, depth, err));
    return FL_OK;
}

fl_status fl_session_param_casts(const fl_sql_parsed *p, fl_arena *a, const fl_type *types,
                                 uint32_t n, fl_session_cast_undo *u, fl_error *err)
{
    u->n = 0;
    if (!p || !p->stmt || !n || !types)
        return FL_OK;
    bool any = false;
    for (uint32_t i = 0; i < n && !any; i++)
        any = types[i].id == FL_TYPE_DECIMAL && !is_default_numeric(&types[i]);
    if (!any)
        return FL_OK;
    return visit(&p->stmt->base, a, types, n, u, 0, err);
}

void fl_session_param_casts_undo(fl_session_cast_undo *u)
{
    for (uint32_t i = 0; i < u->n; i++) {
        u->tn[i]->typmods = NULL;
        u->tn[i]->n_typmods = 0;
    }
    u->n = 0;
}
