/*
 * edit_distance.c - how far one name is from another, for "did you mean"
 * (func.h): columns (bind/did_you_mean.c), tables (session/suggest.c) and
 * functions (registry.c).
 *
 * Levenshtein over bytes with adjacent swaps as one edit (optimal string
 * alignment), case-folded for ASCII so that an unquoted Name against a
 * quoted "Name" is distance 0. A candidate counts when it is within a third
 * of the written name's length (at least 1): further than that, a
 * suggestion is more noise than help. Names longer than 63 bytes are never
 * close (bounded work on a statement that already failed).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sql/func.h"

static bool same_char(char x, char y)
{
    return tolower((unsigned char)x) == tolower((unsigned char)y);
}

uint32_t fl_sql_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 63 || m > 63)
        return UINT32_MAX;
    uint32_t d[64][64];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (uint32_t)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (uint32_t)j;
    for (size_t i = 1; i <= n; i++) {
        for (size_t j = 1; j <= m; j++) {
            uint32_t v = d[i - 1][j - 1] + (same_char(a[i - 1], b[j - 1]) ? 0 : 1);
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            /* two neighbours swapped ("nmae") is one edit */
            if (i > 1 && j > 1 && same_char(a[i - 1], b[j - 2]) && same_char(a[i - 2], b[j - 1]) &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[n][m];
}

uint32_t fl_sql_close_enough(const char *written)
{
    uint32_t n = (uint32_t)strlen(written) / 3;
    return n ? n : 1;
}
