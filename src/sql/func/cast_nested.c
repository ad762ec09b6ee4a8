/*
 * cast_nested.c - casts between nested types of one kind whose parts
 * convert: a struct field by field (by position, as PostgreSQL assigns a
 * ROW to a composite column), a list element by element, a map key by key
 * and value by value. `INSERT INTO t (s) VALUES (ROW(1, 2.5))` into
 * struct<a int, f double> and `ARRAY[1, 2]::bigint[]` go through here.
 *
 * Vectors that are laid out alike are copied by cast.c (same_shape); the
 * rest are rebuilt: the selected rows are copied into one flat vector of
 * the source type, each child vector is cast as a whole with the ordinary
 * vector cast (recursively for nested children), and the results replace
 * the output's children. The parent's validity and a list's or map's
 * offsets are the source's. A child that does not convert fails the cast
 * with the child cast's own message, prefixed with the field's name; under
 * a lenient cast (TRY_CAST) it becomes NULL inside the value.
 */
#include <string.h>

#include "sql/func/func_internal.h"

bool fl_cast_nested_allowed(const fl_type *from, const fl_type *to)
{
    if (!fl_type_is_nested(from) || from->id != to->id || from->nchildren != to->nchildren)
        return false;
    for (uint32_t i = 0; i < from->nchildren; i++) {
        const fl_type *f = &from->children[i].type, *t = &to->children[i].type;
        /* ROW('x', NULL) into a struct with a struct field: a text NULL
         * converts, a text value fails at run time (cast.c) */
        if (!fl_cast_allowed(f, t, false) && !(f->id == FL_TYPE_STRING && fl_type_is_nested(t)))
            return false;
    }
    return true;
}

/* Casts child k of flat into a new vector and puts it in out's place. */
static fl_status cast_child(const fl_vector *flat, uint32_t k, const fl_type *to, bool lenient,
                            const fl_tz *tz, fl_vector *out, fl_error *err)
{
    const fl_vector *src = &flat->children[k];
    const fl_field *f = &to->children[k];
    fl_vector cast;
    memset(&cast, 0, sizeof cast);
    fl_status rc = fl_vector_init(&cast, &f->type, err);
    if (rc == FL_OK)
        rc = fl_cast_vector_tz(src, NULL, src->len, &f->type, lenient, tz, &cast, err);
    if (rc != FL_OK) {
        fl_vector_destroy(&cast);
        if (to->id == FL_TYPE_STRUCT && f->name)
            return fl_error_prefix(err, "field \"%s\"", f->name);
        return rc;
    }
    fl_vector_destroy(&out->children[k]);
    out->children[k] = cast;
    return FL_OK;
}

fl_status fl_cast_nested(const fl_vector *in, uint32_t nrows, const fl_type *to, bool lenient,
                         const fl_tz *tz, fl_vector *out, fl_error *err)
{
    /* out: reset, nrows reserved, its NULL rows marked (fl_cast_vector_tz) */
    if (out->nchildren != to->nchildren)
        return fl_errorf(err, FL_EINVAL, "internal: cast output has %u children for %u",
                         out->nchildren, to->nchildren);
    fl_vector flat;
    memset(&flat, 0, sizeof flat);
    fl_status rc = fl_vector_init(&flat, in->type, err);
    for (uint32_t i = 0; rc == FL_OK && i < nrows; i++)
        rc = fl_vector_append_from(&flat, in, i, err);
    for (uint32_t k = 0; rc == FL_OK && k < to->nchildren; k++)
        rc = cast_child(&flat, k, to, lenient, tz, out, err);
    if (rc == FL_OK && to->id != FL_TYPE_STRUCT)
        memcpy(out->offsets, flat.offsets, ((size_t)nrows + 1) * sizeof *out->offsets);
    fl_vector_destroy(&flat);
    out->len = nrows;
    return rc;
}
