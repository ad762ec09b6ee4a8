/*
 * json_depth.c - the nesting depth of a JSON text (include/floe/json_depth.h):
 * one pass, skipping strings and their escapes.
 */
#include "floe/json_depth.h"

#include <stdbool.h>

unsigned fl_json_depth(const char *s, size_t len)
{
    unsigned depth = 0, max = 0;
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = false;
        } else if (c == '"') {
            in_str = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max)
                max = depth;
        } else if ((c == ']' || c == '}') && depth) {
            depth--;
        }
    }
    return max;
}
