/*
 * fuzz_ingest_body.c - the HTTP ingestion endpoint's body parser
 * (fl_ingest_body_write, src/ingest/src_http.c) over arbitrary bytes: byte
 * 0 picks NDJSON, a JSON array or CSV (its low bits; other values are an
 * unknown format), the rest is the request body, converted to a fixed
 * table schema (required bigint, string, double, date, timestamptz,
 * decimal(10,2), boolean) without a sink, as the endpoint's check pass.
 *
 * Property besides "no crash/leak/UB": a failure carries a message that
 * names the body; a success counts no more records than the body has
 * bytes (each record takes at least one). tests/ingest/test_http_body.c
 * includes this file (INGEST_BODY_FUZZ_NO_MAIN) and replays hostile
 * inputs in make test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ingest.h"
#include "floe/text.h"

#define BODY_FUZZ_SCHEMA                                                                           \
    "id:long not null,name:string,v:double,d:date,ts:timestamptz,amt:decimal(10,2),ok:boolean"

/* Runs one input; returns the status (rows and error to the caller's when given). */
static fl_status body_fuzz_one(const uint8_t *data, size_t size, uint64_t *rows_out,
                               fl_error *err_out)
{
    fl_error err = {0};
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_schema sch;
    fl_status rc = fl_parse_schema_spec(BODY_FUZZ_SCHEMA, &a, &sch, &err);
    if (rc != FL_OK) {
        fprintf(stderr, "fuzz_ingest_body: schema: %s\n", err.msg);
        abort();
    }
    fl_ingest_body_format f = FL_INGEST_BODY_NDJSON;
    if (size) {
        f = (fl_ingest_body_format)(data[0] % 4);
        if (f == 0)
            f = (fl_ingest_body_format)(data[0] >> 2); /* mostly unknown formats */
        data++, size--;
    }
    uint64_t rows = 0;
    rc = fl_ingest_body_write(&sch, NULL, f, size ? (const char *)data : "", size, NULL, &rows,
                              &err);
    if (rc != FL_OK && (!err.msg[0] || !strstr(err.msg, "body"))) {
        fprintf(stderr, "fuzz_ingest_body: failure %d without a message naming the body: '%s'\n",
                (int)rc, err.msg);
        abort();
    }
    if (rc == FL_OK && rows > size) {
        fprintf(stderr, "fuzz_ingest_body: %llu records from %zu bytes\n", (unsigned long long)rows,
                size);
        abort();
    }
    fl_arena_free(&a);
    if (rows_out)
        *rows_out = rows;
    if (err_out)
        *err_out = err;
    return rc;
}

#ifndef INGEST_BODY_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    body_fuzz_one(data, size, NULL, NULL);
    return 0;
}
#endif
