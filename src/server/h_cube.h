/*
 * h_cube.h - what the files of Cube's REST API (h_cube.c: auth, parsing,
 * meta and sql; h_cube_load.c: running a query) share.
 */
#ifndef FLOE_SERVER_H_CUBE_H
#define FLOE_SERVER_H_CUBE_H

#include "floe/sem_cube.h"
#include "server/server_internal.h"

/* Cube's error body {"error": msg} with status. */
void srv_cube_error(fl_server_request *r, int status, const char *msg);
/* Authenticates Cube's token (bare or Bearer) into r->principal; false after responding. */
bool srv_cube_auth(fl_server_request *r);
/* The request's parsed query (caller frees); NULL after responding.
 * *multi: the client asked queryType=multi. */
fl_sem_cube_query *srv_cube_parse(fl_server_request *r, bool *multi);
/* GET/POST /cubejs-api/v1/load */
void srv_cube_load(fl_server_request *r, void *ctx);

#endif
