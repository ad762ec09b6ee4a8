/*
 * partition_parse.c - partition and sort fields written as text, in Trino's
 * syntax (the `partitioning` / `sorted_by` table properties) and Spark's
 * (PARTITIONED BY days(ts), bucket(16, id)):
 *
 *   partition: col | year(col) | month(col) | day(col) | hour(col)
 *              | years(col) | months(col) | days(col) | date(col) | hours(col)
 *              | bucket(col, N) | bucket(N, col) | truncate(col, W) | truncate(W, col)
 *              | void(col) | identity(col)            [AS name]
 *   sort:      <partition term without AS> [ASC | DESC] [NULLS FIRST | NULLS LAST]
 *
 * Names may be double-quoted ("my col") and dotted for nested fields. The
 * source column is resolved against the schema and the transform is checked
 * to apply to its type (fl_ice_transform_result_type). Partition field names
 * follow Java's PartitionSpec.Builder: identity keeps the column name, others
 * append _bucket, _trunc, _year, _month, _day, _hour, _null (void); the
 * field id is left 0 for the caller to assign. Sort direction defaults to
 * ASC; null order defaults to NULLS FIRST for ASC and NULLS LAST for DESC,
 * as Java's SortOrder.Builder and Trino do.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "iceberg/write_internal.h"

typedef struct lexer {
    const char *p;
    const char *text;
} lexer;

static void skip_ws(lexer *l)
{
    while (isspace((unsigned char)*l->p))
        l->p++;
}

/* A bare word [A-Za-z0-9_.$] or a double-quoted identifier ("" escapes). */
static bool read_word(lexer *l, fl_arena *a, const char **out, bool *quoted)
{
    skip_ws(l);
    *quoted = false;
    if (*l->p == '"') {
        char buf[512];
        size_t n = 0;
        l->p++;
        for (;;) {
            if (!*l->p)
                return false;
            if (*l->p == '"') {
                if (l->p[1] != '"')
                    break;
                l->p++;
            }
            if (n + 1 >= sizeof buf)
                return false;
            buf[n++] = *l->p++;
        }
        l->p++;
        /* a quoted name may continue with .more */
        buf[n] = '\0';
        *quoted = true;
        if (*l->p == '.') {
            const char *rest;
            bool q2;
            l->p++;
            if (!read_word(l, a, &rest, &q2))
                return false;
            *out = fl_arena_sprintf(a, "%s.%s", buf, rest);
        } else {
            *out = fl_arena_strdup(a, buf);
        }
        return *out != NULL;
    }
    const char *s = l->p;
    while (isalnum((unsigned char)*l->p) || *l->p == '_' || *l->p == '.' || *l->p == '$')
        l->p++;
    if (l->p == s)
        return false;
    *out = fl_arena_strndup(a, s, (size_t)(l->p - s));
    return *out != NULL;
}

static bool accept(lexer *l, char c)
{
    skip_ws(l);
    if (*l->p != c)
        return false;
    l->p++;
    return true;
}

static bool is_int(const char *s, int32_t *v)
{
    if (!*s)
        return false;
    long long x = 0;
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char)*p))
            return false;
        x = x * 10 + (*p - '0');
        if (x > 2147483647LL)
            return false;
    }
    *v = (int32_t)x;
    return true;
}

static bool kw(const char *w, const char *k)
{
    return w && !strcasecmp(w, k);
}

/* Transform name (Trino/Spark spelling) -> kind; false when unknown. */
static bool transform_kind(const char *name, fl_ice_transform_kind *k)
{
    static const struct {
        const char *name;
        fl_ice_transform_kind kind;
    } names[] = {{"year", FL_ICE_TRANSFORM_YEAR},        {"years", FL_ICE_TRANSFORM_YEAR},
                 {"month", FL_ICE_TRANSFORM_MONTH},      {"months", FL_ICE_TRANSFORM_MONTH},
                 {"day", FL_ICE_TRANSFORM_DAY},          {"days", FL_ICE_TRANSFORM_DAY},
                 {"date", FL_ICE_TRANSFORM_DAY},         {"hour", FL_ICE_TRANSFORM_HOUR},
                 {"hours", FL_ICE_TRANSFORM_HOUR},       {"date_hour", FL_ICE_TRANSFORM_HOUR},
                 {"bucket", FL_ICE_TRANSFORM_BUCKET},    {"truncate", FL_ICE_TRANSFORM_TRUNCATE},
                 {"trunc", FL_ICE_TRANSFORM_TRUNCATE},   {"void", FL_ICE_TRANSFORM_VOID},
                 {"identity", FL_ICE_TRANSFORM_IDENTITY}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcasecmp(name, names[i].name)) {
            *k = names[i].kind;
            return true;
        }
    return false;
}

/* Parses one term: column or transform(args). Leaves l after it. */
static fl_status parse_term(lexer *l, const fl_ice_schema *s, fl_arena *a, fl_ice_transform *t,
                            const fl_field **src, const char **src_name, fl_error *err)
{
    const char *w;
    bool quoted;
    if (!read_word(l, a, &w, &quoted))
        return fl_errorf(err, FL_ESYNTAX, "'%s': expected a column or transform", l->text);
    const char *col = w;
    memset(t, 0, sizeof *t);
    t->kind = FL_ICE_TRANSFORM_IDENTITY;
    if (!quoted && accept(l, '(')) {
        if (!transform_kind(w, &t->kind))
            return fl_errorf(err, FL_EINVAL, "'%s': unknown transform '%s'", l->text, w);
        const char *args[2];
        bool q[2];
        int nargs = 0;
        do {
            if (nargs == 2 || !read_word(l, a, &args[nargs], &q[nargs]))
                return fl_errorf(err, FL_ESYNTAX, "'%s': bad arguments", l->text);
            nargs++;
        } while (accept(l, ','));
        if (!accept(l, ')'))
            return fl_errorf(err, FL_ESYNTAX, "'%s': expected ')'", l->text);
        bool needs_param =
            t->kind == FL_ICE_TRANSFORM_BUCKET || t->kind == FL_ICE_TRANSFORM_TRUNCATE;
        if (needs_param != (nargs == 2))
            return fl_errorf(err, FL_ESYNTAX, "'%s': %s takes %s", l->text, w,
                             needs_param ? "a column and a number" : "one column");
        col = args[0];
        if (needs_param) {
            int32_t n;
            if (!q[1] && is_int(args[1], &n))
                col = args[0];
            else if (!q[0] && is_int(args[0], &n))
                col = args[1];
            else
                return fl_errorf(err, FL_ESYNTAX, "'%s': %s needs a positive number", l->text, w);
            if (n <= 0)
                return fl_errorf(err, FL_EINVAL, "'%s': %s needs a positive number", l->text, w);
            t->param = n;
        }
    }
    *src = ice_find_path_c(&s->schema, col);
    if (!*src)
        return fl_errorf(err, FL_ENOTFOUND, "'%s': no column '%s'", l->text, col);
    if ((*src)->type.id == 0 || fl_type_is_nested(&(*src)->type))
        return fl_errorf(err, FL_ETYPE, "'%s': column '%s' is not a primitive", l->text, col);
    fl_type rt;
    if (fl_ice_transform_result_type(t, &(*src)->type, &rt, err) != FL_OK)
        return fl_error_prefix(err, "'%s'", l->text);
    *src_name = ice_path_of(&s->schema, (*src)->field_id, a);
    if (!*src_name)
        *src_name = col;
    return FL_OK;
}

const char *ice_partition_field_name(const fl_ice_transform *t, const char *src, fl_arena *a)
{
    const char *suffix = "";
    switch (t->kind) {
    case FL_ICE_TRANSFORM_BUCKET: suffix = "_bucket"; break;
    case FL_ICE_TRANSFORM_TRUNCATE: suffix = "_trunc"; break;
    case FL_ICE_TRANSFORM_YEAR: suffix = "_year"; break;
    case FL_ICE_TRANSFORM_MONTH: suffix = "_month"; break;
    case FL_ICE_TRANSFORM_DAY: suffix = "_day"; break;
    case FL_ICE_TRANSFORM_HOUR: suffix = "_hour"; break;
    case FL_ICE_TRANSFORM_VOID: suffix = "_null"; break;
    default: break;
    }
    return fl_arena_sprintf(a, "%s%s", src, suffix);
}

static const char *transform_str(const fl_ice_transform *t, fl_arena *a)
{
    char buf[64];
    fl_ice_transform_format(t, buf, sizeof buf);
    return fl_arena_strdup(a, buf);
}

fl_status fl_ice_parse_partition_field(const char *text, const fl_ice_schema *s, fl_arena *a,
                                       fl_ice_partition_field *out, fl_error *err)
{
    lexer l = {text, text};
    fl_ice_transform t;
    const fl_field *src;
    const char *src_name;
    FL_TRY(parse_term(&l, s, a, &t, &src, &src_name, err));
    memset(out, 0, sizeof *out);
    const char *w;
    bool quoted;
    lexer save = l;
    if (read_word(&l, a, &w, &quoted) && !quoted && kw(w, "as")) {
        if (!read_word(&l, a, &out->name, &quoted))
            return fl_errorf(err, FL_ESYNTAX, "'%s': expected a name after AS", text);
    } else {
        l = save;
        out->name = ice_partition_field_name(&t, src_name, a);
    }
    skip_ws(&l);
    if (*l.p)
        return fl_errorf(err, FL_ESYNTAX, "'%s': unexpected '%s'", text, l.p);
    out->transform = transform_str(&t, a);
    out->source_ids = fl_arena_alloc(a, sizeof(int32_t));
    if (!out->name || !out->transform || !out->source_ids)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    out->source_id = src->field_id;
    out->source_ids[0] = src->field_id;
    out->nsource_ids = 1;
    out->field_id = 0;
    return FL_OK;
}

fl_status fl_ice_parse_sort_field(const char *text, const fl_ice_schema *s, fl_arena *a,
                                  fl_ice_sort_field *out, fl_error *err)
{
    lexer l = {text, text};
    fl_ice_transform t;
    const fl_field *src;
    const char *src_name;
    FL_TRY(parse_term(&l, s, a, &t, &src, &src_name, err));
    memset(out, 0, sizeof *out);
    const char *w = NULL;
    bool quoted, have_nulls = false;
    while (read_word(&l, a, &w, &quoted)) {
        if (kw(w, "asc"))
            out->descending = false;
        else if (kw(w, "desc"))
            out->descending = true;
        else if (kw(w, "nulls")) {
            if (!read_word(&l, a, &w, &quoted) || (!kw(w, "first") && !kw(w, "last")))
                return fl_errorf(err, FL_ESYNTAX, "'%s': expected NULLS FIRST or NULLS LAST", text);
            out->nulls_first = kw(w, "first");
            have_nulls = true;
        } else
            return fl_errorf(err, FL_ESYNTAX, "'%s': unexpected '%s'", text, w);
    }
    skip_ws(&l);
    if (*l.p)
        return fl_errorf(err, FL_ESYNTAX, "'%s': unexpected '%s'", text, l.p);
    if (!have_nulls)
        out->nulls_first = !out->descending;
    out->transform = transform_str(&t, a);
    out->source_ids = fl_arena_alloc(a, sizeof(int32_t));
    if (!out->transform || !out->source_ids)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    out->source_id = src->field_id;
    out->source_ids[0] = src->field_id;
    out->nsource_ids = 1;
    return FL_OK;
}
