/*
 * h_views.c - view endpoints (filled in below when the catalog supports views).
 */
#include "server/server_internal.h"

fl_status srv_routes_views(fl_server *s, fl_error *err)
{
    (void)s, (void)err;
    return FL_OK;
}
