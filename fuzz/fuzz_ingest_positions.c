/*
 * fuzz_ingest_positions.c - a pipeline's positions side file (src/ingest/
 * state.c) over arbitrary bytes: the input is the JSON file a checkpoint
 * snapshot's floe.pipeline.positions-file names, read back by
 * fl_ingest_state_read as a restarting sink would. The file lives in the
 * table's metadata folder, so it is catalog-owned, but a damaged or
 * hand-edited one must fail with a message, never crash.
 *
 * Property besides "no crash/leak/UB": success gives only non-NULL keys and
 * values; failure carries a message naming the file. The reader is a path
 * reader (FileIO), so the input goes to a per-process temporary file.
 * tests/ingest/test_positions_replay.c includes this file and replays
 * hostile inputs in make test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floe/ingest.h"

/* Reads data as the side file of pipeline "p"; returns the status (the
 * state and error go to the caller's when given). */
static fl_status ingest_fuzz_read(const uint8_t *data, size_t size, fl_arena *a,
                                  fl_ingest_state *st, fl_error *err)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz_ingest_pos_%d.positions.json", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return fl_errorf(err, FL_EIO, "cannot write %s", path);
    if (size)
        fwrite(data, 1, size, f);
    fclose(f);
    fl_ice_kv sum[3] = {{FL_INGEST_SUM_PIPELINE, "p"},
                        {FL_INGEST_SUM_CHECKPOINT, "1"},
                        {FL_INGEST_SUM_POS_FILE, path}};
    fl_ice_snapshot snap = {.snapshot_id = 7,
                            .has_summary = true,
                            .operation = "append",
                            .summary = {.n = 3, .items = sum}};
    fl_ice_ref ref = {.name = "main", .snapshot_id = 7};
    fl_ice_metadata m = {.format_version = 2,
                         .current_snapshot_id = 7,
                         .nsnapshots = 1,
                         .snapshots = &snap,
                         .nrefs = 1,
                         .refs = &ref};
    fl_fileio *io = fl_fileio_local();
    fl_status rc = io ? fl_ingest_state_read(io, &m, "p", a, st, err)
                      : fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_fileio_destroy(io);
    unlink(path);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ingest_state st;
    fl_error err = {0};
    fl_status rc = ingest_fuzz_read(data, size, &a, &st, &err);
    if (rc == FL_OK) {
        for (uint32_t i = 0; i < st.positions.n; i++)
            if (!st.positions.items[i].key || !st.positions.items[i].value)
                abort();
    } else if (!err.msg[0]) {
        abort();
    }
    fl_arena_free(&a);
    return 0;
}
