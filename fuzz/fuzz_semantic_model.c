/*
 * fuzz_semantic_model.c - libFuzzer target for the semantic layer's YAML
 * model loader (include/floe/semantic.h) over arbitrary bytes.
 *
 * The input is split at the first "\n---8<---\n" into two model files (so
 * cross-file references are exercised); text after a second separator is a
 * where filter (Jinja references and SQL) for every compile. Properties besides "no crash, leak
 * or UB": every failure carries a message; loading the same files again
 * gives the same version; for a model that loads, each metric compiles
 * alone, by metric_time__month and by each dimension member (via joins),
 * or fails with a message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/semantic.h"

static void explained(fl_status rc, const fl_error *err)
{
    if (rc != FL_OK && !err->msg[0])
        abort();
}

static void compile_one(const fl_sem_model *m, const char *metric, const char *gb,
                        const char *where)
{
    fl_sem_query q = {.metrics = &metric, .nmetrics = 1, .limit = 10};
    if (where) {
        q.where = &where;
        q.nwhere = 1;
    }
    if (gb) {
        q.group_by = &gb;
        q.ngroup_by = 1;
    }
    char *sql = NULL;
    fl_error err = {0};
    fl_status rc = fl_sem_compile(m, &q, NULL, 0, &sql, &err);
    explained(rc, &err);
    if ((rc == FL_OK) != (sql != NULL))
        abort();
    free(sql);
}

static void compile_all(const fl_sem_model *m, const char *where)
{
    uint32_t n = fl_sem_model_nmembers(m), done = 0;
    for (uint32_t i = 0; i < n && done < 16; i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        if (mi->kind != FL_SEM_METRIC)
            continue;
        done++;
        compile_one(m, mi->name, NULL, where);
        compile_one(m, mi->name, "metric_time__month", where);
        for (uint32_t k = 0, dims = 0; k < n && dims < 4; k++)
            if (fl_sem_model_member(m, k)->kind == FL_SEM_DIMENSION) {
                compile_one(m, mi->name, fl_sem_model_member(m, k)->name, where);
                dims++;
            }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char sep[] = "\n---8<---\n";
    const char *text = (const char *)data;
    const char *cut = NULL;
    for (size_t i = 0; i + sizeof sep - 1 <= size && !cut; i++)
        if (!memcmp(text + i, sep, sizeof sep - 1))
            cut = text + i;
    fl_sem_file files[2] = {{"a.yml", text, cut ? (size_t)(cut - text) : size},
                            {"b.yml", cut ? cut + sizeof sep - 1 : "", 0}};
    char *where = NULL;
    if (cut) {
        files[1].len = size - (size_t)(cut - text) - (sizeof sep - 1);
        const char *b = files[1].text, *cut2 = NULL;
        for (size_t i = 0; i + sizeof sep - 1 <= files[1].len && !cut2; i++)
            if (!memcmp(b + i, sep, sizeof sep - 1))
                cut2 = b + i;
        if (cut2) {
            size_t wl = files[1].len - (size_t)(cut2 - b) - (sizeof sep - 1);
            where = malloc(wl + 1);
            if (!where)
                return 0;
            memcpy(where, cut2 + sizeof sep - 1, wl);
            where[wl] = 0;
            files[1].len = (size_t)(cut2 - b);
        }
    }
    fl_sem_model *m = NULL, *again = NULL;
    fl_error err = {0};
    fl_status rc = fl_sem_model_load_files(files, cut ? 2 : 1, &m, &err);
    explained(rc, &err);
    if (rc != FL_OK) {
        if (m)
            abort();
        free(where);
        return 0;
    }
    if (fl_sem_model_load_files(files, cut ? 2 : 1, &again, &err) != FL_OK ||
        strcmp(fl_sem_model_version(m), fl_sem_model_version(again)))
        abort(); /* loading is deterministic */
    compile_all(m, where);
    free(where);
    fl_sem_model_free(again);
    fl_sem_model_free(m);
    return 0;
}
