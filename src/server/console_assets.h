/*
 * console_assets.h - the web console's files (console/ at the repository
 * root), embedded into libfloe at build time by cmake/embed_console.cmake as
 * a generated C file (<build>/console_assets.c). Served by h_console.c.
 *
 * The table ends with an entry whose name is NULL. Bytes are immutable and
 * live as long as the library.
 */
#ifndef FLOE_SERVER_CONSOLE_ASSETS_H
#define FLOE_SERVER_CONSOLE_ASSETS_H

#include <stddef.h>

typedef struct srv_console_asset {
    const char *name;           /* "app.js": a file name, no folder */
    const unsigned char *bytes; /* len bytes (plus a NUL not counted) */
    size_t len;
    const char *etag; /* "\"<16 hex digits of SHA-256>\"" */
} srv_console_asset;

extern const srv_console_asset srv_console_assets[];

#endif
