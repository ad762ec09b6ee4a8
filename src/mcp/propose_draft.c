/*
 * propose_draft.c - propose_metric's draft: the tool's arguments checked
 * field by field (an error names the field) and written as one metrics:
 * entry of dbt's YAML, the format the semantic layer loads. Every string is
 * a double-quoted YAML scalar with its quotes, backslashes and control
 * characters escaped, so an argument can never add YAML structure; the
 * pending block (who, when, the comparison) is JSON, which YAML reads as a
 * flow mapping, under meta.pending.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_internal.h"

#define DRAFT_MAX_TEXT 4096

static bool put(char **buf, size_t *len, size_t *cap, const char *s)
{
    return mcp_buf_put(buf, len, cap, s, strlen(s));
}

/* s as a double-quoted YAML scalar. */
static bool put_quoted(char **buf, size_t *len, size_t *cap, const char *s)
{
    bool ok = put(buf, len, cap, "\"");
    for (const unsigned char *p = (const unsigned char *)s; ok && *p; p++) {
        char esc[8];
        if (*p == '"' || *p == '\\')
            snprintf(esc, sizeof esc, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            snprintf(esc, sizeof esc, "\\x%02x", *p);
        else
            esc[0] = (char)*p, esc[1] = 0;
        ok = put(buf, len, cap, esc);
    }
    return ok && put(buf, len, cap, "\"");
}

bool mcp_draft_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > 64 || !(islower((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '_'))
            return false;
    return true;
}

/* The string argument key (NULL when absent); false with *fail when it is
 * required and missing, empty, too long, or present for another type. */
static bool field(json_t *args, const char *key, bool required, bool allowed, const char *type,
                  const char **out, json_t **fail)
{
    json_t *v = json_object_get(args, key);
    *out = json_string_value(v);
    if (v && !allowed)
        *fail = mcp_tool_fail("propose_metric: field \"%s\" is not used by a %s metric", key, type);
    else if (required && (!*out || !**out))
        *fail =
            mcp_tool_fail("propose_metric: field \"%s\" is required for a %s metric", key, type);
    else if (*out && strlen(*out) > DRAFT_MAX_TEXT)
        *fail = mcp_tool_fail("propose_metric: field \"%s\" is longer than %d bytes", key,
                              DRAFT_MAX_TEXT);
    else
        return true;
    return false;
}

json_t *mcp_draft_parse(json_t *args, mcp_draft *d)
{
    memset(d, 0, sizeof *d);
    json_t *fail = NULL;
    const char *t = json_string_value(json_object_get(args, "type"));
    if (!t || (strcmp(t, "simple") && strcmp(t, "ratio") && strcmp(t, "derived")))
        return mcp_tool_fail("propose_metric: field \"type\" must be simple, ratio or derived");
    d->type = t;
    bool simple = !strcmp(t, "simple"), ratio = !strcmp(t, "ratio"),
         derived = !strcmp(t, "derived");
    if (!field(args, "name", true, true, t, &d->name, &fail) ||
        !field(args, "description", true, true, t, &d->description, &fail) ||
        !field(args, "label", false, true, t, &d->label, &fail) ||
        !field(args, "filter", false, true, t, &d->filter, &fail) ||
        !field(args, "measure", simple, simple, t, &d->measure, &fail) ||
        !field(args, "numerator", ratio, ratio, t, &d->numerator, &fail) ||
        !field(args, "denominator", ratio, ratio, t, &d->denominator, &fail) ||
        !field(args, "expr", derived, derived, t, &d->expr, &fail))
        return fail;
    if (!mcp_draft_name_ok(d->name))
        return mcp_tool_fail("propose_metric: field \"name\" must be lower-case letters, digits "
                             "and _ (at most 64), not '%s'",
                             d->name);
    json_t *ms = json_object_get(args, "metrics");
    if (ms && !derived)
        return mcp_tool_fail("propose_metric: field \"metrics\" is not used by a %s metric", t);
    if (derived && (!json_is_array(ms) || !json_array_size(ms) || json_array_size(ms) > 16))
        return mcp_tool_fail("propose_metric: field \"metrics\" must list 1 to 16 metric names "
                             "for a derived metric");
    size_t i;
    json_t *e;
    json_array_foreach(ms, i, e)
    {
        if (!json_is_string(e) || !mcp_draft_name_ok(json_string_value(e)))
            return mcp_tool_fail("propose_metric: field \"metrics\" item %zu must be a metric name",
                                 i);
    }
    d->metrics = ms;
    return NULL;
}

char *mcp_draft_yaml(const mcp_draft *d, const char *pending_json)
{
    char *b = NULL;
    size_t len = 0, cap = 0;
    bool ok = put(&b, &len, &cap,
                  "# A metric proposed through MCP (propose_metric), pending an owner's approval:\n"
                  "#   floe semantic pending show|approve|reject ID --models DIR\n"
                  "metrics:\n  - name: ") &&
              put_quoted(&b, &len, &cap, d->name) && put(&b, &len, &cap, "\n    description: ") &&
              put_quoted(&b, &len, &cap, d->description) && put(&b, &len, &cap, "\n    type: ") &&
              put(&b, &len, &cap, d->type);
    if (ok && d->label)
        ok = put(&b, &len, &cap, "\n    label: ") && put_quoted(&b, &len, &cap, d->label);
    ok = ok && put(&b, &len, &cap, "\n    type_params:");
    if (ok && d->measure)
        ok = put(&b, &len, &cap, "\n      measure: ") && put_quoted(&b, &len, &cap, d->measure);
    if (ok && d->numerator)
        ok = put(&b, &len, &cap, "\n      numerator: ") &&
             put_quoted(&b, &len, &cap, d->numerator) &&
             put(&b, &len, &cap, "\n      denominator: ") &&
             put_quoted(&b, &len, &cap, d->denominator);
    if (ok && d->expr) {
        ok = put(&b, &len, &cap, "\n      expr: ") && put_quoted(&b, &len, &cap, d->expr) &&
             put(&b, &len, &cap, "\n      metrics:");
        size_t i;
        json_t *e;
        json_array_foreach(d->metrics, i, e)
        {
            ok = ok && put(&b, &len, &cap, "\n        - name: ") &&
                 put_quoted(&b, &len, &cap, json_string_value(e));
        }
    }
    if (ok && d->filter)
        ok = put(&b, &len, &cap, "\n    filter: ") && put_quoted(&b, &len, &cap, d->filter);
    if (ok && pending_json)
        ok = put(&b, &len, &cap, "\n    meta:\n      pending: ") &&
             put(&b, &len, &cap, pending_json);
    ok = ok && put(&b, &len, &cap, "\n");
    if (!ok) {
        free(b);
        return NULL;
    }
    return b;
}
