/*
 * elicit.c - elicitation of an ambiguous metric name in the stateless
 * revision 2026-07-28, by its multi round-trip pattern (MRTR): instead of
 * answering a name like "revenue" with candidates, a tools/call from a
 * client that declared the elicitation capability in _meta
 * (io.modelcontextprotocol/clientCapabilities) is answered
 *   {resultType: "input_required", inputRequests: {"metric:<asked>":
 *     {method: "elicitation/create", params: {mode: "form", message,
 *      requestedSchema: {metric: one of the candidates}}}}}
 * and the client retries the same call with inputResponses. The retry is
 * judged on its own (no state is kept, no requestState): the answer under
 * "metric:<asked>" is used only when its action is accept and its
 * content.metric is one of the model's metrics that the asked name matches
 * (the same test as the candidates); anything else (decline, cancel, another
 * name) gets the candidates answer again. The choice only picks a metric the
 * caller could have named; authorization is unchanged.
 */
#include <stdio.h>
#include <string.h>

#include "mcp/mcp_internal.h"

#define KEY_MAX 300

static void key_of(const char *asked, char *key, size_t cap)
{
    snprintf(key, cap, "metric:%s", asked);
}

static bool in_matches(json_t *matches, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(matches, i, e)
    {
        if (!strcmp(json_string_value(json_object_get(e, "name")), name))
            return true;
    }
    return false;
}

const char *mcp_elicited_metric(const mcp_call *c, const char *asked, json_t *matches)
{
    if (!c->modern || !json_is_object(c->input_responses))
        return NULL;
    char key[KEY_MAX];
    key_of(asked, key, sizeof key);
    json_t *r = json_object_get(c->input_responses, key);
    const char *action = json_string_value(json_object_get(r, "action"));
    const char *chosen =
        json_string_value(json_object_get(json_object_get(r, "content"), "metric"));
    if (!action || strcmp(action, "accept") || !chosen || !in_matches(matches, chosen))
        return NULL;
    const fl_sem_model *m = c->m->opt.model;
    for (uint32_t i = 0; i < fl_sem_model_nmembers(m); i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        if (mi->kind == FL_SEM_METRIC && !strcmp(mi->name, chosen))
            return mi->name; /* the model's string: lives as long as the server */
    }
    return NULL;
}

json_t *mcp_elicit_metrics(const mcp_call *c, json_t *cands)
{
    (void)c;
    json_t *reqs = json_object();
    size_t i;
    json_t *cand;
    json_array_foreach(cands, i, cand)
    {
        const char *asked = json_string_value(json_object_get(cand, "asked"));
        json_t *names = json_array(), *about = json_array();
        size_t j;
        json_t *mt;
        json_array_foreach(json_object_get(cand, "matches"), j, mt)
        {
            const char *d = json_string_value(json_object_get(mt, "description"));
            json_array_append(names, json_object_get(mt, "name"));
            json_array_append_new(
                about, json_pack("{s:O, s:s}", "const", json_object_get(mt, "name"), "title",
                                 d && *d ? d : json_string_value(json_object_get(mt, "name"))));
        }
        char msg[600], key[KEY_MAX];
        snprintf(msg, sizeof msg, "'%s' is not a metric's name. Which metric do you mean?", asked);
        mcp_utf8_clean(msg);
        key_of(asked, key, sizeof key);
        json_object_set_new(
            reqs, key,
            json_pack("{s:s, s:{s:s, s:s, s:{s:s, s:{s:{s:s, s:s, s:o, s:o}}, s:[s]}}}", "method",
                      "elicitation/create", "params", "mode", "form", "message", msg,
                      "requestedSchema", "type", "object", "properties", "metric", "type", "string",
                      "title", "Metric", "enum", names, "oneOf", about, "required", "metric"));
    }
    return json_pack("{s:s, s:o}", "resultType", "input_required", "inputRequests", reqs);
}
