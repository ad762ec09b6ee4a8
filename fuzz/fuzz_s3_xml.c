/*
 * fuzz_s3_xml.c - the S3 XML reader (src/io/xml_reader.c) and every document
 * parser on it (ListObjectsV2, InitiateMultipartUpload, DeleteObjects result,
 * <Error>) on arbitrary bytes: an error or a result, never a crash, an
 * out-of-bounds read, a leak, or an allocation beyond the documented limits.
 * Properties checked: a parsed list page has n keys and sizes, a truncated
 * page always has a non-empty continuation token, and parsing is
 * deterministic (the same input gives the same status twice).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/s3_internal.h"

static fl_status on_del(void *ctx, const char *key, const char *code, const char *msg)
{
    (*(size_t *)ctx) += strlen(key) + strlen(code) + strlen(msg);
    return FL_OK;
}

static fl_status on_event(void *ctx, int ev, unsigned depth, const char *name, const char *text,
                          size_t tl)
{
    if (depth == 0 || depth > IO_XML_MAX_DEPTH || strlen(name) > IO_XML_MAX_NAME ||
        tl > IO_XML_MAX_TEXT + 4)
        abort();
    if (text && strlen(text) > tl)
        abort(); /* text is NUL-terminated at tl (it may hold no NUL itself) */
    (*(size_t *)ctx)++;
    return FL_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *xml = (const char *)data;
    fl_error err;
    size_t events = 0;
    fl_status a = io_xml_walk(xml, size, on_event, &events, &err);
    fl_status b = io_xml_walk(xml, size, on_event, &events, &err);
    if (a != b)
        abort();

    s3_list_page p;
    if (s3_xml_parse_list(xml, size, &p, &err) == FL_OK) {
        for (size_t i = 0; i < p.n; i++)
            if (!p.keys[i])
                abort();
        if (p.truncated && (!p.next_token || !*p.next_token))
            abort();
        s3_list_page_free(&p);
    }
    char *id = NULL;
    if (s3_xml_parse_upload_id(xml, size, &id, &err) == FL_OK) {
        if (!id || !*id)
            abort();
        free(id);
    }
    size_t total = 0;
    (void)s3_xml_parse_delete_result(xml, size, on_del, &total, &err);
    io_xml_error e;
    if (io_xml_parse_error(xml, size, &e) &&
        (strlen(e.code) >= sizeof e.code || strlen(e.message) >= sizeof e.message))
        abort();
    return 0;
}
