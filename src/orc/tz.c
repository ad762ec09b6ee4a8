/*
 * tz.c - the writer time zone of ORC TIMESTAMP columns (StripeFooter
 * writerTimezone). A Java or C++ writer stores a wall-clock timestamp as
 * seconds from 2015-01-01 00:00:00 *in the writer's zone*; reading it back
 * as the same wall clock (floe's TIMESTAMP is zone-less, as a reader whose
 * zone is UTC) means:
 *
 *   t = secs + epoch(zone)            epoch = 1420070400 - offset(1420070400)
 *   wall clock = t + offset(t)        offset = UTC offset in force at t
 *
 * which is what the ORC C++ reader does with a GMT reader zone. Offsets come
 * from the system's TZif files (RFC 8536; $TZDIR or /usr/share/zoneinfo),
 * the 64-bit section when present. Before the first transition the oldest
 * standard-time offset applies (as in the C++ reader); after the last one
 * the last offset stays (fat zone files list transitions until 2037; the
 * POSIX rule for later years is not evaluated). UTC-like names need no file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orc/orc_int.h"

#define ORC_EPOCH_2015 1420070400LL
#define TZ_MAX_FILE (1u << 20)

static bool is_utc_name(const char *n)
{
    static const char *const utc[] = {
        "",         "UTC", "GMT",       "Z",    "Etc/UTC", "Etc/GMT",  "Etc/UCT",   "Etc/Universal",
        "Etc/Zulu", "UCT", "Universal", "Zulu", "GMT0",    "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0"};
    for (size_t i = 0; i < sizeof utc / sizeof *utc; i++)
        if (strcmp(n, utc[i]) == 0)
            return true;
    return false;
}

/* A zone name is a relative path of [A-Za-z0-9_+-] parts: no "..", no "/" first. */
static bool valid_name(const char *n)
{
    if (!*n || *n == '/' || strstr(n, ".."))
        return false;
    for (const char *p = n; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '+' || *p == '-' || *p == '/'))
            return false;
    return true;
}

static uint64_t be(const uint8_t *p, int w)
{
    uint64_t v = 0;
    for (int i = 0; i < w; i++)
        v = v << 8 | p[i];
    return v;
}

/* Parses the data block at p (w = 4 or 8 byte times); *used = its length. */
static fl_status parse_block(orc_tz *tz, const uint8_t *p, size_t len, int w, size_t *used,
                             fl_error *err)
{
    if (len < 44 || memcmp(p, "TZif", 4) != 0)
        return fl_errorf(err, FL_ECORRUPT, "time zone file of %s is not TZif", tz->name);
    uint64_t isut = be(p + 20, 4), isstd = be(p + 24, 4), leap = be(p + 28, 4);
    uint64_t timecnt = be(p + 32, 4), typecnt = be(p + 36, 4), charcnt = be(p + 40, 4);
    uint64_t need = 44 + timecnt * (uint64_t)(w + 1) + typecnt * 6 + charcnt +
                    leap * (uint64_t)(w + 4) + isstd + isut;
    if (typecnt == 0 || typecnt > 256 || timecnt > 100000 || need > len)
        return fl_errorf(err, FL_ECORRUPT, "time zone file of %s is truncated", tz->name);
    *used = (size_t)need;
    const uint8_t *times = p + 44, *idx = times + timecnt * (uint64_t)w, *types = idx + timecnt;
    tz->trans = calloc(timecnt + 1, sizeof *tz->trans);
    tz->off = calloc(timecnt + 1, sizeof *tz->off);
    if (!tz->trans || !tz->off)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    tz->n = (uint32_t)timecnt;
    tz->ancient = (int32_t)(uint32_t)be(types, 4); /* type 0 unless a standard time is found */
    bool found = false;
    for (uint64_t i = 0; i < timecnt; i++) {
        uint64_t raw = be(times + i * (uint64_t)w, w);
        tz->trans[i] = w == 4 ? (int64_t)(int32_t)(uint32_t)raw : (int64_t)raw;
        if (i && tz->trans[i] < tz->trans[i - 1])
            return fl_errorf(err, FL_ECORRUPT, "time zone file of %s is not sorted", tz->name);
        if (idx[i] >= typecnt)
            return fl_errorf(err, FL_ECORRUPT, "time zone file of %s: bad type index", tz->name);
        const uint8_t *ti = types + 6 * (size_t)idx[i];
        tz->off[i] = (int32_t)(uint32_t)be(ti, 4);
        if (!found && ti[4] == 0) {
            tz->ancient = tz->off[i];
            found = true;
        }
    }
    return FL_OK;
}

int32_t orc_tz_offset(const orc_tz *tz, int64_t t)
{
    if (tz->utc || tz->n == 0 || t < tz->trans[0])
        return tz->utc ? 0 : tz->ancient;
    uint32_t lo = 0, hi = tz->n; /* the last transition <= t */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (tz->trans[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return tz->off[lo];
}

void orc_tz_free(orc_tz *tz)
{
    free(tz->trans);
    free(tz->off);
    memset(tz, 0, sizeof *tz);
}

fl_status orc_tz_load(const char *name, orc_tz *tz, fl_error *err)
{
    orc_tz_free(tz);
    snprintf(tz->name, sizeof tz->name, "%s", name);
    tz->loaded = true;
    if (is_utc_name(name)) {
        tz->utc = true;
        tz->epoch = ORC_EPOCH_2015;
        return FL_OK;
    }
    if (strlen(name) >= sizeof tz->name || !valid_name(name))
        return fl_errorf(err, FL_ECORRUPT, "writer time zone \"%.64s\" is not a zone name", name);
    const char *dir = getenv("TZDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
    FILE *f = fopen(path, "rb");
    uint8_t *buf = f ? malloc(TZ_MAX_FILE) : NULL;
    size_t len = buf ? fread(buf, 1, TZ_MAX_FILE, f) : 0;
    if (f)
        fclose(f);
    if (!buf) {
        free(buf);
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "writer time zone %s is unknown here (no %s): its timestamps cannot be "
                         "read as written",
                         name, path);
    }
    size_t used = 0;
    fl_status rc = parse_block(tz, buf, len, 4, &used, err);
    if (rc == FL_OK && buf[4] >= '2') { /* the 64-bit block follows the 32-bit one */
        orc_tz_free(tz);
        snprintf(tz->name, sizeof tz->name, "%s", name);
        tz->loaded = true;
        rc = parse_block(tz, buf + used, len - used, 8, &used, err);
    }
    free(buf);
    if (rc != FL_OK)
        return rc;
    tz->epoch = ORC_EPOCH_2015 - orc_tz_offset(tz, ORC_EPOCH_2015);
    return FL_OK;
}
