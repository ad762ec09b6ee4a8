/*
 * filter_values.c - the literal values a query's filters compare
 * dimensions to, and the existing values closest to one that does not
 * exist (pure functions over text; value_check.c runs the queries).
 *
 * mcp_filter_literals reads the model's Jinja filters for the forms
 *   {{ Dimension('d') }} = 'v'        {{ Dimension("d") }} IN ('v', 'w')
 * (spaces anywhere between tokens, '' inside a literal); anything else
 * (other operators, functions around the member, numbers, time
 * dimensions) is not an equality with a literal and is skipped.
 *
 * mcp_closest_values ranks existing values against the asked one: equal
 * ignoring case, then one containing the other ignoring case, then
 * Levenshtein distance (ignoring case) of at most a third of its length
 * (rounded up); at most
 * cap of them, best first. Texts longer than 256 bytes get no distance.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mcp/mcp_internal.h"

static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* A 'quoted' SQL literal at p into out (''-escapes undone); the byte after it, or NULL. */
static const char *sql_string(const char *p, char *out, size_t cap)
{
    if (*p != '\'')
        return NULL;
    size_t n = 0;
    for (p++; *p; p++) {
        if (*p == '\'' && p[1] == '\'')
            p++;
        else if (*p == '\'')
            break;
        if (n + 1 < cap)
            out[n++] = *p;
    }
    out[n] = '\0';
    return *p == '\'' ? p + 1 : NULL;
}

/* {{ Dimension('name') }} at p: the name into out, the byte after "}}", or NULL. */
static const char *dimension_ref(const char *p, char *out, size_t cap)
{
    p = ws(p + 2);
    if (strncmp(p, "Dimension", 9))
        return NULL;
    p = ws(p + 9);
    if (*p != '(')
        return NULL;
    p = ws(p + 1);
    char q = *p;
    if (q != '\'' && q != '"')
        return NULL;
    const char *end = strchr(p + 1, q);
    if (!end || end == p + 1 || (size_t)(end - p - 1) >= cap) /* no name, or too long */
        return NULL;
    memcpy(out, p + 1, (size_t)(end - p - 1));
    out[end - p - 1] = '\0';
    p = ws(end + 1);
    if (*p != ')')
        return NULL;
    p = ws(p + 1);
    return strncmp(p, "}}", 2) ? NULL : p + 2;
}

static bool add(mcp_filter_lit *out, uint32_t cap, uint32_t *n, const char *dim, const char *v)
{
    if (*n >= cap)
        return false;
    snprintf(out[*n].dim, sizeof out[*n].dim, "%s", dim);
    snprintf(out[*n].value, sizeof out[*n].value, "%s", v);
    (*n)++;
    return true;
}

uint32_t mcp_filter_literals(const char *text, mcp_filter_lit *out, uint32_t cap)
{
    uint32_t n = 0;
    char dim[sizeof out->dim], v[sizeof out->value];
    for (const char *p = strstr(text, "{{"); p && n < cap; p = strstr(p, "{{")) {
        const char *after = dimension_ref(p, dim, sizeof dim);
        if (!after) {
            p += 2;
            continue;
        }
        p = ws(after);
        if (*p == '=' && p[1] != '=') {
            const char *e = sql_string(ws(p + 1), v, sizeof v);
            if (e && add(out, cap, &n, dim, v))
                p = e;
        } else if ((p[0] == 'I' || p[0] == 'i') && (p[1] == 'N' || p[1] == 'n') &&
                   (p[2] == '(' || isspace((unsigned char)p[2]))) {
            p = ws(p + 2);
            if (*p != '(')
                continue;
            const char *e = p + 1;
            while ((e = sql_string(ws(e), v, sizeof v)) && add(out, cap, &n, dim, v)) {
                e = ws(e);
                if (*e != ',')
                    break;
                e++;
            }
            if (e)
                p = e;
        }
    }
    return n;
}

/* Levenshtein distance ignoring ASCII case; -1 when a text is over 256 bytes. */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 256 || lb > 256)
        return -1;
    int row[257], prev[257];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int sub = prev[j - 1] +
                      (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            int del = prev[j] + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, row, (lb + 1) * sizeof *row);
    }
    return prev[lb];
}

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (!n)
        return false;
    for (; *hay; hay++)
        if (!strncasecmp(hay, needle, n))
            return true;
    return false;
}

typedef struct scored {
    const char *value;
    int rank;
} scored;

static int by_rank(const void *a, const void *b)
{
    const scored *x = a, *y = b;
    return x->rank != y->rank ? (x->rank < y->rank ? -1 : 1) : strcmp(x->value, y->value);
}

void mcp_closest_values(const char *asked, json_t *values, uint32_t cap, json_t *out)
{
    size_t nv = json_array_size(values), k = 0;
    scored *s = calloc(nv ? nv : 1, sizeof *s);
    if (!s)
        return;
    size_t la = strlen(asked);
    int limit = (int)((la + 2) / 3); /* a third of the asked text's length */
    for (size_t i = 0; i < nv; i++) {
        const char *v = json_string_value(json_array_get(values, i));
        if (!v)
            continue;
        int d = distance(asked, v), rank = -1;
        if (!strcasecmp(asked, v))
            rank = 0;
        else if (contains_ci(v, asked) || contains_ci(asked, v))
            rank = 1000 + abs((int)strlen(v) - (int)la);
        else if (d >= 0 && d <= limit)
            rank = 2000 + d;
        if (rank >= 0)
            s[k++] = (scored){v, rank};
    }
    qsort(s, k, sizeof *s, by_rank);
    for (size_t i = 0; i < k && i < cap; i++)
        json_array_append_new(out, json_string(s[i].value));
    free(s);
}
