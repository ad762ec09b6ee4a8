/*
 * units.h - sizes ("512MB", "2GB", bytes) and durations ("30s", "10m",
 * "10min", "1h", "500ms"; a bare number is milliseconds, as PostgreSQL's
 * statement_timeout) on the command line: `floe admin limits` and
 * `floe serve`'s limit flags. Static inline: the CLI has no shared objects.
 */
#ifndef FLOE_CLI_UNITS_H
#define FLOE_CLI_UNITS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>

static inline bool cli_parse_size(const char *s, uint64_t *out)
{
    char *end = NULL;
    double v = s ? strtod(s, &end) : -1;
    if (!s || end == s || v < 0)
        return false;
    double mul = 1;
    if (!*end || !strcasecmp(end, "b"))
        mul = 1;
    else if (!strcasecmp(end, "kb") || !strcasecmp(end, "k"))
        mul = 1024.0;
    else if (!strcasecmp(end, "mb") || !strcasecmp(end, "m"))
        mul = 1024.0 * 1024;
    else if (!strcasecmp(end, "gb") || !strcasecmp(end, "g"))
        mul = 1024.0 * 1024 * 1024;
    else if (!strcasecmp(end, "tb") || !strcasecmp(end, "t"))
        mul = 1024.0 * 1024 * 1024 * 1024;
    else
        return false;
    if (v * mul > 9.2e18)
        return false;
    *out = (uint64_t)(v * mul);
    return true;
}

static inline bool cli_parse_ms(const char *s, uint64_t *out)
{
    char *end = NULL;
    double v = s ? strtod(s, &end) : -1;
    if (!s || end == s || v < 0)
        return false;
    double mul = 1;
    if (!*end || !strcasecmp(end, "ms"))
        mul = 1;
    else if (!strcasecmp(end, "s"))
        mul = 1000;
    else if (!strcasecmp(end, "m") || !strcasecmp(end, "min"))
        mul = 60000;
    else if (!strcasecmp(end, "h"))
        mul = 3600000;
    else
        return false;
    if (v * mul > 9.2e18)
        return false;
    *out = (uint64_t)(v * mul);
    return true;
}

#endif
