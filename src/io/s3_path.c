/*
 * s3_path.c - the x-amz-date format and the parsing of "s3://bucket/key"
 * paths (s3a://, s3n:// too).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/s3_internal.h"

void s3_amz_date(int64_t t, char out[17])
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}

static size_t scheme_len_of(const char *path)
{
    if (strncmp(path, "s3://", 5) == 0)
        return 5;
    if (strncmp(path, "s3a://", 6) == 0 || strncmp(path, "s3n://", 6) == 0)
        return 6;
    return 0;
}

bool s3_is_s3_path(const char *path)
{
    return scheme_len_of(path) != 0;
}

/* Bucket names per S3 rules, loosely: 1-255 of [a-z A-Z 0-9 . - _]. */
static bool bucket_ok(const char *b, size_t n)
{
    if (n == 0 || n > 255)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = b[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_'))
            return false;
    }
    return true;
}

fl_status s3_parse_path(const char *path, bool require_key, size_t *scheme_len, char **bucket,
                        char **key, fl_error *err)
{
    size_t sl = scheme_len_of(path);
    if (!sl)
        return fl_errorf(err, FL_EINVAL, "%s: not an s3:// path", path);
    const char *b = path + sl;
    const char *slash = strchr(b, '/');
    size_t bl = slash ? (size_t)(slash - b) : strlen(b);
    if (!bucket_ok(b, bl))
        return fl_errorf(err, FL_EINVAL, "%s: invalid bucket name", path);
    const char *k = slash ? slash + 1 : "";
    if (require_key && !*k)
        return fl_errorf(err, FL_EINVAL, "%s: no object key after the bucket", path);
    if (strlen(k) > 1024)
        return fl_errorf(err, FL_EINVAL, "%s: object key longer than 1024 bytes", path);
    *bucket = strndup(b, bl);
    *key = strdup(k);
    if (!*bucket || !*key) {
        free(*bucket);
        free(*key);
        *bucket = *key = NULL;
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    }
    if (scheme_len)
        *scheme_len = sl;
    return FL_OK;
}
