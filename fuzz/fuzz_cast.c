/*
 * fuzz_cast.c - text -> every scalar type casts (PostgreSQL input formats),
 * plus the round trip back to text and, when that text re-parses, a check
 * that text -> T -> text -> T gives the same value (a fixed point after one
 * round).
 *
 * Byte 0 picks the target type (and the session time zone for zoned types),
 * the rest is one input string; inputs with '\n' are split into several rows
 * so one batch mixes valid, invalid and NULL rows in lenient mode.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql.h"
#include "sql/expr.h"
#include "sql/func.h"

static const char *const TYPES[] = {"boolean", "integer", "bigint",      "real",      "double", "numeric",
                                    "date",    "time",    "timestamp",   "timestamptz", "uuid",  "bytea",
                                    "interval", "text",   "timestamp_ns", "numeric"};
static const char *const ZONES[] = {"UTC", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    unsigned sel = data[0];
    const char *tname = TYPES[sel % (sizeof TYPES / sizeof TYPES[0])];
    fl_eval_env env = {.time_zone = ZONES[(sel >> 4) % 4]};
    fl_error err;
    fl_type to;
    int32_t mods[2] = {(int32_t)(1 + (sel >> 4) % 38), (int32_t)((sel >> 2) % 10)};
    if (mods[1] > mods[0])
        mods[1] = mods[0];
    bool is_num = !strcmp(tname, "numeric");
    if (fl_sql_type_parse(tname, mods, is_num ? 2 : 0, &to, &err) != FL_OK)
        return 0;
    fl_type st = {.id = FL_TYPE_STRING};
    fl_vector in, out, back, again;
    fl_vector_init(&in, &st, &err);
    /* rows split at '\n'; a row "\\N" is NULL */
    const uint8_t *p = data + 1, *end = data + size;
    uint32_t n = 0;
    while (p <= end && n < 64) {
        const uint8_t *q = memchr(p, '\n', (size_t)(end - p));
        size_t l = q ? (size_t)(q - p) : (size_t)(end - p);
        if (l == 2 && p[0] == '\\' && p[1] == 'N')
            fl_vector_append_null(&in, &err);
        else
            fl_vector_append_bytes(&in, p, l, &err);
        n++;
        if (!q)
            break;
        p = q + 1;
    }
    fl_vector_init(&out, &to, &err);
    fl_vector_init(&back, &st, &err);
    fl_vector_init(&again, &to, &err);
    /* strict: must either succeed or fail cleanly */
    (void)fl_cast_vector(&in, NULL, n, &to, false, &env, &out, &err);
    /* lenient: never fails for syntax; then round trip */
    if (fl_cast_vector(&in, NULL, n, &to, true, &env, &out, &err) == FL_OK &&
        fl_cast_vector(&out, NULL, n, &st, false, &env, &back, &err) == FL_OK &&
        fl_cast_vector(&back, NULL, n, &to, false, &env, &again, &err) == FL_OK) {
        for (uint32_t i = 0; i < n; i++) {
            char a[512], b[512];
            size_t la = fl_sql_format_value(&out, i, env.time_zone, a, sizeof a);
            size_t lb = fl_sql_format_value(&again, i, env.time_zone, b, sizeof b);
            if (fl_vector_is_valid(&out, i) != fl_vector_is_valid(&again, i) || la != lb || memcmp(a, b, la < sizeof a ? la : sizeof a - 1) != 0)
                abort(); /* text output did not re-parse to the same value */
        }
    }
    fl_vector_destroy(&in);
    fl_vector_destroy(&out);
    fl_vector_destroy(&back);
    fl_vector_destroy(&again);
    return 0;
}
