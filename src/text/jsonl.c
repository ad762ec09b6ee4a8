/*
 * jsonl.c - JSON lines row source (rules in include/floe/text.h), on
 * jansson.
 *
 * Each line is parsed with json_loadb into a jansson tree. Inference folds
 * the first FL_INFER_ROWS objects into an "inferred type" tree (kinds seen
 * per position, merged object fields, merged array elements), then maps it
 * to floe types; the sampled documents are kept and replayed. Decoding walks
 * a document and the target fl_type together, appending to the vectors.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/format.h"
#include "floe/text.h"
#include "text/input.h"

enum { K_NULL = 1, K_BOOL = 2, K_INT = 4, K_REAL = 8, K_STR = 16, K_OBJ = 32, K_ARR = 64 };
enum { S_DATE = 1, S_TS = 2, S_TSTZ = 4 };

typedef struct itype itype;
struct itype {
    unsigned kinds;
    unsigned strmask; /* intersection over the strings seen */
    char **names;     /* object fields in order of first appearance */
    itype **fields;
    uint32_t nfields, cap;
    itype *elem; /* array elements */
};

typedef struct jsonl_source {
    fl_source base;
    text_input in;
    char *path;
    fl_buf line; /* the current line; its ceiling bounds a line */
    uint64_t lineno;
    fl_arena arena;
    fl_schema schema;
    bool inferred; /* schema inferred: unknown keys are errors */
    json_t **sample;
    uint64_t *sample_line;
    uint32_t nsample, sample_pos;
} jsonl_source;

static void itype_free(itype *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->nfields; i++) {
        free(t->names[i]);
        itype_free(t->fields[i]);
    }
    free(t->names);
    free(t->fields);
    itype_free(t->elem);
    free(t);
}

static unsigned string_mask(const char *s, size_t n)
{
    unsigned m = 0;
    int32_t d;
    int64_t ts;
    bool tz;
    if (fl_parse_date(s, n, &d))
        m |= S_DATE;
    if (fl_parse_timestamp(s, n, 6, &ts, &tz))
        m |= tz ? S_TSTZ : S_TS;
    return m;
}

static fl_status itype_add(itype *t, json_t *j, int depth, fl_error *err)
{
    if (depth > 64)
        return fl_errorf(err, FL_ELIMIT, "nesting deeper than 64 levels");
    switch (json_typeof(j)) {
    case JSON_NULL: t->kinds |= K_NULL; return FL_OK;
    case JSON_TRUE:
    case JSON_FALSE: t->kinds |= K_BOOL; return FL_OK;
    case JSON_INTEGER: t->kinds |= K_INT; return FL_OK;
    case JSON_REAL: t->kinds |= K_REAL; return FL_OK;
    case JSON_STRING: {
        unsigned m = string_mask(json_string_value(j), json_string_length(j));
        t->strmask = (t->kinds & K_STR) ? (t->strmask & m) : m;
        t->kinds |= K_STR;
        return FL_OK;
    }
    case JSON_ARRAY: {
        t->kinds |= K_ARR;
        if (!t->elem && !(t->elem = calloc(1, sizeof(itype))))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        size_t i;
        json_t *e;
        json_array_foreach(j, i, e) FL_TRY(itype_add(t->elem, e, depth + 1, err));
        return FL_OK;
    }
    case JSON_OBJECT: {
        t->kinds |= K_OBJ;
        const char *key;
        json_t *v;
        json_object_foreach(j, key, v)
        {
            uint32_t k = 0;
            while (k < t->nfields && strcmp(t->names[k], key))
                k++;
            if (k == t->nfields) {
                if (t->nfields == t->cap) {
                    uint32_t nc = t->cap ? t->cap * 2 : 8;
                    char **nn = realloc(t->names, nc * sizeof *nn);
                    if (!nn)
                        return fl_errorf(err, FL_ENOMEM, "out of memory");
                    t->names = nn;
                    itype **nf = realloc(t->fields, nc * sizeof *nf);
                    if (!nf)
                        return fl_errorf(err, FL_ENOMEM, "out of memory");
                    t->fields = nf;
                    t->cap = nc;
                }
                t->names[k] = strdup(key);
                t->fields[k] = calloc(1, sizeof(itype));
                t->nfields++;
                if (!t->names[k] || !t->fields[k])
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
            }
            FL_TRY(itype_add(t->fields[k], v, depth + 1, err));
        }
        return FL_OK;
    }
    }
    return FL_OK;
}

static fl_status to_fl_type(const itype *t, fl_arena *a, int32_t *next_id, fl_type *out,
                            fl_error *err)
{
    memset(out, 0, sizeof *out);
    unsigned k = t ? t->kinds & ~(unsigned)K_NULL : 0;
    if (k == K_BOOL) {
        out->id = FL_TYPE_BOOLEAN;
    } else if (k == K_INT) {
        out->id = FL_TYPE_INT64;
    } else if (k == K_REAL || k == (K_INT | K_REAL)) {
        out->id = FL_TYPE_FLOAT64;
    } else if (k == K_STR) {
        out->id = (t->strmask & S_DATE)   ? FL_TYPE_DATE
                  : (t->strmask & S_TS)   ? FL_TYPE_TIMESTAMP
                  : (t->strmask & S_TSTZ) ? FL_TYPE_TIMESTAMPTZ
                                          : FL_TYPE_STRING;
    } else if (k == K_ARR) {
        out->id = FL_TYPE_LIST;
        out->nchildren = 1;
        out->children = fl_arena_calloc(a, 1, sizeof(fl_field));
        if (!out->children)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        out->children[0].name = "element";
        out->children[0].nullable = true;
        out->children[0].field_id = (*next_id)++;
        return to_fl_type(t->elem, a, next_id, &out->children[0].type, err);
    } else if (k == K_OBJ) {
        out->id = FL_TYPE_STRUCT;
        out->nchildren = t->nfields;
        out->children = fl_arena_calloc(a, t->nfields ? t->nfields : 1, sizeof(fl_field));
        if (!out->children)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < t->nfields; i++) {
            fl_field *f = &out->children[i];
            f->name = fl_arena_strdup(a, t->names[i]);
            f->nullable = true;
            f->field_id = (*next_id)++;
            if (!f->name)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        for (uint32_t i = 0; i < t->nfields; i++)
            FL_TRY(to_fl_type(t->fields[i], a, next_id, &out->children[i].type, err));
    } else {
        out->id = FL_TYPE_STRING; /* nothing seen, or mixed kinds */
    }
    return FL_OK;
}

/* ---- decoding ---- */

static fl_status append_null_deep(fl_vector *v, fl_error *err)
{
    if (v->type->id == FL_TYPE_STRUCT)
        for (uint32_t i = 0; i < v->nchildren; i++)
            FL_TRY(append_null_deep(&v->children[i], err));
    return fl_vector_append_null(v, err);
}

static fl_status decode(fl_vector *v, json_t *j, int depth, bool strict, fl_error *err);

/* With an inferred schema every key must be known: a key first seen after the
 * sample would otherwise be dropped silently. */
static fl_status check_keys(json_t *obj, const fl_field *fields, uint32_t n, fl_error *err)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        uint32_t i = 0;
        while (i < n && strcmp(fields[i].name, key))
            i++;
        if (i == n)
            return fl_errorf(err, FL_ETYPE,
                             "key '%s' is not in the schema inferred from the first %d lines "
                             "(give the types with --schema)",
                             key, FL_INFER_ROWS);
    }
    return FL_OK;
}

static fl_status decode_struct(fl_vector *v, json_t *j, int depth, bool strict, fl_error *err)
{
    if (!json_is_object(j))
        return fl_errorf(err, FL_ETYPE, "expected an object for a struct");
    const fl_type *t = v->type;
    if (strict)
        FL_TRY(check_keys(j, t->children, t->nchildren, err));
    for (uint32_t i = 0; i < t->nchildren; i++) {
        json_t *f = json_object_get(j, t->children[i].name);
        fl_status rc = f ? decode(&v->children[i], f, depth + 1, strict, err)
                         : append_null_deep(&v->children[i], err);
        if (rc != FL_OK)
            return fl_error_prefix(err, "field '%s'", t->children[i].name);
    }
    return fl_vector_append_nested(v, 0, err);
}

static fl_status decode_list(fl_vector *v, json_t *j, int depth, bool strict, fl_error *err)
{
    if (!json_is_array(j))
        return fl_errorf(err, FL_ETYPE, "expected an array for a list");
    size_t i;
    json_t *e;
    json_array_foreach(j, i, e)
    {
        if (decode(&v->children[0], e, depth + 1, strict, err) != FL_OK)
            return fl_error_prefix(err, "element %zu", i);
    }
    return fl_vector_append_nested(v, (int64_t)v->children[0].len, err);
}

static fl_status decode_map_entry(fl_vector *v, json_t *k, json_t *val, int depth, bool strict,
                                  fl_error *err)
{
    if (json_is_null(k))
        return fl_errorf(err, FL_ETYPE, "map key is null");
    FL_TRY(decode(&v->children[0], k, depth + 1, strict, err));
    return decode(&v->children[1], val, depth + 1, strict, err);
}

static fl_status decode_map(fl_vector *v, json_t *j, int depth, bool strict, fl_error *err)
{
    if (json_is_array(j)) {
        size_t i;
        json_t *e;
        json_array_foreach(j, i, e)
        {
            json_t *k = json_object_get(e, "key");
            json_t *val = json_object_get(e, "value");
            if (!json_is_object(e) || !k)
                return fl_errorf(err, FL_ETYPE, "map entry %zu is not {\"key\":..,\"value\":..}",
                                 i);
            FL_TRY(decode_map_entry(v, k, val ? val : json_null(), depth, strict, err));
        }
    } else if (json_is_object(j)) {
        const char *key;
        json_t *val;
        json_object_foreach(j, key, val)
        {
            json_t *k = json_string(key);
            if (!k)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            fl_status rc = decode_map_entry(v, k, val, depth, strict, err);
            json_decref(k);
            FL_TRY(rc);
        }
    } else {
        return fl_errorf(err, FL_ETYPE, "expected an array of entries or an object for a map");
    }
    return fl_vector_append_nested(v, (int64_t)v->children[0].len, err);
}

static fl_status decode_primitive(fl_vector *v, json_t *j, fl_error *err)
{
    const fl_type *t = v->type;
    char buf[64];
    switch (json_typeof(j)) {
    case JSON_STRING: return fl_parse_append(v, json_string_value(j), json_string_length(j), err);
    case JSON_TRUE:
    case JSON_FALSE:
        if (t->id == FL_TYPE_BOOLEAN) {
            uint8_t b = json_is_true(j);
            return fl_vector_append_fixed(v, &b, err);
        }
        if (t->id == FL_TYPE_STRING)
            return fl_parse_append(v, json_is_true(j) ? "true" : "false", json_is_true(j) ? 4 : 5,
                                   err);
        break;
    case JSON_INTEGER:
        if (t->id == FL_TYPE_FLOAT64) {
            double d = (double)json_integer_value(j);
            return fl_vector_append_fixed(v, &d, err);
        }
        snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
        if (t->id == FL_TYPE_INT32 || t->id == FL_TYPE_INT64 || t->id == FL_TYPE_FLOAT32 ||
            t->id == FL_TYPE_DECIMAL || t->id == FL_TYPE_STRING || t->id == FL_TYPE_BOOLEAN)
            return fl_parse_append(v, buf, strlen(buf), err);
        break;
    case JSON_REAL:
        if (t->id == FL_TYPE_FLOAT64) {
            double d = json_real_value(j);
            return fl_vector_append_fixed(v, &d, err);
        }
        if (t->id == FL_TYPE_FLOAT32) {
            float f = (float)json_real_value(j);
            return fl_vector_append_fixed(v, &f, err);
        }
        fl_format_double_g(json_real_value(j), buf, sizeof buf);
        if (t->id == FL_TYPE_DECIMAL || t->id == FL_TYPE_STRING)
            return fl_parse_append(v, buf, strlen(buf), err);
        break;
    default:
        if (t->id == FL_TYPE_STRING) {
            char *text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
            if (!text)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            fl_status rc = fl_vector_append_bytes(v, text, strlen(text), err);
            free(text);
            return rc;
        }
        break;
    }
    char tn[64];
    fl_type_format(t, tn, sizeof tn);
    static const char *const kind[] = {"object", "array", "string", "integer",
                                       "real",   "true",  "false",  "null"};
    return fl_errorf(err, FL_ETYPE, "a JSON %s does not convert to %s", kind[json_typeof(j)], tn);
}

static fl_status decode(fl_vector *v, json_t *j, int depth, bool strict, fl_error *err)
{
    if (depth > 64)
        return fl_errorf(err, FL_ELIMIT, "nesting deeper than 64 levels");
    if (json_is_null(j))
        return append_null_deep(v, err);
    switch (v->type->id) {
    case FL_TYPE_STRUCT: return decode_struct(v, j, depth, strict, err);
    case FL_TYPE_LIST: return decode_list(v, j, depth, strict, err);
    case FL_TYPE_MAP: return decode_map(v, j, depth, strict, err);
    default: return decode_primitive(v, j, err);
    }
}

/* ---- source ---- */

/* Longest accepted line (the bound on the line buffer). */
#define JSONL_LINE_MAX ((size_t)1 << 30)

static fl_status read_doc(jsonl_source *s, json_t **doc, fl_error *err)
{
    *doc = NULL;
    for (;;) {
        bool got;
        FL_TRY(text_input_line(&s->in, &s->line, &got, err));
        if (!got)
            return FL_OK;
        s->lineno++;
        const char *text = s->line.data;
        size_t len = s->line.len;
        while (len && (text[len - 1] == '\r' || text[len - 1] == ' ' || text[len - 1] == '\t'))
            len--;
        if (len == 0)
            continue;
        json_error_t je;
        json_t *j = json_loadb(text, len, 0, &je);
        if (!j)
            return fl_errorf(err, FL_ESYNTAX, "%s: line %llu, column %d: %s", s->path,
                             (unsigned long long)s->lineno, je.column, je.text);
        if (!json_is_object(j)) {
            json_decref(j);
            return fl_errorf(err, FL_ESYNTAX, "%s: line %llu: expected a JSON object per line",
                             s->path, (unsigned long long)s->lineno);
        }
        *doc = j;
        return FL_OK;
    }
}

static fl_status append_doc(jsonl_source *s, fl_batch *b, json_t *doc, uint64_t line, fl_error *err)
{
    if (s->inferred && check_keys(doc, s->schema.fields, s->schema.nfields, err) != FL_OK)
        return fl_error_prefix(err, "%s: line %llu", s->path, (unsigned long long)line);
    for (uint32_t c = 0; c < s->schema.nfields; c++) {
        const fl_field *f = &s->schema.fields[c];
        json_t *v = json_object_get(doc, f->name);
        fl_status rc =
            v ? decode(&b->cols[c], v, 0, s->inferred, err) : append_null_deep(&b->cols[c], err);
        if (rc == FL_OK && (!v || json_is_null(v)) && !f->nullable)
            rc = fl_errorf(err, FL_ETYPE, "null in a required column");
        if (rc != FL_OK)
            return fl_error_prefix(err, "%s: line %llu, column '%s'", s->path,
                                   (unsigned long long)line, f->name);
    }
    b->nrows++;
    return FL_OK;
}

static fl_status jsonl_next(fl_source *base, fl_batch *b, bool *eof, fl_error *err)
{
    jsonl_source *s = (jsonl_source *)base;
    fl_batch_reset(b);
    *eof = false;
    while (b->nrows < FL_BATCH_CAP) {
        if (s->sample_pos < s->nsample) {
            uint32_t i = s->sample_pos++;
            fl_status rc = append_doc(s, b, s->sample[i], s->sample_line[i], err);
            json_decref(s->sample[i]);
            s->sample[i] = NULL;
            FL_TRY(rc);
            continue;
        }
        json_t *doc;
        FL_TRY(read_doc(s, &doc, err));
        if (!doc)
            break;
        fl_status rc = append_doc(s, b, doc, s->lineno, err);
        json_decref(doc);
        FL_TRY(rc);
    }
    *eof = b->nrows == 0;
    base->done = text_input_consumed(&s->in);
    base->total = text_input_size(&s->in);
    return FL_OK;
}

static void jsonl_close(fl_source *base)
{
    jsonl_source *s = (jsonl_source *)base;
    text_input_close(&s->in);
    for (uint32_t i = s->sample_pos; i < s->nsample; i++)
        json_decref(s->sample[i]);
    free(s->sample);
    free(s->sample_line);
    fl_buf_free(&s->line);
    free(s->path);
    fl_arena_free(&s->arena);
    free(s);
}

static const fl_source_ops jsonl_ops = {jsonl_next, jsonl_close};

static fl_status infer_schema(jsonl_source *s, fl_error *err)
{
    itype *root = calloc(1, sizeof *root);
    if (!root)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = FL_OK;
    for (uint32_t i = 0; i < s->nsample && rc == FL_OK; i++) {
        rc = itype_add(root, s->sample[i], 0, err);
        if (rc != FL_OK)
            fl_error_prefix(err, "%s: line %llu", s->path, (unsigned long long)s->sample_line[i]);
    }
    if (rc == FL_OK) {
        fl_type t;
        int32_t next_id = (int32_t)root->nfields + 1;
        rc = to_fl_type(root, &s->arena, &next_id, &t, err);
        if (rc == FL_OK && t.id == FL_TYPE_STRUCT) {
            s->schema.nfields = t.nchildren;
            s->schema.fields = t.children;
            for (uint32_t i = 0; i < t.nchildren; i++)
                s->schema.fields[i].field_id = (int32_t)i + 1;
        } else if (rc == FL_OK) {
            s->schema.nfields = 0; /* an empty file */
        }
    }
    itype_free(root);
    return rc;
}

fl_status fl_jsonl_source_open(const char *path, const fl_source_options *opt, fl_source **out,
                               fl_error *err)
{
    jsonl_source *s = calloc(1, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    s->base.ops = &jsonl_ops;
    fl_arena_init(&s->arena, 0);
    fl_buf_init(&s->line, JSONL_LINE_MAX);
    s->path = strdup(path);
    fl_status rc = FL_OK;
    if (!s->path) {
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        goto fail;
    }
    if ((rc = text_input_open(&s->in, opt ? opt->io : NULL, path, err)) != FL_OK)
        goto fail;
    if (opt && opt->schema) {
        if ((rc = fl_schema_copy(&s->arena, opt->schema, &s->schema)) != FL_OK)
            goto fail;
    } else {
        s->sample = calloc(FL_INFER_ROWS, sizeof *s->sample);
        s->sample_line = calloc(FL_INFER_ROWS, sizeof *s->sample_line);
        if (!s->sample || !s->sample_line) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            goto fail;
        }
        while (s->nsample < FL_INFER_ROWS) {
            json_t *doc;
            if ((rc = read_doc(s, &doc, err)) != FL_OK)
                goto fail;
            if (!doc)
                break;
            s->sample_line[s->nsample] = s->lineno;
            s->sample[s->nsample++] = doc;
        }
        if ((rc = infer_schema(s, err)) != FL_OK)
            goto fail;
        s->inferred = true;
        if (s->schema.nfields == 0) {
            rc = fl_errorf(err, FL_ESYNTAX,
                           "%s: no JSON objects with fields to infer a schema from", path);
            goto fail;
        }
    }
    s->base.schema = &s->schema;
    *out = &s->base;
    return FL_OK;
fail:
    jsonl_close(&s->base);
    return rc;
}
