/*
 * theta_column.c - feeding a column vector into a theta sketch
 * (ice_stats.h): each live, non-null row as its Iceberg single-value
 * binary form (value_bytes.c), the bytes Trino hands DataSketches. Nested
 * columns have no such form (FL_ETYPE).
 */
#include "floe/ice_stats.h"
#include "iceberg/write_internal.h"

fl_status fl_theta_update_vector(fl_theta_sketch *s, const fl_vector *v, const fl_sel *sel,
                                 uint32_t nrows, fl_error *err)
{
    if (fl_type_is_nested(v->type))
        return fl_errorf(err, FL_ETYPE, "theta sketch: nested values have no binary form");
    uint32_t n = sel ? sel->count : nrows;
    for (uint32_t i = 0; i < n; i++) {
        fl_value val;
        ice_vector_value(v, sel ? sel->idx[i] : i, &val);
        FL_TRY(fl_theta_update_value(s, &val, err));
    }
    return FL_OK;
}
