/*
 * fuzz_iceberg_manifest.c - libFuzzer target: the input is an Avro file that
 * claims to be an Iceberg manifest list or manifest. It is read through a
 * tiny in-memory FileIO as
 *   1. a manifest list (fl_ice_manifest_list_read, table format v1 and v2),
 *   2. a manifest without table metadata (partition types from Avro),
 *   3. a manifest of a table whose spec 0 partitions by bucket/identity
 *      string/day/decimal/uuid (typed partitions from the metadata),
 * and whatever (3) decodes is written back with fl_ice_manifest_writer_*
 * (v2) and read again: the writer may refuse (e.g. an equality delete without
 * ids), but when it accepts, the re-read must succeed with the same entries.
 * Any crash, leak or sanitizer report is a bug.
 *
 * Seeds: every *.avro under $FLOE_SHARED/fixtures/iceberg (see fuzz/README.md).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ice_manifest.h"
#include "floe/io.h"

/* ---- a FileIO serving the input for any path, and one written file ---- */

typedef struct mem_io {
    fl_fileio base;
    const uint8_t *data;
    size_t size;
    uint8_t *written; /* last file written through create() */
    size_t written_len;
    const char *written_path;
} mem_io;

static fl_status mem_open(fl_fileio *io, const char *path, fl_file **out, fl_error *err)
{
    mem_io *m = (mem_io *)io;
    if (m->written && m->written_path && !strcmp(path, m->written_path))
        return fl_file_from_memory(m->written, m->written_len, path, out, err);
    return fl_file_from_memory(m->data, m->size, path, out, err);
}

static fl_status mem_create(fl_fileio *io, const char *path, int flags, fl_output **out,
                            fl_error *err)
{
    (void)flags;
    mem_io *m = (mem_io *)io;
    free(m->written);
    m->written = NULL;
    m->written_len = 0;
    m->written_path = "rewritten.avro";
    if (strcmp(path, m->written_path))
        return fl_errorf(err, FL_EINVAL, "unexpected path");
    return fl_output_memory(path, &m->written, &m->written_len, out, err);
}

static fl_status mem_remove(fl_fileio *io, const char *path, fl_error *err)
{
    (void)io;
    return fl_errorf(err, FL_EUNSUPPORTED, "remove %s", path);
}

static fl_status mem_list(fl_fileio *io, const char *prefix,
                          fl_status (*fn)(void *ctx, const char *path, uint64_t size), void *ctx,
                          fl_error *err)
{
    (void)io, (void)prefix, (void)fn, (void)ctx;
    return fl_errorf(err, FL_EUNSUPPORTED, "list");
}

static void mem_destroy(fl_fileio *io)
{
    (void)io;
}

static const fl_fileio_ops mem_ops = {mem_open, mem_create, mem_remove, mem_list, mem_destroy};

static const char *k_meta =
    "{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\","
    "\"location\":\"/t\",\"last-sequence-number\":3,\"last-updated-ms\":1,\"last-column-id\":5,"
    "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"s\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"ts\",\"required\":false,\"type\":\"timestamptz\"},"
    "{\"id\":4,\"name\":\"dec\",\"required\":false,\"type\":\"decimal(38, 2)\"},"
    "{\"id\":5,\"name\":\"u\",\"required\":false,\"type\":\"uuid\"}]}],"
    "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":["
    "{\"name\":\"id_bucket\",\"transform\":\"bucket[4]\",\"source-id\":1,\"field-id\":1000},"
    "{\"name\":\"s\",\"transform\":\"identity\",\"source-id\":2,\"field-id\":1001},"
    "{\"name\":\"ts_day\",\"transform\":\"day\",\"source-id\":3,\"field-id\":1002},"
    "{\"name\":\"dec\",\"transform\":\"identity\",\"source-id\":4,\"field-id\":1003},"
    "{\"name\":\"u\",\"transform\":\"identity\",\"source-id\":5,\"field-id\":1004}]}],"
    "\"last-partition-id\":1004,\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,"
    "\"fields\":[]}],\"properties\":{},\"current-snapshot-id\":-1,\"refs\":{},\"snapshots\":[]}";

static void rewrite(mem_io *io, const fl_ice_metadata *m, const fl_ice_manifest_file *mf,
                    const fl_ice_manifest_entry *es, uint32_t n, fl_arena *a)
{
    fl_error err = {0};
    fl_ice_manifest_writer *w = NULL;
    if (fl_ice_manifest_writer_open(&io->base, "rewritten.avro", m, 0, mf->content, 2, 9, &w, &err))
        return;
    for (uint32_t i = 0; i < n; i++) {
        if (fl_ice_manifest_writer_add(w, &es[i], &err)) {
            fl_ice_manifest_writer_abort(w);
            return;
        }
    }
    fl_ice_manifest_file out;
    if (fl_ice_manifest_writer_close(w, a, &out, &err))
        return;
    out.sequence_number = 3;
    fl_ice_manifest_entry *es2 = NULL;
    uint32_t n2 = 0;
    if (fl_ice_manifest_read(&io->base, m, &out, a, &es2, &n2, &err) || n2 != n)
        abort(); /* what the writer accepted must read back */
    for (uint32_t i = 0; i < n; i++)
        if (es2[i].file.record_count != es[i].file.record_count || es2[i].status != es[i].status ||
            strcmp(es2[i].file.file_path, es[i].file.file_path) != 0)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mem_io io = {.base = {&mem_ops}, .data = data, .size = size};
    fl_error err = {0};
    fl_arena a;
    fl_arena_init(&a, 0);
    a.limit = 256u << 20;
    fl_ice_manifest_file *mfs = NULL;
    uint32_t n = 0;
    (void)fl_ice_manifest_list_read(&io.base, "list.avro", 1, &a, &mfs, &n, &err);
    (void)fl_ice_manifest_list_read(&io.base, "list.avro", 2, &a, &mfs, &n, &err);

    fl_ice_manifest_file mf;
    memset(&mf, 0, sizeof mf);
    mf.manifest_path = "m0.avro";
    mf.added_snapshot_id = 7;
    mf.sequence_number = 2;
    mf.has_first_row_id = true;
    mf.first_row_id = 100;
    fl_ice_manifest_entry *es = NULL;
    (void)fl_ice_manifest_read(&io.base, NULL, &mf, &a, &es, &n, &err);

    fl_ice_metadata m;
    fl_arena ma;
    fl_arena_init(&ma, 0);
    if (fl_ice_metadata_parse((const uint8_t *)k_meta, strlen(k_meta), "meta", &ma, &m, &err))
        abort();
    mf.has_first_row_id = false;
    for (int content = 0; content < 2; content++) {
        mf.content = (fl_ice_manifest_content)content;
        if (fl_ice_manifest_read(&io.base, &m, &mf, &a, &es, &n, &err) == FL_OK)
            rewrite(&io, &m, &mf, es, n, &a);
    }
    free(io.written);
    fl_arena_free(&ma);
    fl_arena_free(&a);
    return 0;
}
