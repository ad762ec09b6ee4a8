/*
 * fuzz_mcp_filter_values.c - the filter scanner and value ranking behind
 * query_metrics' filter-value candidates (src/mcp/filter_values.c): the
 * input's first line is a set of existing values separated by '|', the
 * rest a filter in the model's Jinja, as an agent sends it. Every literal
 * found is ranked against the values.
 *
 * Checked besides "no crash/leak/UB": every literal is found inside a
 * Dimension reference's filter (its dimension is non-empty and occurs in
 * the text), at most the cap are returned, and every match is one of the
 * existing values.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_internal.h"

#define CAP 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *nl = strchr(text, '\n');
    const char *filter = nl ? nl + 1 : text;
    json_t *values = json_array();
    if (nl) {
        *nl = '\0';
        for (char *save = NULL, *v = strtok_r(text, "|", &save); v; v = strtok_r(NULL, "|", &save))
            json_array_append_new(values, json_string(v)); /* NULL for invalid UTF-8: skipped */
    }
    mcp_filter_lit *lits = calloc(CAP, sizeof *lits);
    uint32_t n = lits ? mcp_filter_literals(filter, lits, CAP) : 0;
    if (n > CAP)
        abort();
    for (uint32_t i = 0; i < n; i++) {
        if (!lits[i].dim[0] || !strstr(filter, lits[i].dim))
            abort();
        json_t *out = json_array();
        mcp_closest_values(lits[i].value, values, 5, out);
        if (json_array_size(out) > 5)
            abort();
        size_t k;
        json_t *m;
        json_array_foreach(out, k, m)
        {
            bool found = false;
            size_t j;
            json_t *v;
            json_array_foreach(values, j, v) found |= json_equal(v, m);
            if (!found)
                abort();
        }
        json_decref(out);
    }
    free(lits);
    json_decref(values);
    free(text);
    return 0;
}
