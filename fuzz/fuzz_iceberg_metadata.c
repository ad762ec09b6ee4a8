/*
 * fuzz_iceberg_metadata.c - libFuzzer target for Iceberg table metadata.
 * Input: arbitrary bytes, parsed as (possibly gzip-compressed) metadata JSON.
 * Parsing must succeed or fail cleanly; when it succeeds, writing the result
 * and parsing it again must succeed and give equal structs, and writing that
 * must give the same bytes. Partition transforms of every spec are parsed and
 * typed against the current schema, and the input's first bytes are decoded
 * as a single value of each top-level primitive column.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/iceberg.h"

static void exercise_transforms(const fl_ice_metadata *m, const uint8_t *data, size_t size)
{
    const fl_ice_schema *s = fl_ice_metadata_current_schema(m);
    fl_error err;
    for (uint32_t i = 0; i < m->nspecs; i++) {
        for (uint32_t k = 0; k < m->specs[i].nfields; k++) {
            const fl_ice_partition_field *pf = &m->specs[i].fields[k];
            fl_ice_transform t;
            fl_type rt;
            if (fl_ice_transform_parse(pf->transform, &t, &err) != FL_OK)
                continue;
            const fl_field *src = fl_schema_find_id(&s->schema, pf->source_id);
            if (src && src->type.id != 0)
                (void)fl_ice_transform_result_type(&t, &src->type, &rt, &err);
        }
    }
    for (uint32_t i = 0; i < s->schema.nfields; i++) {
        const fl_type *t = &s->schema.fields[i].type;
        fl_value v, out;
        if (t->id == 0 || fl_type_is_nested(t))
            continue;
        size_t n = size < 16 ? size : 16;
        if (fl_ice_value_from_bytes(t, data, n, &v, &err) != FL_OK)
            continue;
        uint8_t buf[16];
        const uint8_t *p;
        size_t len;
        if (fl_ice_value_to_bytes(&v, buf, sizeof buf, &p, &len, &err) != FL_OK)
            abort();
        fl_ice_transform tr = {FL_ICE_TRANSFORM_BUCKET, 16};
        (void)fl_ice_transform_apply(&tr, &v, &out, &err);
        tr.kind = FL_ICE_TRANSFORM_TRUNCATE;
        tr.param = 3;
        (void)fl_ice_transform_apply(&tr, &v, &out, &err);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    a.limit = 64 << 20;
    fl_error err = {0};
    fl_ice_metadata m, m2, m3;
    if (fl_ice_metadata_parse(data, size, "fuzz", &a, &m, &err) != FL_OK) {
        fl_arena_free(&a);
        return 0;
    }
    char *j1 = NULL, *j2 = NULL;
    size_t l1 = 0, l2 = 0;
    if (fl_ice_metadata_write(&m, 0, &j1, &l1, &err) == FL_OK) {
        if (fl_ice_metadata_parse((const uint8_t *)j1, l1, "rewritten", &a, &m2, &err) != FL_OK)
            abort(); /* what we write must parse */
        if (!fl_ice_metadata_equal(&m, &m2))
            abort();
        if (fl_ice_metadata_write(&m2, 0, &j2, &l2, &err) != FL_OK || l1 != l2 ||
            memcmp(j1, j2, l1) != 0)
            abort();
        free(j2);
        j2 = NULL;
        if (m.format_version >= 2 && fl_ice_metadata_write(&m, 3, &j2, &l2, &err) == FL_OK &&
            fl_ice_metadata_parse((const uint8_t *)j2, l2, "v3", &a, &m3, &err) != FL_OK)
            abort();
    }
    free(j1);
    free(j2);
    exercise_transforms(&m, data, size);
    fl_arena_free(&a);
    return 0;
}
