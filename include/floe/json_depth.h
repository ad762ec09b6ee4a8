/*
 * json_depth.h - how deeply a JSON text nests, measured before it is
 * parsed: jansson recurses once per level, so request bodies (the REST
 * catalog, MCP's JSON-RPC) are refused above a depth limit first.
 */
#ifndef FLOE_JSON_DEPTH_H
#define FLOE_JSON_DEPTH_H

#include "floe/export.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The deepest nesting of [ and { in len bytes of s, brackets inside strings
 * not counted. Pure; any bytes are fine (unbalanced ones too). */
FL_API unsigned fl_json_depth(const char *s, size_t len);

#ifdef __cplusplus
}
#endif
#endif
