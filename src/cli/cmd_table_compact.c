/*
 * cmd_table_compact.c - `floe table compact`'s rewrite with a progress line
 * (cmd_table_write.h fl_cli_compact): the Iceberg layer reports each data
 * file it rewrote (fl_ice_rewrite_data_files_ex's callback) and progress.h
 * draws "floe table compact: 3/12 files  41,000 rows" by its usual rules (a
 * terminal only, after half a second; FLOE_PROGRESS=never/always). The
 * rewrite runs on this thread, so the callback draws directly.
 */
#include "cli/cmd_table_write.h"
#include "cli/progress.h"

static void on_file_rewritten(void *ctx, const fl_ice_rewrite_progress *p)
{
    cli_progress_files(ctx, p->files_done, p->files_total, p->rows_written, 0);
}

fl_status fl_cli_compact(fl_ice_txn *x, bool force, uint64_t *rewritten, uint64_t *added,
                         fl_error *err)
{
    cli_progress line;
    cli_progress_init(&line, "floe table compact", 0);
    fl_ice_rewrite_options o = {
        .force = force, .progress = on_file_rewritten, .progress_ctx = &line};
    fl_status rc = fl_ice_rewrite_data_files_ex(x, &o, rewritten, added, err);
    cli_progress_end(&line); /* before the command's summary line */
    return rc;
}
