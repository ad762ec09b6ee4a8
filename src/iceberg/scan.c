/*
 * scan.c - whole-table convenience over a plan (fl_ice_scan_*) and the
 * metadata-only row count (fl_ice_scan_count).
 *
 * The scan reads tasks in plan order, one task reader at a time. Count is
 * exact without reading data when no task has deletes and every planned
 * file matches the filter entirely (strict evaluation of partition values
 * and metrics); otherwise *exact is false.
 */
#include <stdlib.h>

#include "iceberg/scan_internal.h"

struct fl_ice_scan {
    fl_fileio *io;
    fl_ice_scan_plan *plan;
    uint32_t task;
    fl_ice_task_reader *r;
};

fl_status fl_ice_scan_open(fl_fileio *io, const fl_ice_metadata *m, const fl_ice_scan_options *opt,
                           fl_ice_scan **out, fl_error *err)
{
    *out = NULL;
    fl_ice_scan *s = calloc(1, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    s->io = io;
    fl_status rc = fl_ice_scan_plan_files(io, m, opt, &s->plan, err);
    if (rc != FL_OK) {
        free(s);
        return rc;
    }
    *out = s;
    return FL_OK;
}

const fl_schema *fl_ice_scan_schema(const fl_ice_scan *s)
{
    return &s->plan->schema;
}
const fl_ice_scan_plan *fl_ice_scan_get_plan(const fl_ice_scan *s)
{
    return s->plan;
}

fl_status fl_ice_scan_next(fl_ice_scan *s, fl_batch *b, bool *eof, fl_error *err)
{
    *eof = false;
    for (;;) {
        if (!s->r) {
            if (s->task >= s->plan->ntasks) {
                fl_batch_reset(b);
                *eof = true;
                return FL_OK;
            }
            FL_TRY(fl_ice_task_reader_open(s->io, s->plan, s->task, &s->r, err));
        }
        bool teof = false;
        FL_TRY(fl_ice_task_reader_next(s->r, b, &teof, err));
        if (!teof)
            return FL_OK;
        fl_ice_task_reader_close(s->r);
        s->r = NULL;
        s->task++;
    }
}

void fl_ice_scan_close(fl_ice_scan *s)
{
    if (!s)
        return;
    fl_ice_task_reader_close(s->r);
    fl_ice_scan_plan_free(s->plan);
    free(s);
}

fl_status fl_ice_scan_count(const fl_ice_scan_plan *p, int64_t *count, bool *exact, fl_error *err)
{
    (void)err;
    const ice_plan *ip = (const ice_plan *)p;
    int64_t n = 0;
    bool ok = true;
    for (uint32_t t = 0; t < ip->filter.nterms; t++)
        ok &= !ip->filter.terms[t].nested; /* rows of such terms are not counted here */
    for (uint32_t i = 0; i < p->ntasks; i++) {
        const fl_ice_scan_task *t = &p->tasks[i];
        if (t->ndeletes > 0 || t->file->record_count < 0)
            ok = false;
        else if (ip->filter.nterms &&
                 ice_file_match(p->meta, &ip->filter, t->file) != FL_ICE_MATCH_ALL)
            ok = false;
        if (t->file->record_count > 0)
            n += t->file->record_count;
    }
    *count = ok ? n : -1;
    *exact = ok;
    return FL_OK;
}
