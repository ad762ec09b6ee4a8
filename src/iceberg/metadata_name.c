/*
 * metadata_name.c - table metadata file names and their versions.
 *
 * Java metastore catalogs (JDBC, Hive, Glue) write <NNNNN>-<uuid>.metadata.json
 * (version = the digits before the first '-'); Hadoop/filesystem tables write
 * v<N>.metadata.json (also v<N>.gz.metadata.json, v<N>.metadata.json.gz);
 * DuckDB fixtures add v3.1 / v3.2 sub-versions, BigQuery writes v<epoch
 * seconds>. Both the table handle (opening a table folder) and the catalogs
 * (finding the newest metadata) order files by these versions, so the rule
 * lives here, in iceberg, and catalogs use it through floe/iceberg.h.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "floe/iceberg.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* s[0..len) as a non-negative decimal of at most 18 digits. */
static bool parse_digits(const char *s, size_t len, int64_t *out)
{
    if (len == 0 || len > 18)
        return false;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

bool fl_ice_is_metadata_name(const char *name)
{
    return ends_with(name, ".metadata.json") || ends_with(name, ".metadata.json.gz");
}


/* "v3.2" part of "v3.2.metadata.json" / "v3.2.gz.metadata.json": dot-separated numbers. */
static fl_ice_metadata_version v_version(const char *s, size_t len)
{
    fl_ice_metadata_version v = {0};
    size_t i = 0;
    while (i < len && v.nparts < FL_ICE_METADATA_VERSION_PARTS) {
        size_t j = i;
        while (j < len && s[j] != '.')
            j++;
        int64_t x;
        if (!parse_digits(s + i, j - i, &x))
            break;
        v.parts[v.nparts++] = x;
        i = j + 1;
    }
    return v;
}

fl_ice_metadata_version fl_ice_metadata_version_of(const char *name)
{
    fl_ice_metadata_version v = {0};
    const char *end = strstr(name, ".metadata.json");
    if (!end)
        return v;
    size_t len = (size_t)(end - name);
    if (len >= 3 && memcmp(name + len - 3, ".gz", 3) == 0)
        len -= 3;
    if (len > 1 && name[0] == 'v')
        return v_version(name + 1, len - 1);
    const char *dash = memchr(name, '-', len);
    int64_t x;
    if (dash && parse_digits(name, (size_t)(dash - name), &x)) {
        v.nparts = 1;
        v.parts[0] = x;
    }
    return v;
}

int fl_ice_metadata_version_cmp(const fl_ice_metadata_version *a, const fl_ice_metadata_version *b)
{
    uint32_t n = a->nparts < b->nparts ? a->nparts : b->nparts;
    for (uint32_t i = 0; i < n; i++)
        if (a->parts[i] != b->parts[i])
            return a->parts[i] < b->parts[i] ? -1 : 1;
    return a->nparts < b->nparts ? -1 : a->nparts > b->nparts ? 1 : 0;
}
