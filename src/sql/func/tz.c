/*
 * tz.c - time zones from the system tz database, read directly from the
 * TZif files (RFC 8536) under /usr/share/zoneinfo; no setenv("TZ"), no
 * global state.
 *
 * TZif layout (RFC 8536 section 3): "TZif", version, 15 reserved bytes, six
 * big-endian uint32 counts (isutcnt, isstdcnt, leapcnt, timecnt, typecnt,
 * charcnt), then the v1 data block with 32-bit times. Version 2+ files
 * repeat header and data with 64-bit times, followed by a footer
 * "\n<POSIX TZ string>\n" that extends the rules past the last transition
 * (section 3.3); we use the 64-bit block and the footer.
 *
 * Local-to-UTC resolution follows PostgreSQL (DetermineTimeZoneOffset):
 * for times in a DST gap or overlap the smaller UTC offset wins.
 * Names may also be "UTC", "GMT", "Z" or numeric "+05:30" / "-08".
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "sql/func/func_internal.h"

#define TZ_MAX_FILE (1 << 20)

typedef struct tz_rule {
    int kind; /* 'M' month/week/day, 'J' julian 1..365 no leap, 'D' zero-based day */
    int m, w, d, n;
    int32_t time_s; /* local time of the change */
} tz_rule;

struct fl_tz {
    uint32_t ntrans;
    int64_t *trans;     /* UTC seconds */
    uint8_t *trans_idx; /* type index per transition */
    uint32_t ntypes;
    int32_t *type_off;
    uint8_t *type_dst;
    /* footer rule */
    bool has_rule;
    int32_t std_off, dst_off; /* seconds east */
    bool has_dst;
    tz_rule start, end;
};

void fl_tz_free(fl_tz *z)
{
    if (!z)
        return;
    free(z->trans);
    free(z->trans_idx);
    free(z->type_off);
    free(z->type_dst);
    free(z);
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static int64_t be64(const uint8_t *p)
{
    return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

/* POSIX TZ pieces */
static const char *p_name(const char *s)
{
    if (*s == '<') {
        while (*s && *s != '>')
            s++;
        return *s ? s + 1 : NULL;
    }
    const char *b = s;
    while (isalpha((unsigned char)*s))
        s++;
    return s - b >= 3 ? s : NULL;
}

/* [+-]hh[:mm[:ss]] -> seconds */
static const char *p_hms(const char *s, int32_t *out)
{
    int sign = 1;
    if (*s == '+' || *s == '-')
        sign = *s++ == '-' ? -1 : 1;
    if (!isdigit((unsigned char)*s))
        return NULL;
    int32_t h = 0, m = 0, sec = 0;
    while (isdigit((unsigned char)*s))
        h = h * 10 + (*s++ - '0');
    if (*s == ':') {
        s++;
        while (isdigit((unsigned char)*s))
            m = m * 10 + (*s++ - '0');
        if (*s == ':') {
            s++;
            while (isdigit((unsigned char)*s))
                sec = sec * 10 + (*s++ - '0');
        }
    }
    if (h > 167)
        return NULL;
    *out = sign * (h * 3600 + m * 60 + sec);
    return s;
}

static const char *p_rule(const char *s, tz_rule *r)
{
    memset(r, 0, sizeof *r);
    r->time_s = 7200;
    if (*s == 'M') {
        r->kind = 'M';
        s++;
        int v[3] = {0, 0, 0};
        for (int k = 0; k < 3; k++) {
            if (!isdigit((unsigned char)*s))
                return NULL;
            while (isdigit((unsigned char)*s))
                v[k] = v[k] * 10 + (*s++ - '0');
            if (k < 2 && *s++ != '.')
                return NULL;
        }
        r->m = v[0], r->w = v[1], r->d = v[2];
        if (r->m < 1 || r->m > 12 || r->w < 1 || r->w > 5 || r->d > 6)
            return NULL;
    } else {
        r->kind = *s == 'J' ? 'J' : 'D';
        if (*s == 'J')
            s++;
        if (!isdigit((unsigned char)*s))
            return NULL;
        while (isdigit((unsigned char)*s))
            r->n = r->n * 10 + (*s++ - '0');
        if (r->n > 365)
            return NULL;
    }
    if (*s == '/') {
        s = p_hms(s + 1, &r->time_s);
        if (!s)
            return NULL;
    }
    return s;
}

static bool parse_posix(fl_tz *z, const char *s)
{
    s = p_name(s);
    if (!s)
        return false;
    int32_t off;
    s = p_hms(s, &off);
    if (!s)
        return false;
    z->std_off = -off;
    z->has_rule = true;
    if (!*s)
        return true;
    s = p_name(s);
    if (!s)
        return false;
    z->has_dst = true;
    z->dst_off = z->std_off + 3600;
    if (*s && *s != ',') {
        s = p_hms(s, &off);
        if (!s)
            return false;
        z->dst_off = -off;
    }
    if (*s != ',') {
        /* no rule: POSIX default M3.2.0,M11.1.0 */
        z->start = (tz_rule){'M', 3, 2, 0, 0, 7200};
        z->end = (tz_rule){'M', 11, 1, 0, 0, 7200};
        return true;
    }
    s = p_rule(s + 1, &z->start);
    if (!s || *s != ',')
        return false;
    s = p_rule(s + 1, &z->end);
    return s && *s == 0;
}

/* Local seconds (in the rule's reference offset) of the rule in year y. */
static int64_t rule_local(const tz_rule *r, int64_t y)
{
    int64_t day;
    if (r->kind == 'M') {
        int64_t first = fl_days_from_civil(y, (unsigned)r->m, 1);
        int wd = (int)floormod64(first + 4, 7); /* 1970-01-01 was a Thursday */
        int64_t d = first + ((r->d - wd + 7) % 7) + 7 * (r->w - 1);
        int64_t last = first + fl_days_in_month(y, (unsigned)r->m) - 1;
        while (d > last)
            d -= 7;
        day = d;
    } else if (r->kind == 'J') {
        day = fl_days_from_civil(y, 1, 1) + r->n - 1;
        if (fl_is_leap_year(y) && r->n >= 60)
            day++;
    } else
        day = fl_days_from_civil(y, 1, 1) + r->n;
    return day * 86400 + r->time_s;
}

static int32_t rule_offset(const fl_tz *z, int64_t t)
{
    if (!z->has_dst)
        return z->std_off;
    int64_t y;
    unsigned m, d;
    fl_civil_from_days(floordiv64(t + z->std_off, 86400), &y, &m, &d);
    int64_t st = rule_local(&z->start, y) - z->std_off;
    int64_t en = rule_local(&z->end, y) - z->dst_off;
    bool dst = st < en ? (t >= st && t < en) : !(t >= en && t < st);
    return dst ? z->dst_off : z->std_off;
}

int32_t fl_tz_offset_utc(const fl_tz *z, int64_t t)
{
    if (!z)
        return 0;
    if (z->ntrans == 0 || t >= z->trans[z->ntrans - 1]) {
        if (z->has_rule)
            return rule_offset(z, t);
        if (z->ntrans)
            return z->type_off[z->trans_idx[z->ntrans - 1]];
        return z->ntypes ? z->type_off[0] : 0;
    }
    if (t < z->trans[0]) {
        for (uint32_t i = 0; i < z->ntypes; i++)
            if (!z->type_dst[i])
                return z->type_off[i];
        return z->type_off[0];
    }
    uint32_t lo = 0, hi = z->ntrans - 1; /* trans[lo] <= t < trans[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (z->trans[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return z->type_off[z->trans_idx[lo]];
}

int32_t fl_tz_offset_local(const fl_tz *z, int64_t local)
{
    if (!z)
        return 0;
    if (z->ntrans == 0 && (!z->has_rule || !z->has_dst)) /* UTC, "+05:30": one offset */
        return fl_tz_offset_utc(z, local);
    int32_t oe = fl_tz_offset_utc(z, local - 86400), ol = fl_tz_offset_utc(z, local + 86400);
    bool ve = fl_tz_offset_utc(z, local - oe) == oe, vl = fl_tz_offset_utc(z, local - ol) == ol;
    if (ve && !vl)
        return oe;
    if (vl && !ve)
        return ol;
    return oe < ol ? oe : ol;
}

static fl_status parse_tzif(fl_tz *z, const uint8_t *b, size_t n, const char *name, fl_error *err)
{
#define BAD(what) return fl_errorf(err, FL_ECORRUPT, "time zone %s: %s", name, what)
    if (n < 44 || memcmp(b, "TZif", 4) != 0)
        BAD("not a TZif file");
    int version = b[4] ? b[4] - '0' : 1;
    size_t pos = 0;
    uint32_t c[6];
    for (int k = 0; k < 6; k++)
        c[k] = be32(b + 20 + 4 * k);
    size_t tsz = 4;
    size_t v1 = (size_t)c[3] * 5 + (size_t)c[4] * 6 + c[5] + (size_t)c[2] * 8 + c[1] + c[0];
    if (version >= 2) {
        pos = 44 + v1;
        if (pos + 44 > n || memcmp(b + pos, "TZif", 4) != 0)
            BAD("bad version 2 header");
        for (int k = 0; k < 6; k++)
            c[k] = be32(b + pos + 20 + 4 * k);
        pos += 44;
        tsz = 8;
    } else
        pos = 44;
    uint32_t isut = c[0], isstd = c[1], leap = c[2], timecnt = c[3], typecnt = c[4], charcnt = c[5];
    if (typecnt == 0 || typecnt > 256 || timecnt > 100000 || leap > 10000 || charcnt > 100000)
        BAD("bad counts");
    size_t need = (size_t)timecnt * (tsz + 1) + (size_t)typecnt * 6 + charcnt + (size_t)leap * (tsz + 4) +
                  isstd + isut;
    if (pos + need > n)
        BAD("truncated data block");
    z->ntrans = timecnt;
    z->trans = malloc(sizeof(int64_t) * (timecnt ? timecnt : 1));
    z->trans_idx = malloc(timecnt ? timecnt : 1);
    z->ntypes = typecnt;
    z->type_off = malloc(sizeof(int32_t) * typecnt);
    z->type_dst = malloc(typecnt);
    if (!z->trans || !z->trans_idx || !z->type_off || !z->type_dst)
        return fl_errorf(err, FL_ENOMEM, "time zone %s: out of memory", name);
    for (uint32_t i = 0; i < timecnt; i++)
        z->trans[i] = tsz == 8 ? be64(b + pos + 8 * i) : (int32_t)be32(b + pos + 4 * i);
    pos += (size_t)timecnt * tsz;
    for (uint32_t i = 0; i < timecnt; i++) {
        z->trans_idx[i] = b[pos + i];
        if (z->trans_idx[i] >= typecnt)
            BAD("transition type out of range");
    }
    pos += timecnt;
    for (uint32_t i = 0; i < typecnt; i++) {
        z->type_off[i] = (int32_t)be32(b + pos + 6 * i);
        z->type_dst[i] = b[pos + 6 * i + 4];
        if (z->type_off[i] < -89999 || z->type_off[i] > 93599)
            BAD("offset out of range");
    }
    pos += (size_t)typecnt * 6 + charcnt + (size_t)leap * (tsz + 4) + isstd + isut;
    if (version >= 2 && pos < n && b[pos] == '\n') {
        size_t e = pos + 1;
        while (e < n && b[e] != '\n')
            e++;
        if (e < n && e - pos - 1 < 128 && e > pos + 1) {
            char rule[128];
            memcpy(rule, b + pos + 1, e - pos - 1);
            rule[e - pos - 1] = 0;
            if (!parse_posix(z, rule))
                z->has_rule = false;
        }
    }
    return FL_OK;
#undef BAD
}

static bool numeric_zone(const char *s, int32_t *off)
{
    if ((s[0] != '+' && s[0] != '-') || !isdigit((unsigned char)s[1]))
        return false;
    const char *e = p_hms(s, off);
    return e && *e == 0 && *off >= -15 * 3600 && *off <= 15 * 3600;
}

fl_status fl_tz_load(const char *name, fl_tz **out, fl_error *err)
{
    *out = NULL;
    fl_tz *z = calloc(1, sizeof *z);
    if (!z)
        return fl_errorf(err, FL_ENOMEM, "time zone: out of memory");
    int32_t off;
    if (!name || !*name || !strcasecmp(name, "UTC") || !strcasecmp(name, "GMT") ||
        !strcasecmp(name, "Z") || !strcasecmp(name, "Etc/UTC") || !strcasecmp(name, "zulu")) {
        z->has_rule = true;
        *out = z;
        return FL_OK;
    }
    if (numeric_zone(name, &off)) {
        /* ISO 8601 sign: "+05:30" is east of UTC */
        z->has_rule = true;
        z->std_off = off;
        *out = z;
        return FL_OK;
    }
    /* IANA names: letters, digits, '/', '_', '-', '+'; no "..", no leading '/' */
    size_t len = strlen(name);
    bool ok = len > 0 && len < 128 && name[0] != '/' && !strstr(name, "..");
    for (size_t i = 0; ok && i < len; i++)
        ok = isalnum((unsigned char)name[i]) || strchr("/_-+", name[i]);
    if (!ok) {
        free(z);
        return fl_error_state(err, FL_EINVAL, "22023", "time zone \"%s\" not recognized", name);
    }
    char path[256];
    snprintf(path, sizeof path, "/usr/share/zoneinfo/%s", name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        free(z);
        return fl_error_state(err, FL_EINVAL, "22023", "time zone \"%s\" not recognized", name);
    }
    long fsz = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (fsz <= 0 || fsz > TZ_MAX_FILE || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        free(z);
        return fl_error_state(err, FL_EINVAL, "22023", "time zone \"%s\" not recognized", name);
    }
    uint8_t *buf = malloc((size_t)fsz);
    if (!buf) {
        fclose(f);
        free(z);
        return fl_errorf(err, FL_ENOMEM, "time zone: out of memory");
    }
    size_t n = fread(buf, 1, (size_t)fsz, f);
    fclose(f);
    fl_status rc = parse_tzif(z, buf, n, name, err);
    free(buf);
    if (rc) {
        fl_tz_free(z);
        return rc;
    }
    *out = z;
    return FL_OK;
}

fl_status fl_func_tz_check(const char *name, fl_error *err)
{
    fl_tz *z = NULL;
    fl_status rc = fl_tz_load(name, &z, err);
    fl_tz_free(z);
    return rc;
}
