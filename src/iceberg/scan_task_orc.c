/*
 * scan_task_orc.c - ORC data files for the scan task reader (see
 * scan_task_orc.h): the task's projection, by field id or by top-level
 * name, becomes a list of top-level ORC fields in the same order, so the
 * scan's batch columns line up with the task's read columns as a Parquet
 * scan's do. The pushed predicate prunes stripes by their statistics.
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/scan_task_orc.h"

fl_status ice_orc_src_open(ice_orc_src *o, fl_file *f, fl_error *err)
{
    memset(o, 0, sizeof *o);
    return fl_orc_open(f, &o->reader, err);
}

const fl_schema *ice_orc_src_schema(const ice_orc_src *o)
{
    return fl_orc_schema(o->reader);
}

const fl_schema *ice_orc_src_scan_schema(const ice_orc_src *o)
{
    return fl_orc_scan_schema(o->scan);
}

static int field_index(const fl_schema *s, int32_t id, const char *name)
{
    for (uint32_t i = 0; i < s->nfields; i++)
        if (name ? strcmp(s->fields[i].name, name) == 0 : s->fields[i].field_id == id)
            return (int)i;
    return -1;
}

static fl_status projection(ice_orc_src *o, const fl_parquet_scan_options *so, uint32_t *n,
                            fl_error *err)
{
    const fl_schema *s = fl_orc_schema(o->reader);
    uint32_t want = so->field_ids ? so->nfield_ids : so->ncolumns;
    free(o->fields);
    o->fields = malloc(((size_t)want + 1) * sizeof *o->fields);
    if (!o->fields)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < want; i++) {
        int32_t id = so->field_ids ? so->field_ids[i] : 0;
        const char *name = so->field_ids ? NULL : so->columns[i];
        int k = field_index(s, id, name);
        if (k < 0 && name)
            return fl_errorf(err, FL_ENOTFOUND, "no column '%s' in the ORC file", name);
        if (k < 0)
            return fl_errorf(err, FL_ENOTFOUND,
                             "no top-level column with field id %d in the ORC "
                             "file",
                             id);
        o->fields[i] = (uint32_t)k;
    }
    *n = want;
    return FL_OK;
}

fl_status ice_orc_src_scan(ice_orc_src *o, const fl_parquet_scan_options *so, uint32_t first,
                           uint32_t n, int64_t *first_row, fl_error *err)
{
    fl_orc_scan_close(o->scan);
    o->scan = NULL;
    uint32_t nst = fl_orc_num_stripes(o->reader);
    if (n && (first >= nst || n > nst - first))
        return fl_errorf(err, FL_EINVAL, "stripes %u..%u of a file with %u", first, first + n - 1,
                         nst);
    fl_orc_scan_options opt = {.predicate = so->predicate};
    FL_TRY(projection(o, so, &opt.nfields, err));
    opt.fields = o->fields;
    *first_row = 0;
    if (n) {
        free(o->stripes);
        o->stripes = malloc((size_t)n * sizeof *o->stripes);
        if (!o->stripes)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < n; i++)
            o->stripes[i] = first + i;
        opt.stripes = o->stripes;
        opt.nstripes = n;
        for (uint32_t i = 0; i < first; i++)
            *first_row += (int64_t)fl_orc_stripe_info(o->reader, i)->rows;
    }
    return fl_orc_scan_open(o->reader, &opt, &o->scan, err);
}

fl_status ice_orc_src_next(ice_orc_src *o, fl_batch *b, bool *eof, fl_error *err)
{
    return fl_orc_scan_next(o->scan, b, eof, err);
}

void ice_orc_src_close(ice_orc_src *o)
{
    fl_orc_scan_close(o->scan);
    fl_orc_close(o->reader);
    free(o->fields);
    free(o->stripes);
    memset(o, 0, sizeof *o);
}
